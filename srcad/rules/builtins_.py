"""Python builtins: abs, min, max, sum, float and the non-differentiable ones (len, range...).

`max(a, b)` and `min(a, b)` send the derivative to the argument Python selects (never to a
NaN second argument) and split it equally on ties, as numpy.maximum does; `abs` has
derivative sign(x), 0 at 0. `divmod(x, y)` is (x // y, x % y), so its
remainder is differentiable as `%` is.
"""

from . import shapes as sh
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import defrule, family, nondiff

family("builtins", cheap="scalar", vmap=None)

FOLD = {"foldable": True}  # safe to call on constants while transforming

# (of a complex number: real, with the derivative of numpy.absolute, numpy_elementwise.py)
defrule("builtins.abs", "x", jvp="t * np.sign(x)", vjp="g * np.sign(x)", out=ty.same("x"), kind="elementwise",
        complex="real",
        complex_jvp="np.where(ans == 0.0, 0.0, np.real(np.conj(x) * t) / np.where(ans == 0.0, 1.0, ans))",
        complex_vjp="np.where(ans == 0.0, 0.0j, g * x / np.where(ans == 0.0, 1.0, ans))",
        vmap=vm.numpy_twin("numpy.absolute", numbers=False), **FOLD)
# max(x, y) is y if y > x else x (min: y if y < x else x), so a NaN y is never selected;
# ties split the derivative equally. A run-time branch, not a 0/1 weight times a derivative
# that may be inf or NaN.
def _either(bound):
    """max(x, y) is x or y itself (a 0-d array stays that object: `v = max(z, z); v *= 2`
    writes into z)."""
    return tuple(bound[p] for p in ("x", "y") if p in bound)


for _name, _op in (("max", ">"), ("min", "<")):
    defrule(f"builtins.{_name}", "x, y",
            jvp={"x": f"0.0 if y {_op} x else (0.5 * t if x == y else t)",
                 "y": f"t if y {_op} x else (0.5 * t if x == y else 0.0)"},
            vjp={"x": f"0.0 if y {_op} x else (0.5 * g if x == y else g)",
                 "y": f"g if y {_op} x else (0.5 * g if x == y else 0.0)"},
            out=ty.arith("x", "y"), broadcasts=("x", "y"), kind="elementwise", view_of=_either,
            vmap=vm.selection(f"operator.{'gt' if _name == 'max' else 'lt'}"), **FOLD)


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
    if isinstance(elt, ty.T.Bottom):  # an empty list or tuple: the sum is the start value
        return ty.T.INT if isinstance(start, ty.T.NoneT) else start
    return ty._arith([elt, start]) if not isinstance(start, ty.T.NoneT) else elt


defrule("builtins.sum", "x, start=0", jvp={"x": "sum(t)", "start": "t"},
        vjp={"x": "srcad.sum_adjoint(g, x)", "start": "g"}, out=_sum_type, broadcasts=("start",),
        linear=("x", "start"), vmap=vmi.summed)
# (float of a 0-d or one-element array: the cotangent has its shape, setitem of the array needs it)
defrule("builtins.float", "x", out=ty.scalar_float, linear=("x",),
        vjp="np.reshape(np.asarray(g), np.shape(x)) if isinstance(x, np.ndarray) else g",
        raises="always", vmap=vm.numpy_twin("numpy.float64"), **FOLD)  # float("a"), float(10 ** 400)
defrule("builtins.pow", "x, y", jvp=("t * (y * x ** (y - 1))", "t * (ans * srcad.log_or_zero(x))"),
        vjp=("g * (y * x ** (y - 1))", "g * (ans * srcad.log_or_zero(x))"), out=ty.arith("x", "y"),
        broadcasts=("x", "y"), raises="power", kind="elementwise", vmap=vm.elementwise)

nondiff("builtins.len", "x", out=ty.scalar_int, of_shape=sh.length, objects="items", holds="length",
        vmap=vmi.length_checks, **FOLD)
nondiff("builtins.int", "x=0", out=ty.scalar_int, **FOLD)
nondiff("builtins.bool", "x=False", out=ty.scalar_bool, **FOLD)
nondiff("builtins.round", "x, ndigits=None", out=ty.unknown, **FOLD)
nondiff("builtins.range", "*args", out=ty.opaque("range"), raises="always",  # a step of 0
        int_operands="range()")
nondiff("builtins.isinstance", "x, cls", out=ty.scalar_bool, objects="any")
nondiff("builtins.str", "*args", out=lambda sig: ty.T.STR, **FOLD)
nondiff("builtins.repr", "x", out=lambda sig: ty.T.STR, **FOLD)
nondiff("builtins.print", "*args", out=ty.none, impure=True, vmap=vm.repeats)
nondiff("builtins.any", "x", out=ty.scalar_bool)
nondiff("builtins.all", "x", out=ty.scalar_bool)
# (the frontend calls divmod(x, y) (x // y, x % y), so the remainder has its derivative; this
# rule only sees calls of another form, which a derivative may not reach)
nondiff("builtins.divmod", "x, y", out=ty.unknown, raises="divide", refuses=("x", "y"))
nondiff("builtins.slice", "*args", out=ty.opaque("slice"))
nondiff("builtins.type", "x", out=ty.opaque("type"))
nondiff("builtins.hasattr", "x, name", out=ty.scalar_bool)
nondiff("builtins.callable", "x", out=ty.scalar_bool)
