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
    def __init__(self, needed=None, counts=None):
        self.out = Liveness()
        self.needed = needed  # (only uses by operations that matter count, see liveness())
        self.counts = counts

    def block(self, block: Block, live_out: set, outs=None) -> set:
        """Live-in of `block` (its parameters excluded) given what is live after it; `outs`:
        the values its yields become, when only needed ones count."""
        yields = block.yields
        if self.needed is not None and outs is not None:
            yields = [y for i, y in enumerate(yields)
                      if i >= len(outs) or any(o in self.needed for o in outs[i])]
        live = set(live_out) | _vars(yields)
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
            return _vars(op.operands()) if self.counts is None or self.counts(op) else set()
        rest = set(after) - set(op.outs)
        if isinstance(op, If):
            outs = [(o,) for o in op.outs]
            return _vars([op.cond]) | self.block(op.then, rest, outs) | self.block(op.orelse, rest, outs)
        params = op.body.params[1:] if isinstance(op, For) else op.body.params
        carried = list(zip(op.outs, params))
        if isinstance(op, For):
            around: set = set()
            for _ in range(3):
                live_in = self.block(op.body, rest | around, carried)
                if live_in <= around:
                    break
                around |= live_in
            return _vars(op.operands()) | live_in
        around = set()
        for _ in range(3):
            body_in = self.block(op.body, rest | around, carried)
            cond_in = self.block(op.cond, rest | body_in)
            if (body_in | cond_in) <= around:
                break
            around |= body_in | cond_in
        return _vars(op.operands()) | cond_in | body_in


def liveness(fn: Function, needed=None, counts=None) -> Liveness:
    """Liveness of fn's values. With `needed` (the values dead-code elimination keeps) and
    `counts` (does an operation matter?), a use counts only in an operation that matters or
    in a yield whose result is needed: what only dead code reads is not live."""
    a = _Analysis(needed, counts)
    a.block(fn.body, set())
    return a.out

