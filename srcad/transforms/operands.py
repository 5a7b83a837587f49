"""Which operands of an operation derivatives flow through, by its rule: read by activity
analysis, the type policy and both transforms."""

from __future__ import annotations

from ..ir.nodes import Apply, Atom
from ..rules import registry


def operand_params(op: Apply, rule: registry.Rule) -> list[tuple[str, Atom]]:
    """(parameter, argument) pairs derivatives may flow through, in signature order."""
    if rule.structural:
        if rule.name == "srcad.dict":
            return [(str(i), a) for i, a in enumerate(op.args) if i % 2 == 1]
        return [(str(i), a) for i, a in enumerate(op.args)]
    if rule.opaque:
        return [(str(i), a) for i, a in enumerate(op.operands())]
    if rule.custom:
        return [(str(i), a) for i, a in enumerate(op.args[1:])]
    if not rule.differentiable and not rule.refuses:
        return []
    bound = registry.bind(rule, op.args, op.kw)
    if not rule.differentiable:  # a differentiated value reaching these is an error
        return [(p, bound[p]) for p in rule.refuses if p in bound]
    names = (rule.diff_params or rule.params) + rule.refuses  # no rule at all: every argument
    # (a differentiated value reaching a parameter without a rule is an error)
    return [(p, bound[p]) for p in names if p in bound]
