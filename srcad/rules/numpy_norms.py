"""Norms: numpy.linalg.norm, vector_norm and matrix_norm.

Each rule computes D, the derivative of the norm with respect to every element of x
(shaped like x), then vjp = g broadcast back over the reduced axes times D and
jvp = sum of t * D over the reduced axes. The branches on ord and axis fold away when
they are literals.

Choices at non-smooth points (both modes): the 2-norm and Frobenius norm of a zero vector
get derivative 0 (a subgradient); ord=1 uses sign(x) (0 at 0); ord=inf/-inf and the
matrix 1/inf norms split the derivative equally among tied maximal (minimal) entries,
rows or columns, and the elements (rows, columns) that are not extremal get exactly 0
(np.where, also where their derivative is inf or NaN); ord=2/-2 of a matrix follow the
first/last singular vector pair (ties between singular values are not split); ord=0 counts
nonzeros and has derivative 0.
"""

from ..ir import types as T
from . import typefns as ty
from . import vmaps as vm
from .registry import defrule, family

family("numpy linalg")


# Sub-expressions are spliced in as text rather than `let` names, because they are used
# inside branches that stay run-time branches when ord or axis are not literals.
_A = "srcad.expand_reduced(ans, x, {axis}, keepdims)"
_AX = "((-2, -1) if {axis} is None else {axis})"


def _vector_rest(axis: str) -> str:
    """D for the vector norms other than the 2-norm."""
    a = _A.format(axis=axis)
    return ("(np.sign(x) if ord == 1 else "
            f"(np.sign(x) * (np.abs(x) == {a}) / np.sum(np.abs(x) == {a}, axis={axis}, keepdims=True) "
            "if ord == np.inf or ord == -np.inf else "
            "(srcad.zeros_like(x) if ord == 0 else "
            f"np.sign(x) * np.abs(x) ** (ord - 1) / np.where({a} == 0.0, 1.0, {a}) ** (ord - 1))))")


def _two(axis: str) -> str:
    a = _A.format(axis=axis)
    return f"x / np.where({a} == 0.0, 1.0, {a})"


def _matrix(axis: str) -> str:
    ax = _AX.format(axis=axis)
    usv = f"np.linalg.svd(np.moveaxis(x, {ax}, (-2, -1)), full_matrices=False)"
    rows, cols = (f"({ax}[{i}] if isinstance({ax}, tuple) else {ax})" for i in (0, 1))
    sums = f"np.sum(np.abs(x), axis={rows} if ord == 1 or ord == -1 else {cols}, keepdims=True)"
    mask = (f"({sums} == (np.max({sums}, axis={ax}, keepdims=True) if ord > 0 else "
            f"np.min({sums}, axis={ax}, keepdims=True)))")
    return (f"(np.moveaxis({usv}[0] @ {usv}[2], (-2, -1), {ax}) if ord == 'nuc' else "
            f"(np.moveaxis({usv}[0][..., :, :1] @ {usv}[2][..., :1, :], (-2, -1), {ax}) if ord == 2 else "
            f"(np.moveaxis({usv}[0][..., :, -1:] @ {usv}[2][..., -1:, :], (-2, -1), {ax}) if ord == -2 else "
            f"np.sign(x) * {mask} / np.sum({mask}, axis={ax}, keepdims=True))))")


def _matrix_norm_type(sig) -> T.Type:
    nd = ty._ndim_of(sig.type("x"))
    if sig.const("keepdims", "?") is True:
        return T.Array(nd, "f")
    return T.FLOAT if nd == 2 else (T.Array(nd - 2, "f") if nd is not None else T.NUM)


def _norm_rule(path: str, params: str, axis: str, d: str, selects: str,
               out=ty.reduce_("x"), vmap=vm.reduction):  # noqa: B008 (a pure shape rule, built once)
    """`selects`: when D is 0 where an element is not selected (ord=inf: only the largest
    elements count; ord=0), D picks derivatives with np.where instead of multiplying them:
    an element that does not count gets exactly 0, even where its derivative is inf or NaN."""
    pick = "(np.where(D == 0.0, 0.0, {v} * D) if " + selects + " else {v} * D)"
    return defrule(path, params, let={"D": d},
                   jvp={"x": f"np.sum({pick.format(v='t')}, axis={axis}, keepdims=keepdims)"},
                   vjp={"x": pick.format(v=f"srcad.expand_reduced(g, x, {axis}, keepdims)")}, out=out,
                   vmap=vmap)


_MATRIX_ARG = "((np.ndim(x) == 2 and axis is None) or isinstance(axis, tuple))"
_INF = "(ord == np.inf or ord == -np.inf)"
_VECTOR_PICKS = f"(ord is not None and ({_INF} or ord == 0))"
_MATRIX_PICKS = f"(ord is not None and ({_INF} or ord == 1 or ord == -1))"
_norm_rule("numpy.linalg.norm", "x, ord=None, axis=None, keepdims=False", "axis",
           f"({_two('axis')}) if ord is None or (ord == 'fro' or (ord == 2 and not {_MATRIX_ARG})) else "
           f"({_matrix('axis')} if {_MATRIX_ARG} else {_vector_rest('axis')})",
           f"({_MATRIX_PICKS} if {_MATRIX_ARG} else {_VECTOR_PICKS})", vmap=vm.matrix_or_vector_norm)
_norm_rule("numpy.linalg.vector_norm", "x, axis=None, keepdims=False, ord=2", "axis",
           f"({_two('axis')}) if ord == 2 else {_vector_rest('axis')}", _VECTOR_PICKS)
_norm_rule("numpy.linalg.matrix_norm", "x, keepdims=False, ord='fro'", "(-2, -1)",
           f"({_two('(-2, -1)')}) if ord == 'fro' else {_matrix('(-2, -1)')}", _MATRIX_PICKS,
           out=_matrix_norm_type, vmap=vm.same)
