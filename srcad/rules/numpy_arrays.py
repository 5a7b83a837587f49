"""The core NumPy array functions: sum, mean, prod, max/min, dot, matmul, outer, transpose,
reshape, ravel, copy, array/asarray. (More in numpy_reductions, numpy_shape,
numpy_products, numpy_linalg; ndarray methods in numpy_methods.)

max/min reductions split the derivative equally among tied maxima (as JAX does); prod's
derivative is the product of the other elements (srcad.prod_partials), exact where
elements are 0, and so is its second derivative (srcad.prod_hvp); third derivatives divide
by a (NaN where an element is 0).

sum, mean, prod, max and min take where= (elements where it is False get derivative 0) and,
except mean, initial= (a constant: differentiating it is an error). A maximum equal to
initial gives the elements equal to it the derivative (shared equally), and none when no
element reaches it.
"""

from ..ir import types as T
from . import batching as bt
from . import shapes as sh
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import alias, conjugated, defrule, family

family("numpy arrays")

_EXPAND = "srcad.expand_reduced({v}, a, axis, keepdims)"
RED = "a, axis=None, dtype=None, out=None, keepdims=False"


def _plain(base: str, general: str, initial: bool = True) -> str:
    """`base` for a call without where= (and initial=), else `general` (decided when the
    arguments are literals, as they usually are)."""
    test = "where is True and initial is None" if initial else "where is True"
    return f"({base} if {test} else {general})"


# where=: elements where it is False are left out; initial= (not differentiated) starts the sum
# or product, or takes part in the maximum (an element equal to it still gets the derivative)
_KEPT = "np.where(where, {v}, 0.0)"
_EG = _EXPAND.format(v="g")
defrule("numpy.sum", RED + ", initial=None, where=True",
        jvp={"a": _plain("np.sum(t, axis=axis, keepdims=keepdims)",
                         "np.sum(t, axis=axis, keepdims=keepdims, where=where)", False)},
        vjp={"a": _plain(_EG, _KEPT.format(v=_EG), False)}, out=ty.reduce_("a"), linear=("a",),
        kind="reduction", batch=bt.reduction, method="sum", refuses=("initial",), complex="keeps",
        shift="sum", keeps_kind="int")
_N = "np.sum(np.broadcast_to(where, np.shape(a)), axis=axis, keepdims=keepdims)"
defrule("numpy.mean", RED + ", where=True",
        jvp={"a": _plain("np.mean(t, axis=axis, keepdims=keepdims)",
                         "np.mean(t, axis=axis, keepdims=keepdims, where=where)", False)},
        vjp={"a": _plain(_EG + " * (np.size(ans) / np.size(a))",
                         _KEPT.format(v=_EXPAND.format(v=f"g / {_N}")), False)},
        out=ty.reduce_("a"), linear=("a",), kind="reduction", batch=bt.reduction, method="mean",
        complex="keeps", shift="mean")
_PARTIALS = ("srcad.prod_partials(np.where(where, a, 1.0), axis) * (1.0 if initial is None else initial)")
defrule("numpy.prod", RED + ", initial=None, where=True",
        jvp={"a": _plain("np.sum(t * srcad.prod_partials(a, axis), axis=axis, keepdims=keepdims)",
                         f"np.sum({_KEPT.format(v='t')} * {_PARTIALS}, axis=axis, keepdims=keepdims)")},
        vjp={"a": _plain(_EG + " * srcad.prod_partials(a, axis)", _KEPT.format(v=f"{_EG} * {_PARTIALS}"))},
        out=ty.reduce_("a"), kind="reduction", method="prod", refuses=("initial",), keeps_kind="int")


# constructors that carry the derivative of their values
def _fill_kind(sig) -> str | None:
    t = sig.type("fill_value")
    return {T.Int: "i", T.Bool: "b", T.Float: "f"}.get(type(t), t.kind if isinstance(t, T.Array) else None)


def _full_type(sig) -> T.Type:
    return ty.from_shape(kind=_fill_kind(sig))(sig)


def _linspace_type(sig) -> T.Type:
    ranks = [t.ndim if isinstance(t, T.Array) else 0 for t in (sig.type("start"), sig.type("stop"))]
    return T.Array(None if None in ranks else 1 + max(ranks))


defrule("numpy.full", "shape, fill_value, dtype=None, order='C'",
        jvp={"fill_value": "np.full(shape, t, dtype)"},
        vjp={"fill_value": "srcad.unbroadcast(g, fill_value)"}, out=_full_type, linear=("fill_value",),
        shape=sh.literal, allocates=True)
defrule("numpy.full_like", "a, fill_value, dtype=None",
        vjp={"fill_value": "srcad.unbroadcast(g, fill_value)"}, out=ty.array_like("a", kind=None),
        linear=("fill_value",), shape=sh.first, allocates=True, vmap=vm.shape_of_operand("a"))
def _arange_type(sig) -> T.Type:
    """An int array for int arguments, a float array if any is a float."""
    ts = [sig.type(p) for p in ("start", "stop", "step")]
    if any(isinstance(t, (T.Float, T.Num)) for t in ts):
        return T.Array(1, "f")
    if all(isinstance(t, (T.Int, T.Bool, T.NoneT)) for t in ts):
        return T.Array(1, "i")
    return T.Array(1, None)


# arange(start, stop, step) is start + k * step (with one argument, that argument is stop)
defrule("numpy.arange", "start, stop=None, step=None, dtype=None",
        jvp={"start": "t * np.ones(np.shape(ans)) if stop is not None else 0.0 * ans",
             "step": "t * np.arange(np.size(ans))"},
        vjp={"start": "np.sum(g) if stop is not None else 0.0",
             "step": "np.sum(g * np.arange(np.size(ans)))"},
        out=_arange_type)
# (the end point that does not move gets weight 0: selected, not multiplied)
_WEIGHTS = "np.sum(np.where(np.linspace({0}, num, endpoint) == 0.0, 0.0, np.moveaxis(g, 0, -1) * " \
           "np.linspace({0}, num, endpoint)), axis=-1)"
defrule("numpy.linspace", "start, stop, num=50, endpoint=True",
        jvp={"start": "np.linspace(t, srcad.zeros_like(t), num, endpoint)",
             "stop": "np.linspace(0.0 * t, t, num, endpoint)"},
        vjp={"start": _WEIGHTS.format("1.0, 0.0"), "stop": _WEIGHTS.format("0.0, 1.0")},
        out=_linspace_type, linear=("start", "stop"))
_MASK = "(a == " + _EXPAND.format(v="ans") + ")"
# tangents are selected with np.where: an element that is not a maximum contributes exactly
# 0, even where its tangent is inf or NaN. The cotangent is the same for all the elements a
# result reduces, so the adjoint multiplies it by the mask (as cheap as it gets).
_COUNT = _EXPAND.format(v=f"np.sum({_MASK}, axis=axis, keepdims=keepdims)")
_PICK_T = f"np.where({_MASK}, t, 0.0) / {_COUNT}"
# (g divided by the count at the reduced shape, then selected: one full-size pass)
_SHARE_G = f"np.where({_MASK}, " + _EXPAND.format(
    v=f"g / np.sum({_MASK}, axis=axis, keepdims=keepdims)") + ", 0.0)"
# with where= or initial=: the elements kept that equal the result (none when it is initial)
_WMASK = f"({_MASK} & where)"
_WCOUNT = "np.maximum(" + _EXPAND.format(v=f"np.sum({_WMASK}, axis=axis, keepdims=keepdims)") + ", 1)"
for _name in ("max", "min", "amax", "amin"):
    defrule(f"numpy.{_name}", "a, axis=None, out=None, keepdims=False, initial=None, where=True",
            jvp={"a": _plain(f"np.sum({_PICK_T}, axis=axis, keepdims=keepdims)",
                             f"np.sum(np.where({_WMASK}, t, 0.0) / {_WCOUNT}, axis=axis, "
                             "keepdims=keepdims)")},
            vjp={"a": _plain(_SHARE_G, f"np.where({_WMASK}, {_EXPAND.format(v='g')} / {_WCOUNT}, 0.0)")},
            out=ty.reduce_("a"), kind="reduction", keeps_kind=True, method=_name.lstrip("a"),
            refuses=("initial",), shift="extremum")

# dot of >2-d operands contracts the last axis of a with the second-to-last of b
_DOT_ND = "srcad.tensordot_adjoint(g, {o}, np.shape({s}), (-1, 0 if np.ndim(b) == 1 else -2), {w})"
_DOT_A = ("g * b if np.ndim(b) == 0 else (np.sum(g * b) if np.ndim(a) == 0 else "
          "(((g * b if np.ndim(b) == 1 else np.dot(b, g)) if np.ndim(a) == 1 else "
          "(np.outer(g, b) if np.ndim(b) == 1 else np.dot(g, srcad.T(b)))) "
          "if np.ndim(a) <= 2 and np.ndim(b) <= 2 "
          "else " + _DOT_ND.format(o="b", s="a", w=0) + "))")
_DOT_B = ("g * a if np.ndim(a) == 0 else (np.sum(g * a) if np.ndim(b) == 0 else "
          "(((g * a if np.ndim(a) == 1 else np.dot(srcad.T(a), g)) if np.ndim(b) == 1 else "
          "(np.outer(a, g) if np.ndim(a) == 1 else np.dot(srcad.T(a), g))) "
          "if np.ndim(a) <= 2 and np.ndim(b) <= 2 "
          "else " + _DOT_ND.format(o="a", s="b", w=1) + "))")
defrule("numpy.dot", "a, b", vjp=(_DOT_A, _DOT_B),
        out=ty.matmul("a", "b", dot=True), multilinear=("a", "b"), shape=sh.dot,
        batch=bt.matmul, vmap=vm.matmul, complex="keeps",
        complex_vjp=(conjugated(_DOT_A), conjugated(_DOT_B)))
alias("numpy.matmul", "operator.matmul", cheap="", foldable=False, type_errors="")

defrule("numpy.transpose", "a, axes=None",
        vjp={"a": "np.transpose(g, srcad.inverse_axes(axes))"}, out=ty.same("a"), fresh=False,
        linear=("a",), kind="view", complex="keeps", shape=sh.transpose, batch=bt.transpose, keeps_kind=True,
        vmap=vm.transposed, python="T", numba="contiguous")
defrule("numpy.reshape", "a, shape=None, order='C'", jvp={"a": "np.reshape(t, shape, order=order)"},
        vjp={"a": "np.reshape(g, np.shape(a), order=order)"}, out=ty.from_shape("shape"), fresh=False,
        linear=("a",), shape=sh.reshape, batch=bt.reshape, keeps_kind=True, complex="keeps", vmap=vm.reshaped)
defrule("numpy.ravel", "a, order='C'", jvp={"a": "np.ravel(t, order=order)"},
        vjp={"a": "np.reshape(g, np.shape(a), order=order)"}, out=ty.array(1), fresh=False,
        linear=("a",), shape=sh.flat, batch=bt.reshape, keeps_kind=True, complex="keeps", vmap=vm.reshaped)
defrule("numpy.copy", "a", vjp="g", out=ty.same("a"), linear=("a",), shape=sh.first,
        keeps_kind=True, allocates=True, complex="keeps", vmap=vm.same)
def _array_type(sig) -> T.Type:
    """np.array(a) of an array is an array of its type (a copy); of a list of arrays of one
    known shape (T.List.shapes), one rank more; otherwise of unknown rank."""
    t = sig.type("object")
    plain = sig.is_const("dtype") and sig.const("dtype") is None
    if isinstance(t, T.Array) and plain:
        return t
    stacked = sh.stacked_items(t)
    if stacked is not None and plain and isinstance(t.elt, T.Array) and t.elt.kind in ("f", "i", "b"):
        return T.Array(len(stacked), t.elt.kind)
    nested = _nested(t) if plain and isinstance(t, (T.List, T.Tuple)) else None
    if nested is not None:  # (np.array([2, 0, 1]) is an int array of rank 1: its items index)
        return T.Array(*nested)
    return ty.array(None)(sig)


def _asarray_type(sig) -> T.Type:
    """np.asarray(a): of unknown rank (keeps_kind: an int array's kind), but for lists and
    tuples nested to numbers of one kind (np.asarray([2, 0, 1]): ints of rank 1)."""
    t = sig.type("a")
    nested = _nested(t) if isinstance(t, (T.List, T.Tuple)) and sig.is_const("dtype") and \
        sig.const("dtype") is None else None
    return T.Array(*nested) if nested is not None else T.Array(None, "f")


_SCALAR_KINDS = {T.Int: "i", T.Bool: "b", T.Float: "f"}


def _nested(t: T.Type) -> tuple | None:
    """(rank, dtype kind) of np.array of lists and tuples nested to numbers of one kind, or
    to arrays of a known rank; None when the types do not tell."""
    if type(t) in _SCALAR_KINDS:
        return 0, _SCALAR_KINDS[type(t)]
    if isinstance(t, T.Array):
        return (t.ndim, t.kind) if t.ndim is not None and t.kind in ("f", "i", "b") else None
    if isinstance(t, T.List) and t.items is None:
        inner = {_nested(t.elt)}
    elif isinstance(t, T.Tuple) and t.elts and t.cls is None:
        inner = {_nested(e) for e in t.elts}
    else:
        return None
    if len(inner) != 1 or None in inner:
        return None
    rank, kind = inner.pop()
    return rank + 1, kind


defrule("numpy.array", "object, dtype=None", jvp={"object": "np.array(t, dtype=dtype)"},
        vjp={"object": "srcad.array_adjoint(g, object)"}, out=_array_type, linear=("object",),
        shape=sh.array_of, allocates=True, vmap=vmi.array_of)
defrule("numpy.asarray", "a, dtype=None", jvp={"a": "np.asarray(t, dtype=dtype)"},
        vjp={"a": "srcad.array_adjoint(g, a)"}, out=_asarray_type, fresh=False, linear=("a",),
        shape=sh.first, keeps_kind=True, vmap=vmi.array_of)
defrule("numpy.outer", "a, b",
        vjp=("np.reshape(np.dot(g, np.ravel(b)), np.shape(a))",
             "np.reshape(np.dot(np.ravel(a), g), np.shape(b))"),
        out=ty.array(2), multilinear=("a", "b"), shape=sh.outer, vmap=vm.outer)
