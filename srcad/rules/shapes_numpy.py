"""Exact result shapes of NumPy's shape, reduction, product and linalg functions.

Each is written as `fn(shape_of, const)`: `shape_of(param)` is the argument's known shape
(None when unknown) and `const(param, default)` its literal value (`NO` when it is not a
literal); `@exact` makes it a rule's `shape=` function. They return None when they cannot
be sure, and the types stay rank-only then. Only literal axes, reps and subscripts give
shapes.
"""

from __future__ import annotations

import numpy as np

from ..ir import types as T

NO = object()  # `const` of an argument that is not a literal


def exact(fn):
    """A rule's shape function, (rule, Sig) -> shape or None, from `fn(shape_of, const)`."""
    def shape(rule, sig):
        return fn(lambda p: T.shape_of(sig.type(p)) if p in sig.types else None,
                  lambda p, default: sig.const(p, NO))
    shape.__name__ = shape.__qualname__ = fn.__name__
    return shape


def _axis(a, n):
    return a % n if isinstance(a, int) and -n <= a < n else None


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def same(param):
    """The shape of argument `param`."""
    return exact(lambda s, c: s(param))


def _cumulative(s, c):
    x, axis = s("a"), c("axis", NO)
    if x is None or axis is NO:
        return None
    return (_size(x),) if axis is None else x


def _diff(s, c):
    x, n, axis = s("a"), c("n", NO), c("axis", NO)
    if x is None or not isinstance(n, int) or _axis(axis, len(x)) is None:
        return None
    k = _axis(axis, len(x))
    return x[:k] + (max(x[k] - n, 0),) + x[k + 1:]


def _expand_dims(s, c):
    x, axis = s("a"), c("axis", NO)
    if x is None or axis is NO:
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    n = len(x) + len(axes)
    axes = {_axis(a, n) for a in axes}
    if None in axes:
        return None
    it = iter(x)
    return tuple(1 if i in axes else next(it) for i in range(n))


def _squeeze(s, c):
    x, axis = s("a"), c("axis", NO)
    if x is None or axis is NO:
        return None
    if axis is None:
        return tuple(d for d in x if d != 1)
    axes = {_axis(a, len(x)) for a in (axis if isinstance(axis, tuple) else (axis,))}
    return None if None in axes else tuple(d for i, d in enumerate(x) if i not in axes)


def _swapaxes(s, c):
    x = s("a")
    if x is None:
        return None
    i, j = _axis(c("axis1", NO), len(x)), _axis(c("axis2", NO), len(x))
    if i is None or j is None:
        return None
    out = list(x)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _moveaxis(s, c):
    x, src, dst = s("a"), c("source", NO), c("destination", NO)
    if x is None or not isinstance(src, int) or not isinstance(dst, int):
        return None
    i, j = _axis(src, len(x)), _axis(dst, len(x))
    if i is None or j is None:
        return None
    rest = [d for k, d in enumerate(x) if k != i]
    rest.insert(j, x[i])
    return tuple(rest)


def _diag(s, c):
    v, k = s("v"), c("k", NO)
    if v is None or not isinstance(k, int):
        return None
    if len(v) == 1:
        return (v[0] + abs(k),) * 2
    if len(v) == 2:
        n = min(v[0], v[1] - k) if k >= 0 else min(v[0] + k, v[1])
        return (max(n, 0),)
    return None


def _diagonal(s, c):
    x, off = s("a"), c("offset", NO)
    if x is None or not isinstance(off, int) or len(x) < 2:
        return None
    i, j = _axis(c("axis1", NO), len(x)), _axis(c("axis2", NO), len(x))
    if i is None or j is None or i == j:
        return None
    n = min(x[i], x[j] - off) if off >= 0 else min(x[i] + off, x[j])
    return tuple(d for k, d in enumerate(x) if k not in (i, j)) + (max(n, 0),)


def _tile(s, c):
    x, reps = s("A"), c("reps", NO)
    if x is None or reps is NO:
        return None
    reps = reps if isinstance(reps, tuple) else (reps,)
    if not all(isinstance(r, int) for r in reps):
        return None
    n = max(len(x), len(reps))
    x, reps = (1,) * (n - len(x)) + tuple(x), (1,) * (n - len(reps)) + reps
    return tuple(d * r for d, r in zip(x, reps))


def _repeat(s, c):
    x, reps, axis = s("a"), c("repeats", NO), c("axis", NO)
    if x is None or not isinstance(reps, int) or axis is NO:
        return None
    if axis is None:
        return (_size(x) * reps,)
    k = _axis(axis, len(x))
    return None if k is None else x[:k] + (x[k] * reps,) + x[k + 1:]


def _atleast(n):
    def out(s, c):
        x = s("arys")
        if x is None:
            return None
        if len(x) >= n:
            return x
        return {0: ((1,), (1, 1), (1, 1, 1)), 1: (None, (1,) + x, (1,) + x + (1,)),
                2: (None, None, x + (1,))}[len(x)][n - 1]
    return out


def _tensordot(s, c):
    a, b, axes = s("a"), s("b"), c("axes", NO)
    if a is None or b is None or axes is NO:
        return None
    if isinstance(axes, int):
        if axes > min(len(a), len(b)) or a[len(a) - axes:] != b[:axes]:
            return None
        return a[:len(a) - axes] + b[axes:]
    if isinstance(axes, tuple) and len(axes) == 2:
        ia, ib = (ax if isinstance(ax, tuple) else (ax,) for ax in axes)
        ia, ib = [_axis(i, len(a)) for i in ia], [_axis(i, len(b)) for i in ib]
        if None in ia or None in ib or [a[i] for i in ia] != [b[i] for i in ib]:
            return None
        return (tuple(d for k, d in enumerate(a) if k not in ia)
                + tuple(d for k, d in enumerate(b) if k not in ib))
    return None


def _einsum(s, c):
    spec = c("subscripts", NO)
    if not isinstance(spec, str) or "." in spec:
        return None
    spec = spec.replace(" ", "")
    ins, _, out = spec.partition("->")
    terms = ins.split(",")
    shapes = [s(p) for p in ("a", "b", "c", "d", "e", "f")[:len(terms)]]
    if len(terms) > 6 or any(x is None for x in shapes):
        return None
    dims: dict = {}
    for term, x in zip(terms, shapes):
        if len(term) != len(x):
            return None
        for letter, d in zip(term, x):
            if dims.setdefault(letter, d) != d and 1 not in (d, dims[letter]):
                return None
            dims[letter] = max(dims[letter], d)
    if "->" not in spec:
        out = "".join(sorted(k for k in dims if ins.count(k) == 1))
    return tuple(dims[k] for k in out) if all(k in dims for k in out) else None


def _kron(s, c):
    a, b = s("a"), s("b")
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(x * y for x, y in zip(a, b))


def _inner(s, c):
    a, b = s("a"), s("b")
    if a is None or b is None or not a or not b or a[-1] != b[-1]:
        return None
    return a[:-1] + b[:-1]


def _solve(s, c):
    a, b = s("a"), s("b")
    if a is None or b is None or len(a) != 2 or a[0] != a[1] or not b or b[0] != a[0]:
        return None
    return b


def _pinv(s, c):
    a = s("a")
    return None if a is None or len(a) < 2 else a[:-2] + (a[-1], a[-2])


def _broadcast_to(s, c):
    shape = c("shape", NO)
    if isinstance(shape, int):
        return (shape,)
    return shape if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) else None


def _sort(s, c):
    axis = c("axis", NO)
    return s("a") if axis is not NO and axis is not None else None


def joined(name: str, join):
    """Joining the items of a tuple (or of a list built in the function: rules' `item_shapes`)
    with `join` (np.concatenate, np.stack, np.hstack...): NumPy's own shape rules, applied to
    stand-ins of the items' shapes that hold no data (a dtype of zero bytes), with a literal
    `axis`."""
    def shape(rule, sig):
        t = sig.type(name) if name in sig.types else None
        if not isinstance(t, T.Tuple) or not t.elts:
            return None
        shapes = [T.shape_of(e) if isinstance(e, (T.Array, T.Float, T.Int, T.Bool)) else None for e in t.elts]
        kw = {}
        if "axis" in rule.params:
            kw["axis"] = sig.const("axis", NO)
        if any(s is None for s in shapes) or kw.get("axis", 0) is NO:
            return None
        try:
            return join([np.empty(s, dtype=[]) for s in shapes], **kw).shape
        except (ValueError, TypeError, IndexError):
            return None
    shape.__name__ = shape.__qualname__ = f"joined_{join.__name__}"
    return shape


def expand_dims_of(shape, axis):
    """np.expand_dims(x, axis) of an x of this shape (None: cannot tell)."""
    return _expand_dims(lambda p: shape, lambda p, d: axis if p == "axis" else NO)


def _einsum_vjp(s, c):
    """The adjoint for operand k has operand k's shape, which the call carries as a tuple."""
    k = c("k", NO)
    if type(k) is not int or not 0 <= k < 6:
        return None
    shape = c("abcdef"[k], NO)
    return shape if isinstance(shape, tuple) and all(type(d) is int for d in shape) else None


cumulative, diff, expand_dims, squeeze = map(exact, (_cumulative, _diff, _expand_dims, _squeeze))
swapaxes, moveaxis, diag, diagonal = map(exact, (_swapaxes, _moveaxis, _diag, _diagonal))
tile, repeat, tensordot, einsum = map(exact, (_tile, _repeat, _tensordot, _einsum))
einsum_vjp = exact(_einsum_vjp)
kron, inner, solve, pinv = map(exact, (_kron, _inner, _solve, _pinv))
atleast_1d, atleast_2d, atleast_3d = (exact(_atleast(n)) for n in (1, 2, 3))
broadcast_to, sort = exact(_broadcast_to), exact(_sort)
