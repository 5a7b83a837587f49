"""Derivatives of reductions that are exact where the textbook formula divides by zero
(prod at zeros to third order, cumprod to second), the weights of np.average, the adjoint of
np.diff, and max/min of an iterable with their derivatives shared among ties.

srcad/rules/numpy_reductions.py, numpy_arrays.py and internal.py call them (their rules:
numpy_reductions.py, helpers.py and internal.py).
"""

import numpy as np

__all__ = ["prod_partials", "prod_hvp", "prod_third", "cumprod_tangent", "cumprod_adjoint", "cumprod_hvp",
           "cumprod_hvp_adjoint", "average_weights", "average_weights_adjoint", "diff_adjoint",
           "max_of", "min_of", "select_adjoint", "select_tangent"]


def _grouped(a, axis):
    """a as an array (..., n) whose last axis runs over each group that np.prod(a, axis)
    multiplies, and a function that puts an array of that form back into the shape of a."""
    a = np.asarray(a, dtype=float)
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        ax % a.ndim for ax in (axis if isinstance(axis, tuple) else (axis,)))
    last = tuple(range(a.ndim - len(axes), a.ndim))
    moved = np.moveaxis(a, axes, last)
    flat = moved.reshape(moved.shape[:a.ndim - len(axes)] + (-1,))
    return flat, lambda r: np.moveaxis(np.reshape(r, moved.shape), last, axes)


def prod_partials(a, axis=None):
    """d prod(a, axis) / d a: per element, the product of the other elements of its group.
    Exclusive cumulative products from both ends, so exact where elements are 0 (ans / a
    would divide 0 by 0)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.ones_like(a)
    flat, back = _grouped(a, axis)
    one = np.ones_like(flat[..., :1])
    left = np.cumprod(np.concatenate([one, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([one, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return back(left * right)


def prod_hvp(v, a, axis=None):
    """The Hessian of np.prod(a, axis) times v: per element i, the sum over the other
    elements k of its group of v_k times the product of the elements other than i and k.
    Exact where elements are 0: with b = a with its zeros taken as 1 and q the product of b,
    that product is q / (b_i b_k) where the zeros of the group are among i and k, else 0."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.zeros(np.shape(a))
    flat, back = _grouped(a, axis)
    vf = _grouped(np.broadcast_to(v, a.shape), axis)[0]
    zero = flat == 0.0
    b = np.where(zero, 1.0, flat)
    w = np.where(zero, 0.0, vf / b)
    nz = np.sum(zero, axis=-1, keepdims=True)
    q = np.prod(b, axis=-1, keepdims=True)
    s = np.sum(w, axis=-1, keepdims=True)  # sum of v_k / a_k over the nonzero elements
    vz = np.sum(np.where(zero, vf, 0.0), axis=-1, keepdims=True)  # sum of v at the zeros
    none = q / b * (s - w)  # no zero in the group
    one = np.where(zero, q * s, q * vz / b)  # one zero: at it, all the others; elsewhere just it
    two = np.where(zero, q * (vz - vf), 0.0)  # two zeros: only the pair of them
    return back(np.where(nz == 0, none, np.where(nz == 1, one, np.where(nz == 2, two, 0.0))))


def prod_third(v, t, a, axis=None):
    """The third derivative of np.prod(a, axis) applied to v and t: per element i, the sum over
    ordered pairs (k, m) of other distinct elements of its group of v_k t_m times the product of
    the rest. Exact where elements are 0 (by the number of zeros in the group, as prod_hvp):
    with b = a with its zeros taken as 1, q the product of b, sums U, W, UW of v/b, t/b and
    v t / b^2 over the nonzero elements, and VZ, TZ, VTZ of v, t and v t over the zeros."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.zeros(np.shape(a))
    flat, back = _grouped(a, axis)
    vf, tf = (_grouped(np.broadcast_to(x, a.shape), axis)[0] for x in (v, t))
    zero = flat == 0.0
    b = np.where(zero, 1.0, flat)
    u, w = np.where(zero, 0.0, vf / b), np.where(zero, 0.0, tf / b)

    def total(x):
        return np.sum(x, axis=-1, keepdims=True)

    U, W, UW, nz, q = total(u), total(w), total(u * w), total(zero), np.prod(b, axis=-1, keepdims=True)
    VZ, TZ = total(np.where(zero, vf, 0.0)), total(np.where(zero, tf, 0.0))
    VTZ = total(np.where(zero, vf * tf, 0.0))
    none = q / b * ((U - u) * (W - w) - (UW - u * w))
    one = np.where(zero, q * (U * W - UW), q / b * (VZ * (W - w) + TZ * (U - u)))
    two = np.where(zero, q * ((VZ - vf) * W + (TZ - tf) * U), q / b * (VZ * TZ - VTZ))
    three = np.where(zero, q * ((VZ - vf) * (TZ - tf) - (VTZ - vf * tf)), 0.0)
    return back(np.select([nz == 0, nz == 1, nz == 2, nz == 3], [none, one, two, three], 0.0))


def _cumulative(x, axis):
    """x with its cumulative axis last (flattened for axis=None, and for a 0-d x as NumPy does)."""
    if axis is None or np.ndim(x) == 0:
        return np.ravel(x).astype(float)
    return np.moveaxis(np.asarray(x, dtype=float), axis, -1)


def _rcs_last(x):
    """Sums from the end along the last axis (the adjoint of a cumulative sum)."""
    return np.flip(np.cumsum(np.flip(x, -1), axis=-1), -1)


def _cumprod_parts(a, axis):
    """a with its reduced axis last (flattened for axis=None), and per position: before the
    first 0 of its row, at that first 0, and the products with that 0 taken as 1."""
    a2 = _cumulative(a, axis)
    zero = a2 == 0.0
    seen = np.cumsum(zero, axis=-1)
    before, first = seen == 0, zero & (seen == 1)
    return np.where(first, 1.0, a2), before, first


def _cumprod_back(out, a, axis):
    if axis is None or np.ndim(a) == 0:
        return np.reshape(out, np.shape(a))
    return np.moveaxis(out, -1, axis)


def cumprod_tangent(v, a, axis=None):
    """The tangent of np.cumprod(a, axis) along v, exact where elements are 0."""
    a1, before, first = _cumprod_parts(a, axis)
    v2 = _cumulative(np.broadcast_to(v, np.shape(a)), axis if np.ndim(a) else None)
    p = np.cumprod(a1, axis=-1)
    inside = p * np.cumsum(np.where(before, v2 / np.where(before, a1, 1.0), 0.0), axis=-1)
    out = np.where(before, inside, np.sum(np.where(first, v2, 0.0), axis=-1, keepdims=True) * p)
    return out if axis is None or np.ndim(a) == 0 else np.moveaxis(out, -1, axis)


def cumprod_adjoint(c, a, axis=None):
    """The adjoint of np.cumprod(a, axis) for the cotangent c, exact where elements are 0:
    an element before the first 0 of its row gets sum_i c_i ans_i / a_k over the products
    before that 0, the first 0 gets the products with it taken as 1, later ones get 0."""
    a1, before, first = _cumprod_parts(a, axis)
    c2 = _cumulative(c, axis if np.ndim(a) else None)
    cp = c2 * np.cumprod(a1, axis=-1)
    tail = np.flip(np.cumsum(np.flip(np.where(before, cp, 0.0), -1), axis=-1), -1)
    out = np.where(before, tail / np.where(before, a1, 1.0), 0.0)
    out = np.where(first, np.sum(np.where(before, 0.0, cp), axis=-1, keepdims=True), out)
    return _cumprod_back(out, a, axis)


def _cumprod_zeros(a, axis):
    """For the second derivatives of np.cumprod(a, axis), along its axis (last): a with its
    zeros taken as 1, the zero mask, how many zeros up to each position (inclusive) and the
    cumulative products of the first."""
    a2 = _cumulative(a, axis)
    zero = a2 == 0.0
    b = np.where(zero, 1.0, a2)
    return b, zero, np.cumsum(zero, axis=-1), np.cumprod(b, axis=-1)


def cumprod_hvp(v, u, a, axis=None):
    """The second derivative of np.cumprod(a, axis) along v and u: per position i, the sum
    over k != l up to i of v_k u_l times the product of the elements up to i other than k and
    l (exact where elements are 0: among the zeros up to i, each must be k or l)."""
    b, zero, count, q = _cumprod_zeros(a, axis)
    vf = _cumulative(np.broadcast_to(v, np.shape(a)), axis)
    uf = _cumulative(np.broadcast_to(u, np.shape(a)), axis)
    w, x = np.where(zero, 0.0, vf / b), np.where(zero, 0.0, uf / b)
    cw, cx = np.cumsum(w, axis=-1), np.cumsum(x, axis=-1)
    v1, u1 = (np.cumsum(np.where(zero & (count == 1), f, 0.0), axis=-1) for f in (vf, uf))
    v2, u2 = (np.cumsum(np.where(zero & (count == 2), f, 0.0), axis=-1) for f in (vf, uf))
    two = np.where(count == 2, v1 * u2 + v2 * u1, 0.0)
    out = q * np.where(count == 0, cw * cx - np.cumsum(w * x, axis=-1),
                       np.where(count == 1, v1 * cx + u1 * cw, two))
    return out if axis is None or np.ndim(a) == 0 else np.moveaxis(out, -1, axis)


def cumprod_hvp_adjoint(c, v, a, axis=None):
    """The adjoint of u -> cumprod_hvp(v, u, a, axis) for the cotangent c: per position l,
    the sum over i >= l of c_i times the sum over k != l up to i of v_k times the product of
    the elements up to i other than k and l (exact where elements are 0)."""
    b, zero, count, q = _cumprod_zeros(a, axis)
    vf = _cumulative(np.broadcast_to(v, np.shape(a)), axis)
    cq = _cumulative(c, axis if np.ndim(a) else None) * q
    w = np.where(zero, 0.0, vf / b)
    cw = np.cumsum(w, axis=-1)
    tail = [_rcs_last(np.where(count == r, cq, 0.0)) for r in (0, 1, 2)]  # by number of zeros
    tail_w = [_rcs_last(np.where(count == r, cq * cw, 0.0)) for r in (0, 1)]
    v1 = np.sum(np.where(zero & (count == 1), vf, 0.0), axis=-1, keepdims=True)
    v2 = np.sum(np.where(zero & (count == 2), vf, 0.0), axis=-1, keepdims=True)
    second = np.where(count == 2, v1 * tail[2], 0.0)  # at the second zero
    at_zero = np.where(count == 1, tail_w[1] + v2 * tail[2], second)
    out = np.where(~zero, (tail_w[0] - w * tail[0] + v1 * tail[1]) / b, at_zero)
    return _cumprod_back(out, a, axis)


def average_weights(w, a, axis=None):
    """The weights of np.average(a, axis, weights=w) broadcast to the shape of a."""
    shape = np.shape(a)
    if np.shape(w) == shape:
        return w
    axis = axis % len(shape)
    return np.broadcast_to(np.reshape(w, [-1 if d == axis else 1 for d in range(len(shape))]), shape)


def average_weights_adjoint(g, w, axis=None):
    """The adjoint of average_weights: sum g down to the shape of the weights w."""
    if np.shape(g) == np.shape(w):
        return g
    axis = axis % np.ndim(g)
    return np.sum(g, axis=tuple(d for d in range(np.ndim(g)) if d != axis))


def diff_adjoint(g, n=1, axis=-1):
    """The adjoint of np.diff(a, n, axis)."""
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g


def _ties(xs, ans):
    """Where xs equals its max/min ans, and how many times."""
    mask = np.asarray([x == ans for x in xs] if isinstance(xs, (list, tuple)) else xs == ans)
    return mask, np.sum(mask)


def max_of(xs):
    """max(xs) of an iterable (the builtin with one argument)."""
    return max(xs)


def min_of(xs):
    """min(xs) of an iterable (the builtin with one argument)."""
    return min(xs)


def select_adjoint(g, xs, ans):
    """The cotangent of xs for ans = max(xs) or min(xs): g shared equally among ties, and
    exactly 0 elsewhere (also where g is inf)."""
    mask, k = _ties(xs, ans)
    w = np.where(mask, g / k, 0.0)
    return list(w) if isinstance(xs, (list, tuple)) else w


def select_tangent(t, xs, ans):
    """The tangent of ans = max(xs) or min(xs) from the tangent t of xs: the mean of the
    selected tangents (the others may be inf or NaN)."""
    mask, k = _ties(xs, ans)
    if isinstance(xs, (list, tuple)):
        return sum(ti for ti, m in zip(t, mask) if m) / k
    return np.sum(np.where(mask, t, 0.0)) / k
