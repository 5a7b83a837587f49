"""NumPy reductions, products and shape functions, and the matching ndarray methods.

max/min reductions split the derivative equally among tied maxima (as JAX does).
"""

from ..ir import types as T
from . import typefns as ty
from .registry import alias, defrule, family, nondiff

family("numpy arrays")

_EXPAND = "srcad.expand_reduced({v}, a, axis, keepdims)"
RED = "a, axis=None, dtype=None, out=None, keepdims=False"

defrule("numpy.sum", RED, jvp={"a": "np.sum(t, axis=axis, keepdims=keepdims)"},
        vjp={"a": _EXPAND.format(v="g")}, out=ty.reduce_("a"), linear=("a",))
defrule("numpy.mean", RED, jvp={"a": "np.mean(t, axis=axis, keepdims=keepdims)"},
        vjp={"a": _EXPAND.format(v="g") + " * (np.size(ans) / np.size(a))"},
        out=ty.reduce_("a"), linear=("a",))
defrule("numpy.prod", RED, jvp={"a": "np.sum(t * " + _EXPAND.format(v="ans") + " / a, axis=axis, keepdims=keepdims)"},
        vjp={"a": _EXPAND.format(v="g * ans") + " / a"}, out=ty.reduce_("a"))
_MASK = "(a == " + _EXPAND.format(v="ans") + ")"
_SHARE = ("{v} * " + _MASK + " / " + _EXPAND.format(v=f"np.sum({_MASK}, axis=axis, keepdims=keepdims)"))
for _name in ("max", "min", "amax", "amin"):
    defrule(f"numpy.{_name}", "a, axis=None, out=None, keepdims=False",
            jvp={"a": "np.sum(" + _SHARE.format(v="t") + ", axis=axis, keepdims=keepdims)"},
            vjp={"a": _SHARE.format(v=_EXPAND.format(v="g"))}, out=ty.reduce_("a"))

_DOT_A = ("g * b if np.ndim(b) == 0 else (np.sum(g * b) if np.ndim(a) == 0 else "
          "((g * b if np.ndim(b) == 1 else np.dot(b, g)) if np.ndim(a) == 1 else "
          "(np.outer(g, b) if np.ndim(b) == 1 else np.dot(g, srcad.T(b)))))")
_DOT_B = ("g * a if np.ndim(a) == 0 else (np.sum(g * a) if np.ndim(b) == 0 else "
          "((g * a if np.ndim(a) == 1 else np.dot(srcad.T(a), g)) if np.ndim(b) == 1 else "
          "(np.outer(a, g) if np.ndim(a) == 1 else np.dot(srcad.T(a), g))))")
defrule("numpy.dot", "a, b", jvp=("np.dot(t, b)", "np.dot(a, t)"), vjp=(_DOT_A, _DOT_B),
        out=ty.matmul("a", "b", dot=True), linear=("a", "b"))
alias("numpy.matmul", "operator.matmul")

defrule("numpy.transpose", "a, axes=None", jvp={"a": "np.transpose(t, axes)"},
        vjp={"a": "np.transpose(g, srcad.inverse_axes(axes))"}, out=ty.same("a"), fresh=False,
        linear=("a",))
defrule("numpy.reshape", "a, shape=None, order='C'", jvp={"a": "np.reshape(t, shape, order=order)"},
        vjp={"a": "np.reshape(g, np.shape(a), order=order)"}, out=ty.array(None), fresh=False,
        linear=("a",))
defrule("numpy.ravel", "a, order='C'", jvp={"a": "np.ravel(t, order=order)"},
        vjp={"a": "np.reshape(g, np.shape(a), order=order)"}, out=ty.array(1), fresh=False,
        linear=("a",))
defrule("numpy.copy", "a", jvp="np.copy(t)", vjp="g", out=ty.same("a"), linear=("a",))
defrule("numpy.array", "object, dtype=None", jvp={"object": "np.array(t, dtype=dtype)"},
        vjp={"object": "srcad.array_adjoint(g, object)"}, out=ty.array(None), linear=("object",))
defrule("numpy.asarray", "a, dtype=None", jvp={"a": "np.asarray(t, dtype=dtype)"},
        vjp={"a": "srcad.array_adjoint(g, a)"}, out=ty.array(None), fresh=False, linear=("a",))
defrule("numpy.outer", "a, b", jvp=("np.outer(t, b)", "np.outer(a, t)"),
        vjp=("np.reshape(np.dot(g, np.ravel(b)), np.shape(a))",
             "np.reshape(np.dot(np.ravel(a), g), np.shape(b))"),
        out=ty.array(2), linear=("a", "b"))

# shape queries and constructors carry no derivative
nondiff("numpy.shape", "a", out=ty.unknown)
nondiff("numpy.ndim", "a", out=ty.scalar_int)
nondiff("numpy.size", "a, axis=None", out=ty.scalar_int)
for _name in ("zeros", "ones", "empty"):
    nondiff(f"numpy.{_name}", "shape, dtype=None, order='C'", out=ty.from_shape())
nondiff("numpy.full", "shape, fill_value, dtype=None, order='C'", out=ty.from_shape())
for _name in ("zeros_like", "ones_like", "empty_like"):
    nondiff(f"numpy.{_name}", "a, dtype=None", out=ty.array_like("a", kind=None))
nondiff("numpy.full_like", "a, fill_value, dtype=None", out=ty.array_like("a", kind=None))
nondiff("numpy.arange", "*args", out=ty.array(1, None))
nondiff("numpy.linspace", "start, stop, num=50, endpoint=True", out=ty.array(1))
nondiff("numpy.eye", "N, M=None, k=0, dtype=None", out=ty.array(2))
nondiff("numpy.identity", "n, dtype=None", out=ty.array(2))
for _name in ("argmax", "argmin"):
    nondiff(f"numpy.{_name}", "a, axis=None", out=ty.unknown)
nondiff("numpy.argsort", "a, axis=-1", out=ty.array(None, "i"))
for _name in ("any", "all"):
    nondiff(f"numpy.{_name}", "a, axis=None", out=ty.unknown)
nondiff("numpy.count_nonzero", "a, axis=None", out=ty.unknown)

# ndarray methods and attributes mirror the functions (the receiver is the first parameter)
for _name in ("sum", "mean", "prod", "max", "min", "dot", "transpose", "copy", "clip", "ravel"):
    alias(f"numpy.ndarray.{_name}", f"numpy.{_name}", attr=True)
alias("numpy.ndarray.reshape", "numpy.reshape", attr=True)
alias("numpy.ndarray.flatten", "numpy.ravel", attr=True, fresh=True)
defrule("numpy.ndarray.T", "a", jvp="np.transpose(t)", vjp="np.transpose(g)", out=ty.same("a"),
        fresh=False, attr=True, linear=("a",))
nondiff("numpy.ndarray.shape", "a", out=lambda sig: T.UNKNOWN, attr=True)
nondiff("numpy.ndarray.ndim", "a", out=ty.scalar_int, attr=True)
nondiff("numpy.ndarray.size", "a", out=ty.scalar_int, attr=True)
nondiff("numpy.ndarray.dtype", "a", out=ty.opaque("dtype"), attr=True)
for _name in ("argmax", "argmin"):
    alias(f"numpy.ndarray.{_name}", f"numpy.{_name}", attr=True)
