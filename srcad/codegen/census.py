"""What a function's IR uses, counted once before emitting it: how often each value is read,
and the names generated code must not take."""

from __future__ import annotations

from collections import Counter

from ..ir.nodes import Apply, Const, Ext, Function, Var, iter_ops
from .syntax import _MODULE_ALIASES


def use_counts(fn: Function) -> Counter:
    """How many times each value is read (as an operand or a yielded value)."""
    counts: Counter = Counter()
    for op in iter_ops(fn.body):
        counts.update(a for a in op.operands() if isinstance(a, Var))
        if not isinstance(op, Apply):
            for b in op.blocks():
                counts.update(a for a in b.yields if isinstance(a, Var))
    counts.update(a for a in fn.body.yields if isinstance(a, Var))
    return counts


def ext_names(fn: Function) -> set:
    """The names of the outside objects (globals, modules) the code reads."""
    out = set()
    for op in iter_ops(fn.body):
        for a in op.operands():
            if isinstance(a, Const) and isinstance(a.value, Ext):
                out.add(a.value.name)
    return out


def helper_names(fn: Function) -> set:
    """The module aliases and run-time helper names (`_<helper>`) calls will be written with."""
    out = set()
    for op in iter_ops(fn.body):
        if isinstance(op, Apply):
            root = op.prim.split(".")[0]
            if root not in ("operator", "builtins", "srcad"):
                out.add(_MODULE_ALIASES.get(root, root))
            elif root == "srcad":
                out.add("_" + op.prim.split(".", 1)[1])
    return out
