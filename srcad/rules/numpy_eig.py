"""numpy.linalg.eig and eigvals of general (non-symmetric) real matrices: complex eigenvalues
and eigenvectors, differentiated as complex intermediate values (transforms/policy.py;
docs/subset.md, "Complex intermediate values").

With a = V diag(w) V^-1 (the columns of V the right eigenvectors) and P = V^-1 da V:

    dw = diag(P)
    dV = V (F * P) - V diag(Re(diag(V^H V (F * P)))),   F[i, j] = 1 / (w[j] - w[i]) off the
                                                         diagonal, 0 on it

The first term moves each eigenvector against the others; the second keeps its 2-norm 1, as
LAPACK returns it. LAPACK also fixes each eigenvector's phase (its largest component real),
and this derivative does not follow that choice: it is exact for functions that do not depend
on the phases of the eigenvectors (|V|, V diag(c) V^-1, the projector v v^H / v^H v, ...),
and a convention otherwise (the convention JAX's eig also gives). Eigenvalues must be
distinct (the reciprocals of their differences are infinite otherwise); the derivatives of
the eigenvalues alone need no such division and are exact wherever eig is differentiable.

The adjoints follow from P: with cotangents gw, gV (dL/da + i dL/db), the cotangent of a is
the real part of V^-H G V^H with G = diag(gw) + conj(F) * (V^H gV'), gV' = gV minus V times
the real parts of diag(V^H gV) (the transpose of the normalisation).
"""

from ..ir import types as T
from . import typefns as ty
from .registry import defrule, family

family("numpy linalg", raises="always")  # LinAlgError: no convergence

_N = "np.shape(a)[-1]"
_VH = "srcad.T(np.conj(ans1))"
_F = f"(1.0 / (np.expand_dims(ans0, -2) - np.expand_dims(ans0, -1) + np.eye({_N})) - np.eye({_N}))"
_P = "np.linalg.solve(ans1, t_a @ ans1)"  # (spliced as text: a let may not use t_a)
_DV = f"(ans1 @ ({_F} * {_P}))"
_DV = f"({_DV} - ans1 * np.expand_dims(np.real(np.sum(np.conj(ans1) * {_DV}, axis=-2)), -2))"
_G1 = "(g1 - ans1 * np.expand_dims(np.real(np.sum(np.conj(ans1) * g1, axis=-2)), -2))"
_G = f"(np.expand_dims(g0, -1) * np.eye({_N}) + np.conj({_F}) * ({_VH} @ {_G1}))"


def _complex(delta: int = 0):
    def out(sig) -> T.Type:
        n = ty._ndim_of(sig.type("a"))
        return T.Array(None if n is None else n + delta, "c")
    return out


defrule("numpy.linalg.eig", "a", nouts=2, jvp_all=f"(np.diagonal({_P}, 0, -2, -1), {_DV})",
        vjp={"a": f"np.linalg.solve({_VH}, {_G} @ {_VH})"}, diff=("a",),
        out=lambda sig: (_complex(-1)(sig), _complex()(sig)), complex="typed")
_V = "np.linalg.eig(a)[1]"
defrule("numpy.linalg.eigvals", "a", let={"V": _V},
        jvp={"a": "np.diagonal(np.linalg.solve(V, t @ V), 0, -2, -1)"},
        vjp={"a": "np.linalg.solve(srcad.T(np.conj(V)), np.expand_dims(g, -1) * srcad.T(np.conj(V)))"},
        out=_complex(-1), complex="typed")
