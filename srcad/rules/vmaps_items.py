"""vmap= functions (rules/vmaps.py) for indexing, containers, joining arrays and srcad's
broadcasting helpers: an index gains a leading full slice, a container of batched values
holds them leaf by leaf (a batched item written into an unbatched container makes the
container batched: srcad.batch_copies), a cotangent is summed down to (B,) + the operand's
shape."""

from __future__ import annotations

import numpy as np

from ..ir import types as T
from ..ir.nodes import Const, Var
from ..ir.values import of_value
from .vmaps import NUMERIC, _emit_like, bound, broadcasting, first_example, join, norm, same, shifted

CONTAINERS = (T.Tuple, T.List, T.Dict)
_SLICE = Const(slice(None))


# -- indexing ---------------------------------------------------------------------------------

def getitem(vz, op, rule):
    """x[key]: an item of a container of batched leaves; an array's key after a full slice of
    the batch axis; a per-example int key gathers along the batch."""
    if len(op.args) != 2 or op.kw:
        return None
    x, key = op.args
    tx = vz.type_of(x)
    if isinstance(tx, CONTAINERS):
        return None if vz.form(key) else _container_item(vz, op, x, key)
    if not isinstance(tx, T.Array) or not isinstance(op.outs[0].type, NUMERIC):
        return None
    if vz.form(key):
        return _gather(vz, op, x, key)
    new_key = index_key(vz, key)
    return None if new_key is None else _emit_like(vz, op, "operator.getitem", [vz.v(x), new_key], ())


def _container_item(vz, op, x, key):
    f = vz.form(x)
    if isinstance(f, tuple):
        k = key.value if isinstance(key, Const) else None
        if isinstance(k, int) and not isinstance(k, bool):
            f = f[k]
        elif isinstance(k, slice):
            f = norm(f[k])
        else:
            return _emit_item(vz, op, vz.conform(x, True), key, True)
    return _emit_item(vz, op, vz.v(x), key, f)


def _emit_item(vz, op, xv, key, form):
    out = op.outs[0]
    return ((vz.emit("operator.getitem", [xv, vz.v(key)], (), vz.batched(out.type, form), out.hint), form),)


def index_parts(vz, key):
    """The parts of an index (old atoms or literals), or None when they are not known."""
    if isinstance(key, Const):
        return list(key.value) if isinstance(key.value, tuple) else [key.value]
    if isinstance(vz.type_of(key), T.Tuple):
        d = vz.definition(key)
        return list(d.args) if d is not None and d.prim == "srcad.tuple" else None
    return [key]


def _kind(vz, part) -> str:
    """'int', 'array' (advanced), 'basic' (slice, None, Ellipsis) or '' (unknown)."""
    if not isinstance(part, (Var, Const)):
        part = Const(part)
    t = vz.type_of(part)
    value = part.value if isinstance(part, Const) else None
    if isinstance(value, bool) or isinstance(t, T.Bool):
        return ""
    if isinstance(t, T.Int):
        return "int"
    if isinstance(t, (T.Array, T.List)) and isinstance(part, Var) and getattr(t, "kind", "i") in ("i", "b"):
        return "array"
    if value is None or value is Ellipsis or isinstance(value, slice) or (
            isinstance(t, T.Opaque) and t.what == "slice"):
        return "basic"
    return ""


def index_key(vz, key):
    """The key selecting per example what `key` selects (an index that does not differ
    between examples): a full slice of the batch axis first. None when NumPy would move
    the axes of advanced indices apart from the rest (arrays not next to each other)."""
    parts = index_parts(vz, key)
    if parts is None:
        return None
    kinds = [_kind(vz, p) for p in parts]
    if "" in kinds:
        return None
    if "array" in kinds:
        adv = [i for i, k in enumerate(kinds) if k != "basic"]
        if adv != list(range(adv[0], adv[-1] + 1)):
            return None
    if isinstance(key, Const):
        return Const((slice(None),) + tuple(parts))
    atoms = [_SLICE] + [_atom(vz, p) for p in parts]
    t = T.Tuple(tuple(a.type if isinstance(a, Var) else of_value(a.value) for a in atoms))
    return vz.emit("srcad.tuple", atoms, (), t)


def _atom(vz, part):
    """A part of an index in the vectorised code."""
    return part if isinstance(part, Const) else vz.v(part) if isinstance(part, Var) else Const(part)


def _gather(vz, op, x, key):
    """x[i] with i an int that differs between examples (ints in the leading positions, then
    slices): x[i] of an unbatched x, x[arange(B), i] of a batched one."""
    parts = index_parts(vz, key)
    if parts is None:
        return None
    kinds = [_kind(vz, p) for p in parts]
    ints = [i for i, k in enumerate(kinds) if k == "int"]
    if ints != list(range(len(ints))) or any(k not in ("int", "basic") for k in kinds) or any(
            p is None or p is Ellipsis for p in parts):
        return None
    atoms = [_atom(vz, p) for p in parts]
    if vz.form(x):
        B = vz.batch
        atoms = [vz.emit("numpy.arange", [Const(B)], (), T.Array(1, "i", (B,)))] + atoms
    new_key = vz.emit("srcad.tuple", atoms, (), T.Tuple(tuple(T.UNKNOWN for _ in atoms)))
    return _emit_like(vz, op, "operator.getitem", [vz.v(x), new_key], ())


def selected_shape(vz, x, key):
    """The per-example shape x[key] selects (for a value written there), or None."""
    parts = index_parts(vz, key)
    if parts is None:
        return None
    probe = []
    for p in parts:
        t = vz.type_of(p) if isinstance(p, (Var, Const)) else of_value(p)
        if isinstance(p, Var) and isinstance(t, T.Int):
            probe.append(0)
        elif isinstance(p, Var) and isinstance(t, T.Array) and t.kind == "i" and t.shape is not None:
            probe.append(np.zeros(t.shape, dtype=int))
        elif isinstance(p, (Var, Const)) and not isinstance(p, Const):
            return None
        else:
            probe.append(p.value if isinstance(p, Const) else p)
    shape = vz.shape(x)
    if 0 in shape:
        return None
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1), shape, (0,) * len(shape))
    try:
        return np.shape(dummy[tuple(probe)])
    except (IndexError, TypeError, ValueError):
        return None


def _array_write(vz, op, x, key, v):
    """The operands of x[key] = v (or += v) on an array: x with the batch axis, the key after a
    full slice, v aligned to what the key selects."""
    if vz.form(key):
        return None
    new_key = index_key(vz, key)
    if new_key is None:
        return None
    if vz.form(v):
        sel = selected_shape(vz, x, key)
        if sel is None:
            return None
        value = vz.aligned(v, len(sel))
    else:
        value = vz.v(v)
    return vz.conform(x, True), new_key, value


def setitem(vz, op, rule):
    """x[idx] = v (functional): arrays as above; a list or dict with its items batched."""
    args = bound(rule, op)
    if args is None or any(vz.form(args[p]) for p in ("old", "added") if p in args):
        return None
    x, idx, v = args["x"], args["idx"], args["v"]
    if isinstance(vz.type_of(x), (T.List, T.Dict)):
        if vz.form(idx):
            return None
        rest = [vz.v(a) for a in op.args[3:]]
        return _emit_like(vz, op, op.prim, [vz.conform(x, True), vz.v(idx), vz.conform(v, True), *rest], ())
    if not isinstance(vz.type_of(x), T.Array):
        return None
    got = _array_write(vz, op, x, idx, v)
    if got is None:
        return None
    return _emit_like(vz, op, op.prim, [*got, *(vz.v(a) for a in op.args[3:])], tuple(
        (k, vz.v(a)) for k, a in op.kw))


def scatter_add(vz, op, rule):
    """acc[idx] += v: on arrays as setitem; on a tuple at a literal index, that item batched."""
    if len(op.args) != 3 or op.kw:
        return None
    acc, idx, v = op.args
    t = vz.type_of(acc)
    if isinstance(t, T.Array):
        got = _array_write(vz, op, acc, idx, v)
        return None if got is None else _emit_like(vz, op, op.prim, list(got), ())
    if not isinstance(t, CONTAINERS) or vz.form(idx):
        return None
    elt = _item_type(t, idx)
    value = vz.aligned(v, len(T.shape_of(elt))) if vz.form(v) and isinstance(elt, T.Array) and \
        elt.shape is not None and isinstance(vz.type_of(v), NUMERIC) else vz.v(v)
    k = idx.value if isinstance(idx, Const) else None
    if isinstance(t, T.Tuple) and isinstance(k, int) and isinstance(elt, NUMERIC):
        f = vz.form(acc)
        forms = list(f) if isinstance(f, tuple) else [f] * len(t.elts)
        forms[k] = join(forms[k], vz.form(v))
        form = norm(tuple(forms))
        out = op.outs[0]
        t = vz.batched(out.type, form)
        return ((vz.emit(op.prim, [vz.v(acc), vz.v(idx), value], (), t, out.hint), form),)
    if vz.form(v) and not isinstance(vz.type_of(v), NUMERIC):
        value = vz.conform(v, True)
    return _emit_like(vz, op, op.prim, [vz.conform(acc, True), vz.v(idx), value], ())


def _item_type(t, idx):
    k = idx.value if isinstance(idx, Const) else None
    if isinstance(t, T.Tuple) and isinstance(k, int) and -len(t.elts) <= k < len(t.elts):
        return t.elts[k]
    if isinstance(t, T.List):
        return t.elt
    if isinstance(t, T.Dict):
        got = t.get(k)
        return got if got is not None else T.UNKNOWN
    return T.UNKNOWN


# -- containers -------------------------------------------------------------------------------

def tuple_(vz, op, rule):
    """A tuple of values: its form is theirs, item by item."""
    if op.kw:
        return None
    form = norm(tuple(vz.form(a) for a in op.args))
    out = op.outs[0]
    return ((vz.emit(op.prim, [vz.v(a) for a in op.args], (), vz.batched(out.type, form), out.hint), form),)


def named_tuple(vz, op, rule):
    """An object of a named tuple class: as a tuple of its items (the class is the same for
    every example)."""
    if op.kw:
        return None
    form = norm(tuple(vz.form(a) for a in op.args[1:]))
    out = op.outs[0]
    items = [op.args[0]] + [vz.v(a) for a in op.args[1:]]
    return ((vz.emit(op.prim, items, (), vz.batched(out.type, form), out.hint), form),)


def batched_items(*names):
    """A list or dict made or changed from these operands: all its items batched (the
    unbatched ones copied B times), other operands (an index) the same for every example."""
    def vmap(vz, op, rule):
        if op.prim in ("srcad.list", "srcad.dict"):
            values = [i for i in range(len(op.args)) if op.prim == "srcad.list" or i % 2]
        else:
            args = bound(rule, op)
            if args is None:
                return None
            values = [i for i, p in enumerate(rule.params[:len(op.args)]) if p in names]
            if any(vz.form(a) for i, a in enumerate(op.args) if i not in values) or op.kw:
                return None
            if not all(isinstance(vz.type_of(op.args[i]), CONTAINERS) for i in values[:1]):
                return None
        new = [vz.conform(a, True) if i in values else vz.v(a) for i, a in enumerate(op.args)]
        outs = vz.emit_outs(op, new, (), forms=[True] * len(op.outs))
        return tuple((o, True) for o in outs)
    return vmap


def container_copy(vz, op, rule):
    """A copy of a container (list.copy, dict(d), tuple(xs)...): the same form."""
    if len(op.args) != 1 or op.kw or not isinstance(vz.type_of(op.args[0]), CONTAINERS):
        return None
    f = vz.form(op.args[0])
    if isinstance(f, tuple) and not isinstance(op.outs[0].type, T.Tuple):
        f = True
    xv = vz.conform(op.args[0], True) if f is True else vz.v(op.args[0])
    out = op.outs[0]
    return ((vz.emit(op.prim, [xv], (), vz.batched(out.type, f), out.hint), f),)


def copied(vz, op, rule):
    """srcad.copy_value: of a container, container_copy; of an array, the primitive as it is."""
    if isinstance(vz.type_of(op.args[0]), CONTAINERS):
        return container_copy(vz, op, rule)
    return same(vz, op, rule)


def added(vz, op, rule):
    """srcad.add of two derivatives of one value: numbers broadcast; containers are added
    leaf by leaf, both with the batch axis on the leaves either has it on."""
    x, y = op.args
    if isinstance(vz.type_of(x), NUMERIC) and isinstance(vz.type_of(y), NUMERIC):
        return broadcasting("x", "y")(vz, op, rule)
    if not _same_ranks(vz.type_of(x), vz.type_of(y)):
        return None
    form = join(vz.form(x), vz.form(y))
    out = op.outs[0]
    return ((vz.emit(op.prim, [vz.conform(x, form), vz.conform(y, form)], (), vz.batched(out.type, form),
                     out.hint), form),)


def _same_ranks(a, b) -> bool:
    """Do two values of these types have leaves of the same ranks (a leaf batched on one side
    only broadcasts against the other's)?"""
    if isinstance(a, T.Tuple) and isinstance(b, T.Tuple):
        return len(a.elts) == len(b.elts) and all(_same_ranks(x, y) for x, y in zip(a.elts, b.elts))
    if isinstance(a, T.List) and isinstance(b, T.List):
        return _same_ranks(a.elt, b.elt)
    if isinstance(a, T.Dict) and isinstance(b, T.Dict):
        return [k for k, _ in a.items] == [k for k, _ in b.items] and all(
            _same_ranks(x, y) for (_, x), (_, y) in zip(a.items, b.items))
    sa, sb = T.shape_of(a), T.shape_of(b)
    return sa is not None and sb is not None and len(sa) == len(sb) or isinstance(a, T.Bottom) or \
        isinstance(b, T.Bottom)


def length_checks(vz, op, rule):
    """The length of a container of batched leaves is the examples' length; of an array, the
    first example's."""
    if isinstance(vz.type_of(op.args[0]), CONTAINERS):
        outs = vz.emit_outs(op, [vz.v(a) for a in op.args], tuple((k, vz.v(a)) for k, a in op.kw),
                            forms=[False] * len(op.outs))
        return tuple((o, False) for o in outs)
    return first_example(vz, op, rule)


def joined(vz, op, rule):
    """np.stack / np.concatenate of a list or tuple of arrays along a literal axis: the items
    batched, the axis past the batch axis."""
    args = bound(rule, op)
    if args is None or set(args) - {rule.params[0], "axis"}:
        return None
    items, axis = args[rule.params[0]], args.get("axis", Const(0))
    if not isinstance(vz.type_of(items), (T.List, T.Tuple)) or not isinstance(axis, Const) or \
            axis.value is None or vz.form(axis):
        return None
    rank = vz.rank(op.outs[0])
    kw = (("axis", Const(shifted(axis.value, rank))),)
    return _emit_like(vz, op, op.prim, [vz.conform(items, True)], kw)


def array_of(vz, op, rule):
    """np.array / np.asarray: of an array, itself; of a list or tuple of numbers or arrays of
    one shape, np.stack(..., axis=1)."""
    args = bound(rule, op)
    if args is None or any(vz.form(a) for p, a in args.items() if p != rule.params[0]):
        return None
    x = args[rule.params[0]]
    t = vz.type_of(x)
    if isinstance(t, NUMERIC):
        return _emit_like(vz, op, op.prim, [vz.v(a) for a in op.args], tuple((k, vz.v(a)) for k, a in op.kw))
    elts = t.elts if isinstance(t, T.Tuple) else (t.elt,) if isinstance(t, T.List) else ()
    shapes = {T.shape_of(e) if isinstance(e, NUMERIC) else None for e in elts}
    if len(shapes) != 1 or None in shapes or len(args) > 1:
        return None
    return _emit_like(vz, op, "numpy.stack", [vz.conform(x, True)], (("axis", Const(1)),))


# -- srcad's broadcasting helpers ---------------------------------------------------------------

def summed_to(vz, op, rule):
    """srcad.unbroadcast(c, x) / srcad.sum_to_shape(c, shape): c summed down to x's shape,
    example by example (only x batched: its shape is the first example's)."""
    c, target = op.args[:2]
    if len(op.args) != 2 or op.kw or not isinstance(vz.type_of(c), NUMERIC) or not isinstance(
            op.outs[0].type, NUMERIC):
        return None
    if not vz.form(c):
        return first_example(vz, op, rule)
    if vz.form(target) and not isinstance(vz.type_of(target), NUMERIC):
        return None
    sx, B = vz.shape(op.outs[0]), vz.batch
    if T.shape_of(vz.type_of(c)) is None and vz.rank(c) <= len(sx):  # (c's shape unknown: at run time)
        return _emit_like(vz, op, "srcad.sum_to_shape", [vz.aligned(c, len(sx)), Const((B,) + sx)], ())
    sc = vz.shape(c)
    if sc == sx:
        return ((vz.v(c), True),)
    t = vz.batched(op.outs[0].type)
    if len(sc) < len(sx):
        zeros = vz.emit("numpy.zeros", [Const((B,) + sx)], (), t)
        return _emit_like(vz, op, "operator.add", [vz.aligned(c, len(sx)), zeros], ())
    lead = len(sc) - len(sx)
    axes = tuple(range(1, lead + 1)) + tuple(
        lead + i + 1 for i, n in enumerate(sx) if n == 1 and sc[lead + i] != 1)
    total = vz.emit("numpy.sum", [vz.v(c)], (("axis", Const(axes)),), T.Array(None, "f")) if axes else vz.v(c)
    return _emit_like(vz, op, "numpy.reshape", [total, Const((B,) + sx)], ())


def broadcast_up(vz, op, rule):
    """np.broadcast_to, srcad.broadcast_to, srcad.broadcast_like, srcad.sum_adjoint and
    srcad.expand_reduced of a batched value: to (B,) + the per-example result's shape."""
    v = op.args[0]
    if not vz.form(v):
        return first_example(vz, op, rule)
    if op.prim == "srcad.sum_adjoint" and isinstance(vz.type_of(op.args[1]), (T.List, T.Tuple)):
        outs = vz.emit_outs(op, [vz.v(v), vz.first(op.args[1])], (), forms=[True])  # ([g] * len(x))
        return ((outs[0], True),)
    shape_given = op.prim.endswith("broadcast_to")
    if op.kw or any(vz.form(a) for a in op.args[2:]) or (shape_given and vz.form(op.args[1])):
        return None
    if not isinstance(vz.type_of(v), NUMERIC) or not isinstance(op.outs[0].type, NUMERIC):
        return None
    shape, B = vz.shape(op.outs[0]), vz.batch
    if op.prim == "srcad.broadcast_like" and vz.shape(v) == shape:
        return ((vz.v(v), True),)
    value = _kept_dims(vz, op, v, shape) if op.prim == "srcad.expand_reduced" else vz.aligned(v, len(shape))
    if value is None:
        return None
    if op.prim == "srcad.broadcast_like":  # (a writable array, as the run-time helper's)
        zeros = vz.emit("numpy.zeros", [Const((B,) + shape)], (), vz.batched(op.outs[0].type))
        return _emit_like(vz, op, "operator.add", [value, zeros], ())
    return _emit_like(vz, op, "numpy.broadcast_to", [value, Const((B,) + shape)], ())


def _kept_dims(vz, op, v, shape):
    """v, the result of reducing an array of `shape` over the literal `axis`, with the reduced
    axes kept (length 1)."""
    args = dict(zip(("v", "x", "axis", "keepdims"), op.args))
    axis = args.get("axis", Const(None))
    if not isinstance(axis, Const):
        return None
    axes = range(len(shape)) if axis.value is None else (
        axis.value if isinstance(axis.value, tuple) else (axis.value,))
    axes = {a % len(shape) for a in axes} if shape else set()
    kept = (vz.batch,) + tuple(1 if i in axes else n for i, n in enumerate(shape))
    if (vz.batch,) + vz.shape(v) == kept:
        return vz.v(v)
    return vz.emit("numpy.reshape", [vz.v(v), Const(kept)], (), T.Array(len(kept), "f", kept))


def checked(vz, op, rule):
    """srcad.bound, srcad.assigned: the first operand as it is, checked as a whole (a batch is
    unassigned where its examples are)."""
    if op.kw or any(vz.form(a) for a in op.args[1:]):
        return None
    form, out = vz.form(op.args[0]), op.outs[0]
    return ((vz.emit(op.prim, [vz.v(a) for a in op.args], (), vz.batched(out.type, form), out.hint), form),)


def owned(vz, op, rule):
    """srcad.own_argument(x, others, where): a copy of x's batch, checked against the others'."""
    if op.kw:
        return None
    form, out = vz.form(op.args[0]), op.outs[0]
    return ((vz.emit(op.prim, [vz.v(a) for a in op.args], (), vz.batched(out.type, form), out.hint), form),)


def same_items(vz, op, rule):
    """A container with items moved or dropped by operands that are the same for every
    example (a dict without a key, a list put in a given order): the container's form."""
    if op.kw or any(vz.form(a) for a in op.args[1:]) or not isinstance(vz.type_of(op.args[0]), CONTAINERS):
        return None
    form = True if vz.form(op.args[0]) else False
    outs = vz.emit_outs(op, [vz.conform(op.args[0], form)] + [vz.v(a) for a in op.args[1:]], (),
                        forms=[form] * len(op.outs))
    return tuple((o, form) for o in outs)


def summed(vz, op, rule):
    """builtins.sum (math.fsum): of a list or tuple of batched values, the same sum (the start
    aligned); of an array, its rows summed: np.sum over the axis after the batch axis."""
    args = bound(rule, op)
    if args is None or not isinstance(op.outs[0].type, NUMERIC):
        return None
    x, start = args["x"] if "x" in args else args["seq"], args.get("start", Const(0))
    rank = vz.rank(op.outs[0])
    if isinstance(vz.type_of(x), (T.List, T.Tuple)):
        xs = vz.conform(x, True) if vz.form(x) else vz.v(x)
        return _emit_like(vz, op, "builtins.sum", [xs, vz.aligned(start, rank)], ())
    if isinstance(vz.type_of(x), T.Array) and not vz.form(start) and isinstance(start, Const) and \
            start.value == 0 and vz.rank(x) >= 1:
        return _emit_like(vz, op, "numpy.sum", [vz.v(x)], (("axis", Const(1)),))
    return None


def scalar_checked(vz, op, rule):
    """srcad.scalar_output(x, where): where an example's type says x is a real number (a
    float, an int, a bool: every example passes the check), x itself."""
    x = op.args[0]
    if isinstance(vz.type_of(x), (T.Float, T.Int, T.Bool)) and not any(vz.form(a) for a in op.args[1:]):
        return ((vz.v(x), vz.form(x)),)
    return None
