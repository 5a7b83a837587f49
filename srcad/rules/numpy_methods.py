"""ndarray methods and attributes. Each mirrors the numpy function of the same name (the
receiver is the first parameter), so it shares that function's rules and semantics."""

import math

from ..ir import types as T
from . import batching as bt
from . import shapes as sh
from . import shapes_numpy as shn
from . import typefns as ty
from . import vmaps as vm
from .registry import alias, defrule, family, nondiff

family("numpy methods")

for _name in ("sum", "mean", "prod", "max", "min", "std", "var", "cumsum", "cumprod", "dot",
              "transpose", "copy", "clip", "ravel", "reshape", "squeeze", "swapaxes", "take",
              "repeat", "diagonal", "trace", "conjugate"):
    alias(f"numpy.ndarray.{_name}", f"numpy.{_name}", attr=True)
alias("numpy.ndarray.conj", "numpy.conjugate", attr=True, shape=shn.same("x"))
alias("numpy.ndarray.flatten", "numpy.ravel", attr=True, fresh=True)
defrule("numpy.ndarray.astype", "a, dtype", jvp="np.asarray(t, dtype=dtype)", vjp="g",
        out=lambda sig: T.Array(ty._ndim_of(sig.type("a")), None), attr=True, linear=("a",),
        shape=shn.same("a"))
defrule("numpy.ndarray.T", "a", jvp="np.transpose(t)", vjp="np.transpose(g)", out=ty.same("a"),
        fresh=False, attr=True, linear=("a",), complex="keeps",
        kind="view", shape=sh.reversed_axes, batch=bt.reversed_axes, keeps_kind=True, vmap=vm.transposed,
        numba="contiguous")
# x.item(): the one element of a size-1 array; x.item(i): element i of the flattened array
# (negative from the end); x.item((i, j)): element [i, j]
_ITEM = ("(i if isinstance(i, tuple) else np.unravel_index((0 if i is None else i) % max(np.size(a), 1), "
         "np.shape(a)))")
defrule("numpy.ndarray.item", "a, i=None", jvp={"a": "t.item() if i is None else t.item(i)"},
        vjp={"a": f"srcad.setitem(np.zeros(np.shape(a)), {_ITEM}, g)"},
        out=ty.scalar_float, attr=True, linear=("a",), raises="always")  # not of size 1
defrule("numpy.ndarray.tolist", "a", jvp="t.tolist()", vjp="np.array(g)",
        out=lambda sig: T.List(T.FLOAT) if isinstance(sig.type("a"), T.Array) and sig.type("a").ndim == 1
        else T.UNKNOWN, attr=True, linear=("a",))
defrule("numpy.ndarray.real", "a", jvp="np.real(t)", vjp="g", out=ty.same("a"), fresh=False,
        attr=True, linear=("a",), complex="real")
alias("numpy.ndarray.imag", "numpy.imag", attr=True, fn=None)

def _shape_type(sig):
    t = sig.type("a")
    if isinstance(t, T.Array) and t.ndim is not None:
        return T.Tuple((T.INT,) * t.ndim)
    return T.UNKNOWN


nondiff("numpy.ndarray.shape", "a", out=_shape_type, attr=True, of_shape=tuple)
nondiff("numpy.ndarray.ndim", "a", out=ty.scalar_int, attr=True, of_shape=len)
nondiff("numpy.ndarray.size", "a", out=ty.scalar_int, attr=True, of_shape=math.prod)
nondiff("numpy.ndarray.dtype", "a", out=ty.opaque("dtype"), attr=True)
for _name in ("argmax", "argmin", "argsort", "nonzero", "any", "all"):
    alias(f"numpy.ndarray.{_name}", f"numpy.{_name}", attr=True)
alias("numpy.ndarray.round", "numpy.round", attr=True, shape=shn.same("x"))
