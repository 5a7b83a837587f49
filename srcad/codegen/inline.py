"""Folding single-use temporaries back into the expressions that use them (`x_bar = g *
np.cos(x)` rather than three statements). A mixin of CodeEmitter (emit.py), which decides
which operations may move (`_movable`) and emits the statements."""

from __future__ import annotations

import bisect

from ..analysis.aliases import update_base
from ..ir.nodes import Apply, Block, Const, Var

#: At most this many operations are folded into one expression: astor, gast and CPython's
#: compiler recurse over expressions, and generated code is parsed again for second order.
MAX_FOLD_DEPTH = 40


class InlinePlanner:
    """Needs `fn`, `naming`, `uses`, `defs`, `inline`, `nesting`, `_cond_ids`, `name` and
    `_movable` of CodeEmitter."""

    def _plan_inline(self, b: Block) -> None:
        """Fold single-use temporaries of this block into the expression that uses them."""
        position = {}
        for i, op in enumerate(b.ops):
            if isinstance(op, Apply):
                for o in op.outs:
                    self.defs[o] = op
                    position[o] = i
        uses_at: dict[Var, int] = {}
        for i, op in enumerate(b.ops):
            for a in op.operands():
                if isinstance(a, Var):
                    uses_at.setdefault(a, i)
        n = len(b.ops)
        for a in b.yields:
            if isinstance(a, Var):
                uses_at.setdefault(a, n)
        barrier = [i for i, op in enumerate(b.ops) if not self._movable(op)]
        written_at: dict[str, list] = {}  # name -> positions of the operations assigning it
        for k, op in enumerate(b.ops):
            for o in op.outs:
                written_at.setdefault(self.name(o), []).append(k)
        bases = {op.args[update_base(op)] for op in b.ops
                 if isinstance(op, Apply) and update_base(op) is not None}
        bases |= {op.args[self.naming.accumulate[id(op)]] for op in b.ops if id(op) in self.naming.accumulate}
        for v, i in position.items():
            op = b.ops[i]
            j = uses_at.get(v)
            if op.prim == "srcad.slice" and all(isinstance(a, Const) for a in op.args):
                self.inline.add(v)  # constant slices are written where they are used
                continue
            if j is None or j <= i or self.uses[v] != 1 or len(op.outs) != 1 or not self._movable(op):
                continue
            if v in bases:
                continue  # an update writes into it: it must be a variable
            if v.hint and op.prim not in ("srcad.slice", "srcad.tuple"):
                continue
            if j == n and id(b) not in self._cond_ids and b is not self.fn.body:
                continue
            if _any_between(barrier, i, j):
                continue
            depth = 1 + max((self.nesting.get(a, 1) for a in op.operands() if isinstance(a, Var)
                             and a in self.inline), default=0)
            if depth > MAX_FOLD_DEPTH:
                continue  # a long chain (x*0.0 + x*1.0 + ... ) is cut into statements
            if any(_any_between(written_at.get(name, ()), i, j) for name in self._reads(v)):
                continue  # a name the expression reads is reassigned before the use
            self.inline.add(v)
            self.nesting[v] = depth

    def _reads(self, v: Var) -> set:
        """The variable names the expression of an inlined value reads."""
        names = set()
        for a in self.defs[v].operands():
            if isinstance(a, Var):
                names |= self._reads(a) if a in self.inline else {self.name(a)}
        return names


def _any_between(positions, i: int, j: int) -> bool:
    """Is some position of the sorted list strictly between i and j?"""
    k = bisect.bisect_right(positions, i)
    return k < len(positions) and positions[k] < j
