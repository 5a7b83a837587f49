"""Batching rules: a primitive's tangent for many directions at once (jacfwd's batched forward).

A rule's `batch=` function is `(bf, op, rule, p, a, t, bindings) -> Atom | None`: the tangent
contribution of parameter `p` (argument `a`) of `op`, given `t`, a's tangent with a leading
batch axis of `bf.batch` directions. `bf` is the batched forward transform
(transforms/batched.py): `bf.em.apply` emits an operation, `bf.shape(atom)` is an atom's
known shape, `bf.v(atom)` the primal value, `bf.type_of(atom)` its type. None means the
generic path: the rule's ordinary template once per direction, stacked.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Const, Var

_CONTAINERS = (T.List, T.Tuple, T.Dict)


def elementwise(bf, op, rule, p, a, t, bindings):
    """The ordinary template, with the tangent's axes aligned to the result's."""
    ans = op.outs[0]
    ka, kp = len(bf.shape(ans)), len(bf.shape(a))
    if kp < ka:
        aligned = (bf.batch,) + (1,) * (ka - kp) + bf.shape(a)
        t = bf.em.apply("numpy.reshape", (t, Const(aligned)), (), op.loc)
    return bf.em.instantiate(rule.jvp[p], {**bindings, "t": t}, op.loc, bf.hint(ans))


def getitem(bf, op, rule, p, a, t, bindings):
    """x[idx]: the same key after a full slice of the batch axis."""
    idx = op.args[1]
    if isinstance(bf.type_of(op.args[0]), _CONTAINERS):  # a container of batched tangents
        return bf.em.apply("operator.getitem", (t, idx if isinstance(idx, Const) else bf.v(idx)), (), op.loc)
    if isinstance(idx, Const):
        key = idx.value if isinstance(idx.value, tuple) else (idx.value,)
        return bf.em.apply("operator.getitem", (t, Const((slice(None),) + key)), (), op.loc)
    if isinstance(idx, Var) and isinstance(idx.type, (T.Int, T.Bool, T.Array)):
        key = bf.em.apply("srcad.tuple", (Const(slice(None)), bf.v(idx)), (), op.loc)
        return bf.em.apply("operator.getitem", (t, key), (), op.loc)
    return None


def reduction(bf, op, rule, p, a, t, bindings):
    """np.sum / np.mean over literal axes, shifted past the batch axis."""
    kw = dict(op.kw)
    axis = kw.get("axis", op.args[1] if len(op.args) > 1 else Const(None))
    if not isinstance(axis, Const) or "where" in kw or "initial" in kw or len(op.args) > 5:
        return None
    k = len(bf.shape(op.args[0]))
    if axis.value is None:
        new_axis = tuple(range(1, k + 1))
    else:
        axes = axis.value if isinstance(axis.value, tuple) else (axis.value,)
        new_axis = tuple(a % k + 1 for a in axes) if k else ()  # (a 0-d value: NumPy takes axis 0 or -1)
    keep = kw.get("keepdims", Const(False))
    name = "numpy.mean" if op.prim.endswith("mean") else "numpy.sum"
    return bf.em.apply(name, (t,), (("axis", Const(new_axis)), ("keepdims", keep)), op.loc)


def summed(bf, op, rule, p, a, t, bindings):
    """math.fsum of an array: each direction's sum (of a list, the generic path)."""
    return None if isinstance(bf.type_of(a), _CONTAINERS) else reduction(bf, op, rule, p, a, t, bindings)


def matmul(bf, op, rule, p, a, t, bindings):
    """x @ y, np.dot: the batch axis rides along as a leading axis of the product. np.dot of
    two matrices (or less): t @ y or x @ t directly; x @ y of any ranks: the tangent shaped so
    its batch axis broadcasts as an axis of its own in front of the stacks ((B, 1, n, k) @ (S, k,
    m) is (B, S, n, m)), then reshaped to the batch and the result's shape."""
    x, y = (bf.v(a) for a in op.args[:2])
    xs, ys, out = bf.shape(op.args[0]), bf.shape(op.args[1]), bf.shape(op.outs[0])
    if len(xs) > 2 or len(ys) > 2 or op.prim in ("operator.matmul", "numpy.matmul"):
        if op.prim not in ("operator.matmul", "numpy.matmul") or not xs or not ys:
            return None  # (np.dot of stacks, a number: the generic path)
        return _stacked_matmul(bf, op, x, y, xs, ys, out, t, p in ("x", "a"))
    if p in ("x", "a"):
        return bf.em.apply(op.prim if op.prim != "numpy.ndarray.dot" else "numpy.dot", (t, y), (), op.loc)
    if len(ys) == 1:
        xt = bf.em.apply("srcad.T", (x,), (), op.loc) if len(xs) > 1 else x
        return bf.em.apply("operator.matmul", (t, xt), (), op.loc)
    return None


def _stacked_matmul(bf, op, x, y, xs, ys, out, t, first: bool):
    """The tangent of x @ y in x (`first`) or y, for every direction at once (matmul)."""
    B = bf.batch
    if first:  # (a vector x is a row: (B, 1.., 1, k), its axis dropped after)
        shape = (B,) + (1,) * max(len(ys) - 2, 0) + (1, xs[0]) if len(xs) == 1 else \
            (B,) + (1,) * max(len(out) - len(xs), 0) + xs
        left, right = bf.em.apply("numpy.reshape", (t, Const(shape)), (), op.loc), y
    else:  # (a vector y is a column: (B, 1.., k, 1))
        shape = (B,) + (1,) * max(len(xs) - 2, 0) + (ys[0], 1) if len(ys) == 1 else \
            (B,) + (1,) * max(len(out) - len(ys), 0) + ys
        left, right = x, bf.em.apply("numpy.reshape", (t, Const(shape)), (), op.loc)
    product = bf.em.apply("operator.matmul", (left, right), (), op.loc)
    return bf.em.apply("numpy.reshape", (product, Const((B,) + out)), (), op.loc)


def transpose(bf, op, rule, p, a, t, bindings):
    """np.transpose with literal axes, the batch axis kept first."""
    k = len(bf.shape(op.args[0]))
    axes = op.args[1] if len(op.args) > 1 else dict(op.kw).get("axes", Const(None))
    if not isinstance(axes, Const):
        return None
    order = tuple(reversed(range(k))) if axes.value is None else axes.value
    if not all(isinstance(a, int) and -k <= a < k for a in order):
        return None
    return bf.em.apply("numpy.transpose", (t, Const((0,) + tuple(a % k + 1 for a in order))), (), op.loc)


def reversed_axes(bf, op, rule, p, a, t, bindings):
    """x.T, the batch axis kept first."""
    k = len(bf.shape(op.args[0]))
    return bf.em.apply("numpy.transpose", (t, Const((0,) + tuple(reversed(range(1, k + 1))))), (), op.loc)


def reshape(bf, op, rule, p, a, t, bindings):
    """np.reshape, np.ravel, x.flatten(): to the batch axis and the result's shape."""
    shape = (bf.batch,) + bf.shape(op.outs[0])
    return bf.em.apply("numpy.reshape", (t, Const(shape)), (), op.loc)


def shifted_axis(param: str = "axis", none: str = "all"):
    """The ordinary template with the literal axis (or axes) `param` moved past the batch
    axis. axis=None means, per `none`: "all" (every axis of the argument: np.flip),
    "flat" (the flattened argument: np.cumsum gives a 1-d result) or "flat_back" (the
    flattened argument, reshaped back after: np.roll)."""
    def batch(bf, op, rule, p, a, t, bindings):
        axis = bindings.get(param)
        if not isinstance(axis, Const) or not isinstance(axis.value, (int, tuple, type(None))):
            return None
        k = len(bf.shape(a))
        if axis.value is None and none == "all":
            return _with_axis(bf, op, rule, p, t, bindings, param, tuple(range(1, k + 1)))
        if axis.value is None:
            flat = bf.em.apply("numpy.reshape", (t, Const((bf.batch, -1))), (), op.loc)
            got = _with_axis(bf, op, rule, p, flat, bindings, param, 1)
            if none == "flat":
                return got
            return bf.em.apply("numpy.reshape", (got, Const((bf.batch,) + bf.shape(a))), (), op.loc)
        axes = axis.value if isinstance(axis.value, tuple) else (axis.value,)
        if k == 0 or not all(isinstance(x, int) and -k <= x < k for x in axes):
            return None
        moved = tuple(x % k + 1 for x in axes)
        value = moved if isinstance(axis.value, tuple) else moved[0]
        return _with_axis(bf, op, rule, p, t, bindings, param, value)
    return batch


def _with_axis(bf, op, rule, p, t, bindings, param, value):
    bindings = {**bindings, "t": t, param: Const(value)}
    return bf.em.instantiate(rule.jvp[p], bindings, op.loc, bf.hint(op.outs[0]))


def broadcast(bf, op, rule, p, a, t, bindings):
    """np.broadcast_to(v, shape) with a literal shape: the tangent's axes aligned to the
    result's, then broadcast to the batch and that shape."""
    shape = op.args[1] if len(op.args) > 1 else dict(op.kw).get("shape")
    if not isinstance(shape, Const) or not isinstance(shape.value, tuple):
        return None
    k, kp = len(shape.value), len(bf.shape(a))
    if kp < k:
        t = bf.em.apply("numpy.reshape", (t, Const((bf.batch,) + (1,) * (k - kp) + bf.shape(a))), (), op.loc)
    return bf.em.apply("numpy.broadcast_to", (t, Const((bf.batch,) + shape.value)), (), op.loc)
