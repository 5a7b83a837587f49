"""scipy.linalg's packed storage: the row order of an LU factorisation's pivots, and
banded matrices (solve_banded's `ab`: ab[u + i - j, j] = a[i, j]) transposed, applied to
vectors and as the adjoint of that product.

srcad/rules/scipy_linalg.py calls them (their rules are beside it)."""

import numpy as np

from .checks import _error_at

__all__ = ["lu_rows", "band_transpose", "band_matvec", "band_outer", "qr_operand", "qr_square_r"]


def lu_rows(piv):
    """The row order p with a[p] = l @ u, from LAPACK's pivots (row i was swapped with row
    piv[i], in turn): scipy.linalg.lu_factor's second result (for each matrix of a stack)."""
    piv = np.asarray(piv)
    flat = np.reshape(piv, (-1, np.shape(piv)[-1]))
    out = np.empty_like(flat)
    for b, swaps in enumerate(flat):
        perm = np.arange(len(swaps))
        for i, j in enumerate(swaps):
            perm[i], perm[j] = perm[j], perm[i]
        out[b] = perm
    return np.reshape(out, np.shape(piv))


def _band(shape, l_and_u):
    """For each position (r, j) of a band array: the row i of the matrix it stands for, and
    whether it stands for one (the corners of the band array are not read)."""
    lower, upper = l_and_u
    r = np.arange(lower + upper + 1)[:, None]
    j = np.arange(shape[-1])[None, :]
    i = r - upper + j
    valid = (i >= 0) & (i < shape[-1])
    return np.where(valid, i, 0), j + 0 * r, valid


def band_transpose(ab, l_and_u):
    """The band array of the transposed matrix, whose (lower, upper) is (u, l); the corners
    that stand for no element are 0. Its adjoint is band_transpose(., (u, l))."""
    ab = np.asarray(ab, dtype=float)
    i, j, valid = _band(np.shape(ab), l_and_u)
    lower, upper = l_and_u
    out = np.zeros(np.shape(ab))
    # a[i, j] is at (u + i - j, j) here and at (l + j - i, i) in the transpose
    out[(lower + j - i)[valid], i[valid]] = ab[valid]
    return out


def band_matvec(ab, x, l_and_u):
    """a @ x for the matrix a stored in the band array ab (x a vector or a matrix)."""
    ab, x = np.asarray(ab, dtype=float), np.asarray(x, dtype=float)
    i, j, valid = _band(np.shape(ab), l_and_u)
    cols = x if x.ndim > 1 else x[:, None]
    out = np.zeros((np.shape(ab)[-1], cols.shape[1]))
    np.add.at(out, i[valid], ab[valid][:, None] * cols[j[valid]])
    return out if x.ndim > 1 else out[:, 0]


def band_outer(c, x, l_and_u):
    """The band array of c @ x^T (vectors, or the sum over the columns of matrices): the
    adjoint of ab -> band_matvec(ab, x, l_and_u) for the cotangent c."""
    c, x = np.asarray(c, dtype=float), np.asarray(x, dtype=float)
    n = np.shape(c)[0]
    lower, upper = l_and_u
    i, j, valid = _band((lower + upper + 1, n), l_and_u)
    rows, cols = (c, x) if x.ndim > 1 else (c[:, None], x[:, None])
    return np.where(valid, np.sum(rows[i] * cols[j], axis=-1), 0.0)


def qr_operand(a, mode="full"):
    """a, for scipy.linalg.qr in this mode: its derivative is that of np.linalg.qr (the
    reduced factorisation), so a must be one matrix, not wide, and mode='full' needs a square
    a (the extra columns of a tall a's full Q are not unique: they have no derivative)."""
    m, n = np.shape(a)[-2:]
    if np.ndim(a) != 2 or m < n or (mode == "full" and m != n):
        raise ValueError("srcad: differentiating scipy.linalg.qr needs one square matrix, or a tall one "
                         "with mode='economic' (or 'r')")
    return a


def qr_square_r(r):
    """r, np.linalg.qr's R, where the derivative of the factorisation exists as srcad writes
    it: R square (a tall or square a). A wide a's R is not: its derivative is refused (NumPy's
    solve raised LinAlgError in generated code)."""
    if np.shape(r)[-2] != np.shape(r)[-1]:
        raise _error_at("NoRuleError", ValueError, "np.linalg.qr",
                        "the derivative of the QR factorisation of a wide matrix (fewer rows than "
                        "columns) is not implemented", "factor the transpose, or a square block of it")
    return r
