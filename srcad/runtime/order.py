"""Helpers of the order-statistic rules (quantiles, running extrema, ufunc.outer): which
element each result is, or which adjacent pair of sorted elements it interpolates.

A quantile of any of NumPy's methods is (1 - w) s[lo] + w s[hi], with s the sorted elements
and lo, hi, w depending only on their count and q, never on their values: so it is linear in
the elements for a fixed order, and its derivative is that combination of the tangents in
the sorted order. np.quantile of 0, 1, ..., n - 1 gives lo + w (its "virtual index").
"""

import numpy as np

__all__ = ["running_extreme_index", "quantile_tangent", "quantile_adjoint", "outer_axes", "partition_order"]


def running_extreme_index(a, ans, axis=0):
    """For ans = np.maximum.accumulate(a, axis) (or np.minimum's): the index along axis of the
    element each result is, the first that reached that value (a later tie keeps it)."""
    a_m, y = np.moveaxis(np.asarray(a), axis, -1), np.moveaxis(np.asarray(ans), axis, -1)
    idx = np.arange(np.shape(a_m)[-1])
    prev = np.concatenate([y[..., :1], y[..., :-1]], axis=-1)
    new = (a_m == y) & ((idx == 0) | (y != prev))
    return np.moveaxis(np.maximum.accumulate(np.where(new, idx, 0), axis=-1), -1, axis)


def partition_order(a, ans, axis=-1):
    """The indices of the elements of a that ans = np.partition(a, kth, axis) holds, along axis
    (equal elements matched in order)."""
    by_a = np.argsort(a, axis=axis, kind="stable")
    rank = np.argsort(np.argsort(ans, axis=axis, kind="stable"), axis=axis, kind="stable")
    return np.take_along_axis(by_a, rank, axis)


def outer_axes(x, y):
    """The axes of ufunc.outer(x, y) that come from y (x's cotangent sums over them)."""
    return tuple(range(np.ndim(x), np.ndim(x) + np.ndim(y)))


def _reduced_last(a, axis):
    """a with the reduced axes moved last and merged into one; and the axes (sorted)."""
    a = np.asarray(a, dtype=float)
    nd = np.ndim(a)
    axes = tuple(range(nd)) if axis is None else tuple(
        sorted(ax % max(nd, 1) for ax in (axis if isinstance(axis, tuple) else (axis,))))
    moved = np.moveaxis(a, axes, tuple(range(nd - len(axes), nd))) if nd else a
    rest = np.shape(moved)[:nd - len(axes)]
    return np.reshape(moved, rest + (-1,)), axes


def _points(n, q, method):
    """lo, hi and w (each of q's shape) of the quantiles q of n sorted elements."""
    v = np.asarray(np.quantile(np.arange(n, dtype=float), q, method=method), dtype=float)
    lo = np.clip(np.floor(v), 0, n - 1).astype(int)
    return lo, np.minimum(lo + 1, n - 1), np.clip(v - lo, 0.0, 1.0)


def _result_shape(a, q, axes, keepdims):
    shape = np.shape(a)
    kept = tuple(1 if d in axes else s for d, s in enumerate(shape)) if keepdims else tuple(
        s for d, s in enumerate(shape) if d not in axes)
    return np.shape(q) + kept


def quantile_tangent(t, a, q, axis=None, method="linear", keepdims=False):
    """The derivative of np.quantile(a, q, axis, method=method, keepdims=keepdims) along t."""
    a_m, axes = _reduced_last(a, axis)
    t_m, _ = _reduced_last(np.broadcast_to(t, np.shape(a)), axis)
    s = np.take_along_axis(t_m, np.argsort(a_m, axis=-1, kind="stable"), axis=-1)
    lo, hi, w = _points(np.shape(a_m)[-1], q, method)
    out = (1.0 - w) * s[..., lo] + w * s[..., hi]  # (rest + q's shape)
    out = np.moveaxis(out, tuple(range(np.ndim(out) - np.ndim(q), np.ndim(out))), tuple(range(np.ndim(q))))
    out = np.reshape(out, _result_shape(a, q, axes, keepdims))
    return out[()] if np.ndim(out) == 0 else out


def quantile_adjoint(c, a, q, axis=None, method="linear", keepdims=False):
    """The transpose of quantile_tangent: the cotangent c of the quantiles, back on a."""
    a_m, axes = _reduced_last(a, axis)
    n, rest = np.shape(a_m)[-1], np.shape(a_m)[:-1]
    lo, hi, w = _points(n, q, method)
    c = np.reshape(np.asarray(c, dtype=float), np.shape(q) + rest)
    c = np.moveaxis(c, tuple(range(np.ndim(q))), tuple(range(len(rest), len(rest) + np.ndim(q))))
    s = np.zeros(rest + (n,))
    flat_c, flat_lo, flat_hi, flat_w = (np.reshape(c, rest + (-1,)), np.ravel(lo), np.ravel(hi), np.ravel(w))
    for k in range(np.size(q)):
        s[..., flat_lo[k]] += (1.0 - flat_w[k]) * flat_c[..., k]
        s[..., flat_hi[k]] += flat_w[k] * flat_c[..., k]
    out = np.zeros(np.shape(s))
    np.put_along_axis(out, np.argsort(a_m, axis=-1, kind="stable"), s, axis=-1)
    nd = np.ndim(a)
    moved_shape = tuple(np.shape(a)[d] for d in range(nd) if d not in axes) + tuple(
        np.shape(a)[d] for d in axes)
    out = np.reshape(out, moved_shape)
    return np.moveaxis(out, tuple(range(nd - len(axes), nd)), axes) if nd else out[()]
