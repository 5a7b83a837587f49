"""numpy.linalg: inverses, solves, determinants, cholesky, qr, pinv, lstsq.

Matrices may be stacked (batched) in the leading axes; srcad.T swaps the last two axes.

Assumptions and choices (the same in both modes):
- inv and solve need an invertible matrix (as NumPy does: LinAlgError).
- det's derivative is the transposed adjugate, computed from the SVD without division, so
  it exists at singular matrices too (srcad.adjugate; second derivatives too, third
  derivatives are refused). slogdet at a singular matrix gives -inf, as NumPy does, and
  its derivative inf or NaN entries (never LinAlgError).
- cholesky reads one triangle of a (the lower one; the upper one for upper=True) as a
  symmetric matrix, and so does its derivative: the other triangle gets derivative 0, and
  an element below the diagonal stands for itself and its mirror image (srcad.from_triangle
  and its adjoint srcad.to_triangle). eigh, eigvalsh, svd, svdvals: numpy_spectral.py.
- qr: the reduced factorisation of a matrix with m >= n and full rank.
- pinv and lstsq: valid where the rank is locally constant (full rank).
- norms: numpy_norms.py.
"""

from ..ir import types as T
from . import shapes_numpy as shn
from . import typefns as ty
from . import vmaps as vm
from .registry import conjugated, defrule, family

family("numpy linalg", raises="always")  # LinAlgError: singular, not positive definite, NaN

TT = "srcad.T"


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

# inv and solve of complex matrices: the adjoints with conjugate transposes (registry.conjugated)
_INV_VJP = f"-({TT}(ans) @ g @ {TT}(ans))"
defrule("numpy.linalg.inv", "a", jvp="-(ans @ t @ ans)", vjp=_INV_VJP, out=SAME,
        shape=shn.same("a"), complex="keeps", complex_vjp=conjugated(_INV_VJP), vmap=vm.same)  # (stacks too)
# a 1-d b is one vector (the stacks of a broadcast against it); otherwise the stacks of a
# and b broadcast (the transform sums cotangents over broadcast dimensions)
_BBAR = (f"(np.linalg.solve({TT}(a), np.expand_dims(g, -1))[..., 0] if np.ndim(b) == 1 "
         f"else np.linalg.solve({TT}(a), g))")  # spliced as text: it is used inside a branch
_SOLVE_VJP = {"a": f"-(np.expand_dims({_BBAR}, -1) * np.expand_dims(ans, -2)) if np.ndim(b) == 1 "
                   f"else -({_BBAR} @ {TT}(ans))",
              "b": _BBAR}
defrule("numpy.linalg.solve", "a, b",
        jvp={"a": "-np.linalg.solve(a, t @ np.expand_dims(ans, -1))[..., 0] if np.ndim(b) == 1 "
                  "else -np.linalg.solve(a, t @ ans)",
             "b": "np.linalg.solve(a, np.expand_dims(t, -1))[..., 0] if np.ndim(b) == 1 "
                  "else np.linalg.solve(a, t)"},
        vjp=_SOLVE_VJP, complex="keeps", complex_vjp={p: conjugated(v) for p, v in _SOLVE_VJP.items()},
        out=ty.solved("a", "b"), broadcasts=("a", "b"), linear=("b",), shape=shn.solve)
# det: d det(a) = tr(adj(a) da), with the adjugate computed without inverting a (from its
# SVD), so that it exists at singular matrices too (srcad.adjugate, to second order)
_ADJ_T = f"{TT}(srcad.adjugate(a))"
_GMAT = "({g} if np.ndim({g}) == 0 else np.expand_dims(np.expand_dims({g}, -1), -1))"  # scales matrices
defrule("numpy.linalg.det", "a", jvp=f"np.sum({_ADJ_T} * t, axis=(-2, -1))",
        vjp=f"{_GMAT.format(g='g')} * {_ADJ_T}", out=_batch_scalar("a"), raises="never", vmap=vm.same)


def _slogdet_type(sig):
    t = _batch_scalar("a")(sig)
    return (t, t)


# slogdet: d log|det(a)| = tr(inv(a) da); at a singular matrix log|det(a)| is -inf, as NumPy
# says, and its derivative inf or NaN (srcad.inverse_or_inf): no LinAlgError
_INV_T = f"{TT}(srcad.inverse_or_inf(a))"
defrule("numpy.linalg.slogdet", "a", nouts=2,
        jvp_all=f"(srcad.zeros_like(ans0), np.sum({_INV_T} * t_a, axis=(-2, -1)))",
        vjp={"a": f"{_GMAT.format(g='g1')} * {_INV_T}"}, out=_slogdet_type, raises="never")

# cholesky: S = L L^T with S the symmetric matrix read from one triangle of a,
# dL = L phi(L^-1 dS L^-T) with phi = lower triangle, half diagonal; upper=True gives U = L^T
_PHI = f"(1.0 - 0.5 * {EYE})"
_LO = f"({TT}(ans) if upper else ans)"  # L
_CHOL_X = f"{TT}(np.linalg.solve({_LO}, {TT}(np.linalg.solve({_LO}, srcad.from_triangle(t, upper)))))"
_CHOL_DL = f"{_LO} @ np.tril({_CHOL_X} * {_PHI})"
_CHOL_S = (f"{TT}(np.linalg.solve({TT}({_LO}), {TT}(np.linalg.solve({TT}({_LO}), "
           f"np.tril(({TT}({_LO}) @ ({TT}(g) if upper else g)) * {_PHI})))))")
defrule("numpy.linalg.cholesky", "a, upper=False", let={"S": _CHOL_S},
        jvp={"a": f"{TT}({_CHOL_DL}) if upper else {_CHOL_DL}"}, vjp={"a": "srcad.to_triangle(S, upper)"},
        out=SAME, shape=shn.same("a"))

# qr (reduced, m >= n): X = Q^T da R^-1, omega = its strictly lower part made skew
_QR_R = "srcad.qr_square_r(ans1)"  # (R square: a wide a's derivative is refused)
_QR_B = f"{TT}(np.linalg.solve({TT}({_QR_R}), {TT}(t_a)))"
_QR_X = f"({TT}(ans0) @ {_QR_B})"
_QR_OM = f"(np.tril({_QR_X}, -1) - {TT}(np.tril({_QR_X}, -1)))"
defrule("numpy.linalg.qr", "a", nouts=2,
        let={"M": f"ans1 @ {TT}(g1) - {TT}(g0) @ ans0"},
        jvp_all=f"(ans0 @ {_QR_OM} + {_QR_B} - ans0 @ {_QR_X}, ({_QR_X} - {_QR_OM}) @ ans1)",
        vjp={"a": f"{TT}(np.linalg.solve({_QR_R}, {TT}(g0 + ans0 @ (np.tril(M) + {TT}(np.tril(M, -1))))))"},
        diff=("a",), out=lambda sig: (ty.rank("a")(sig), ty.rank("a")(sig)), raises="never")

# pinv (Golub and Pereyra 1973), p = pinv(a), where the rank of a is locally constant
_IM = "(np.eye(np.shape(a)[-2]) - a @ {p})"  # I - A P
_IN = "(np.eye(np.shape(a)[-1]) - {p} @ a)"  # I - P A


def _pinv_jvp(p: str, t: str) -> str:
    return (f"(-({p} @ {t} @ {p}) + {p} @ {TT}({p}) @ {TT}({t}) @ {_IM.format(p=p)} "
            f"+ {_IN.format(p=p)} @ {TT}({t}) @ {TT}({p}) @ {p})")


def _pinv_vjp(p: str, g: str) -> str:
    return (f"(-({TT}({p}) @ {g} @ {TT}({p})) + {_IM.format(p=p)} @ {TT}({g}) @ {p} @ {TT}({p}) "
            f"+ {TT}({p}) @ {p} @ {TT}({g}) @ {_IN.format(p=p)})")


defrule("numpy.linalg.pinv", "a", jvp=_pinv_jvp("ans", "t"), vjp=_pinv_vjp("ans", "g"), out=SAME,
        shape=shn.pinv)

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
