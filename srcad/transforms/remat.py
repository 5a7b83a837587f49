"""Rematerialisation: which forward values the backward sweep recomputes instead of storing.

Inside a loop body, reverse mode must store (push) every forward value its adjoint reads.
Some values are cheaper to compute again in the backward iteration than to keep: scalar
arithmetic (not transcendental functions: one stored float costs less than a math.exp),
elements of lists and tuples (a reference), basic-indexing views of arrays (`xs[t]`,
`x[:, j]`: O(1), no copy), and one array + - * of such values (`x - mu[j]`: a pass over
memory either way, but nothing held per iteration). They qualify when their operands are
themselves available in the backward iteration without storing anything new: the loop
index, loop-carried scalars, values from outside the loop, or other rematerialisable values.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Block, For, If, Var, While, atom_type, iter_ops
from ..passes.fold import basic_key
from ..rules import registry


def defs_visible(block: Block) -> set:
    """Values defined in `block` or in `if` branches inside it (not inside nested loops)."""
    out = set(block.params)
    for op in block.ops:
        out.update(op.outs)
        if isinstance(op, If):
            out |= defs_visible(op.then) | defs_visible(op.orelse)
    return out


class Remat:
    """Decides, once per value, whether the backward sweep recomputes it."""

    def __init__(self, fn):
        loops = [op for op in iter_ops(fn.body) if isinstance(op, (For, While))]
        self.loop_of: dict[Var, object] = {}  # values defined in a loop body (or its ifs) -> loop
        self.def_op: dict[Var, Apply] = {}
        for loop in loops:
            for o in defs_visible(loop.body) - set(loop.body.params):
                self.loop_of[o] = loop
        for op in iter_ops(fn.body):
            if isinstance(op, Apply):
                for o in op.outs:
                    self.def_op[o] = op
        self._cache: dict[Var, bool] = {}

    def __call__(self, v: Var) -> bool:
        if v not in self._cache:
            self._cache[v] = False  # (guards against cycles while deciding)
            self._cache[v] = self._cheap(v)
        return self._cache[v]

    def _cheap(self, v: Var) -> bool:
        loop, op = self.loop_of.get(v), self.def_op.get(v)
        if loop is None or op is None or len(op.outs) != 1:
            return False
        rule = registry.lookup(op.prim)
        if rule.impure or rule.opaque or rule.updates is not None:
            return False
        view = self._view(op)
        arith = self._array_arith(op, loop)
        # (Rule.cheap: operators and builtins on scalars, "always" for index keys; math.sin,
        # math.exp... are cheaper to store as one float)
        if not (v.type.is_scalar or view or arith or rule.cheap == "always"
                or (op.prim == "operator.getitem"
                    and isinstance(atom_type(op.args[0]), (T.List, T.Tuple, T.Dict)))):
            return False
        if op.prim != "operator.getitem" and not rule.cheap:
            return False
        params = set(loop.body.params)
        body = defs_visible(loop.body)
        for k, w in enumerate(op.operands()):
            if not isinstance(w, Var) or (w not in body and w not in params):
                continue  # a value from outside the loop
            if w in params:  # the loop index, or a loop-carried value (stored anyway)...
                if view and k == 0:
                    return False  # ...but not a whole carried array to recompute a row of it
                continue
            if not self(w):
                return False
        return True

    def _array_arith(self, op: Apply, loop) -> bool:
        """One array + - * or negation of values from outside the loop (or views of them):
        as cheap to redo as to store and read back, without holding a copy per iteration."""
        if not registry.lookup(op.prim).ring or not isinstance(op.outs[0].type, T.Array):
            return False
        body = defs_visible(loop.body) - set(loop.body.params)
        for w in op.operands():
            if isinstance(w, Var) and w in body and isinstance(w.type, T.Array):
                d = self.def_op.get(w)
                if d is None or not self._view(d) or not self(w):
                    return False
        return True

    @staticmethod
    def _view(op: Apply) -> bool:
        """A basic-indexing subscript of an array: O(1), shares the array's memory."""
        return (op.prim == "operator.getitem" and len(op.args) == 2
                and isinstance(atom_type(op.args[0]), T.Array) and basic_key(atom_type(op.args[1])))
