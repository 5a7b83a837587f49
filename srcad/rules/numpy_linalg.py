"""numpy.linalg: inverses, solves, determinants, factorisations and norms.

Matrices may be stacked (batched) in the leading axes; srcad.T swaps the last two axes.

Assumptions and choices (the same in both modes):
- inv, solve, det, slogdet need an invertible matrix (det uses inv(a): its derivative at a
  singular matrix raises LinAlgError instead of using the adjugate).
- cholesky, eigh and eigvalsh read one triangle of a (the lower one; the upper one for
  UPLO='U' or upper=True) as a symmetric matrix, and so do their derivatives: the other
  triangle gets derivative 0, and an element below the diagonal stands for itself and its
  mirror image (srcad.from_triangle and its adjoint srcad.to_triangle).
- eigh and svd need distinct eigenvalues / singular values (and svd of a non-square matrix
  nonzero ones); at degenerate points the derivative is inf/NaN. svd of a non-square
  matrix needs full_matrices=False (the extra singular vectors have no derivative).
- qr: the reduced factorisation of a matrix with m >= n and full rank.
- pinv and lstsq: valid where the rank is locally constant (full rank).
- norm: at x = 0 the 2-norm and Frobenius norm get derivative 0; ties of the inf/1 norms
  are split equally; the spectral norm (ord=2) follows the first singular vector pair.
  Matrix norms take axis=None (2-d x) or a 2-tuple axis.
"""

from ..ir import types as T
from . import typefns as ty
from .registry import defrule, family

family("numpy linalg", raises="always")  # LinAlgError: singular, not positive definite, NaN

TT = "srcad.T"


def _sym(v: str) -> str:
    return f"(0.5 * ({v} + {TT}({v})))"


def _batch_scalar(name: str):
    """det-like results: a float for a matrix, an array for a stack of matrices."""
    def out(sig) -> T.Type:
        nd = ty._ndim_of(sig.type(name))
        if nd == 2:
            return T.FLOAT
        return T.Array(nd - 2, "f") if nd is not None else T.NUM
    return out


SAME = ty.rank("a")
EYE = "np.eye(np.shape(a)[-1])"

defrule("numpy.linalg.inv", "a", jvp="-(ans @ t @ ans)", vjp=f"-({TT}(ans) @ g @ {TT}(ans))", out=SAME)
def _solve_type(sig) -> T.Type:
    na, nb = ty._ndim_of(sig.type("a")), ty._ndim_of(sig.type("b"))
    if na is None or nb is None:
        return T.Array(None, "f")
    return T.Array(na - 1 if nb == 1 else max(na, nb), "f")


# a 1-d b is one vector (the stacks of a broadcast against it); otherwise the stacks of a
# and b broadcast (the transform sums cotangents over broadcast dimensions)
_BBAR = (f"(np.linalg.solve({TT}(a), np.expand_dims(g, -1))[..., 0] if np.ndim(b) == 1 "
         f"else np.linalg.solve({TT}(a), g))")  # spliced as text: it is used inside a branch
defrule("numpy.linalg.solve", "a, b",
        jvp={"a": "-np.linalg.solve(a, t @ np.expand_dims(ans, -1))[..., 0] if np.ndim(b) == 1 "
                  "else -np.linalg.solve(a, t @ ans)",
             "b": "np.linalg.solve(a, np.expand_dims(t, -1))[..., 0] if np.ndim(b) == 1 else np.linalg.solve(a, t)"},
        vjp={"a": f"-(np.expand_dims({_BBAR}, -1) * np.expand_dims(ans, -2)) if np.ndim(b) == 1 "
                  f"else -({_BBAR} @ {TT}(ans))",
             "b": _BBAR},
        out=_solve_type, broadcasts=("a", "b"), linear=("b",))
_INV_T = f"{TT}(np.linalg.inv(a))"
_TRACE_SOLVE = "np.trace(np.linalg.solve(a, {t}), axis1=-2, axis2=-1)"
defrule("numpy.linalg.det", "a", jvp="ans * " + _TRACE_SOLVE.format(t="t"),
        vjp="np.expand_dims(np.expand_dims(g * ans, -1), -1) * " + _INV_T, out=_batch_scalar("a"),
        raises="never")


def _slogdet_type(sig):
    t = _batch_scalar("a")(sig)
    return (t, t)


defrule("numpy.linalg.slogdet", "a", nouts=2,
        jvp_all="(srcad.zeros_like(ans0), " + _TRACE_SOLVE.format(t="t_a") + ")",
        vjp={"a": "np.expand_dims(np.expand_dims(g1, -1), -1) * " + _INV_T}, out=_slogdet_type,
        raises="never")

# cholesky: S = L L^T with S the symmetric matrix read from one triangle of a,
# dL = L phi(L^-1 dS L^-T) with phi = lower triangle, half diagonal; upper=True gives U = L^T
_PHI = f"(1.0 - 0.5 * {EYE})"
_LO = f"({TT}(ans) if upper else ans)"  # L
_CHOL_X = f"{TT}(np.linalg.solve({_LO}, {TT}(np.linalg.solve({_LO}, srcad.from_triangle(t, upper)))))"
_CHOL_DL = f"{_LO} @ np.tril({_CHOL_X} * {_PHI})"
_CHOL_S = (f"{TT}(np.linalg.solve({TT}({_LO}), {TT}(np.linalg.solve({TT}({_LO}), "
           f"np.tril(({TT}({_LO}) @ ({TT}(g) if upper else g)) * {_PHI})))))")
defrule("numpy.linalg.cholesky", "a, upper=False", let={"S": _CHOL_S},
        jvp={"a": f"{TT}({_CHOL_DL}) if upper else {_CHOL_DL}"}, vjp={"a": "srcad.to_triangle(S, upper)"}, out=SAME)

# eigh: S = V diag(w) V^T (S read from one triangle of a); F[i, j] = 1 / (w[j] - w[i]) off
# the diagonal, 0 on it
_UP = "UPLO in ('U', 'u')"
_F = "1.0 / (np.expand_dims({w}, -2) - np.expand_dims({w}, -1) + {eye}) - {eye}"
_EIGH_F = _F.format(w="ans0", eye=EYE)
_EIGH_P = f"({TT}(ans1) @ srcad.from_triangle(t_a, {_UP}) @ ans1)"
_EIGH_S = f"ans1 @ (np.expand_dims(g0, -1) * {EYE} + F * ({TT}(ans1) @ g1)) @ {TT}(ans1)"
defrule("numpy.linalg.eigh", "a, UPLO='L'", nouts=2, let={"F": _EIGH_F, "S": _EIGH_S},
        jvp_all=f"(np.diagonal({_EIGH_P}, 0, -2, -1), ans1 @ (F * {_EIGH_P}))",
        vjp={"a": f"srcad.to_triangle(S, {_UP})"}, diff=("a",),
        out=lambda sig: (ty.rank("a", -1)(sig), ty.rank("a")(sig)))
defrule("numpy.linalg.eigvalsh", "a, UPLO='L'", let={"V": "np.linalg.eigh(a, UPLO)[1]"},
        jvp={"a": f"np.sum(V * (srcad.from_triangle(t, {_UP}) @ V), axis=-2)"},
        vjp={"a": f"srcad.to_triangle(V @ (np.expand_dims(g, -1) * {TT}(V)), {_UP})"}, out=ty.rank("a", -1))

# qr (reduced, m >= n): X = Q^T da R^-1, omega = its strictly lower part made skew
_QR_B = f"{TT}(np.linalg.solve({TT}(ans1), {TT}(t_a)))"
_QR_X = f"({TT}(ans0) @ {_QR_B})"
_QR_OM = f"(np.tril({_QR_X}, -1) - {TT}(np.tril({_QR_X}, -1)))"
defrule("numpy.linalg.qr", "a", nouts=2,
        let={"M": f"ans1 @ {TT}(g1) - {TT}(g0) @ ans0"},
        jvp_all=f"(ans0 @ {_QR_OM} + {_QR_B} - ans0 @ {_QR_X}, ({_QR_X} - {_QR_OM}) @ ans1)",
        vjp={"a": f"{TT}(np.linalg.solve(ans1, {TT}(g0 + ans0 @ (np.tril(M) + {TT}(np.tril(M, -1))))))"},
        diff=("a",), out=lambda sig: (ty.rank("a")(sig), ty.rank("a")(sig)), raises="never")

# svd (Townsend 2016): a = U diag(s) Vh; F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal
_SVD_LET = {
    "k": "srcad.svd_rank(a, full_matrices)",
    "F": _F.format(w="(ans1 * ans1)", eye="np.eye(k)"),
    "J": f"{TT}(ans0) @ g0",
    "K": f"ans2 @ {TT}(g2)",
}
_SVD_DP = f"({TT}(ans0) @ t_a @ {TT}(ans2))"
_ROW = "np.expand_dims(ans1, -2)"  # s as a row: X * _ROW scales columns
_COL = "np.expand_dims(ans1, -1)"
_SVD_DU = (f"ans0 @ (F * ({_SVD_DP} * {_ROW} + {_COL} * {TT}({_SVD_DP}))) "
           f"+ (t_a @ {TT}(ans2) - ans0 @ {_SVD_DP}) / {_ROW}")
_SVD_DV = (f"{TT}(ans2) @ (F * ({_COL} * {_SVD_DP} + {TT}({_SVD_DP}) * {_ROW})) "
           f"+ ({TT}(t_a) @ ans0 - {TT}(ans2) @ {TT}({_SVD_DP})) / {_ROW}")
_SVD_VJP = (f"ans0 @ ((F * (J - {TT}(J))) * {_ROW} + np.expand_dims(g1, -1) * np.eye(k) "
            f"+ {_COL} * (F * (K - {TT}(K)))) @ ans2 "
            f"+ ((g0 - ans0 @ J) / {_ROW}) @ ans2 + ans0 @ ((g2 - {TT}(K) @ ans2) / {_COL})")
defrule("numpy.linalg.svd", "a, full_matrices=True", nouts=3, let=_SVD_LET,
        jvp_all=f"({_SVD_DU}, np.diagonal({_SVD_DP}, 0, -2, -1), {TT}({_SVD_DV}))",
        vjp={"a": _SVD_VJP}, diff=("a",),
        out=lambda sig: (ty.rank("a")(sig), ty.rank("a", -1)(sig), ty.rank("a")(sig)))
defrule("numpy.linalg.svdvals", "x", let={"usv": "np.linalg.svd(x, full_matrices=False)"},
        jvp={"x": f"np.sum(usv[0] * (t @ {TT}(usv[2])), axis=-2)"},
        vjp={"x": "usv[0] @ (np.expand_dims(g, -1) * usv[2])"}, out=ty.rank("x", -1))

# pinv (Golub and Pereyra 1973), p = pinv(a), where the rank of a is locally constant
_IM = "(np.eye(np.shape(a)[-2]) - a @ {p})"  # I - A P
_IN = "(np.eye(np.shape(a)[-1]) - {p} @ a)"  # I - P A


def _pinv_jvp(p: str, t: str) -> str:
    return (f"(-({p} @ {t} @ {p}) + {p} @ {TT}({p}) @ {TT}({t}) @ {_IM.format(p=p)} "
            f"+ {_IN.format(p=p)} @ {TT}({t}) @ {TT}({p}) @ {p})")


def _pinv_vjp(p: str, g: str) -> str:
    return (f"(-({TT}({p}) @ {g} @ {TT}({p})) + {_IM.format(p=p)} @ {TT}({g}) @ {p} @ {TT}({p}) "
            f"+ {TT}({p}) @ {p} @ {TT}({g}) @ {_IN.format(p=p)})")


defrule("numpy.linalg.pinv", "a", jvp=_pinv_jvp("ans", "t"), vjp=_pinv_vjp("ans", "g"), out=SAME)

# lstsq: x = pinv(a) b; residuals r^2 with r = b - a x (at the optimum d(r^2)/dx = 0); s are
# the singular values of a; rank has no derivative. (A let that a run-time branch uses must
# not be first used inside it: see the note on lets in helpers.py.)
_LSTSQ_LET = {
    "P": "np.linalg.pinv(a)",
    "r": "b - a @ ans0",
    # the cotangent of the residuals, zeros when numpy returns none (rank < n or m <= n)
    "w": "g1 if np.size(ans1) > 0 else np.zeros(np.shape(b)[1:])",
    # x b^T-like products, with a 1-d b (and x) viewed as one column
    "Gx": f"np.reshape(g0, (np.shape(a)[-1], -1)) @ {TT}(np.reshape(b, (np.shape(a)[-2], -1)))",
    "Gr": f"np.reshape(r * w, (np.shape(a)[-2], -1)) @ {TT}(np.reshape(ans0, (np.shape(a)[-1], -1)))",
    "usv": "np.linalg.svd(a, full_matrices=False)",
}
defrule("numpy.linalg.lstsq", "a, b, rcond=None", nouts=4, let=_LSTSQ_LET,
        jvp_all=(f"({_pinv_jvp('P', 't_a')} @ b + P @ t_b, "
                 "(np.reshape(2.0 * np.sum(r * (t_b - t_a @ ans0), axis=0), np.shape(ans1)) "
                 "if np.size(ans1) > 0 else srcad.zeros_like(ans1)), 0.0, "
                 f"np.sum(usv[0] * (t_a @ {TT}(usv[2])), axis=-2))"),
        vjp={"a": (f"{_pinv_vjp('P', 'Gx')} - 2.0 * Gr "
                   "+ (usv[0] @ (np.expand_dims(g3, -1) * usv[2]) if np.any(g3) else 0.0)"),
             "b": f"{TT}(P) @ g0 + 2.0 * (r * w)"},
        diff=("a", "b"),
        out=lambda sig: (ty.rank("b")(sig), T.Array(1, "f"), T.INT, T.Array(1, "f")))
