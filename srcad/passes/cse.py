"""Common-subexpression elimination across the forward and backward sweeps.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def f(x):
    ...     return np.cos(x) * np.cos(x)
    >>> show(cse(ir(f, 1.0)))
    def f(%x0: float):
      %1: float = numpy.cos(%x0)
      %3: float = operator.mul(%1, %1)
      return %3

An operation is reused only from a block that encloses it (so the earlier value is visible),
and only for pure operations that do not build a new mutable object: two `np.zeros(n)` or
two `[]` must stay two objects. Nor is one reused for a value a list or dict holds, in a
function that changes an item of a list or dict in place (`srcad.check_unshared`): in
`xs = [x * 1.0, x * 1.0]; xs[0] *= 3`, one object in both slots is what that check refuses,
where Python's two equal expressions give two objects.
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Ext, Function, Var, iter_ops
from ..ir.rewrite import sub_atom
from ..rules import registry


def _key_atom(a):
    if isinstance(a, Const):
        v = a.value
        return ("ext", v.name, id(v.obj)) if isinstance(v, Ext) else ("c", type(v).__name__, repr(v))
    return ("v", a.id)


def _cse_able(op: Apply) -> bool:
    rule = registry.lookup(op.prim)
    return not (rule is None or rule.impure or rule.opaque or rule.updates is not None or rule.allocates)


def _held_by_changed_containers(fn: Function) -> frozenset:
    """The values put into a list or dict (ids), when an item of one is changed in place."""
    ops = list(iter_ops(fn.body))
    if not any(isinstance(op, Apply) and op.prim == "srcad.check_unshared" for op in ops):
        return frozenset()
    return frozenset(a.id for op in ops if isinstance(op, Apply) and op.outs
                     and isinstance(op.outs[0].type, (T.List, T.Dict)) for a in op.args if isinstance(a, Var))


class _CSE:
    def __init__(self, held: frozenset = frozenset()):
        self.subst = {}
        self.held = held

    def block(self, b: Block, table: dict) -> Block:
        table = dict(table)
        ops = []
        for op in b.ops:
            op = self.op(op, table)
            if op is not None:
                ops.append(op)
        return Block(b.params, tuple(ops), tuple(sub_atom(a, self.subst) for a in b.yields))

    def op(self, op, table: dict):
        s = lambda a: sub_atom(a, self.subst)  # noqa: E731
        if isinstance(op, Apply):
            op = op.map(s)
            if not _cse_able(op):
                return op
            args = tuple(map(_key_atom, op.args))
            if registry.lookup(op.prim).commutative and len(args) == 2 and not op.kw:
                args = tuple(sorted(args))  # x * y and y * x: one value (IEEE + and * commute)
            key = (op.prim, args, tuple((k, _key_atom(a)) for k, a in op.kw))
            if key in table and not (op.keep and not table[key][0].keep) and op.outs[0].id not in self.held:
                for o, prev in zip(op.outs, table[key][1]):
                    self.subst[o] = prev
                return None
            table[key] = (op, op.outs)
            return op
        return op.map(s, lambda b: self.block(b, table))


def cse(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_CSE(_held_by_changed_containers(fn)).block(fn.body, {}))
