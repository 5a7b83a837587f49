"""NumPy's numerical-analysis helpers: trapezoid quadrature, polynomials, piecewise-linear
interpolation.

- trapezoid(y, x, dx, axis) is linear in y (the quadrature weights); a differentiated x
  (the sample points) has no rule here and is an error.
- polyval(p, x) is differentiable in both the coefficients and x; polyder in p.
- interp(x, xp, fp) is differentiable in x (the slope of x's interval, 0 outside xp's
  range, the right-hand slope at a knot) and in fp (the two interpolation weights); a
  differentiated xp is an error.
- gradient(f, spacing, axis=, edge_order=) is linear in f (srcad.gradient_adjoint); spacing
  is one number for every axis or the coordinates along the one axis, not differentiated;
  one spacing per axis (np.gradient(f, dx, dy)) is an error.
"""

from .. import runtime as rt
from ..ir import types as T
from . import typefns as ty
from .registry import defrule, family, nondiff

family("numpy numerics")

defrule("numpy.trapezoid", "y, x=None, dx=1.0, axis=-1",
        vjp={"y": "srcad.expand_reduced(g, y, axis, False) * srcad.trapezoid_weights(y, x, dx, axis)"},
        out=ty.reduce_("y"), linear=("y",), refuses=("x", "dx"))
nondiff("srcad.trapezoid_weights", "y, x=None, dx=1.0, axis=-1", out=ty.array(None), fn=rt.trapezoid_weights,
        refuses=("x", "dx"))

defrule("numpy.polyval", "p, x", jvp={"p": "np.polyval(t, x)", "x": "t * np.polyval(np.polyder(p), x)"},
        vjp={"p": "srcad.polyval_adjoint(g, p, x)", "x": "g * np.polyval(np.polyder(p), x)"},
        out=lambda sig: sig.type("x") if not isinstance(sig.type("x"), T.Int) else T.FLOAT,
        broadcasts=("x",))
defrule("srcad.polyval_adjoint", "c, p, x",
        vjp={"c": "np.polyval(g, x)"}, out=ty.array(1), fn=rt.polyval_adjoint, linear=("c",),
        refuses=("x",))
# polyder(p) = [p0 (n-1), p1 (n-2), ..., p_{n-2}]
defrule("numpy.polyder", "p",
        vjp={"p": "np.append(g * np.arange(np.size(g), 0, -1), 0.0)"}, out=ty.array(1), linear=("p",))

# (a slope of 0, outside xp's range or on a flat piece, selects 0: never 0 * inf)
defrule("numpy.interp", "x, xp, fp", let={"S": "srcad.interp_slope(x, xp, fp)"},
        jvp={"x": "np.where(S == 0.0, 0.0, t * S)", "fp": "np.interp(x, xp, t)"},
        vjp={"x": "np.where(S == 0.0, 0.0, g * S)", "fp": "srcad.interp_fp_adjoint(g, x, xp)"},
        out=lambda sig: sig.type("x") if isinstance(sig.type("x"), T.Array) else T.FLOAT,
        broadcasts=("x",), refuses=("xp",))
defrule("srcad.interp_fp_adjoint", "c, x, xp",
        vjp={"c": "np.interp(x, xp, g)"}, out=ty.array(1), fn=rt.interp_fp_adjoint, linear=("c",),
        refuses=("x", "xp"))
# the slope is piecewise constant in x; in fp it is linear: (fp[i+1] - fp[i]) / (xp[i+1] - xp[i])
defrule("srcad.interp_slope", "x, xp, fp",
        vjp={"fp": "srcad.interp_slope_adjoint(g, x, xp)"}, out=ty.same("x"), fn=rt.interp_slope,
        linear=("fp",), refuses=("xp",))
defrule("srcad.interp_slope_adjoint", "c, x, xp",
        vjp={"c": "srcad.interp_slope(x, xp, g)"}, out=ty.array(1), fn=rt.interp_slope_adjoint,
        linear=("c",), refuses=("x", "xp"))


def _gradient_type(sig) -> T.Type:
    """One array along one axis (a 1-d f, an int axis), else a tuple of them, one per axis."""
    nd = ty._ndim_of(sig.type("f"))
    axis = sig.const("axis", "?")
    if nd == 1 or isinstance(axis, int):
        return T.Array(nd, "f")
    count = nd if axis is None else (len(axis) if isinstance(axis, tuple) else None)
    if count is None:
        return T.UNKNOWN
    return T.Tuple((T.Array(nd, "f"),) * count) if count > 1 else T.Array(nd, "f")


_GRAD_ARGS = "spacing, axis=axis, edge_order=edge_order"
defrule("numpy.gradient", "f, spacing=1.0, axis=None, edge_order=1",
        jvp={"f": f"np.gradient(t, {_GRAD_ARGS})"},
        vjp={"f": "srcad.gradient_adjoint(g, f, spacing, axis, edge_order)"},
        out=_gradient_type, linear=("f",), refuses=("spacing",), positional=2, raises="always")
defrule("srcad.gradient_adjoint", "c, f, spacing=1.0, axis=None, edge_order=1",
        vjp={"c": f"np.gradient(g, {_GRAD_ARGS})"}, out=ty.array_like("f"), fn=rt.gradient_adjoint,
        linear=("c",), refuses=("spacing",))
