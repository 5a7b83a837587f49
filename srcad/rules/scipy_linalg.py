"""scipy.linalg, registered when your code has imported it.

Rules of their own (templates calling scipy.linalg again, so second derivatives work):
- solve_triangular(a, b, trans, lower, unit_diagonal): reads one triangle of a (without
  its diagonal for unit_diagonal=True); the other entries get derivative 0. trans 0/'N'
  solves a x = b, 1/'T' and 2/'C' (the same for real a) a^T x = b.
- lu_factor(a) -> (lu, piv): a square a with a[p] = l @ u (p from piv: srcad.lu_rows); lu
  (P, L, U, or P L and U for permute_l=True) is made from it, for a square a too.
  piv is an int array, not differentiated; lu's derivative is that of the packed factors
  (the unit diagonal of l is not stored), exact while the pivots stay the same (the same
  assumption as everywhere: a differentiable branch).
- expm and logm: the Fréchet derivative by the block-triangular identity (see
  rules/matrix_functions.py); logm for real matrices whose logarithm is real (no
  eigenvalues on the closed negative real axis).
- solve_sylvester(a, b, q): a x + x b = q, where a and -b have no common eigenvalue.
- solve_banded((l, u), ab, b): ab in scipy's band storage; its corners, which stand for no
  entry of the matrix, get derivative 0.

Source implementations (rules/scipy_linalg_impl.py: inlined, derivatives from numpy.linalg
and the rules above): inv, solve, det, pinv, lstsq, eigh, svd, qr, norm, cholesky,
cho_factor, cho_solve, lu, lu_solve, expm_frechet. They read the entries scipy reads: with
assume_a='sym'/'her'/'pos' one triangle (upper unless lower=True), 'upper triangular' and
'lower triangular' a triangle, 'diagonal' the diagonal; cholesky and cho_factor the upper
triangle unless lower=True (scipy's default is the upper factor). cho_factor's c holds a's
entries in the triangle the factor does not use, as scipy's does, and its derivative is
theirs: exact for every use of c.

Refused (NoRuleError at the call): overwrite_a/overwrite_b=True where scipy's own call is
kept (solve_triangular, lu_factor, solve_banded: it would destroy a value derivatives
read); inv/solve with assume_a 'tridiagonal' or 'banded'; eigh with b (the generalized
problem), type != 1 or subset_by_value; pinv with atol, rtol or return_rank; qr with
pivoting or mode='raw'. qr follows np.linalg.qr (m >= n, full rank; mode='full' only for a
square a: a run-time error otherwise); svd and eigh are numpy's (gesdd) whatever
lapack_driver or driver says.
"""

import scipy.linalg as linalg

from .. import runtime as rt
from . import scipy_linalg_impl as impl
from . import typefns as ty
from .matrix_functions import frechet
from .registry import composite, defrule, family, nondiff

family("scipy.linalg", raises="always")  # LinAlgError: singular, not positive definite, NaN

NS = {"linalg": linalg}
TT = "srcad.T"
KEEP = {"overwrite_a": (False,), "overwrite_b": (False,)}

# -- solve_triangular --------------------------------------------------------------------------
_TRANS = "trans in (1, 2, 'T', 'C')"
_ST = "linalg.solve_triangular"


def _tri(x: str) -> str:
    """The part of x that solve_triangular reads."""
    return (f"((np.tril({x}, -1) if unit_diagonal else np.tril({x})) if lower else "
            f"(np.triu({x}, 1) if unit_diagonal else np.triu({x})))")


def _outer(u: str, v: str) -> str:
    """u v^T, for vectors (a 1-d b) or matrices (u @ v^T)."""
    return (f"(np.expand_dims({u}, -1) * np.expand_dims({v}, -2) if np.ndim(b) == 1 "
            f"else {u} @ {TT}({v}))")


def _solve(rhs: str, trans: str) -> str:
    """solve_triangular(a, rhs) shaped like b: a 1-d b is one vector, also against a stack of a."""
    args = f"{trans}, lower, unit_diagonal"
    return (f"({_ST}(a, np.expand_dims({rhs}, -1), {args})[..., 0] if np.ndim(b) == 1 "
            f"else {_ST}(a, {rhs}, {args}))")


def _apply(m: str, x: str) -> str:
    """m @ x for x shaped like b."""
    return f"(({m} @ np.expand_dims({x}, -1))[..., 0] if np.ndim(b) == 1 else {m} @ {x})"


_ST_GA = f"({_outer('ans', 'gb')} if {_TRANS} else {_outer('gb', 'ans')})"
_ST_DA = f"({TT}({_tri('t')}) if {_TRANS} else {_tri('t')})"
defrule("scipy.linalg.solve_triangular",
        "a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True",
        let={"gb": _solve("g", f"0 if {_TRANS} else 1")},
        jvp={"a": f"-{_solve(_apply(_ST_DA, 'ans'), 'trans')}", "b": _solve("t", "trans")},
        vjp={"a": f"-{_tri(_ST_GA)}", "b": "gb"},
        out=ty.solved("a", "b"), broadcasts=("a", "b"), linear=("b",), accepts={"overwrite_b": (False,)},
        namespace=NS)

# -- lu_factor: a[p] = L U, with X = L^-1 da[p] U^-1: dL = L tril(X, -1), dU = triu(X) U -----
_ROWS = "np.expand_dims(srcad.lu_rows(ans1), -1)"
_UNROWS = "np.expand_dims(np.argsort(srcad.lu_rows(ans1), -1), -1)"
_L = "(np.tril(ans0, -1) + np.eye(np.shape(a)[-1]))"
_LU_Y = f"{_ST}(ans0, np.take_along_axis(t_a, {_ROWS}, -2), 0, True, True)"
_LU_X = f"{TT}({_ST}(ans0, {TT}({_LU_Y}), 1, False))"
_LU_M = f"(np.tril({TT}({_L}) @ np.tril(g0, -1), -1) + np.triu(np.triu(g0) @ {TT}(np.triu(ans0))))"
_LU_Z = f"{_ST}(ans0, {TT}({_ST}(ans0, {TT}({_LU_M}), 0, False)), 1, True, True)"
defrule("scipy.linalg.lu_factor", "a, overwrite_a=False, check_finite=True", nouts=2,
        jvp_all=f"({_L} @ np.tril({_LU_X}, -1) + np.triu({_LU_X}) @ np.triu(ans0), 0.0)",
        vjp={"a": f"np.take_along_axis({_LU_Z}, {_UNROWS}, -2)"},
        diff=("a",), out=lambda sig: (ty.rank("a")(sig), ty.rank("a", -1, kind="i")(sig)),
        accepts={"overwrite_a": (False,)}, namespace=NS)
nondiff("srcad.lu_rows", "piv", out=lambda sig: sig.type("piv"), fn=rt.lu_rows)

# -- matrix functions: the Fréchet derivative (rules/matrix_functions.py) ----------------------
for _name in ("expm", "logm"):
    defrule(f"scipy.linalg.{_name}", "A", jvp={"A": frechet(f"linalg.{_name}({{}})", "A", "t")},
            vjp={"A": frechet(f"linalg.{_name}({{}})", f"{TT}(A)", "g")}, out=ty.rank("A"), namespace=NS)

# -- solve_sylvester: a x + x b = q; its adjoint solves a^T y + y b^T = g ----------------------
defrule("scipy.linalg.solve_sylvester", "a, b, q", let={"y": f"linalg.solve_sylvester({TT}(a), {TT}(b), g)"},
        jvp={"a": "linalg.solve_sylvester(a, b, -(t @ ans))", "b": "linalg.solve_sylvester(a, b, -(ans @ t))",
             "q": "linalg.solve_sylvester(a, b, t)"},
        vjp={"a": f"-(y @ {TT}(ans))", "b": f"-({TT}(ans) @ y)", "q": "y"}, out=ty.ranks("a", "b", "q"),
        linear=("q",), namespace=NS)

# -- solve_banded: a x = b with a in band storage ----------------------------------------------
_LU_T = "(l_and_u[1], l_and_u[0])"
defrule("scipy.linalg.solve_banded",
        "l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True",
        let={"gb": f"linalg.solve_banded({_LU_T}, srcad.band_transpose(ab, l_and_u), g)"},
        jvp={"ab": "-linalg.solve_banded(l_and_u, ab, srcad.band_matvec(t, ans, l_and_u))",
             "b": "linalg.solve_banded(l_and_u, ab, t)"},
        vjp={"ab": "-srcad.band_outer(gb, ans, l_and_u)", "b": "gb"}, out=ty.solved("ab", "b"), linear=("b",),
        accepts={"overwrite_ab": (False,), "overwrite_b": (False,)}, namespace=NS)
# the band helpers: band_transpose is linear, band_matvec and band_outer bilinear, and each
# one's adjoint is another
defrule("srcad.band_transpose", "ab, l_and_u", vjp={"ab": f"srcad.band_transpose(g, {_LU_T})"},
        out=ty.rank("ab"), fn=rt.band_transpose, linear=("ab",), raises="never")
defrule("srcad.band_matvec", "ab, x, l_and_u",
        vjp={"ab": "srcad.band_outer(g, x, l_and_u)",
             "x": f"srcad.band_matvec(srcad.band_transpose(ab, l_and_u), g, {_LU_T})"},
        out=ty.rank("x"), fn=rt.band_matvec, multilinear=("ab", "x"), raises="never")
defrule("srcad.band_outer", "c, x, l_and_u",
        vjp={"c": "srcad.band_matvec(g, x, l_and_u)",
             "x": f"srcad.band_matvec(srcad.band_transpose(g, l_and_u), c, {_LU_T})"},
        out=ty.array(2), fn=rt.band_outer, multilinear=("c", "x"), raises="never")

# -- source implementations ----------------------------------------------------------------------
composite("scipy.linalg.inv", impl.inv, accepts={"assume_a": impl.ASSUME_INV})
composite("scipy.linalg.solve", impl.solve, accepts={"assume_a": impl.ASSUME_SOLVE})
composite("scipy.linalg.eigh", impl.eigh, accepts={"b": (None,), "type": (1,), "subset_by_value": (None,)})
composite("scipy.linalg.pinv", impl.pinv, accepts={"atol": (None,), "rtol": (None,), "return_rank": (False,)})
composite("scipy.linalg.qr", impl.qr, accepts={"pivoting": (False,), "mode": ("full", "economic", "r")})
for _name in ("det", "lstsq", "svd", "norm", "cholesky", "cho_factor", "cho_solve", "lu", "lu_solve",
              "expm_frechet"):
    composite(f"scipy.linalg.{_name}", getattr(impl, _name))
defrule("srcad.qr_operand", "a, mode='full'", vjp={"a": "srcad.qr_operand(g, mode)"}, out=ty.same("a"),
        fn=rt.qr_operand, linear=("a",))
