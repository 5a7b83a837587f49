"""How often each value is read, and the operation that defines it: what the rewriting passes
(contract, axis_sums) look up before they change an operation."""

from __future__ import annotations

from collections import Counter

from ..ir.nodes import Function, Var, iter_blocks


def uses_and_defs(fn: Function) -> tuple[Counter, dict]:
    """The reads of each Var (operands and block yields) and, for each Var an operation
    defines, that operation."""
    uses: Counter = Counter()
    defs: dict = {}
    for b in iter_blocks(fn.body):
        for op in b.ops:
            uses.update(a for a in op.operands() if isinstance(a, Var))
            defs.update((v, op) for v in op.outs)
        uses.update(a for a in b.yields if isinstance(a, Var))
    return uses, defs
