"""Methods of NumPy's differentiable ufuncs: `reduce`, `accumulate` and `outer`
(`np.add.reduce(x)`, `np.maximum.accumulate(x)`, `np.multiply.outer(x, y)`). Their rules are
registered under names like numpy.maximum.accumulate (registry.ufunc_method_name finds
them: each read of np.maximum.accumulate is a new bound method).

- reduce is the reduction of the same name (sum, prod, max, min: their rules, keepdims=,
  where= and initial= too) with axis=0 by default; maximum.reduce and minimum.reduce split
  the derivative equally among tied extrema, as np.max does.
- accumulate: add's is cumsum, multiply's cumprod (exact where elements are 0); maximum's
  and minimum's (running extrema, "cummax") have the derivative of the element each result
  is: at ties, the first element that reached the value (a later equal element gets 0; one
  subgradient, the same in both modes).
- outer(x, y) is f(x[..., None, ...], y), with f's derivatives; maximum.outer and
  minimum.outer split the derivative equally on ties, as np.maximum does.
out= is an error, as everywhere; accumulate and outer take no other keywords than dtype=.
"""

from .. import runtime as rt
from ..ir import types as T
from . import typefns as ty
from .registry import RULES, alias, defrule, family, nondiff

family("numpy ufunc methods")

# -- reduce: the rules of sum, prod, max and min with axis=0 by default (never written as the
# x.sum() method, nor batched by the reduction rule, which take axis=None) ----------------------
for _name, _target, _positional in (("add", "sum", None), ("multiply", "prod", None), ("maximum", "max", 2),
                                    ("minimum", "min", 2)):
    _base = RULES[f"numpy.{_target}"]
    alias(f"numpy.{_name}.reduce", f"numpy.{_target}", defaults={**_base.defaults, "axis": 0}, method="",
          batch=None, positional=_positional)  # (max's parameters: no dtype, so keywords after axis)

# -- accumulate --------------------------------------------------------------------------------
_ACC = "array, axis=0, dtype=None, out=None"
_RCS = "np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)"
defrule("numpy.add.accumulate", _ACC, jvp={"array": "np.cumsum(t, axis=axis)"}, vjp={"array": _RCS},
        out=ty.rank("array", at_least=1), linear=("array",))
defrule("numpy.multiply.accumulate", _ACC, jvp={"array": "srcad.cumprod_tangent(t, array, axis)"},
        vjp={"array": "srcad.cumprod_adjoint(g, array, axis)"}, out=ty.rank("array", at_least=1))
for _name in ("maximum", "minimum"):
    defrule(f"numpy.{_name}.accumulate", _ACC, let={"at": "srcad.running_extreme_index(array, ans, axis)"},
            jvp={"array": "np.take_along_axis(t, at, axis)"},
            vjp={"array": "srcad.take_along_adjoint(g, array, at, axis)"},
            out=ty.rank("array", at_least=1))
nondiff("srcad.running_extreme_index", "a, ans, axis=0", out=lambda sig: T.Array(None, "i"),
        fn=rt.running_extreme_index)

# -- outer -------------------------------------------------------------------------------------
def _outer_type(sig) -> T.Type:
    na, nb = ty._ndim_of(sig.type("A")), ty._ndim_of(sig.type("B"))
    if na is None or nb is None:
        return T.Array(None, "f")
    return T.FLOAT if na + nb == 0 else T.Array(na + nb, "f")


def _axes_type(sig) -> T.Type:
    na, nb = ty._ndim_of(sig.type("x")), ty._ndim_of(sig.type("y"))
    return T.UNKNOWN if na is None or nb is None else T.Tuple((T.INT,) * nb)


_AX = "srcad.outer_axes(A, B)"
_X = f"np.expand_dims(A, {_AX})"  # A with y's axes added: f(_X, B) is the result


def _outer(name, dx, dy, **flags):
    """ufunc.outer with partial derivatives dx, dy: expressions in X (A, expanded) and B."""
    dx, dy = dx.replace("X", _X), dy.replace("X", _X)
    return defrule(f"numpy.{name}.outer", "A, B",
                   jvp={"A": f"np.expand_dims(t, {_AX}) * ({dx})", "B": f"t * ({dy})"},
                   vjp={"A": f"np.sum(g * ({dx}), axis={_AX})", "B": f"srcad.unbroadcast(g * ({dy}), B)"},
                   out=_outer_type, **flags)


defrule("numpy.add.outer", "A, B", jvp_all="np.add.outer(t_A, t_B)",
        vjp={"A": f"np.sum(g, axis={_AX})", "B": "srcad.unbroadcast(g, B)"},
        out=_outer_type, linear=("A", "B"))
defrule("numpy.subtract.outer", "A, B", jvp_all="np.subtract.outer(t_A, t_B)",
        vjp={"A": f"np.sum(g, axis={_AX})", "B": "-srcad.unbroadcast(g, B)"},
        out=_outer_type, linear=("A", "B"))
defrule("numpy.multiply.outer", "A, B",
        vjp={"A": f"np.sum(g * B, axis={_AX})", "B": f"srcad.unbroadcast(g * {_X}, B)"},
        out=_outer_type, multilinear=("A", "B"))
_outer("divide", "1.0 / B", "-(ans / B)", raises="scalars")
# (ties: half each, as np.maximum; np.where, so that an unselected infinite tangent gives 0)
def _pick(mine: str, other: str, op: str, v: str) -> str:
    return f"np.where({mine} {op} {other}, {v}, np.where({mine} == {other}, 0.5 * {v}, 0.0))"


for _name, _op in (("maximum", ">"), ("minimum", "<")):
    defrule(f"numpy.{_name}.outer", "A, B",
            jvp={"A": _pick(_X, "B", _op, f"np.expand_dims(t, {_AX})"), "B": _pick("B", _X, _op, "t")},
            vjp={"A": f"np.sum({_pick(_X, 'B', _op, 'g')}, axis={_AX})",
                 "B": f"srcad.unbroadcast({_pick('B', _X, _op, 'g')}, B)"},
            out=_outer_type)
nondiff("srcad.outer_axes", "x, y", out=_axes_type, fn=rt.outer_axes)

# -- reduceat: sums (extrema) of the segments [indices[i], indices[i + 1]) along axis; linear
# maps of the tangents (srcad.reduceat_tangent, runtime/order.py); indices not differentiated
_AT = "a, indices, axis, ans, {op!r}"
for _name in ("add", "maximum", "minimum"):
    defrule(f"numpy.{_name}.reduceat", "array, indices, axis=0, dtype=None, out=None",
            jvp={"array": f"srcad.reduceat_tangent(t, {_AT.format(op=_name).replace('a,', 'array,', 1)})"},
            vjp={"array": f"srcad.reduceat_adjoint(g, {_AT.format(op=_name).replace('a,', 'array,', 1)})"},
            out=ty.rank("array", at_least=1), raises="always")  # (an index out of range)
for _helper, _other, _first in (("tangent", "adjoint", "t_"), ("adjoint", "tangent", "c")):
    defrule(f"srcad.reduceat_{_helper}", f"{_first}, a, indices, axis, y, op",
            vjp={_first: f"srcad.reduceat_{_other}(g, a, indices, axis, y, op)"},
            out=ty.array_like("a") if _helper == "adjoint" else ty.rank("y"),
            fn=getattr(rt, f"reduceat_{_helper}"), linear=(_first,))
