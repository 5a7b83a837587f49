"""NumPy order statistics: quantile, percentile, median and partition (np.sort is in
numpy_shape, with the other functions that move elements around).

Each result is an element of the input, or a fixed combination (1 - w) s[lo] + w s[hi] of
two adjacent sorted elements, with lo, hi and w depending only on q, the method and the
number of elements (srcad.quantile_tangent, runtime/order.py). So for a fixed order these
functions are linear in the elements, their derivative is that combination of the
tangents, and their second derivative is 0.

Choices at non-smooth points (the same in both modes):
- Ties: the derivative follows the order of a stable argsort, as np.sort's does, so a tied
  element stands for all elements equal to it (a one-sided derivative). The median of an
  even number of elements is the mean of the two middle ones: each gets half, also when
  they are equal.
- The discontinuous methods (inverted_cdf, closest_observation, lower, higher, nearest...)
  have derivative 1 for the element they pick, and jump where q makes them pick another;
  averaged_inverted_cdf gives 1/2 to each of two elements at those jumps, as its value does.
- nanquantile, nanpercentile and nanmedian count each row's numbers only: NaN elements get
  derivative 0, and a row of NaNs only (a NaN result) passes no derivative.
- q is not differentiated: a differentiated q (or weights=) is an error.
- partition: its derivative follows the elements to where np.partition put them (equal
  elements matched in order: srcad.partition_order).
"""

from .. import runtime as rt
from ..ir import types as T
from . import typefns as ty
from .registry import defrule, family, nondiff

family("numpy order statistics")


def _quantile_type(sig) -> T.Type:
    """A reduction of a for a scalar q; q's axes first for an array q."""
    q = sig.type("q") if "q" in sig.rule.params else T.FLOAT
    if isinstance(q, (T.Float, T.Int)):
        return ty.reduce_("a")(sig)
    return T.Array(None, "f")


_QARGS = "a, {q}, axis, method, keepdims, {nan}"
_Q = "a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False"
for _prefix, _nan in (("", False), ("nan", True)):
    for _name, _q in (("quantile", "q"), ("percentile", "np.divide(q, 100.0)")):
        _args = _QARGS.format(q=_q, nan=_nan)
        defrule(f"numpy.{_prefix}{_name}", _Q, jvp={"a": f"srcad.quantile_tangent(t, {_args})"},
                vjp={"a": f"srcad.quantile_adjoint(g, {_args})"},
                out=_quantile_type, refuses=("q",), raises="always")  # (q out of range)
    _args = _QARGS.format(q="0.5", nan=_nan).replace("method", "'linear'")
    defrule(f"numpy.{_prefix}median", "a, axis=None, out=None, overwrite_input=False, keepdims=False",
            jvp={"a": f"srcad.quantile_tangent(t, {_args})"},
            vjp={"a": f"srcad.quantile_adjoint(g, {_args})"},
            out=_quantile_type, kind="reduction", raises="always")  # (an empty array)

# the helpers: each linear in its first argument and the other's transpose; in a they are
# piecewise constant (derivative 0)
defrule("srcad.quantile_tangent", "t_, a, q, axis=None, method='linear', keepdims=False, nan=False",
        vjp={"t_": "srcad.quantile_adjoint(g, a, q, axis, method, keepdims, nan)"},
        out=_quantile_type, fn=rt.quantile_tangent, linear=("t_",), refuses=("q",))
defrule("srcad.quantile_adjoint", "c, a, q, axis=None, method='linear', keepdims=False, nan=False",
        vjp={"c": "srcad.quantile_tangent(g, a, q, axis, method, keepdims, nan)"},
        out=ty.array_like("a"), fn=rt.quantile_adjoint, linear=("c",), refuses=("q",))

defrule("numpy.partition", "a, kth, axis=-1, kind='introselect', order=None",
        let={"perm": "srcad.partition_order(a, ans, axis)"},
        jvp={"a": "np.take_along_axis(t, perm, axis)"},
        vjp={"a": "srcad.take_along_adjoint(g, a, perm, axis)"},
        out=lambda sig: T.Array(1, "f") if sig.const("axis", "?") is None else ty.rank("a", at_least=1)(sig),
        raises="always")  # (kth out of range)
nondiff("srcad.partition_order", "a, ans, axis=-1", out=lambda sig: T.Array(None, "i"),
        fn=rt.partition_order)
nondiff("numpy.argpartition", "a, kth, axis=-1, kind='introselect', order=None",
        out=lambda sig: T.Array(None, "i"), raises="always")
