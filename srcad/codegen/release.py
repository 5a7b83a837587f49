"""Code generation's part of memory planning (passes/buffers.py plans, this writes):
`del` of large temporaries after their last read, and elementwise operations written into
a dying operand's buffer (`t *= s`, `np.exp(t, out=t)`). A mixin of CodeEmitter."""

from __future__ import annotations

import gast

from ..ir.nodes import Apply, Block, Function, Var, iter_blocks
from ..passes.buffers import large_array, ufunc_rule
from ..passes.ownership import iter_ops_of
from ..rules import registry
from .syntax import BINOPS, _assign, _call, _name


class BufferStatements:
    def releases(self, op, dying: list) -> list:
        """`del t` for large arrays op (or what it nests) reads for the last time: a name
        keeps its array alive until it is assigned again or the function returns, so without
        it every temporary of a gradient would be live at once (passes/buffers.py)."""
        after = self.live.live_after.get(id(op), frozenset())
        names = []
        for v in sorted(dying, key=lambda v: v.id):
            name = self.name(v)
            if v not in after and v not in self.override and self._owns_buffer(v) and name not in names \
                    and not any(self.name(w) == name for w in after if w in self.naming.names):
                names.append(name)
        return [gast.Delete(targets=[_name(n, gast.Del()) for n in names])] if names else []

    def _last_reads(self, b: Block) -> dict:
        """position of the statement -> the values of this block it reads last (inlined
        expressions are read where they are written, not where they are defined)."""
        if not hasattr(self, "_name_blocks"):
            self._name_blocks = _name_blocks(self.fn, self.naming.names)
        # (only names no other block binds: a del here and one in a nested block would meet)
        made = {o for op in b.ops if isinstance(op, Apply) for o in op.outs
                if o in self.naming.names and self._name_blocks[self.naming.names[o]] == {id(b)}}
        last: dict = {}
        emitted = [(i, op) for i, op in enumerate(b.ops)
                   if not (isinstance(op, Apply) and op.outs and op.outs[0] in self.inline)]
        for i, op in emitted + [(len(b.ops), None)]:
            if op is None:
                todo = [a for a in b.yields if isinstance(a, Var)]
            else:
                todo = [a for inner in iter_ops_of(op) for a in inner.operands() if isinstance(a, Var)]
                if not isinstance(op, Apply):
                    todo += [a for inner in iter_ops_of(op) if not isinstance(inner, Apply)
                             for blk in inner.blocks() for a in blk.yields if isinstance(a, Var)]
            while todo:
                a = todo.pop()
                if a in self.inline and a in self.defs:
                    todo += [x for x in self.defs[a].operands() if isinstance(x, Var)]
                elif a in made:
                    last[a] = i
        out: dict = {}
        for v, i in last.items():
            out.setdefault(i, []).append(v)
        return out

    def _owns_buffer(self, v: Var) -> bool:
        """A large array this function made (not a view: deleting a view frees nothing)."""
        made = self.defs.get(v)
        if made is None or not large_array(v.type):
            return False
        rule = registry.lookup(made.prim)
        return rule is not None and rule.fresh and rule.kind != "view"

    def reuse_stmt(self, op: Apply, t: Var) -> list:
        """An elementwise operation written into the buffer of its dying operand t
        (passes/buffers.py): `t *= s` when the result is named as t, else `np.exp(t, out=t)`."""
        same = self.name(op.out) == self.name(t)
        short = op.prim.split(".", 1)[1]
        if same and op.prim.startswith("operator.") and short in BINOPS:
            others = [a for a in op.args if not (isinstance(a, Var) and a == t)]
            if op.args[0] == t or registry.lookup(op.prim).commutative:
                other = others[0] if others else t
                return [gast.AugAssign(target=_name(self.name(t), gast.Store()), op=BINOPS[short](),
                                       value=self.atom(other))]
        call = _call(self.callee(ufunc_rule(op)), [self.atom(a) for a in op.args],
                     [("out", _name(self.name(t)))])
        if same:
            return [gast.Expr(value=call)]
        return [_assign(_name(self.name(op.out), gast.Store()), call)]


def _name_blocks(fn: Function, names: dict) -> dict:
    """name -> the ids of the blocks where values of that name are bound."""
    out: dict = {}
    for b in iter_blocks(fn.body):
        for v in list(b.params) + [o for op in b.ops for o in op.outs]:
            if v in names:
                out.setdefault(names[v], set()).add(id(b))
    return out
