"""numpy.linalg's spectral factorisations: eigh, eigvalsh, svd, svdvals.

The textbook derivatives of eigenvectors and singular vectors divide by differences of
eigenvalues (singular values). Here every such reciprocal is "safe": 1 / d where d != 0 and
0 where d == 0 (`_safe`), which gives, at repeated values (both modes, all orders):

- exact first derivatives of every function of the values alone (no division is needed:
  the vector terms are 0 times a finite number);
- exact first derivatives of functions of the vectors that do not depend on the choice of
  basis inside the eigenspace (singular subspace) of a repeated value and that weigh its
  vectors alike: projectors onto it, U @ Vh, ... For them the term that would divide by
  w_i - w_j is 0 / 0 with limit 0 (the convention of TensorFlow's safe reciprocal). NOT for a
  matrix function V diag(phi(w)) V^T with phi' not 0 on the repeated value (a logarithm or
  square root through eigh at the identity): its limit is phi'(w), which a rule cannot see,
  and the derivative inside the repeated group is wrong (JAX and autograd give NaN there;
  docs/subset.md). scipy.linalg.logm and expm are exact there. For the svd, the terms are
  split so that only the part divided by s_i - s_j is taken as 0; the part divided by s_i + s_j is kept
  (it is finite), which makes U @ Vh (the polar factor, the gradient of the nuclear norm)
  exact to second order;
- a convention, not a derivative, for functions that use one particular basis vector of a
  repeated value (they are not differentiable there);
- and, at repeated values only, second derivatives that miss the divided differences
  (phi'(w_i) - phi'(w_j)) / (w_i - w_j) of the outer function: the Hessian of
  np.sum(phi(np.linalg.eigvalsh(A))) at A = I lacks its terms off the diagonal (a rule
  cannot see how its cotangent depends on the values). docs/subset.md has the details.

Singular vectors divide by the singular values themselves (the parts outside the span of
the other factor); at s = 0 that reciprocal is 0 too. svd with full_matrices=True of a
non-square matrix has extra singular vectors, a basis of a complement chosen by LAPACK:
they get the derivative that is exact for basis-independent uses (their projector) and
no rotation among themselves.

eigh and eigvalsh read one triangle of a (the lower one; the upper for UPLO='U') as a
symmetric matrix, and so do their derivatives: the other triangle gets derivative 0, and an
element below the diagonal stands for itself and its mirror image (srcad.from_triangle and
its adjoint srcad.to_triangle).
"""

from . import typefns as ty
from .registry import defrule, family

family("numpy linalg", raises="always")  # LinAlgError: NaN, no convergence

TT = "srcad.T"


def _tol(values: str, n: str) -> str:
    """What counts as equal values: n ulps of the largest (np.linalg.matrix_rank's default
    tolerance). LAPACK computes equal values only that closely, and the vectors of values
    closer than that are not determined by the matrix in floating point anyway."""
    return f"({n} * 2.220446049250313e-16 * np.max(np.abs({values}), axis=-1, keepdims=True))"


def _row(v: str) -> str:
    return f"np.expand_dims({v}, -2)"  # a vector as a row: X * row scales the columns of X


def _col(v: str) -> str:
    return f"np.expand_dims({v}, -1)"


def _off(x: str, n: str) -> str:
    """x with its diagonal set to 0."""
    return f"np.where(np.eye({n}) == 1.0, 0.0, {x})"


def _div(num: str, d: str, tol: str) -> str:
    """num / d, 0 / 0 = 0 and x / 0 = NaN where |d| <= tol (srcad.tie_div)."""
    return f"srcad.tie_div({num}, {d}, {tol})"


# eigh: S = V diag(w) V^T (S read from one triangle of a); with P = V^T dS V,
#   dw = diag(P),  dV = V (P / D) off the diagonal,  D[i, j] = w[j] - w[i]
_UP = "UPLO in ('U', 'u')"
_N = "np.shape(a)[-1]"
_EIGH_LET = {"D": f"({_row('ans0')} - {_col('ans0')})", "tol": _col(_tol("ans0", _N))}
_EIGH_P = f"({TT}(ans1) @ srcad.from_triangle(t_a, {_UP}) @ ans1)"
_EIGH_S = (f"ans1 @ ({_col('g0')} * np.eye({_N}) + {_div(_off(f'{TT}(ans1) @ g1', _N), 'D', 'tol')}) "
           f"@ {TT}(ans1)")
defrule("numpy.linalg.eigh", "a, UPLO='L'", nouts=2, let=_EIGH_LET,
        jvp_all=f"(np.diagonal({_EIGH_P}, 0, -2, -1), ans1 @ {_div(_off(_EIGH_P, _N), 'D', 'tol')})",
        vjp={"a": f"srcad.to_triangle({_EIGH_S}, {_UP})"}, diff=("a",),
        out=lambda sig: (ty.rank("a", -1)(sig), ty.rank("a")(sig)))
defrule("numpy.linalg.eigvalsh", "a, UPLO='L'", let={"V": "np.linalg.eigh(a, UPLO)[1]"},
        jvp={"a": f"np.sum(V * (srcad.from_triangle(t, {_UP}) @ V), axis=-2)"},
        vjp={"a": f"srcad.to_triangle(V @ ({_col('g')} * {TT}(V)), {_UP})"}, out=ty.rank("a", -1))

# svd: a = U diag(s) Vh with k = min(m, n) singular values; U and Vh below are the first k
# singular vectors (all of them unless full_matrices=True for a non-square a). With
# P = U^T da Vh^T (Townsend 2016, with the terms split by s_j - s_i and s_j + s_i):
#   ds = diag(P),  dU = U Om_U + (da Vh^T - U P) / s,  dVh = Om_V^T Vh + (U^T da - P Vh) / s
#   Om_U = ((P + P^T) / Dm + (P - P^T) / Dp) / 2,  Om_V = ((P + P^T) / Dm - (P - P^T) / Dp) / 2
# off the diagonal, with Dm[i, j] = s_j - s_i, Dp[i, j] = s_j + s_i (the terms divided by s
# vanish unless U or Vh is not square). The extra vectors of full_matrices=True (U2, Vh2)
# move only against the first k: dU2 = -U S^-1 Vh da^T U2,  dVh2 = -Vh2 da^T U S^-1 Vh.
_SVD_LET = {
    "k": "min(np.shape(a)[-2], np.shape(a)[-1])",
    "U": "ans0[..., :, :k]",
    "Vh": "ans2[..., :k, :]",
    "tol": _tol("ans1", "max(np.shape(a)[-2], np.shape(a)[-1])"),
    "Dm": f"({_row('ans1')} - {_col('ans1')})",
    "Dp": f"({_row('ans1')} + {_col('ans1')})",
    "J": f"{TT}(U) @ g0[..., :, :k]",
    "K": f"Vh @ {TT}(g2[..., :k, :])",
}
_TALL, _WIDE = "np.shape(a)[-2] > np.shape(a)[-1]", "np.shape(a)[-2] < np.shape(a)[-1]"


def _cols(x: str) -> str:
    return _div(x, _row("ans1"), _col("tol"))  # the columns of x divided by s


def _rows(x: str) -> str:
    return _div(x, _col("ans1"), _col("tol"))  # the rows of x divided by s


_P = f"({TT}(U) @ t_a @ {TT}(Vh))"  # (spliced as text: a let may not use t_a)
_SYM, _SKEW = _off(f"{_P} + {TT}({_P})", "k"), _off(f"{_P} - {TT}({_P})", "k")
_MP = f"{_div(_SYM, 'Dm', _col('tol'))}", f"{_div(_SKEW, 'Dp', _col('tol'))}"
_DU = f"U @ (0.5 * ({_MP[0]} + {_MP[1]}))"
_DU = f"({_DU} + {_cols(f't_a @ {TT}(Vh) - U @ {_P}')} if {_TALL} else {_DU})"
_DVH = f"{TT}(0.5 * ({_MP[0]} - {_MP[1]})) @ Vh"
_DVH = f"({_DVH} + {_rows(f'{TT}(U) @ t_a - {_P} @ Vh')} if {_WIDE} else {_DVH})"
_DU2 = f"-(U @ {_rows(f'Vh @ {TT}(t_a) @ ans0[..., :, k:]')})"
_DVH2 = f"-({_cols(f'ans2[..., k:, :] @ {TT}(t_a) @ U')} @ Vh)"
_DS = f"np.diagonal({_P}, 0, -2, -1)"
_SVD_JVP = (f"(np.concatenate([{_DU}, {_DU2}], axis=-1) if full_matrices and {_TALL} else {_DU}, {_DS}, "
            f"np.concatenate([{_DVH}, {_DVH2}], axis=-2) if full_matrices and {_WIDE} else {_DVH})")
_JA, _KA = f"(J - {TT}(J))", f"(K - {TT}(K))"
_VJP = (f"U @ (0.5 * ({_div(_off(f'{_JA} + {_KA}', 'k'), 'Dm', _col('tol'))} "
        f"+ {_div(_off(f'{_JA} - {_KA}', 'k'), 'Dp', _col('tol'))}) + {_col('g1')} * np.eye(k)) @ Vh")
_VJP_TALL = f"{_VJP} + {_cols('g0[..., :, :k] - U @ J')} @ Vh"
_VJP_WIDE = f"{_VJP} + U @ {_rows(f'g2[..., :k, :] - {TT}(K) @ Vh')}"
_VJP_TALL2 = f"{_VJP_TALL} - {_cols(f'ans0[..., :, k:] @ {TT}(g0[..., :, k:]) @ U')} @ Vh"
_VJP_WIDE2 = f"{_VJP_WIDE} - U @ {_rows(f'Vh @ {TT}(g2[..., k:, :]) @ ans2[..., k:, :]')}"
_SVD_VJP = (f"(({_VJP_TALL2} if full_matrices else {_VJP_TALL}) if {_TALL} else "
            f"(({_VJP_WIDE2} if full_matrices else {_VJP_WIDE}) if {_WIDE} else {_VJP}))")
# compute_uv=False: the singular values alone (as svdvals; compute_uv must be a literal)
_USV = "np.linalg.svd(a, full_matrices=False)"
_SV_JVP = f"np.sum({_USV}[0] * (t_a @ {TT}({_USV}[2])), axis=-2)"
_SV_VJP = f"{_USV}[0] @ ({_col('g')} * {_USV}[2])"


def _svd_outs(literal: dict, given: set) -> int | None:
    if "compute_uv" in given and "compute_uv" not in literal:
        return None
    return 3 if literal.get("compute_uv", True) else 1


def _svd_type(sig):
    if not sig.const("compute_uv", True):
        return ty.rank("a", -1)(sig)
    return (ty.rank("a")(sig), ty.rank("a", -1)(sig), ty.rank("a")(sig))


defrule("numpy.linalg.svd", "a, full_matrices=True, compute_uv=True", nouts=3, nouts_of=_svd_outs,
        let=_SVD_LET, jvp_all=f"({_SVD_JVP} if compute_uv else {_SV_JVP})",
        vjp={"a": f"({_SVD_VJP} if compute_uv else {_SV_VJP})"}, diff=("a",), out=_svd_type)
defrule("numpy.linalg.svdvals", "x", let={"usv": "np.linalg.svd(x, full_matrices=False)"},
        jvp={"x": f"np.sum(usv[0] * (t @ {TT}(usv[2])), axis=-2)"},
        vjp={"x": f"usv[0] @ ({_col('g')} * usv[2])"}, out=ty.rank("x", -1))
