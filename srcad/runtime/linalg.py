"""Linear algebra: the triangle eigh and cholesky read, quotients by differences of
eigenvalues that are exact at ties, the adjugate (the derivative of det, also at
singular matrices) and its derivatives, the derivative of slogdet, and the rank of an
SVD.

srcad/rules/numpy_linalg.py and numpy_spectral.py call them (their rules: helpers.py).
"""

import numpy as np

from .reductions import prod_partials

__all__ = ["from_triangle", "to_triangle", "tie_div", "adjugate", "adjugate_jvp", "adjugate_vjp",
           "inverse_or_inf", "svd_rank"]


def from_triangle(x, upper=False):
    """The symmetric matrices np.linalg.eigh, eigvalsh and cholesky read from x: its lower
    (upper) triangle, mirrored. (The other triangle of x is never read.)"""
    x = np.asarray(x, dtype=float)
    if upper:
        return np.triu(x) + np.swapaxes(np.triu(x, 1), -1, -2)
    return np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)


def to_triangle(c, upper=False):
    """The adjoint of from_triangle: in the triangle read, c plus its transpose off the
    diagonal (an element there stands for two), c on the diagonal; zeros elsewhere."""
    c = np.asarray(c, dtype=float)
    if upper:
        return np.triu(c) + np.triu(np.swapaxes(c, -1, -2), 1)
    return np.tril(c) + np.tril(np.swapaxes(c, -1, -2), -1)


def tie_div(num, d, tol):
    """num / d, where d is a difference (or sum) of eigenvalues or singular values; where
    |d| <= tol (values equal up to rounding) the quotient is 0 where num is 0 and NaN
    elsewhere: a derivative that needs the vectors of a repeated value is not defined."""
    tie = np.abs(d) <= tol
    return np.where(tie, np.where(num == 0.0, 0.0, np.nan), num / np.where(tie, 1.0, d))


def _svd_sign(a):
    """a = U diag(s) Vh, and det(U) det(Vh) (+-1), shaped to scale matrices (NaN for a
    matrix with non-finite entries, where np.linalg.det gives NaN rather than raising)."""
    if not np.all(np.isfinite(a)):
        nan = np.full(np.shape(a), np.nan)
        return nan, nan[..., 0], nan, nan[..., :1, :1]
    u, s, vh = np.linalg.svd(a)
    sign = np.sign(np.linalg.det(u) * np.linalg.det(vh))
    return u, s, vh, sign[..., None, None]


def adjugate(a):
    """adj(a) = det(a) inv(a), also for singular a. Where a is well conditioned (the
    1-norm condition number below 1 / sqrt(eps)) it is det(a) inv(a); otherwise, with
    a = U diag(s) Vh, det(U) det(Vh) Vh^T diag(p) U^T where p_i is the product of the s_j
    other than s_i (no division, exact at singular matrices)."""
    a = np.asarray(a, dtype=float)
    if a.shape[-1] == 0:
        return np.zeros_like(a)  # (a 0x0 matrix: det is 1, a constant)
    try:
        inv = np.linalg.inv(a)
        norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1) * np.max(np.sum(np.abs(inv), axis=-2), axis=-1)
        if np.all(norm < 6.7e7) or not np.all(np.isfinite(norm)):
            return np.linalg.det(a)[..., None, None] * inv
    except np.linalg.LinAlgError:
        pass
    u, s, vh, sign = _svd_sign(a)
    return sign * (np.swapaxes(vh, -1, -2) * prod_partials(s, -1)[..., None, :]) @ np.swapaxes(u, -1, -2)


def _pair_products(s):
    """q[..., i, j]: the product of the s_k other than s_i and s_j (0 for i == j)."""
    eye = np.eye(np.shape(s)[-1], dtype=bool)
    return np.where(eye, 0.0, prod_partials(np.where(eye, 1.0, s[..., None, :]), -1))


def _adjugate_step(q, p):
    """The derivative of adj(diag(s)) along p (q from _pair_products(s)): q @ diag(p) on the
    diagonal, -q * p off it. It is its own transpose."""
    return np.einsum("...ij,...jj->...i", q, p)[..., None] * np.eye(np.shape(p)[-1]) - q * p


def adjugate_jvp(a, v):
    """The derivative of adj(a) along v: adj(a + v) = sign Vh^T adj(diag(s) + U^T v Vh^T) U^T."""
    u, s, vh, sign = _svd_sign(np.asarray(a, dtype=float))
    p = np.swapaxes(u, -1, -2) @ v @ np.swapaxes(vh, -1, -2)
    return sign * np.swapaxes(vh, -1, -2) @ _adjugate_step(_pair_products(s), p) @ np.swapaxes(u, -1, -2)


def adjugate_vjp(a, c):
    """The adjoint of v -> adjugate_jvp(a, v) for the cotangent c."""
    u, s, vh, sign = _svd_sign(np.asarray(a, dtype=float))
    h = vh @ c @ u
    return sign * u @ _adjugate_step(_pair_products(s), h) @ vh


def inverse_or_inf(a):
    """inv(a), the derivative of log|det(a)| (transposed). Where a is singular, log|det(a)|
    is -inf (np.linalg.slogdet) and this is adj(a) / 0: inf, or NaN where adj(a) is 0."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return adjugate(a) / np.linalg.det(a)[..., None, None]


def svd_rank(a, full_matrices=True):
    """min(m, n) for the SVD of a. Raises for full_matrices=True on a non-square matrix: its
    extra singular vectors are not unique, so they have no derivative."""
    m, n = np.shape(a)[-2:]
    if full_matrices and m != n:
        raise ValueError("srcad: differentiating np.linalg.svd of a non-square matrix needs "
                         "full_matrices=False")
    return min(m, n)
