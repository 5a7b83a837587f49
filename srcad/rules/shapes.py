"""Exact result shapes, when the arguments' shapes are known: the `shape=` functions of rules.

A shape function is `(rule, sig) -> tuple | None` (sig: registry.Sig, the argument types and
literal values). Elementwise primitives broadcast their operands' shapes, reductions drop
axes, indexing with ints and constant slices keeps what it selects, products follow the
matrix rules; shapes_numpy.py has NumPy's shape, product and linalg functions. A shape
function returns None when it cannot be sure: the type stays rank-only, never a guess.
"""

from __future__ import annotations

from ..ir import types as T


def broadcast(*shapes):
    """NumPy broadcasting of known shapes; None if any is unknown or they do not broadcast."""
    if any(s is None for s in shapes):
        return None
    n = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(n):
        dims = {s[len(s) - n + i] for s in shapes if len(s) - n + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _arg_shapes(sig, names):
    return [T.shape_of(sig.type(n)) for n in names if n in sig.types]


def elementwise(rule, sig):
    """The broadcast shape of the array and number operands."""
    if any(isinstance(t, (T.List, T.Tuple)) for t in sig.types.values()):
        return None  # (a list of numbers is an array of a shape its type does not give)
    names = [n for n in rule.params if n in sig.types and isinstance(
        sig.type(n), (T.Array, T.Float, T.Int, T.Bool, T.Num, T.Unknown))]
    return broadcast(*_arg_shapes(sig, names))


def where(rule, sig):
    """np.where(condition, x, y): the broadcast shape of all three."""
    if any(isinstance(t, (T.List, T.Tuple)) for t in sig.types.values()):
        return None
    return broadcast(*_arg_shapes(sig, ["condition", "x", "y"]))


def reduction(rule, sig):
    """The first argument's shape without the literal `axis` (kept as 1 with keepdims)."""
    x = T.shape_of(sig.type(rule.params[0]))
    if x is None or not sig.is_const("axis"):
        return None
    axis, keep = sig.const("axis"), sig.const("keepdims", False)
    if axis is None:
        axes = set(range(len(x)))
    else:
        axes = {a % len(x) for a in (axis if isinstance(axis, tuple) else (axis,))} if x else set()
    if keep:
        return tuple(1 if i in axes else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in axes)


def _slice_len(n, sl):
    try:
        return len(range(n)[sl])
    except (TypeError, ValueError):
        return None


def _key_part(t: T.Type):
    """A subscript part from its type: an int, None, a constant slice, an integer array's
    shape (as a list), or "?" (unknown)."""
    if isinstance(t, T.Int):
        return 0
    if isinstance(t, T.NoneT):
        return None
    if isinstance(t, T.Opaque) and t.what == "slice" and t.value is not None:
        return slice(*t.value)
    if isinstance(t, T.Array) and t.kind in ("i", "u") and t.shape is not None:
        return list(t.shape)
    return "?"


def _index(sig):
    """x[idx]"""
    x, key = T.shape_of(sig.type("x")), sig.const("idx", NotImplemented)
    if key is NotImplemented:  # a key built from variables: ints, constant slices, int arrays
        t = sig.type("idx")
        key = tuple(_key_part(e) for e in t.elts) if isinstance(t, T.Tuple) else _key_part(t)
    if x is None:
        return None
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(p, list) for p in parts):
        return _advanced_index(x, parts)
    out, axis = [], 0
    for p in parts:
        if p is None:
            out.append(1)
        elif isinstance(p, bool) or not isinstance(p, (int, slice)):
            return None
        elif axis >= len(x):
            return None
        elif isinstance(p, int):
            axis += 1
        else:
            n = _slice_len(x[axis], p)
            if n is None:
                return None
            out.append(n)
            axis += 1
    return tuple(out) + tuple(x[axis:])


def _advanced_index(x, parts):
    """NumPy's rule for integer-array indices (with ints and slices, no newaxis): the
    broadcast shape of the array and int parts replaces their axes when they are adjacent,
    and comes first otherwise."""
    if len(parts) > len(x) or any(p is None or isinstance(p, (bool, str)) for p in parts):
        return None
    advanced = [k for k, p in enumerate(parts) if isinstance(p, (list, int))]
    adv_shape = broadcast(*[tuple(p) if isinstance(p, list) else ()
                            for p in parts if isinstance(p, (list, int))])
    if adv_shape is None:
        return None
    sliced = []
    for k, p in enumerate(parts):
        if isinstance(p, slice):
            n = _slice_len(x[k], p)
            if n is None:
                return None
            sliced.append((k, n))
    rest = tuple(x[len(parts):])
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        before = tuple(n for k, n in sliced if k < advanced[0])
        after = tuple(n for k, n in sliced if k > advanced[-1])
        return before + adv_shape + after + rest
    return adv_shape + tuple(n for _, n in sliced) + rest


def _matmul(a, b):
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return () if a == b else None
    if len(a) == 1:
        return b[:-2] + b[-1:] if b[-2] == a[0] else None
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    batch = broadcast(a[:-2], b[:-2])
    if batch is None or a[-1] != b[-2]:
        return None
    return batch + (a[-2], b[-1])


def _reshape(sig, name):
    x = T.shape_of(sig.type(name))
    target = sig.const("shape", None)
    if target is None:
        return None
    target = target if isinstance(target, tuple) else (target,)
    if not all(isinstance(d, int) for d in target):
        return None
    if x is None:
        return target if -1 not in target else None
    size = 1
    for d in x:
        size *= d
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if target.count(-1) == 1 and known:
        target = tuple(size // known if d == -1 else d for d in target)
    return target if -1 not in target else None


def _transpose(sig, rule):
    x, axes = _first(sig, rule), sig.const("axes", "?")
    if x is None or axes == "?":
        return None
    if axes is None:
        return tuple(reversed(x))
    return tuple(x[a] for a in axes)


def _first(sig, rule):
    return T.shape_of(sig.type(rule.params[0]))


def _const_shape(sig, name="shape"):
    s = sig.const(name, None)
    if isinstance(s, int) and not isinstance(s, bool):
        return (s,)
    if isinstance(s, tuple) and all(isinstance(d, int) for d in s):
        return s
    return None


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def index(rule, sig):
    """x[key] with ints, None, constant slices and integer arrays of known shapes."""
    return _index(sig)


def matmul(rule, sig):
    """x @ y (and np.matmul)."""
    return _matmul(T.shape_of(sig.type("x")), T.shape_of(sig.type("y")))


def dot(rule, sig):
    """np.dot(a, b) of vectors and matrices (higher ranks: rank only)."""
    a, b = T.shape_of(sig.type("a")), T.shape_of(sig.type("b"))
    if len(a or (0, 0, 0)) > 2 or len(b or (0, 0, 0)) > 2:
        return None
    return _matmul(a, b)


def reversed_axes(rule, sig):
    """x.T"""
    x = _first(sig, rule)
    return tuple(reversed(x)) if x is not None else None


def transpose(rule, sig):
    """np.transpose(x, axes) with literal axes."""
    return _transpose(sig, rule)


def swap_last(rule, sig):
    """srcad.T: the last two axes swapped."""
    s = _first(sig, rule)
    return s[:-2] + s[-1:] + s[-2:-1] if s is not None and len(s) >= 2 else s


def reshape(rule, sig):
    """np.reshape(a, shape) with a literal shape (one -1 resolved from a's size)."""
    return _reshape(sig, "a")


def flat(rule, sig):
    """np.ravel and x.flatten(): one axis of x's size."""
    x = _first(sig, rule)
    return (_size(x),) if x is not None else None


def outer(rule, sig):
    """np.outer(a, b): (a.size, b.size)."""
    a, b = T.shape_of(sig.type("a")), T.shape_of(sig.type("b"))
    return (_size(a), _size(b)) if a is not None and b is not None else None


def literal(rule, sig):
    """The literal `shape` argument (np.zeros(shape), srcad.broadcast_to(x, shape))."""
    return _const_shape(sig)


def first(rule, sig):
    """The shape of the first argument."""
    return T.shape_of(sig.type(rule.params[0])) if rule.params else None


def stacked_items(t: T.Type) -> tuple | None:
    """The shape of np.array of a list whose items are arrays of one known shape (T.List.shapes;
    at least one item), else None."""
    if not isinstance(t, T.List) or not t.shapes or any(s != t.shapes[0] for s in t.shapes):
        return None
    return (len(t.shapes),) + tuple(t.shapes[0])


def array_of(rule, sig):
    """np.array(x): x's shape, or that of stacking the items of a list of known shapes."""
    t = sig.type(rule.params[0])
    return T.shape_of(t) if not isinstance(t, T.List) else stacked_items(t)


def second(rule, sig):
    """The shape of the second argument."""
    return T.shape_of(sig.type(rule.params[1]))


def length(shape):
    """len(x) of an array of this shape (None for a 0-d array: len raises)."""
    return shape[0] if shape else None
