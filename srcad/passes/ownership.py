"""Give a loop its own copy of an array it writes into, once, before the loop.

A loop-carried array that the body updates in place (`acc[j] += v`, typical of cotangents
of indexed reads) is written in place by codegen only when nothing else can see the
object. When its initial value came from outside (an argument, a read-only broadcast) or
is still used elsewhere, codegen must copy before each write, on every iteration:

    acc = np.broadcast_to(c, (n,))        acc = np.broadcast_to(c, (n,))
    for j in range(n):                    acc = np.copy(acc)
        acc = acc.copy()           ->     for j in range(n):
        acc[j] += v[j]                        acc[j] += v[j]

One copy before the loop gives the same values.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ..analysis.aliases import Aliases, update_base
from ..ir import types as T
from ..ir.nodes import Apply, Block, For, Function, If, Var, While, iter_ops, max_var_id


def _updated(block: Block) -> set:
    """Values that operations of `block` (or of `if`s in it) write into."""
    out = set()
    for op in block.ops:
        if isinstance(op, Apply):
            k = update_base(op)
            if k is not None and isinstance(op.args[k], Var):
                out.add(op.args[k])
        elif isinstance(op, If):
            out |= _updated(op.then) | _updated(op.orelse)
    return out


class _Own:
    def __init__(self, fn: Function):
        self.aliases = Aliases(fn)
        self.uses = Counter(a for op in iter_ops(fn.body) for a in op.operands() if isinstance(a, Var))
        self.next_id = max_var_id(fn) + 1

    def block(self, b: Block) -> Block:
        ops = []
        for op in b.ops:
            if isinstance(op, If):
                op = dataclasses.replace(op, then=self.block(op.then), orelse=self.block(op.orelse))
            elif isinstance(op, (For, While)):
                op = self.loop(op, ops)
            ops.append(op)
        return dataclasses.replace(b, ops=tuple(ops))

    def loop(self, op, ops: list):
        body = self.block(op.body)
        op = dataclasses.replace(op, body=body)
        if isinstance(op, While):
            op = dataclasses.replace(op, cond=self.block(op.cond))
        params = body.params[1:] if isinstance(op, For) else body.params
        written = _updated(body)
        init = list(op.init)
        for i, (a, p) in enumerate(zip(op.init, params)):
            if not (isinstance(a, Var) and isinstance(a.type, T.Array) and p in written):
                continue
            if self.aliases.owned(p) and self.uses[a] <= 1:
                continue
            copy = Var(self.next_id, p.hint or a.hint, a.type)
            self.next_id += 1
            ops.append(Apply((copy,), "numpy.copy", (a,), (), op.loc))
            init[i] = copy
        return dataclasses.replace(op, init=tuple(init))


def own_loop_updates(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Own(fn).block(fn.body))
