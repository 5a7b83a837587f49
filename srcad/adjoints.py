"""Run-time helpers of particular rules: derivatives that are exact where the textbook
formula divides by zero (prod and cumprod at zeros, x ** y at x = 0), the adjoints of
2-vector cross products and of repeated fancy-index writes, dict iteration, and the
weights of trapezoid quadrature, polynomial evaluation and linear interpolation.

Part of srcad.runtime (which re-exports every name here): generated code calls them, and
`srcad codegen` copies them into standalone modules.
"""

import numpy as np


def log_or_zero(x):
    """log(x), and 0 where x is 0: the factor in d(x ** y)/dy = x ** y * log(x), whose
    limit at x = 0 (for y > 0) is 0, not 0 * -inf."""
    if isinstance(x, np.ndarray):
        return np.log(np.where(x == 0.0, 1.0, x))
    return float(np.log(x)) if x != 0.0 else 0.0


def cross2_adjoint(c, o, which):
    """The adjoint of np.cross for 2-vectors (result a0 b1 - a1 b0) in operand `which` (0 for
    a, 1 for b), with o the other operand and c the cotangent of the result."""
    c = np.asarray(c, dtype=float)[..., None]
    o = np.asarray(o, dtype=float)
    return (1 - 2 * which) * np.concatenate([c * o[..., 1:2], -c * o[..., 0:1]], axis=-1)


def write_winners(x, idx):
    """For `x[idx] = v`: which selected positions keep their value. An index that repeats
    (x[[0, 0]] = v) keeps only its last write, so only that entry of v has a derivative."""
    keys = idx if isinstance(idx, tuple) else (idx,)
    if not isinstance(x, np.ndarray) or all(
            isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in keys):
        return True  # (a dict key or list index names one item)
    shape = np.shape(np.asarray(x)[idx])
    ids = np.arange(int(np.prod(shape))).reshape(shape)
    last = np.zeros(np.shape(x), dtype=np.intp)
    last[idx] = ids
    return last[idx] == ids


def _cumprod_parts(a, axis):
    """a with its reduced axis last (flattened for axis=None), and per position: before the
    first 0 of its row, at that first 0, and the products with that 0 taken as 1."""
    a2 = np.ravel(a).astype(float) if axis is None else np.moveaxis(np.asarray(a, dtype=float), axis, -1)
    zero = a2 == 0.0
    seen = np.cumsum(zero, axis=-1)
    before, first = seen == 0, zero & (seen == 1)
    return np.where(first, 1.0, a2), before, first


def _cumprod_back(out, a, axis):
    return np.reshape(out, np.shape(a)) if axis is None else np.moveaxis(out, -1, axis)


def cumprod_adjoint(c, a, axis=None):
    """The adjoint of np.cumprod(a, axis) for the cotangent c, exact where elements are 0:
    an element before the first 0 of its row gets sum_i c_i ans_i / a_k over the products
    before that 0, the first 0 gets the products with it taken as 1, later ones get 0."""
    a1, before, first = _cumprod_parts(a, axis)
    c2 = np.ravel(c) if axis is None else np.moveaxis(np.asarray(c, dtype=float), axis, -1)
    cp = c2 * np.cumprod(a1, axis=-1)
    tail = np.flip(np.cumsum(np.flip(np.where(before, cp, 0.0), -1), axis=-1), -1)
    out = np.where(before, tail / np.where(before, a1, 1.0), 0.0)
    out = np.where(first, np.sum(np.where(before, 0.0, cp), axis=-1, keepdims=True), out)
    return _cumprod_back(out, a, axis)


def cumprod_tangent(v, a, axis=None):
    """The tangent of np.cumprod(a, axis) along v, exact where elements are 0."""
    a1, before, first = _cumprod_parts(a, axis)
    v2 = np.ravel(v) if axis is None else np.moveaxis(np.asarray(v, dtype=float), axis, -1)
    p = np.cumprod(a1, axis=-1)
    inside = p * np.cumsum(np.where(before, v2 / np.where(before, a1, 1.0), 0.0), axis=-1)
    out = np.where(before, inside, np.sum(np.where(first, v2, 0.0), axis=-1, keepdims=True) * p)
    return out if axis is None else np.moveaxis(out, -1, axis)


def dict_values(d):
    return tuple(d.values())


def dict_items(d):
    return tuple(d.items())


def dict_like(d, values):
    """A dict with d's keys and these values: the cotangent of d.values()."""
    return dict(zip(d, values))


def items_cotangent(d, pairs):
    """The cotangent of d.items(): the value half of each (key, value) pair."""
    return dict(zip(d, (p[1] for p in pairs)))


def prod_partials(a, axis=None):
    """d prod(a, axis) / d a: per element, the product of the other elements of its group.
    Exclusive cumulative products from both ends, so exact where elements are 0 (ans / a
    would divide 0 by 0)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.ones_like(a)
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        ax % a.ndim for ax in (axis if isinstance(axis, tuple) else (axis,)))
    last = tuple(range(a.ndim - len(axes), a.ndim))
    moved = np.moveaxis(a, axes, last)
    flat = moved.reshape(moved.shape[:a.ndim - len(axes)] + (-1,))
    one = np.ones_like(flat[..., :1])
    left = np.cumprod(np.concatenate([one, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([one, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.moveaxis((left * right).reshape(moved.shape), last, axes)


def trapezoid_weights(y, x=None, dx=1.0, axis=-1):
    """d np.trapezoid(y, x, dx, axis) / d y: the quadrature weight of each sample (half of
    each neighbouring interval), shaped to broadcast against y along `axis`."""
    n = np.shape(y)[axis]
    if x is None:
        h = np.full(n - 1, float(dx))
    elif np.ndim(x) == 1:
        h = np.diff(np.asarray(x, dtype=float))
    else:
        raise ValueError("srcad: the derivative of np.trapezoid takes 1-d sample points x")
    w = np.zeros(n)
    w[:-1] += h / 2.0
    w[1:] += h / 2.0
    return _along(w, np.ndim(y), axis)


def _along(w, ndim, axis):
    """A 1-d array shaped to lie along `axis` of an ndim-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(w, shape)


def polyval_adjoint(c, p, x):
    """The adjoint of np.polyval(p, x) in the coefficients p: sum of c * x ** power."""
    x = np.asarray(x, dtype=float)
    powers = np.arange(np.size(p) - 1, -1, -1)
    return np.sum(np.asarray(c, dtype=float)[..., None] * x[..., None] ** powers,
                  axis=tuple(range(x.ndim)))


def interp_weights(x, xp):
    """For np.interp(x, xp, fp): the index of each x's interval and its weight on the right
    end (x outside xp takes the end value: weight 0 or 1 on that end)."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    w = np.clip((x - xp[i]) / (xp[i + 1] - xp[i]), 0.0, 1.0)
    return i, w


def interp_fp_adjoint(c, x, xp):
    """The adjoint of np.interp(x, xp, fp) in fp."""
    i, w = interp_weights(x, xp)
    c = np.broadcast_to(np.asarray(c, dtype=float), np.shape(w))
    out = np.zeros(len(xp))
    np.add.at(out, i, c * (1.0 - w))
    np.add.at(out, i + 1, c * w)
    return out


def interp_slope(x, xp, fp):
    """d np.interp(x, xp, fp) / d x: the slope of x's interval (0 outside xp's range)."""
    x = np.asarray(x, dtype=float)
    xp, fp = np.asarray(xp, dtype=float), np.asarray(fp, dtype=float)
    i, _ = interp_weights(x, xp)
    slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
    return np.where((x < xp[0]) | (x > xp[-1]), 0.0, slope)


def interp_slope_adjoint(c, x, xp):
    """The adjoint of interp_slope(x, xp, fp) in fp: each slope is (fp[i+1] - fp[i]) / h_i."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    i, _ = interp_weights(x, xp)
    inside = ~((x < xp[0]) | (x > xp[-1]))
    c = np.where(inside, np.broadcast_to(np.asarray(c, dtype=float), np.shape(x)), 0.0) / (xp[i + 1] - xp[i])
    out = np.zeros(len(xp))
    np.add.at(out, i + 1, c)
    np.add.at(out, i, -c)
    return out
