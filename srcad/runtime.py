"""The few helpers generated code may call. Each is a primitive with rules of its own, so
derivative code that calls them can be differentiated again; offline code generation copies
their source into the generated module so it does not import srcad.

The transforms emit these only where types cannot settle the question statically (for
example an operand whose shape is unknown until run time).
"""

import numpy as np


def stop_gradient(x):
    """Return x unchanged; derivatives do not flow through it (at any order)."""
    return x


def unbroadcast(g, x):
    """Sum the cotangent g of a broadcast result down to the shape of x."""
    shape = np.shape(x)
    if np.shape(g) == shape:
        return g
    if not shape:
        total = np.sum(g)
        return total.reshape(()) if isinstance(x, np.ndarray) else total
    lead = np.ndim(g) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and np.shape(g)[lead + i] != 1
    )
    return np.sum(g, axis=axes).reshape(shape) if axes else np.reshape(g, shape)


def broadcast_like(t, ans):
    """Broadcast the tangent t to the shape of ans (where an input was broadcast)."""
    shape = np.shape(ans)
    if np.shape(t) == shape:
        return t
    return t + np.zeros(shape)


def zeros_like(x):
    """A zero cotangent or tangent for x: 0.0 for scalars, zeros for arrays and containers."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    if isinstance(x, (list, tuple)):
        return type(x)(zeros_like(e) for e in x)
    if isinstance(x, dict):
        return {k: zeros_like(v) for k, v in x.items()}
    return 0.0


def add(a, b):
    """Sum two cotangents elementwise, also for lists, tuples and dicts of them."""
    if isinstance(a, (list, tuple)):
        return type(a)(add(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return {k: add(a[k], b[k]) for k in a}
    return a + b


def scatter_add(acc, idx, g):
    """acc[idx] += g, accumulating repeated indices; returns acc (changed in place; a new
    tuple for tuples)."""
    if isinstance(acc, tuple):
        items = list(acc)
        items[idx] = add(items[idx], g)
        return tuple(items)
    if isinstance(acc, (list, dict)):
        acc[idx] = add(acc[idx], g)
        return acc
    np.add.at(acc, idx, g)
    return acc


def setitem(x, idx, v):
    """A copy of x with x[idx] = v (the functional form of item assignment)."""
    x = x.copy()
    x[idx] = v
    return x


def list_pop(xs):
    """Remove and return the last element of xs: (xs, element)."""
    v = xs.pop()
    return xs, v


def list_append(xs, v):
    """Append v to xs and return xs."""
    xs.append(v)
    return xs


def T(x):
    """Swap the last two axes (the transpose of a stack of matrices)."""
    return np.swapaxes(x, -1, -2)


def sum_to_shape(g, shape):
    """Sum g down to the given shape (the adjoint of broadcast_to)."""
    return unbroadcast(g, np.zeros(shape))


def sum_adjoint(g, x):
    """The adjoint of builtins.sum(x): g for every element (row) of x."""
    if isinstance(x, (list, tuple)):
        return [g] * len(x)
    return np.broadcast_to(g, np.shape(x))


def expand_reduced(v, x, axis=None, keepdims=False):
    """Broadcast v, the result of reducing x over `axis`, back to the shape of x."""
    if axis is not None and not keepdims:
        v = np.expand_dims(v, axis)
    return np.broadcast_to(v, np.shape(x))


def clip_mask(x, lo, hi):
    """1.0 where lo <= x <= hi (bounds may be None), else 0.0: the derivative of clip."""
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    return inside * 1.0


def inverse_axes(axes):
    """The inverse of a transpose permutation (None stays None)."""
    return None if axes is None else tuple(np.argsort(axes))


def array_adjoint(g, x):
    """The adjoint of np.array(x) for x a (nested) list or tuple: g split the same way."""
    if isinstance(x, (list, tuple)):
        return [array_adjoint(gi, xi) for gi, xi in zip(g, x)]
    return g


def copy_value(x):
    """A shallow copy of a mutable container (arrays, lists, dicts); tuples and numbers as is."""
    if isinstance(x, (np.ndarray, list, dict)):
        return x.copy()
    return x
