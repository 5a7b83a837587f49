"""Which values may share a buffer, and which buffers belong to the function.

Values that may refer to the same array or list form an alias class: a view and its base
(`x[1:]`, `x.T`, `x.reshape(...)`), a list and what was appended to it, an update's input
and result, the values a phi joins. A class is *owned* when none of its members came from
outside the function: arguments, globals, closure cells, opaque calls, default values.
Writing in place into an owned class is invisible to the caller.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Const, Ext, For, Function, If, Var, While, iter_ops
from ..rules import registry

_SCALAR = (T.Int, T.Bool, T.Str, T.NoneT, T.Float)
_STORES = ("srcad.list_append", "list.append", "operator.setitem", "srcad.setitem", "srcad.scatter_add")
INPLACE_OPERATORS = frozenset(f"operator.i{op}" for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
    "rshift"))


def update_base(op: Apply):
    """The index of the argument an operation writes into, or None."""
    rule = registry.lookup(op.prim)
    if rule is None:
        return None
    if rule.updates is not None:
        return rule.updates
    if op.prim in INPLACE_OPERATORS and op.args and isinstance(op.args[0], Var) and isinstance(
            op.args[0].type, T.Array):
        return 0  # x += y on an array
    return None


class Aliases:
    def __init__(self, fn: Function):
        self.parent: dict = {}
        self.foreign: set = set()
        for p in fn.body.params:
            self.foreign.add(self.find(p))
        for op in iter_ops(fn.body):
            if isinstance(op, Apply):
                self._apply(op)
            elif isinstance(op, If):
                for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                    self.union(o, a)
                    self.union(o, b)
            else:
                params = op.body.params[1:] if isinstance(op, For) else op.body.params
                for i, o in enumerate(op.outs):
                    for other in (params[i], op.init[i], op.body.yields[i]):
                        self.union(o, other)
                    if isinstance(op, While):
                        self.union(o, op.cond.params[i])
        self.groups: dict = {}
        for v in list(self.parent):
            self.groups.setdefault(self.find(v), []).append(v)

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b) -> None:
        if isinstance(b, Const):
            if isinstance(b.value, Ext):
                self.foreign.add(self.find(a))
            return
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        self.parent[rb] = ra
        if rb in self.foreign:
            self.foreign.add(ra)

    def _apply(self, op: Apply) -> None:
        if not op.outs:
            return
        rule = registry.lookup(op.prim)
        if rule is None or rule.opaque or op.prim in ("srcad.global", "srcad.cell"):
            for o in op.outs:
                self.foreign.add(self.find(o))
                for a in op.operands():
                    if isinstance(a, Var):
                        self.union(o, a)
            return
        base = update_base(op)
        if base is not None:
            for o in op.outs:
                self.union(o, op.args[base])
            container = op.args[base].type
            if op.prim in _STORES and not isinstance(container, T.Array):
                for a in op.args[base + 1:]:
                    if isinstance(a, Var) and not isinstance(a.type, _SCALAR):
                        self.union(op.outs[0], a)  # a list now refers to the stored value
            return
        if rule.structural:
            for a in op.args:
                if isinstance(a, Var) and not isinstance(a.type, _SCALAR):
                    self.union(op.outs[0], a)
        elif not rule.fresh:
            first = next((a for a in op.args if isinstance(a, Var)), None)
            if first is not None and not isinstance(first.type, _SCALAR) and not all(
                    isinstance(o.type, _SCALAR) for o in op.outs):
                for o in op.outs:
                    self.union(o, first)  # a view of its first argument

    def owned(self, v: Var) -> bool:
        return self.find(v) not in self.foreign

    def group(self, v: Var) -> list:
        return self.groups.get(self.find(v), [v])
