"""Python operators: + - * / ** @ unary -, comparisons, indexing.

Ties and kinks: `%` is differentiable where it is continuous (d(x % y)/dx = 1); `//`,
comparisons and logical operators carry no derivative.
"""

from ..ir import types as T
from . import batching as bt
from . import shapes as sh
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import RULES, alias, conjugated, defrule, family, nondiff

# operators fold on constants (with the operator module), are cheap to recompute on scalars,
# and Python rejects operands that are not numbers (None, strings) with a TypeError
family("operators", cheap="scalar", foldable=True, type_errors="numbers")

BOTH = ("x", "y")
ARITH = {"kind": "elementwise", "broadcasts": BOTH}  # + - * / ** %: NumPy's broadcasting arithmetic


def _add_type(sig) -> T.Type:
    """x + y: a list or tuple concatenated (as the tangent templates of list concatenation
    write it), otherwise NumPy/Python arithmetic."""
    x, y = sig.type("x"), sig.type("y")
    if isinstance(x, T.List) and isinstance(y, T.List):
        return T.join(x, y)
    if isinstance(x, T.Tuple) and isinstance(y, T.Tuple):
        return T.Tuple(x.elts + y.elts)
    return ty.arith(*BOTH)(sig)


# complex operands (complex="keeps", transforms/policy.py): the tangent rules are the complex
# derivatives of these holomorphic operations; an adjoint multiplies by their conjugates
# (docs/subset.md, "Complex intermediate values")
defrule("operator.add", "x, y", jvp=("t", "t"), vjp=("g", "g"), out=_add_type, linear=BOTH,
        commutative=True, ring=True, complex="keeps", ufunc="numpy.add", shift="add", **ARITH)
defrule("operator.sub", "x, y", jvp=("t", "-t"), vjp=("g", "-g"), out=ty.arith(*BOTH), linear=BOTH,
        ring=True, complex="keeps", ufunc="numpy.subtract", shift="sub", **ARITH)
defrule("operator.mul", "x, y", jvp=("t * y", "x * t"), vjp=("g * y", "x * g"),
        out=ty.arith(*BOTH), commutative=True, ring=True, complex="keeps",
        complex_vjp=("g * np.conj(y)", "np.conj(x) * g"), ufunc="numpy.multiply", shift="mul", **ARITH)
defrule("operator.truediv", "x, y", jvp=("t / y", "-(t * ans) / y"), vjp=("g / y", "-(g * ans) / y"),
        out=ty.true_div(*BOTH), raises="divide", complex="keeps",
        complex_vjp=("g / np.conj(y)", "-(g * np.conj(ans)) / np.conj(y)"), ufunc="numpy.divide", shift="div",
        **ARITH)
_CLOG = "np.log(np.where(x == 0.0, 1.0, x))"  # (srcad.log_or_zero for complex x: 0 at x = 0)
defrule("operator.pow", "x, y",
        jvp=("t * (y * x ** (y - 1))", "t * (ans * srcad.log_or_zero(x))"),
        vjp=("g * (y * x ** (y - 1))", "g * (ans * srcad.log_or_zero(x))"),
        out=ty.arith(*BOTH), raises="power", complex="keeps",  # (the principal branch)
        complex_jvp={"y": f"t * (ans * {_CLOG})"},
        complex_vjp=("g * np.conj(y * x ** (y - 1))", f"g * np.conj(ans * {_CLOG})"),
        ufunc="numpy.power", **ARITH)  # 0.0 ** -1
defrule("operator.mod", "x, y", jvp=("t", "-t * ((x - ans) / y)"), vjp=("g", "-g * ((x - ans) / y)"),
        out=ty.arith(*BOTH), raises="divide", **ARITH)
defrule("operator.neg", "x", jvp="-t", vjp="-g", out=ty.same("x"), linear=("x",), kind="elementwise",
        ring=True, complex="keeps", ufunc="numpy.negative", shift="neg")
defrule("operator.pos", "x", jvp="t", vjp="g", out=ty.same("x"), linear=("x",), kind="elementwise",
        complex="keeps")

# matrix products follow numpy's rules for 1-d operands (vectors), >2-d operands broadcast
_MATMUL_X = ("(g * y if np.ndim(y) == 1 else (np.dot(y, g) if np.ndim(y) == 2 else "
             "np.squeeze(y @ np.expand_dims(g, -1), -1))) if np.ndim(x) == 1 else "
             "(np.expand_dims(g, -1) * y if np.ndim(y) == 1 else g @ srcad.T(y))")
_MATMUL_Y = ("(g * x if np.ndim(x) == 1 else (srcad.T(x) @ g if np.ndim(x) == 2 else "
             "np.squeeze(srcad.T(x) @ np.expand_dims(g, -1), -1))) if np.ndim(y) == 1 else "
             "(np.expand_dims(x, -1) * np.expand_dims(g, -2) if np.ndim(x) == 1 else srcad.T(x) @ g)")
defrule("operator.matmul", "x, y", jvp=("t @ y", "x @ t"), vjp=(_MATMUL_X, _MATMUL_Y),
        out=ty.matmul(), broadcasts=BOTH, shape=sh.matmul, batch=bt.matmul, vmap=vm.matmul, complex="keeps",
        complex_vjp=tuple(conjugated(v) for v in (_MATMUL_X, _MATMUL_Y)), numba="matmul")

for _name in ("floordiv",):
    nondiff(f"operator.{_name}", "x, y", out=ty.arith(*BOTH), raises="divide", kind="elementwise")
# type_errors: `==` and `!=` accept any operands; an ordering rejects containers against others
for _name in ("lt", "le", "gt", "ge"):
    nondiff(f"operator.{_name}", "x, y", out=ty.compare(*BOTH), kind="elementwise", type_errors="ordering")
for _name in ("eq", "ne"):
    nondiff(f"operator.{_name}", "x, y", out=ty.compare(*BOTH), kind="elementwise", type_errors="never")
for _name in ("and_", "or_", "xor"):
    nondiff(f"operator.{_name}", "x, y", out=ty.compare(*BOTH), kind="elementwise")
for _name in ("lshift", "rshift"):  # a negative count raises
    nondiff(f"operator.{_name}", "x, y", out=ty.compare(*BOTH), raises="scalars", kind="elementwise")
for _name in ("is_", "is_not", "contains"):
    nondiff(f"operator.{_name}", "x, y", out=ty.scalar_bool, type_errors="never",
            objects="any" if _name != "contains" else "")
nondiff("srcad.not_in", "x, y", out=ty.scalar_bool, type_errors="never", foldable=False)
nondiff("operator.not_", "x", out=ty.scalar_bool, type_errors="never")
nondiff("operator.invert", "x", out=ty.same("x"), kind="elementwise")

# augmented assignment: the same math; codegen writes `x += y` in place when that is safe. On
# an array (or what may be one) it updates x: the user's own in-place write
for _op in ("add", "sub", "mul", "truediv", "pow", "mod", "matmul", "floordiv", "and_", "or_",
            "xor", "lshift", "rshift"):
    alias(f"operator.i{_op.rstrip('_')}", f"operator.{_op}", inplace=True, user_write=True, ring=False,
          ufunc="", commutative=False, batch=None if _op == "matmul" else RULES[f"operator.{_op}"].batch)



def _setitem_type(sig) -> T.Type:
    """x itself, except that a dict gets (or replaces) the key: d["new"] = v, and a list's
    item type joins v's."""
    x = sig.type("x")
    key = sig.const("idx", NotImplemented)
    if isinstance(x, T.Dict):
        items = [(k, t) for k, t in x.items if k != key]
        return T.Dict(tuple(items) + ((key, sig.type("v")),)) if len(items) == len(x.items) else \
            T.Dict(tuple((k, sig.type("v") if k == key else t) for k, t in x.items))
    if isinstance(x, T.List):  # xs[i] = v: the items are the old ones or v (also of another shape)
        return T.List(T.join(x.elt, sig.type("v")))
    return x


# the item written over is 0.0 in derivatives, or for lists and dicts whose items are arrays or
# containers, `old`: srcad.zero_item of the item, which specialisation computes before the write
_ZERO_ITEM = "0.0 if old is None else old"
# `added` (a constant): the write adds a key to a dict, so the cotangent before it has no such key
_RESTORE = f"srcad.without_key(g, idx) if added else srcad.setitem(g, idx, {_ZERO_ITEM})"

# indexing: x[idx] and its functional update x[idx] = v
defrule("operator.getitem", "x, idx", jvp="t[idx]", out=ty.getitem, scatter=("idx", "g"),
        fresh=False, linear=("x",), refuses=("idx",), shape=sh.index, batch=bt.getitem, vmap=vmi.getitem,
        complex="keeps", shift="index",
        type_errors="never", int_operands="an index", objects="items", holds="first",
        raises="index")  # (np.r_[x, y]: an object indexed by floats)
defrule("operator.setitem", "x, idx, v, old=None, added=False",
        jvp={"x": f"srcad.setitem(t, idx, {_ZERO_ITEM})",
             "v": "srcad.setitem(srcad.zeros_like(x), idx, t)"},
        vjp={"x": _RESTORE, "v": "np.where(srcad.write_winners(g, idx), g[idx], 0.0)"},
        jvp_all="srcad.setitem(t_x, idx, t_v)",
        out=_setitem_type, updates=0, broadcasts=("v",), linear=("x", "v"), raises="index", shape=sh.first,
        stores=2, user_write=True, type_errors="never", objects="store", complex="keeps", vmap=vmi.setitem)
