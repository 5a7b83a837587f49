"""Liveness of SSA values in structured code, for naming and in-place decisions.

`live_at_def[v]` is the set of values live just after `v` is defined; two values interfere
(cannot share a Python name) when one is live where the other is defined. `live_after[id(op)]`
is the set live just after an operation. Loops are iterated: a value used inside a loop is
live around the back edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.nodes import Apply, Block, For, Function, If, Var


def _vars(atoms) -> set:
    return {a for a in atoms if isinstance(a, Var)}


@dataclass
class Liveness:
    live_at_def: dict = field(default_factory=dict)
    live_after: dict = field(default_factory=dict)

    def interferes(self, a: Var, b: Var) -> bool:
        return a != b and (b in self.live_at_def.get(a, ()) or a in self.live_at_def.get(b, ()))


class _Analysis:
    def __init__(self):
        self.out = Liveness()

    def block(self, block: Block, live_out: set) -> set:
        """Live-in of `block` (its parameters excluded) given what is live after it."""
        live = set(live_out) | _vars(block.yields)
        for op in reversed(block.ops):
            after = frozenset(live)
            self.out.live_after[id(op)] = after
            for o in op.outs:
                self.out.live_at_def[o] = after
            live -= set(op.outs)
            live |= self.uses(op, after)
        for p in block.params:
            self.out.live_at_def[p] = frozenset(live)
        return live - set(block.params)

    def uses(self, op, after: frozenset) -> set:
        if isinstance(op, Apply):
            return _vars(op.operands())
        rest = set(after) - set(op.outs)
        if isinstance(op, If):
            return _vars([op.cond]) | self.block(op.then, rest) | self.block(op.orelse, rest)
        if isinstance(op, For):
            around: set = set()
            for _ in range(3):
                live_in = self.block(op.body, rest | around)
                if live_in <= around:
                    break
                around |= live_in
            return _vars(op.operands()) | live_in
        around = set()
        for _ in range(3):
            body_in = self.block(op.body, rest | around)
            cond_in = self.block(op.cond, rest | body_in)
            if (body_in | cond_in) <= around:
                break
            around |= body_in | cond_in
        return _vars(op.operands()) | cond_in | body_in


def liveness(fn: Function) -> Liveness:
    a = _Analysis()
    a.block(fn.body, set())
    return a.out

