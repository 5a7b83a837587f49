"""The numba target's np.tensordot (which numba does not compile; the loop contraction of
passes/contract.py makes it): both operands gathered into C-ordered matrices by loops, then
one matrix product, the `@` of two C-ordered matrices the generated code already uses (numba
compiles np.transpose, np.ascontiguousarray and reshape of each rank and layout separately,
seconds of a first call):

    W_bar = np.tensordot(A, H, axes=((0, 2), (0, 2)))      (A: (50, 64, 1), H: (50, 64, 1))
    ->
    _u1 = np.empty((64, 50), np.float64)
    for _u2 in range(50):
        for _u3 in range(64):
            _u1[_u3, _u2] = A[_u2, _u3, 0]
    _u4 = ... (H as a (50, 64) matrix, the same way)
    W_bar = _u1 @ _u4
"""

from __future__ import annotations

import math

import gast

from ..ir import types as T
from ..ir.nodes import Apply, Const
from ..rules import registry
from .numba_loops import named
from .syntax import _assign, _attr, _call, _name


def _int(v: int):
    return gast.Constant(value=v, kind=None)


def _flat(index: list, dims: list):
    """The row-major position of `index` (nodes) in an array of `dims`."""
    node, stride = None, 1
    for i, d in reversed(list(zip(index, dims))):
        if d != 1:
            term = i if stride == 1 else gast.BinOp(left=i, op=gast.Mult(), right=_int(stride))
            node = term if node is None else gast.BinOp(left=term, op=gast.Add(), right=node)
        stride *= d
    return node if node is not None else _int(0)


def _axes(op: Apply):
    """(shape of a, shape of b, contracted axes of a, of b), or None when not all known."""
    axes = dict(op.kw).get("axes", op.args[2] if len(op.args) > 2 else None)
    if len(op.args) < 2 or not isinstance(axes, Const):
        return None
    a, b = op.args[:2]
    shapes = [T.shape_of(getattr(x, "type", None)) for x in (a, b)]
    if not all(isinstance(getattr(x, "type", None), T.Array) and x.type.kind == "f" for x in (a, b)) or \
            not all(s and all(type(d) is int for d in s) for s in shapes):
        return None
    ax = axes.value
    if type(ax) is int and 0 <= ax <= min(len(s) for s in shapes):  # (the last ax axes of a, first of b)
        ax = (tuple(range(len(shapes[0]) - ax, len(shapes[0]))), tuple(range(ax)))
    if not (isinstance(ax, tuple) and len(ax) == 2 and all(isinstance(x, tuple) for x in ax)):
        return None
    ia, ib = ([i % len(s) for i in x] for x, s in zip(ax, shapes))
    if len(ia) != len(ib) or [shapes[0][i] for i in ia] != [shapes[1][i] for i in ib]:
        return None
    return shapes[0], shapes[1], ia, ib


def permuted(op: Apply, literal: bool = True):
    """(shape of x, axes) of np.transpose(x, axes) with literal axes and x of known shape (with
    `literal` False also x.T, np.transpose(x), srcad.T(x): the axes reversed)."""
    rule = registry.lookup(op.prim)
    if rule is None or rule.numba != "contiguous" or op.kw or not op.args:
        return None
    t = getattr(op.args[0], "type", None)
    shape = T.shape_of(t)
    if len(op.args) == 2 and isinstance(op.args[1], Const) and op.args[1].value is not None:
        perm = op.args[1].value
    elif literal or len(op.args) > 2 or (len(op.args) == 2 and op.args[1] != Const(None)) or shape is None:
        return None
    else:
        perm = tuple(reversed(range(len(shape))))
    if not (isinstance(t, T.Array) and t.kind == "f" and shape and all(type(d) is int for d in shape)
            and isinstance(perm, tuple) and sorted(perm) == list(range(len(shape)))):
        return None
    return shape, perm


class Contractions:
    """A mixin of NumbaEmitter: `contraction` prints an np.tensordot of known shapes, `transposed`
    a transpose of known shape written as a statement as a copy by loops (numba compiles
    np.transpose(x, axes) for seconds, 6 s for a matrix on this machine, and
    np.ascontiguousarray(x.T) for half a second, where a loop copying it takes a tenth)."""

    def transposed(self, op: Apply) -> list | None:
        got = permuted(op, literal=False)
        if got is None:
            return None
        shape, perm = got
        stmts: list = []
        out = self._copied(op.args[0], shape, [shape[k] for k in perm], stmts,
                           lambda name, index: self._element(name, [index[k] for k in perm], gast.Store()))
        return stmts + [_assign(_name(self.name(op.out), gast.Store()), _name(out))]

    def contraction(self, op: Apply) -> list | None:
        got = _axes(op)
        if got is None:
            return None
        sa, sb, ia, ib = got
        fa = [i for i in range(len(sa)) if i not in ia]
        fb = [i for i in range(len(sb)) if i not in ib]
        stmts: list = []
        left = self._gathered(op.args[0], sa, fa, ia, stmts)
        right = self._gathered(op.args[1], sb, ib, fb, stmts)
        product = gast.BinOp(left=_name(left), op=gast.MatMult(), right=_name(right))
        out = tuple(sa[i] for i in fa) + tuple(sb[i] for i in fb)
        if out != (math.prod(sa[i] for i in fa), math.prod(sb[i] for i in fb)):
            product = _call(_attr(product, "reshape"), [gast.Tuple(elts=[_int(d) for d in out],
                                                                   ctx=gast.Load())])
        return stmts + [_assign(_name(self.name(op.out), gast.Store()), product)]

    def _gathered(self, a, shape: tuple, rows: list, cols: list, stmts: list) -> str:
        """a's entries as a C-ordered matrix: the axes `rows` (flattened) by the axes `cols`."""
        def place(name, index):
            at = [_flat([index[i] for i in axes], [shape[i] for i in axes]) for axes in (rows, cols)]
            return gast.Subscript(value=_name(name), slice=gast.Tuple(elts=at, ctx=gast.Load()),
                                  ctx=gast.Store())
        dims = (math.prod(shape[i] for i in rows), math.prod(shape[i] for i in cols))
        return self._copied(a, shape, dims, stmts, place)

    def _copied(self, a, shape: tuple, dims, stmts: list, place) -> str:
        """The name of a new float array of `dims` holding the entries of a (of `shape`), each
        written by loops at `place(name, index)`, the target of the entry at `index`."""
        out = self.fresh_name()
        stmts.append(_assign(_name(out, gast.Store()), _call(_attr(_name("np"), "empty"), [
            gast.Tuple(elts=[_int(d) for d in dims], ctx=gast.Load()), _attr(_name("np"), "float64")])))
        index = [_int(0) if d == 1 else _name(self.fresh_name()) for d in shape]
        src = named(self, self.atom(a), stmts)
        stmts.extend(self._loops(shape, index, [_assign(place(out, index), self._element(src, index))]))
        return out
