"""NumPy reductions beyond sum/mean/prod/max/min: statistics, cumulative sums and products,
NaN-ignoring variants, weighted averages, differences.

Non-smooth and singular points (the same choice in both modes):
- std where it is 0 (all elements equal, or a single element: a scalar, an axis of length
  1) has derivative 0: the subgradient of a kink like |x| at 0 (and the exact derivative
  for a single element, where std is 0 whatever its value); var is smooth.
- var and std with ddof >= the number of elements divide by 0, as NumPy does: the value
  is nan or inf (with NumPy's warning) and so are the derivatives. A differentiated ddof
  is an error.
- Selections (max/min, nanmax/nanmin, ptp, the NaN-ignoring functions) give an element that
  is not selected exactly 0 with np.where, even where its derivative is inf or NaN.
- ptp (max - min) and nanmax/nanmin split the derivative equally among tied extrema, as
  max/min do; a constant array gets derivative 0 from ptp.
- cumprod, cumulative_prod and nanprod: first and second derivatives are exact where
  elements are 0 (runtime.cumprod_tangent, cumprod_adjoint, cumprod_hvp and its adjoint,
  prod_partials, prod_hvp); third derivatives there divide by 0 (NaN).
- NaN-ignoring functions (nansum, nanmean, nanmax, nanmin, nanprod, nanvar, nanstd,
  nancumsum) give derivative 0 to NaN elements and never turn them into NaN gradients.
- average(weights=w): w must have the shape of a, or be 1-d along an integer axis.
"""

from .. import runtime as rt
from ..ir import types as T
from . import batching as bt
from . import shapes_numpy as shn
from . import typefns as ty
from .registry import defrule, family

family("numpy reductions")


def _E(v: str, a: str = "a") -> str:
    """Broadcast v, a reduction of `a` over axis (keepdims or not), back to the shape of a."""
    return f"srcad.expand_reduced({v}, {a}, axis, keepdims)"


def _S(v: str) -> str:
    """Sum v over the reduced axes, like the reduction itself."""
    return f"np.sum({v}, axis=axis, keepdims=keepdims)"


RED = "a, axis=None, dtype=None, out=None, keepdims=False"
STAT = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
NAN = "np.isnan(a)"

# var and std: c = a - mean(a) over the reduced axes, n = max(elements per result - ddof, 0)
# as NumPy divides; s = std with its zeros taken as inf, so that where std is 0 (all
# elements equal, or a single one) its derivative is 0, not 0 / 0
_STAT_LET = {"c": "a - np.mean(a, axis=axis, keepdims=True)",
             "n": "np.maximum(np.size(a) / np.size(ans) - ddof, 0.0)",
             "s": "np.where(ans == 0.0, np.inf, ans)"}
defrule("numpy.var", STAT, let=_STAT_LET,
        jvp={"a": "(2.0 / n) * " + _S("t * c")}, vjp={"a": _E("g") + " * ((2.0 / n) * c)"},
        out=ty.reduce_("a"), refuses=("ddof",), kind="reduction", method="var")
defrule("numpy.std", STAT, let=_STAT_LET,
        jvp={"a": _S("t * c") + " / (n * s)"}, vjp={"a": _E("g / s") + " * (c / n)"},
        out=ty.reduce_("a"), refuses=("ddof",), kind="reduction", method="std")
_NANSTAT_LET = {
    "c": f"np.where({NAN}, 0.0, a - np.nanmean(a, axis=axis, keepdims=True))",
    "n": f"np.maximum(np.sum(np.logical_not({NAN}), axis=axis, keepdims=True) - ddof, 0.0)",
    "s": "np.where(ans == 0.0, np.inf, ans)",
}
_OK = f"np.where({NAN}, 0.0, {{}})"  # (a NaN element's derivative, which may be NaN too, is not used)
defrule("numpy.nanvar", STAT, let=_NANSTAT_LET,
        jvp={"a": _S(_OK.format("(2.0 / n) * (t * c)"))},
        vjp={"a": _OK.format(_E("g") + " * ((2.0 / n) * c)")},
        out=ty.reduce_("a"), refuses=("ddof",), kind="reduction")
defrule("numpy.nanstd", STAT, let=_NANSTAT_LET,
        jvp={"a": _S(_OK.format("t * c / n")) + " / s"}, vjp={"a": _OK.format(_E("g / s") + " * (c / n)")},
        out=ty.reduce_("a"), refuses=("ddof",), kind="reduction")

# NaN-ignoring sums, means and products
defrule("numpy.nansum", RED, jvp={"a": _S(f"np.where({NAN}, 0.0, t)")},
        vjp={"a": f"np.where({NAN}, 0.0, {_E('g')})"}, out=ty.reduce_("a"), kind="reduction")
_COUNT = f"np.sum(np.logical_not({NAN}), axis=axis, keepdims=keepdims)"
defrule("numpy.nanmean", RED, let={"count": _COUNT},
        jvp={"a": _S(f"np.where({NAN}, 0.0, t)") + " / count"},
        vjp={"a": f"np.where({NAN}, 0.0, {_E('g / count')})"}, out=ty.reduce_("a"),
        kind="reduction")
# nanprod: prod with NaNs taken as 1 (the zero-safe partials of prod)
_NANONE = f"srcad.prod_partials(np.where({NAN}, 1.0, a), axis)"
defrule("numpy.nanprod", RED,
        jvp={"a": _S(f"np.where({NAN}, 0.0, t) * {_NANONE}")},
        vjp={"a": f"np.where({NAN}, 0.0, {_E('g')} * {_NANONE})"}, out=ty.reduce_("a"), kind="reduction")

# nanmax/nanmin/ptp: the derivative is shared equally among tied extrema (NaN never ties)
_MASK = "(a == " + _E("ans") + ")"
_SHARE = "np.where(" + _MASK + ", {v}, 0.0) / " + _E("np.sum(" + _MASK + ", axis=axis, keepdims=keepdims)")
for _name in ("nanmax", "nanmin"):
    defrule(f"numpy.{_name}", "a, axis=None, out=None, keepdims=False",
            jvp={"a": "np.sum(" + _SHARE.format(v="t") + ", axis=axis, keepdims=keepdims)"},
            vjp={"a": _SHARE.format(v=_E("g"))}, out=ty.reduce_("a"), kind="reduction")
_PTP_LET = {
    "hi": "a == np.max(a, axis=axis, keepdims=True)",
    "lo": "a == np.min(a, axis=axis, keepdims=True)",
    "d": "hi / np.sum(hi, axis=axis, keepdims=True) - lo / np.sum(lo, axis=axis, keepdims=True)",
}
defrule("numpy.ptp", "a, axis=None, out=None, keepdims=False", let=_PTP_LET,
        jvp={"a": _S("np.where(hi | lo, t * d, 0.0)")},
        vjp={"a": "np.where(hi | lo, " + _E("g") + " * d, 0.0)"},
        out=ty.reduce_("a"), kind="reduction")

# weighted average: W is the weights broadcast to the shape of a (spliced in as text, not
# a let: the vjp uses it inside a branch on `weights is None`)
_W = "srcad.average_weights(weights, a, axis)"
_WSUM = f"np.sum({_W}, axis=axis, keepdims=keepdims)"
defrule("numpy.average", "a, axis=None, weights=None, keepdims=False",
        jvp={"a": "np.average(t, axis=axis, weights=weights, keepdims=keepdims)",
             "weights": _S(f"srcad.average_weights(t, a, axis) * (a - {_E('ans')})") + f" / {_WSUM}"},
        vjp={"a": (f"{_E('g')} * (np.size(ans) / np.size(a)) if weights is None else "
                   f"{_E(f'g / {_WSUM}')} * {_W}"),
             "weights": f"srcad.average_weights_adjoint({_E(f'g / {_WSUM}')} * (a - {_E('ans')}), "
                        "weights, axis)"},
        out=ty.reduce_("a"), kind="reduction")


# cumulative sums and products; rcs(v) sums v from the end (the adjoint of cumsum)
def _rcs(v: str, a: str = "a") -> str:
    return (f"(np.reshape(np.flip(np.cumsum(np.flip(np.ravel({v})))), np.shape({a})) "
            f"if axis is None or np.ndim({a}) == 0 "
            f"else np.flip(np.cumsum(np.flip({v}, axis), axis=axis), axis))")


def _cum_type(sig) -> T.Type:
    a = sig.type("a")
    integral = T.is_integral(a) and sig.is_const("dtype") and sig.const("dtype") is None
    kind = "i" if integral else "f"  # a cumulative sum of ints or bools is an int array
    if sig.is_const("axis") and sig.const("axis") is None:
        return T.Array(1, kind)
    out = ty.rank("a", at_least=1)(sig)
    return T.Array(out.ndim, kind) if isinstance(out, T.Array) else out


CUM = "a, axis=None, dtype=None, out=None"
defrule("numpy.cumsum", CUM, jvp={"a": "np.cumsum(t, axis=axis)"}, vjp={"a": _rcs("g")},
        out=_cum_type, linear=("a",), shape=shn.cumulative, batch=bt.shifted_axis(none="flat"))
defrule("numpy.cumprod", CUM, jvp={"a": "srcad.cumprod_tangent(t, a, axis)"},
        vjp={"a": "srcad.cumprod_adjoint(g, a, axis)"}, out=_cum_type, shape=shn.cumulative)
# the two zero-safe helpers: linear in their first argument, each other's transpose; their
# derivatives in a (second derivatives of cumprod) are the zero-safe cumprod_hvp and its
# adjoint, whose own derivatives in a (third derivatives) divide by a (NaN where a is 0).
defrule("srcad.cumprod_tangent", "v, a, axis=None", fn=rt.cumprod_tangent, out=_cum_type, linear=("v",),
        jvp={"a": "srcad.cumprod_hvp(v, t, a, axis)"},
        vjp={"v": "srcad.cumprod_adjoint(g, a, axis)", "a": "srcad.cumprod_hvp_adjoint(g, v, a, axis)"})
defrule("srcad.cumprod_adjoint", "c, a, axis=None", fn=rt.cumprod_adjoint, out=ty.array_like("a"),
        linear=("c",),
        jvp={"a": "srcad.cumprod_hvp_adjoint(c, t, a, axis)"},
        vjp={"c": "srcad.cumprod_tangent(g, a, axis)", "a": "srcad.cumprod_hvp_adjoint(c, g, a, axis)"})


def _S(v: str) -> str:
    return f"np.cumsum({v}, axis=axis)"


# Away from zeros, with C = cumprod(a), S the cumulative sum and rcs its adjoint:
#   cumprod_hvp(v, u, a) = C (S(v/a) S(u/a) - S(v u/a^2))
#   cumprod_hvp_adjoint(c, v, a) = (rcs(c C S(v/a)) - rcs(c C) v/a) / a
# and their derivatives in a below follow from these by the product rule.
_C = "np.cumprod(a, axis=axis)"
_V, _U, _T, _G = _S("v / a"), _S("u / a"), _S("t / a"), _S("g / a")
_HVP_DA = (f"{_C} * ({_T} * ({_V} * {_U} - {_S('v * u / a ** 2')}) - {_U} * {_S('v * t / a ** 2')} "
           f"- {_V} * {_S('u * t / a ** 2')} + 2.0 * {_S('v * u * t / a ** 3')})")
_HVP_VJP_A = (f"({_rcs(f'g * {_C} * ({_V} * {_U} - ' + _S('v * u / a ** 2') + ')')} "
              f"- {_rcs(f'g * {_C} * {_U}')} * v / a - {_rcs(f'g * {_C} * {_V}')} * u / a "
              f"+ 2.0 * {_rcs(f'g * {_C}')} * v * u / a ** 2) / a")
defrule("srcad.cumprod_hvp", "v, u, a, axis=None", fn=rt.cumprod_hvp, out=_cum_type, multilinear=("v", "u"),
        jvp={"a": _HVP_DA},
        vjp={"v": "srcad.cumprod_hvp_adjoint(g, u, a, axis)", "u": "srcad.cumprod_hvp_adjoint(g, v, a, axis)",
             "a": _HVP_VJP_A})
_ADJ_DA = (f"({_rcs(f'c * {_C} * ({_T} * {_V} - ' + _S('v * t / a ** 2') + ')')} "
           f"- {_rcs(f'c * {_C} * {_T}')} * v / a) / a + {_rcs(f'c * {_C}')} * v * t / a ** 3 - ans * t / a")
_ADJ_VJP_A = (f"({_rcs(f'{_G} * c * {_C} * {_V}')} - {_rcs(_S('g * v / a ** 2') + f' * c * {_C}')}) / a "
              f"- {_rcs(f'{_G} * c * {_C}')} * v / a ** 2 "
              f"+ g * {_rcs(f'c * {_C}')} * v / a ** 3 - g * ans / a")
defrule("srcad.cumprod_hvp_adjoint", "c, v, a, axis=None", fn=rt.cumprod_hvp_adjoint, out=ty.array_like("a"),
        multilinear=("c", "v"),
        jvp={"a": _ADJ_DA},
        vjp={"c": "srcad.cumprod_hvp(g, v, a, axis)", "v": "srcad.cumprod_hvp_adjoint(c, g, a, axis)",
             "a": _ADJ_VJP_A})
defrule("numpy.nancumsum", CUM, jvp={"a": f"np.cumsum(np.where({NAN}, 0.0, t), axis=axis)"},
        vjp={"a": f"np.where({NAN}, 0.0, {_rcs('g')})"}, out=_cum_type, shape=shn.cumulative)
# numpy >= 2.1 (array API): axis may be None only for 1-d x; include_initial is not supported
_RCS1 = "np.flip(np.cumsum(np.flip({v}, axis), axis=axis), axis)"
defrule("numpy.cumulative_sum", "x, axis=None, dtype=None, out=None",
        jvp={"x": "np.cumulative_sum(t, axis=axis)"}, vjp={"x": _RCS1.format(v="g")},
        out=ty.rank("x", at_least=1), linear=("x",))
defrule("numpy.cumulative_prod", "x, axis=None, dtype=None, out=None",
        jvp={"x": "srcad.cumprod_tangent(t, x, axis)"}, vjp={"x": "srcad.cumprod_adjoint(g, x, axis)"},
        out=ty.rank("x", at_least=1))

defrule("numpy.diff", "a, n=1, axis=-1",
        vjp={"a": "srcad.diff_adjoint(g, n, axis)"}, out=ty.rank("a"), linear=("a",), shape=shn.diff,
        batch=bt.shifted_axis())
