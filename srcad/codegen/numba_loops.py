"""The numba target's scalar loops: an elementwise operation on float arrays of one known
shape is printed as a loop over their elements (docs/numba_target.md):

    _t8 = h_bar * (1.0 - h * h)             _u1 = np.empty((64, 1), np.float64)
                                            for _u2 in range(64):
                                                _u1[_u2, 0] = h_bar[_u2, 0] * (1.0 - h[_u2, 0] * h[_u2, 0])
                                            _t8 = _u1
    W_bar += _t8 @ h_1.T                    _u3 = _t8 @ h_1.T
                                            for _u4 in range(64):
                                                for _u5 in range(64):
                                                    W_bar[_u4, _u5] += _u3[_u4, _u5]

numba compiles a NumPy array expression into a kernel of its own, which costs a fraction of a
second of compile time each and an allocation per evaluation; a loop over scalars compiles
quickly and runs without temporaries. A tree of inlined elementwise operations becomes one
loop; an operand of the tree's shape that is not elementwise (a product) is computed into a
temporary before it; anything else (broadcasting, other dtypes, an operation numba does not
print as a scalar ufunc or operator) keeps the NumPy expression. Results are float64 arrays,
as the numba target's stacks are.
"""

from __future__ import annotations

import gast
import numpy as np

from ..analysis.aliases import Aliases, update_base
from ..ir import types as T
from ..ir.nodes import Apply, Const, atom_type
from ..rules import registry
from .syntax import BINOPS, INPLACE, _assign, _attr, _call, _name

#: the largest array (elements) printed as a loop
MAX_ELEMENTS = 1 << 16

_SCALAR_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.USub, gast.UAdd)


class _NoLoop(Exception):
    """The operation cannot be printed as a scalar loop."""


def loop_shape(t) -> tuple | None:
    """The shape of a float array type printed as loops, or None."""
    if not (isinstance(t, T.Array) and t.kind == "f" and t.shape and all(type(d) is int for d in t.shape)):
        return None
    size = int(np.prod(t.shape))
    return tuple(t.shape) if 0 < size <= MAX_ELEMENTS else None


def _elementwise(op) -> bool:
    rule = registry.lookup(op.prim) if isinstance(op, Apply) else None
    return rule is not None and rule.kind == "elementwise" and len(op.outs) == 1 and not op.kw


def _transpose(op) -> bool:
    """Does op swap the two axes of a matrix (x.T, np.transpose(x), srcad.T)?"""
    rule = registry.lookup(op.prim)
    shape = getattr(op.out.type, "shape", None) or ()
    rest = op.args[1:] + tuple(x for _, x in op.kw)  # (np.transpose's axes: None only)
    return rule is not None and rule.numba == "contiguous" and len(shape) == 2 and all(
        isinstance(x, Const) and x.value is None for x in rest)


def _outer(op) -> bool:
    """Is op a product a @ b of a column (m, 1) and a row (1, n)?"""
    rule = registry.lookup(op.prim)
    if rule is None or rule.numba != "matmul" or op.kw or len(op.args) != 2:
        return False
    sa, sb = (loop_shape(getattr(x, "type", None)) for x in op.args)
    return sa is not None and sb is not None and len(sa) == len(sb) == 2 and sa[1] == sb[0] == 1


def _scalar_node(node) -> bool:
    """Is this printed operation one numba computes on numbers as it does on arrays (an
    arithmetic operator, or a NumPy ufunc called without keywords)?"""
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, _SCALAR_OPS)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, _SCALAR_OPS)
    if isinstance(node, gast.Call) and not node.keywords and isinstance(node.func, gast.Attribute) \
            and isinstance(node.func.value, gast.Name) and node.func.value.id == "np":
        return isinstance(getattr(np, node.func.attr, None), np.ufunc)
    return False


class ScalarLoops:
    """A mixin of NumbaEmitter: apply_stmt asks `scalar_loop` first."""

    _loop = None  # while printing a loop's element expression: (shape, index nodes, statements before,
    # the arrays it reads)
    _aliases = None  # analysis.aliases.Aliases of the function, made when an accumulation asks

    def scalar_loop(self, op: Apply, accumulate: int | None) -> list | None:
        """The statements of `op` as a loop over elements, or None. `accumulate`: the operand
        k of an accumulation `out += other` (naming.accumulate), else None."""
        if len(op.outs) != 1 or (not self.uses[op.out] and accumulate is None):
            return None
        shape = loop_shape(op.out.type)
        if shape is None or not (accumulate is not None or _elementwise(op)):
            return None
        short = op.prim.split(".", 1)[-1]
        short = INPLACE.get(short, short)
        if accumulate is not None and (short not in ("add", "sub", "mul", "truediv") or any(
                loop_shape(getattr(x, "type", None)) != shape for x in op.args)):
            return None
        index = [gast.Constant(value=0, kind=None) if d == 1 else _name(self.fresh_name()) for d in shape]
        self._loop = (shape, index, [], [])
        try:
            value = self.atom(op.args[1 - accumulate]) if accumulate is not None else self.expr(op)
            if accumulate is None and not _scalar_node(value):
                return None
        except _NoLoop:
            return None
        finally:
            pre, reads, self._loop = self._loop[2], self._loop[3], None
        out = self.name(op.out)
        if accumulate is not None:
            if self._reads_base(op.args[accumulate], reads):
                return None  # (x += x.T: NumPy buffers the overlap, a loop would read updated elements)
            return pre + self._loops(shape, index, [gast.AugAssign(
                target=self._element(out, index, gast.Store()), op=BINOPS[short](), value=value)])
        buf = self.fresh_name()
        empty = _call(_attr(_name("np"), "empty"), [_shape_node(shape), _attr(_name("np"), "float64")])
        body = [_assign(self._element(buf, index, gast.Store()), value)]
        return pre + [_assign(_name(buf, gast.Store()), empty)] + self._loops(shape, index, body) + [
            _assign(_name(out, gast.Store()), _name(buf))]

    def atom(self, a, index: bool = False):
        loop = self._loop
        if loop is None or index:
            return super().atom(a, index)
        if isinstance(a, Const):
            if type(a.value) in (int, float):
                return super().atom(a, index)
            raise _NoLoop
        t = a.type
        if isinstance(t, (T.Float, T.Int)):  # (a number: the same in every element, computed once)
            return _name(self._before_loop(a)) if a in self.inline and a not in self.override \
                else super().atom(a)
        if loop_shape(t) != loop[0]:
            raise _NoLoop
        if a in self.override or a not in self.inline:
            loop[3].append(a)
            return self._element(self.override.get(a) or self.name(a), loop[1])
        d = self.defs[a]
        if _transpose(d):  # (element [i, j] of x.T is x[j, i])
            return self._at(d.args[0], loop[1][::-1])
        if _outer(d):  # (element [i, j] of a @ b, a of shape (m, 1) and b (1, n), is a[i, 0] * b[0, j])
            zero = gast.Constant(value=0, kind=None)
            return gast.BinOp(left=self._at(d.args[0], [loop[1][0], zero]), op=gast.Mult(),
                              right=self._at(d.args[1], [zero, loop[1][1]]))
        if _elementwise(d):
            node = super().atom(a)  # (its operands come back here)
            if not _scalar_node(node):
                raise _NoLoop
            return node
        return self._element(self._before_loop(a), loop[1])  # (a product: computed before the loop)

    def _at(self, a, index):
        """The element of `a` (of the shape `index` runs over) at `index`."""
        loop, shape = self._loop, loop_shape(getattr(a, "type", None))
        if shape is None:
            raise _NoLoop
        self._loop = (shape, index, loop[2], loop[3])
        try:
            return self.atom(a)
        finally:
            self._loop = loop

    def _before_loop(self, a) -> str:
        """The name of a temporary that holds `a`, assigned before the loop."""
        loop, self._loop = self._loop, None
        try:
            node = super().atom(a)
        finally:
            self._loop = loop
        tmp = self.fresh_name()
        loop[2].append(_assign(_name(tmp, gast.Store()), node))
        loop[3].append(a)
        return tmp

    def buffered(self, op: Apply, stmts: list) -> list:
        """`x += v` and `x[i] += v` with an array v that may share memory with x, v copied first:
        NumPy buffers such an operand, numba's in-place operators read it as they write x. An
        array stored into (or added to) a basic-indexed part of a float array is written entry by
        entry (`_store_into(x[1:], v)`): numba's slice assignment checks shapes with an error
        message that takes seconds to compile, per rank."""
        k = self.naming.accumulate.get(id(op))
        value = op.args[1 - k] if k is not None else None
        if k is None:
            k = update_base(op)
            value = op.args[-1] if k is not None and len(op.args) > k + 1 else None
        if value is None or not (isinstance(getattr(value, "type", None), T.Array) and value.type.ndim != 0):
            return stmts
        overlap = self._reads_base(op.args[k], self._vars_of(value))
        if overlap:
            for s in stmts:
                if isinstance(s, gast.AugAssign):
                    s.value = _call(_attr(_name("np"), "copy"), [s.value])
        if value.type.ndim is None or not _basic_store(op, k):
            return stmts
        shape = _row_shape(op, k, value)
        out = []
        for s in stmts:
            looped = self._looped(s, shape, overlap) if shape is not None else None
            out += looped if looped is not None else [self._entrywise(s, overlap)]
        return out

    def _looped(self, s, shape: tuple, overlap: bool) -> list | None:
        """`x[t] = v` (or +=) with v of the shape of x[t] as loops over its entries, in the
        function (no helper for numba to compile)."""
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Subscript):
            target, value = s.targets[0], s.value
        elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript) \
                and isinstance(s.op, gast.Add):
            target, value = s.target, s.value
        else:
            return None
        view = self.fresh_name()
        pre = [_assign(_name(view, gast.Store()), gast.Subscript(value=target.value, slice=target.slice,
                                                                  ctx=gast.Load()))]
        if overlap:
            value = _call(_attr(_name("np"), "copy"), [value])
        source = named(self, value, pre)
        index = [gast.Constant(value=0, kind=None) if d == 1 else _name(self.fresh_name()) for d in shape]
        dst, src = self._element(view, index, gast.Store()), self._element(source, index)
        body = _assign(dst, src) if isinstance(s, gast.Assign) else gast.AugAssign(target=dst, op=gast.Add(),
                                                                                   value=src)
        return pre + self._loops(shape, index, [body])

    def _entrywise(self, s, overlap: bool):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Subscript):
            target, helper, value = s.targets[0], store_into, s.value
            if overlap:
                value = _call(_attr(_name("np"), "copy"), [value])
        elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript) \
                and isinstance(s.op, gast.Add):
            target, helper, value = s.target, add_into, s.value
        else:
            return s
        view = gast.Subscript(value=target.value, slice=target.slice, ctx=gast.Load())
        return gast.Expr(value=_call(_name(self.ns.ref(helper, "_" + helper.__name__)), [view, value]))

    def _vars_of(self, a) -> list:
        """The variables the printed atom `a` reads (through the operations inlined into it)."""
        if not hasattr(a, "id") or not hasattr(a, "type"):
            return []
        if a in self.inline and a not in self.override:
            return [v for x in self.defs[a].operands() for v in self._vars_of(x)]
        return [a]

    def _reads_base(self, base, reads) -> bool:
        """Does the loop read an array that is, or may share memory with, the one it updates?"""
        if not reads:
            return False
        if self._aliases is None:
            self._aliases = Aliases(self.fn, fresh=True)
        seen = set(self._aliases.observers(base)) | {base}
        return any(r in seen for r in reads)

    def _element(self, name: str, index, ctx=None):
        elts = [_name(i.id) if isinstance(i, gast.Name) else gast.Constant(value=i.value, kind=None)
                for i in index]
        idx = elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())
        return gast.Subscript(value=_name(name), slice=idx, ctx=ctx or gast.Load())

    def _loops(self, shape, index, body) -> list:
        for d, i in reversed(list(zip(shape, index))):
            if isinstance(i, gast.Name):
                body = [gast.For(target=_name(i.id, gast.Store()), iter=_call(_name("range"), [
                    gast.Constant(value=d, kind=None)]), body=body, orelse=[], type_comment=None)]
        return body


def named(em, node, stmts: list) -> str:
    """The name of a printed value: the node itself if it is a name, else a new name assigned
    it in `stmts`."""
    if isinstance(node, gast.Name):
        return node.id
    name = em.fresh_name()
    stmts.append(_assign(_name(name, gast.Store()), node))
    return name


def _row_shape(op: Apply, k: int, value) -> tuple | None:
    """The shape of x[i, j] (ints only) in a store into it, when v has exactly that shape."""
    base, key = op.args[k], atom_type(op.args[k + 1])
    keys = key.elts if isinstance(key, T.Tuple) else (key,)
    shape = loop_shape(base.type)
    if shape is None or not all(isinstance(e, T.Int) and not isinstance(e, T.Bool) for e in keys):
        return None
    row = shape[len(keys):]
    return row if row and T.shape_of(value.type) == row else None


def _basic_store(op: Apply, k: int) -> bool:
    """Is op a store into x[idx] of a float array x, idx numbers and slices (x[idx] a view)?"""
    base = op.args[k]
    if len(op.args) != k + 3 or not (isinstance(base.type, T.Array) and base.type.kind == "f"):
        return False
    t = atom_type(op.args[k + 1])
    keys = t.elts if isinstance(t, T.Tuple) else (t,)
    return all((isinstance(e, T.Int) and not isinstance(e, T.Bool))
               or (isinstance(e, T.Opaque) and e.what == "slice") for e in keys)


def store_into(dst, v):
    """dst[...] = v, v broadcast, entry by entry (the numba target's slice assignment)."""
    for k, x in np.ndenumerate(np.broadcast_to(v, dst.shape)):
        dst[k] = x


def add_into(dst, v):
    """dst[...] += v, v broadcast, entry by entry (the numba target's slice accumulation)."""
    for k, x in np.ndenumerate(np.broadcast_to(v, dst.shape)):
        dst[k] += x


def _shape_node(shape):
    return gast.Tuple(elts=[gast.Constant(value=d, kind=None) for d in shape], ctx=gast.Load())
