"""How the numba target prints srcad's helpers whose arguments' types say what they do
(each one is chosen by its rule's `numba=` name): the NumPy call numba compiles, where the
CPython helper tests types at run time, which numba cannot type.
"""

from __future__ import annotations

import gast

from ..ir import types as T
from ..ir.nodes import Const
from .emit import CodeEmitter
from .syntax import _attr, _call, _name


def _scalar(a) -> bool:
    t = a.type if hasattr(a, "type") else None
    return isinstance(t, (T.Float, T.Int)) or (isinstance(a, Const) and type(a.value) in (int, float))


def _array(a, ndim_positive: bool = True) -> bool:
    t = getattr(a, "type", None)
    return isinstance(t, T.Array) and t.ndim is not None and (t.ndim > 0 or not ndim_positive) \
        and t.kind == "f"


def _full(em, shape_node, v):
    return _call(_attr(_name("np"), "full"), [shape_node, em.atom(v)])


def _broadcast_to(em, op):
    """srcad.broadcast_to(v, shape) of a number to a known non-empty shape: np.full."""
    v, shape = op.args[0], op.args[1]
    if _scalar(v) and isinstance(shape, Const) and isinstance(shape.value, tuple) and shape.value:
        return _full(em, em.atom(shape), v)
    return None


def _expand_reduced(em, op):
    """srcad.expand_reduced(v, x) of a full reduction (axis None) of an array x: np.full."""
    v, x = op.args[0], op.args[1]
    rest = op.args[2:] + tuple(a for _, a in op.kw)
    if not (_scalar(v) and all(isinstance(a, Const) and a.value in (None, False) for a in rest)):
        return None
    if _array(x):
        return _full(em, _attr(em.atom(x), "shape"), v)
    return em.atom(v) if isinstance(getattr(x, "type", None), (T.Float, T.Int)) else None


def _zeros_like(em, op):
    x = op.args[0]
    if _array(x, ndim_positive=False):
        return _call(_attr(_name("np"), "zeros"), [_attr(em.atom(x), "shape")])
    return None


def _unbroadcast(em, op):
    """srcad.unbroadcast(g, x) where g already has x's shape: g."""
    g, x = op.args
    tg, tx = getattr(g, "type", None), getattr(x, "type", None)
    if isinstance(tg, T.Float) and isinstance(tx, T.Float):
        return em.atom(g)
    if _array(g) and isinstance(tx, T.Float):
        return _call(_attr(em.atom(g), "sum"), [])
    if not (_array(g) and _array(x) and _known(tg.shape) and _known(tx.shape)):
        return None
    if tg.shape == tx.shape:
        return em.atom(g)
    lead = len(tg.shape) - len(tx.shape)
    if lead < 0:
        return None
    node = em.atom(g)
    for _ in range(lead):  # (numba's sum takes one axis, and no keepdims)
        node = _call(_attr(node, "sum"), [], [("axis", gast.Constant(value=0, kind=None))])
    for i in reversed(range(len(tx.shape))):
        if tx.shape[i] == 1 and tg.shape[lead + i] != 1:
            node = _call(_attr(node, "sum"), [], [("axis", gast.Constant(value=i, kind=None))])
    shape = gast.Tuple(elts=[gast.Constant(value=d, kind=None) for d in tx.shape], ctx=gast.Load())
    return _call(_attr(node, "reshape"), [shape])


def _known(shape) -> bool:
    return shape is not None and all(type(d) is int for d in shape)


def _contiguous(em, op):
    """A transpose of an array of two or more dimensions, copied to C order: numba compiles
    np.dot once per combination of its operands' layouts (C, F, A), each for a second or so."""
    t = getattr(op.out, "type", None)
    if not (isinstance(t, T.Array) and t.ndim is not None and t.ndim >= 2):
        return None
    return _call(_attr(_name("np"), "ascontiguousarray"), [CodeEmitter.expr(em, op)])


def _own_argument(em, op):
    """srcad.own_argument(x, others, where) of an array, where no other argument is one (or a
    container: nothing can share x's memory): x.copy(). (Otherwise the CPython helper's check,
    which numba cannot compile: the call falls back.)"""
    x, others = op.args[0], getattr(op.args[1], "type", None)
    if _array(x, ndim_positive=False) and isinstance(others, T.Tuple) and all(
            isinstance(t, (T.Float, T.Int, T.Bool, T.NoneT)) for t in others.elts):
        return _call(_attr(em.atom(x), "copy"), [])
    return None


SPECIAL = {"broadcast_to": _broadcast_to, "expand_reduced": _expand_reduced, "zeros_like": _zeros_like,
           "unbroadcast": _unbroadcast, "contiguous": _contiguous,
           "own_argument": _own_argument}  # (by Rule.numba)
