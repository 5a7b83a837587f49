"""Source implementations of scipy.linalg functions (registered by rules/scipy_linalg.py):
plain Python in the subset srcad transforms, inlined in place of the call, so that their
derivatives, in both modes and to any order, come from the rules of what they call
(numpy.linalg, and scipy.linalg.solve_triangular, lu_factor and expm, whose rules are in
rules/scipy_linalg.py). Each computes what scipy computes (the same LAPACK factorisations)
and reads the same entries of its arguments: a symmetric `assume_a` reads one triangle
(`lower`), a triangular one a triangle, 'diagonal' the diagonal.

overwrite_a and overwrite_b only allow scipy to destroy an argument: these
implementations never do, which is what the caller sees when scipy does not either.
check_finite is not checked: non-finite entries give NaN or LinAlgError instead of
ValueError.
"""

import numpy as np
import scipy.linalg as linalg

from .. import runtime as srcad

#: the `assume_a` of inv and solve whose entries these implementations read as scipy does
#: (scipy's inv ignores 'diagonal': it inverts the whole matrix; not accepted, to be safe)
ASSUME_INV = (None, "general", "gen", "sym", "symmetric", "her", "hermitian", "pos", "positive definite",
              "upper triangular", "lower triangular")
ASSUME_SOLVE = ASSUME_INV + ("diagonal",)
_SYMMETRIC = ("sym", "symmetric", "her", "hermitian")


def _read(a, assume_a, lower):
    """The matrix scipy reads from a for this assume_a."""
    if assume_a in _SYMMETRIC or assume_a in ("pos", "positive definite"):
        return srcad.from_triangle(a, not lower)
    if assume_a == "upper triangular":
        return np.triu(a)
    if assume_a == "lower triangular":
        return np.tril(a)
    if assume_a == "diagonal":
        return a * np.eye(np.shape(a)[-1])
    return a


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    m = _read(a, assume_a, lower)
    if assume_a in ("pos", "positive definite"):
        li = np.linalg.inv(np.linalg.cholesky(m))  # (LinAlgError unless positive definite, as scipy)
        return srcad.T(li) @ li
    return np.linalg.inv(m)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    m = _read(a, assume_a, lower)
    if transposed:
        m = srcad.T(m)
    if assume_a in ("pos", "positive definite"):
        low = np.linalg.cholesky(m)
        return np.linalg.solve(srcad.T(low), np.linalg.solve(low, b))
    return np.linalg.solve(m, b)


def det(a, overwrite_a=False, check_finite=True):
    return np.linalg.det(a)


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    return np.linalg.pinv(a)


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    x, residues, rank, s = np.linalg.lstsq(a, b, cond)
    if lapack_driver == "gelsy":  # (neither residues nor singular values, as scipy)
        return x, np.zeros((0,)), rank, None
    if np.ndim(b) == 1 and np.size(residues) == 1:
        residues = residues[0]  # (scipy gives a 1-d b's residual as a number)
    return x, residues, rank, s


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    uplo = "L" if lower else "U"
    if eigvals_only:
        w = np.linalg.eigvalsh(a, uplo)
        if subset_by_index is None:
            return w
        return w[..., subset_by_index[0]:subset_by_index[1] + 1]
    w, v = np.linalg.eigh(a, uplo)
    if subset_by_index is None:
        return w, v
    lo, hi = subset_by_index[0], subset_by_index[1] + 1
    return w[..., lo:hi], v[..., lo:hi]


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    return np.linalg.svd(a, full_matrices, compute_uv)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    # (the rule of np.linalg.qr: m >= n, full rank; mode='full' needs a square a)
    q, r = np.linalg.qr(srcad.qr_operand(a, mode))
    if mode == "r":  # (all m rows of r, as scipy)
        return (np.pad(r, ((0, np.shape(a)[0] - np.shape(a)[1]), (0, 0))),)
    return q, r


def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    return np.linalg.norm(a, ord, axis, keepdims)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    return np.linalg.cholesky(a, upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    # the triangle LAPACK does not write keeps a's entries, as in scipy
    if lower:
        return np.linalg.cholesky(a) + np.triu(a, 1), lower
    return np.linalg.cholesky(a, upper=True) + np.tril(a, -1), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    if lower:
        return linalg.solve_triangular(c, linalg.solve_triangular(c, b, 0, True), 1, True)
    return linalg.solve_triangular(c, linalg.solve_triangular(c, b, 1, False), 0, False)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    # a = P L U for a square a, from lu_factor (the same LAPACK getrf: the same factors)
    packed, piv = linalg.lu_factor(a)
    rows = srcad.lu_rows(piv)  # a[rows] = L U
    low = np.tril(packed, -1) + np.eye(np.shape(a)[-1])
    if permute_l:
        return np.take_along_axis(low, np.expand_dims(np.argsort(rows, -1), -1), -2), np.triu(packed)
    if p_indices:
        return np.argsort(rows, -1), low, np.triu(packed)
    return srcad.T(np.eye(np.shape(a)[-1])[rows]), low, np.triu(packed)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu, piv = lu_and_piv
    rows = srcad.lu_rows(piv)
    if trans == 0:
        return linalg.solve_triangular(lu, linalg.solve_triangular(lu, b[rows], 0, True, True), 0, False)
    y = linalg.solve_triangular(lu, linalg.solve_triangular(lu, b, 1, False), 1, True, True)
    return y[np.argsort(rows)]


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    n = np.shape(A)[-1]
    big = linalg.expm(np.concatenate([np.concatenate([A, E], axis=-1),
                                      np.concatenate([np.zeros_like(A), A], axis=-1)], axis=-2))
    if compute_expm:
        return big[..., :n, :n], big[..., :n, n:]
    return big[..., :n, n:]
