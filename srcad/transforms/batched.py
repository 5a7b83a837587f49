"""Forward mode with a batch of tangents: every tangent carries a leading axis of length B.

`jacfwd` pushes all B = x.size basis directions through one pass of generated code, so a
matrix-vector product in the function becomes one matrix-matrix product, instead of running
B separate jvps. Per primitive, in order of preference:

- elementwise rules use their ordinary template: a tangent of shape (B, *s) meets primal
  operands of shape s by broadcasting (a lower-rank input's tangent is first reshaped to
  (B, 1, ..., *s));
- indexing, reductions, transposes, reshapes and matrix products have batched forms, their
  rules' `batch=` functions in srcad/rules/batching.py (an index gains a leading `:`, an axis
  moves by one, `x @ t` becomes `t @ x.T`...);
- anything else runs its template once per direction in a small loop and stacks the results.

It needs exact shapes (code specialised on argument shapes); when a shape is unknown it
raises NotBatchable and jacfwd falls back to one jvp per direction.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, Function, Var
from ..ir.values import of_value
from ..rules import registry
from .activity import Activity
from .forward import Forward
from .policy import touches_complex

_CONTAINERS = (T.List, T.Tuple, T.Dict)


class NotBatchable(Exception):
    """The batched transform cannot handle this function (unknown shapes)."""


class BatchedForward(Forward):
    def __init__(self, fn: Function, act: Activity, batch: int):
        super().__init__(fn, act)
        self.batch = batch

    # shapes

    def shape(self, a: Atom) -> tuple:
        s = T.shape_of(a.type) if isinstance(a, Var) else T.shape_of(of_value(a.value))
        if s is None:
            raise NotBatchable(f"unknown shape of {a!r}: {getattr(a, 'type', None)}")
        return s

    @staticmethod
    def type_of(a: Atom) -> T.Type:
        return a.type if isinstance(a, Var) else of_value(a.value)

    def ttype(self, t: T.Type) -> T.Type:
        s = T.shape_of(t)
        if s is None:
            return T.Array(None, "f")
        return T.Array(len(s) + 1, "f", (self.batch,) + s)

    def zeros(self, a: Atom, loc=None) -> Atom:
        shape = (self.batch,) + self.shape(a)
        return self.em.apply("numpy.zeros", (Const(shape),), (), loc, "_zeros")

    def apply(self, op: Apply) -> None:
        rule = registry.lookup(op.prim)
        if rule.custom and self.act.active(op.outs[0]):
            return self.per_direction(op, rule)
        super().apply(op)

    def joint(self, op: Apply, rule, bindings: dict) -> None:
        self.per_direction(op, rule)

    # contributions

    def contribution(self, op: Apply, rule, p: str, a: Atom, bindings: dict) -> Atom:
        """The batched tangent contribution of argument `a` (parameter p) to op's result."""
        t = self.t(a)
        if touches_complex(op):
            raise NotBatchable(f"{op.prim} of complex values")  # (one jvp per direction instead)
        if rule.batch is not None:
            got = rule.batch(self, op, rule, p, a, t, bindings)
            if got is not None:
                return got
        return self.loop_contribution(op, rule, p, a, bindings)

    def loop_contribution(self, op: Apply, rule, p: str, a: Atom, bindings: dict) -> Atom:
        """Run the ordinary template once per direction and stack the results."""
        loc = op.loc
        if any(isinstance(self.type_of(x), _CONTAINERS) for x in op.operands()):
            raise NotBatchable(f"{op.prim} of a container")  # (its tangent has no batch axis to loop over)
        t = self.t(a)
        acc = ("batch", id(op), p)
        self.b.write(acc, self.em.apply("srcad.list", (), (), loc, "_cols"))
        index, _ = self.b.begin_for(Const(0), Const(self.batch), Const(1), index_hint="_b", loc=loc)
        column = self.em.apply("operator.getitem", (t, index), (), loc)
        c = self.em.instantiate(rule.jvp[p], {**bindings, "t": column}, loc)
        lst = self.em.apply("srcad.list_append", (self.b.read(acc), c), (), loc, "_cols")
        self.b.write(acc, lst)
        self.b.end_for()
        out = self.em.apply("numpy.stack", (self.b.read(acc),), (), loc, self.hint(op.outs[0]))
        self.b.kill(acc)
        return out

    def per_direction(self, op: Apply, rule) -> None:
        """Tangents of a joint rule or a custom rule: one ordinary forward pass per direction."""
        raise NotBatchable(f"{op.prim} has no batched rule")

    def full_shape(self, op: Apply, rule, active: list, bindings: dict, total: Atom) -> Atom:
        want = (self.batch,) + self.shape(op.outs[0])
        if isinstance(total, Var) and T.shape_of(total.type) == want:
            return total
        return self.em.apply("srcad.broadcast_to", (total, Const(want)), (), op.loc)


def check_linear_use(fn: Function, act: Activity) -> None:
    """For jacrev's rows (the batched forward mode of a vjp's backward function in its
    cotangent, pushed from the seed point g = 0): raise NotBatchable where a value of the
    cotangent decides something other than values, as a guard `if g_x != 0.0` that skips an
    adjoint whose partial is inf at a point the path did not use. At g = 0 it would skip the
    tangent of every direction; one backward sweep per row evaluates it per row."""
    def scan(block) -> None:
        for op in block.ops:
            if isinstance(op, Apply):
                rule = registry.lookup(op.prim)
                reads = any(isinstance(a, Var) and a in act.varied for a in op.operands())
                if rule.of_shape is None and reads and any(o not in act.varied for o in op.outs):
                    raise NotBatchable(f"{op.prim} of the cotangent decides more than values")
            else:
                for b in op.blocks():
                    scan(b)
    scan(fn.body)


def batched_forward(fn: Function, act: Activity, wrt: tuple[int, ...], batch: int):
    """Like transforms.forward.forward, with every tangent batched (leading axis `batch`)."""
    f = BatchedForward(fn, act, batch)
    params, tangents, out, out_dot = f.run(wrt)
    return f.em, params, tangents, out, out_dot

