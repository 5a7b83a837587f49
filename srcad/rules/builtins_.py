"""Python builtins: abs, min, max, sum, float and the non-differentiable ones (len, range...).

`max(a, b)` and `min(a, b)` send the derivative to the selected argument and split it
equally on ties, as numpy.maximum does; `abs` has derivative sign(x), 0 at 0.
"""

from . import typefns as ty
from .registry import defrule, family, nondiff

family("builtins")

defrule("builtins.abs", "x", jvp="t * np.sign(x)", vjp="g * np.sign(x)", out=ty.same("x"))
_PICK_X = "(x > y) + 0.5 * (x == y)"
_PICK_Y = "(y > x) + 0.5 * (x == y)"
defrule("builtins.max", "x, y",
        jvp={"x": f"t * ({_PICK_X})", "y": f"t * ({_PICK_Y})"},
        vjp={"x": f"g * ({_PICK_X})", "y": f"g * ({_PICK_Y})"},
        out=ty.arith("x", "y"), broadcasts=("x", "y"))
defrule("builtins.min", "x, y",
        jvp={"x": f"t * ({_PICK_Y})", "y": f"t * ({_PICK_X})"},
        vjp={"x": f"g * ({_PICK_Y})", "y": f"g * ({_PICK_X})"},
        out=ty.arith("x", "y"), broadcasts=("x", "y"))
def _sum_type(sig):
    x, start = sig.type("x"), sig.type("start")
    if isinstance(x, ty.T.List):
        elt = x.elt
    elif isinstance(x, ty.T.Tuple):
        elt = ty.T.BOTTOM
        for e in x.elts:
            elt = ty.T.join(elt, e)
    elif isinstance(x, ty.T.Array) and x.ndim is not None:
        elt = ty.T.Array(x.ndim - 1, x.kind) if x.ndim > 1 else ty.T.FLOAT
    else:
        return ty.T.UNKNOWN
    return ty._arith([elt, start]) if not isinstance(start, ty.T.NoneT) else elt


defrule("builtins.sum", "x, start=0", jvp={"x": "sum(t)", "start": "t"},
        vjp={"x": "srcad.sum_adjoint(g, x)", "start": "g"}, out=_sum_type, broadcasts=("start",),
        linear=("x", "start"))
defrule("builtins.float", "x", jvp="float(t)", vjp="g", out=ty.scalar_float,
        linear=("x",), raises="always")  # float("a"), float(10 ** 400)
defrule("builtins.pow", "x, y", jvp=("t * (y * x ** (y - 1))", "t * (ans * srcad.log_or_zero(x))"),
        vjp=("g * (y * x ** (y - 1))", "g * (ans * srcad.log_or_zero(x))"), out=ty.arith("x", "y"),
        broadcasts=("x", "y"), raises="power")

nondiff("builtins.len", "x", out=ty.scalar_int)
nondiff("builtins.int", "x=0", out=ty.scalar_int)
nondiff("builtins.bool", "x=False", out=ty.scalar_bool)
nondiff("builtins.round", "x, ndigits=None", out=ty.unknown)
nondiff("builtins.range", "*args", out=ty.opaque("range"), raises="always")  # a step of 0
nondiff("builtins.isinstance", "x, cls", out=ty.scalar_bool)
nondiff("builtins.str", "*args", out=lambda sig: ty.T.STR)
nondiff("builtins.repr", "x", out=lambda sig: ty.T.STR)
nondiff("builtins.print", "*args", out=ty.none, impure=True)
nondiff("builtins.any", "x", out=ty.scalar_bool)
nondiff("builtins.all", "x", out=ty.scalar_bool)
nondiff("builtins.divmod", "x, y", out=ty.unknown, raises="divide")
nondiff("builtins.slice", "*args", out=ty.opaque("slice"))
nondiff("builtins.type", "x", out=ty.opaque("type"))
nondiff("builtins.hasattr", "x, name", out=ty.scalar_bool)
nondiff("builtins.callable", "x", out=ty.scalar_bool)
