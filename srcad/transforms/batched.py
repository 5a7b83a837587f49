"""Forward mode with a batch of tangents: every tangent carries a leading axis of length B.

`jacfwd` pushes all B = x.size basis directions through one pass of generated code, so a
matrix-vector product in the function becomes one matrix-matrix product, instead of running
B separate jvps. Per primitive, in order of preference:

- elementwise rules use their ordinary template: a tangent of shape (B, *s) meets primal
  operands of shape s by broadcasting (a lower-rank input's tangent is first reshaped to
  (B, 1, ..., *s));
- indexing, reductions, transposes, reshapes and matrix products have batched forms here
  (an index gains a leading `:`, an axis moves by one, `x @ t` becomes `t @ x.T`...);
- anything else runs its template once per direction in a small loop and stacks the results.

It needs exact shapes (code specialised on argument shapes); when a shape is unknown it
raises NotBatchable and jacfwd falls back to one jvp per direction.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, Function, Var
from ..rules import registry
from .activity import Activity
from .forward import Forward

_ELEMENTWISE_FAMILIES = ("numpy elementwise", "math")
_ELEMENTWISE_OPS = {f"operator.{n}" for n in ("add", "sub", "mul", "truediv", "pow", "mod", "neg", "pos")}
_ELEMENTWISE_OPS |= {f"operator.i{n}" for n in ("add", "sub", "mul", "truediv", "pow", "mod")}
_ELEMENTWISE_OPS |= {"builtins.abs", "builtins.max", "builtins.min", "builtins.pow", "srcad.stop_gradient"}
_REDUCTIONS = {"numpy.sum", "numpy.mean", "numpy.ndarray.sum", "numpy.ndarray.mean"}
_CONTAINERS = (T.List, T.Tuple, T.Dict)


class NotBatchable(Exception):
    """The batched transform cannot handle this function (unknown shapes)."""


class BatchedForward(Forward):
    def __init__(self, fn: Function, act: Activity, batch: int):
        super().__init__(fn, act)
        self.batch = batch

    # shapes

    def shape(self, a: Atom) -> tuple:
        s = T.shape_of(a.type) if isinstance(a, Var) else T.shape_of(T.of_value(a.value))
        if s is None:
            raise NotBatchable(f"unknown shape of {a!r}")
        return s

    @staticmethod
    def type_of(a: Atom) -> T.Type:
        return a.type if isinstance(a, Var) else T.of_value(a.value)

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
        ans = op.outs[0]
        loc = op.loc
        special = getattr(self, "batch_" + op.prim.replace(".", "_"), None)
        if special is not None:
            got = special(op, p, t, bindings)
            if got is not None:
                return got
        if op.prim in _ELEMENTWISE_OPS or rule.family in _ELEMENTWISE_FAMILIES:
            ka, kp = len(self.shape(ans)), len(self.shape(a))
            if kp < ka:
                aligned = (self.batch,) + (1,) * (ka - kp) + self.shape(a)
                t = self.em.apply("numpy.reshape", (t, Const(aligned)), (), loc)
            return self.em.instantiate(rule.jvp[p], {**bindings, "t": t}, loc, self.hint(ans))
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

    # batched forms of non-elementwise primitives (None: use the generic path)

    def batch_operator_getitem(self, op, p, t, bindings):
        idx = op.args[1]
        if isinstance(self.type_of(op.args[0]), _CONTAINERS):  # a container of batched tangents
            return self.em.apply("operator.getitem", (t, idx if isinstance(idx, Const) else self.v(idx)), (),
                                 op.loc)
        if isinstance(idx, Const):
            key = idx.value if isinstance(idx.value, tuple) else (idx.value,)
            return self.em.apply("operator.getitem", (t, Const((slice(None),) + key)), (), op.loc)
        if isinstance(idx, Var) and isinstance(idx.type, (T.Int, T.Bool, T.Array)):
            key = self.em.apply("srcad.tuple", (Const(slice(None)), self.v(idx)), (), op.loc)
            return self.em.apply("operator.getitem", (t, key), (), op.loc)
        return None

    def _reduce(self, op, p, t, bindings):
        kw = dict(op.kw)
        axis = kw.get("axis", op.args[1] if len(op.args) > 1 else Const(None))
        if not isinstance(axis, Const):
            return None
        k = len(self.shape(op.args[0]))
        if axis.value is None:
            new_axis = tuple(range(1, k + 1))
        else:
            axes = axis.value if isinstance(axis.value, tuple) else (axis.value,)
            new_axis = tuple(a % k + 1 for a in axes)
        keep = kw.get("keepdims", Const(False))
        name = "numpy.mean" if op.prim.endswith("mean") else "numpy.sum"
        return self.em.apply(name, (t,), (("axis", Const(new_axis)), ("keepdims", keep)), op.loc)

    batch_numpy_sum = batch_numpy_mean = batch_numpy_ndarray_sum = batch_numpy_ndarray_mean = _reduce

    def _matmul(self, op, p, t, bindings):
        x, y = (self.v(a) for a in op.args[:2])
        if p in ("x", "a"):
            return self.em.apply(op.prim if op.prim != "numpy.ndarray.dot" else "numpy.dot", (t, y), (),
                                 op.loc)
        if len(self.shape(op.args[1])) == 1:
            xt = self.em.apply("srcad.T", (x,), (), op.loc) if len(self.shape(op.args[0])) > 1 else x
            return self.em.apply("operator.matmul", (t, xt), (), op.loc)
        if op.prim in ("operator.matmul", "numpy.matmul"):
            return self.em.apply("operator.matmul", (x, t), (), op.loc)
        return None

    batch_operator_matmul = batch_numpy_matmul = batch_numpy_dot = batch_numpy_ndarray_dot = _matmul

    def _transpose(self, op, p, t, bindings):
        k = len(self.shape(op.args[0]))
        axes = op.args[1] if len(op.args) > 1 else dict(op.kw).get("axes", Const(None))
        if not isinstance(axes, Const):
            return None
        order = tuple(reversed(range(k))) if axes.value is None else axes.value
        return self.em.apply("numpy.transpose", (t, Const((0,) + tuple(a + 1 for a in order))), (), op.loc)

    batch_numpy_transpose = batch_numpy_ndarray_transpose = _transpose

    def batch_numpy_ndarray_T(self, op, p, t, bindings):
        k = len(self.shape(op.args[0]))
        return self.em.apply("numpy.transpose", (t, Const((0,) + tuple(reversed(range(1, k + 1))))), (),
                             op.loc)

    def _reshape(self, op, p, t, bindings):
        shape = (self.batch,) + self.shape(op.outs[0])
        return self.em.apply("numpy.reshape", (t, Const(shape)), (), op.loc)

    batch_numpy_reshape = batch_numpy_ndarray_reshape = batch_numpy_ravel = _reshape
    batch_numpy_ndarray_ravel = batch_numpy_ndarray_flatten = _reshape


def batched_forward(fn: Function, act: Activity, wrt: tuple[int, ...], batch: int):
    """Like transforms.forward.forward, with every tangent batched (leading axis `batch`)."""
    f = BatchedForward(fn, act, batch)
    params, tangents, out, out_dot = f.run(wrt)
    return f.em, params, tangents, out, out_dot

