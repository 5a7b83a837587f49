"""Check the structural invariants of a function; run between pipeline stages.

- every value is defined exactly once;
- every use is dominated by its definition: defined earlier in the same block or in an
  enclosing block (a value defined inside a region is not visible after the region);
- region operations have as many results, initial values, parameters and yields as they say.
"""

from __future__ import annotations

from .nodes import Apply, Atom, Block, For, Function, If, Var, While

#: called with each function verified (srcad/logs.py sets it to dump the IR after each pass)
after_pass = None


class IRError(AssertionError):
    """An internal invariant is broken: a bug in srcad, not in the user's code."""


def verify(fn: Function) -> Function:
    """Raise IRError if `fn` is malformed; return it unchanged for chaining."""
    _Verifier().block(fn.body, frozenset())
    if after_pass is not None:
        after_pass(fn)
    return fn


class _Verifier:
    def __init__(self) -> None:
        self.defined: set[Var] = set()

    def define(self, v: Var) -> None:
        if v in self.defined:
            raise IRError(f"{v!r} defined twice")
        self.defined.add(v)

    def use(self, a: Atom, visible: set[Var], where: str) -> None:
        if isinstance(a, Var) and a not in visible:
            raise IRError(f"{a!r} used in {where} but not visible there")

    def block(self, block: Block, outer: frozenset) -> None:
        visible = set(outer)
        for p in block.params:
            self.define(p)
            visible.add(p)
        for op in block.ops:
            where = getattr(op, "prim", type(op).__name__)
            for a in op.operands():
                self.use(a, visible, where)
            if isinstance(op, If):
                self.check_if(op, frozenset(visible))
            elif isinstance(op, For):
                self.check_for(op, frozenset(visible))
            elif isinstance(op, While):
                self.check_while(op, frozenset(visible))
            elif not isinstance(op, Apply):
                raise IRError(f"unknown operation {op!r}")
            for v in op.outs:
                self.define(v)
                visible.add(v)
        for a in block.yields:
            self.use(a, visible, "yield")

    def check_if(self, op: If, visible: frozenset) -> None:
        for b in (op.then, op.orelse):
            if b.params or len(b.yields) != len(op.outs):
                raise IRError(f"if: {len(op.outs)} results but branch yields {len(b.yields)}")
            self.block(b, visible)

    def check_for(self, op: For, visible: frozenset) -> None:
        n = len(op.outs)
        extra = 1 if op.exits else 0
        if len(op.init) != n or len(op.body.params) != n + 1 or len(op.body.yields) != n + extra:
            raise IRError(f"for: {n} results, {len(op.init)} inits, arity mismatch")
        self.block(op.body, visible)

    def check_while(self, op: While, visible: frozenset) -> None:
        n = len(op.outs)
        extra = 1 if op.exits else 0
        if len(op.init) != n or len(op.cond.params) != n or len(op.cond.yields) != 1:
            raise IRError("while: condition arity mismatch")
        if len(op.body.params) != n or len(op.body.yields) != n + extra:
            raise IRError("while: body arity mismatch")
        self.block(op.cond, visible)
        self.block(op.body, visible)
