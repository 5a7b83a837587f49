"""Helpers of the order-statistic rules (quantiles, running extrema, ufunc.outer): which
element each result is, or which adjacent pair of sorted elements it interpolates.

A quantile of any of NumPy's methods is (1 - w) s[lo] + w s[hi], with s the sorted elements
and lo, hi, w depending only on their count and q, never on their values: so it is linear in
the elements for a fixed order, and its derivative is that combination of the tangents in
the sorted order. np.quantile of 0, 1, ..., n - 1 gives lo + w (its "virtual index").
"""

import numpy as np

__all__ = ["running_extreme_index", "quantile_tangent", "quantile_adjoint", "outer_axes", "partition_order",
           "reduceat_tangent", "reduceat_adjoint"]


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


def _points(a_m, q, method, nan):
    """lo, hi and w (each of rest + q's shape) of the quantiles q of the rows of a_m, sorted;
    for the NaN-ignoring functions (`nan`) each row counts its numbers only (NaNs sort last,
    and a row of NaNs only gets weights 0)."""
    n = np.shape(a_m)[-1]
    if not nan:
        v = np.asarray(np.quantile(np.arange(n, dtype=float), q, method=method), dtype=float)
        v = np.broadcast_to(v, np.shape(a_m)[:-1] + np.shape(q))
        count = np.full(np.shape(v), n)
    else:
        count = np.sum(~np.isnan(a_m), axis=-1)
        idx = np.arange(n, dtype=float)  # (a row of NaNs only: its positions taken as numbers, then weight 0)
        pos = np.where((idx < count[..., None]) | (count[..., None] == 0), idx, np.nan)
        v = np.asarray(np.nanquantile(pos, q, axis=-1, method=method), dtype=float)
        v = np.moveaxis(v, tuple(range(np.ndim(q))), tuple(range(np.ndim(v) - np.ndim(q), np.ndim(v))))
        count = np.broadcast_to(count[(...,) + (None,) * np.ndim(q)], np.shape(v))
    empty = count == 0
    lo = np.clip(np.floor(v), 0, np.maximum(count - 1, 0)).astype(int)
    w = np.where(empty, 0.0, np.clip(v - lo, 0.0, 1.0))
    keep = np.where(empty, 0.0, 1.0)
    return lo, np.minimum(lo + 1, np.maximum(count - 1, 0)), w, keep


def _flat_points(lo, hi, w, keep, rest):
    """The points with q's axes flattened into one, after the rows': rest + (k,)."""
    return tuple(np.reshape(x, rest + (-1,)) for x in (lo, hi, w, keep))


def _result_shape(a, q, axes, keepdims):
    shape = np.shape(a)
    kept = tuple(1 if d in axes else s for d, s in enumerate(shape)) if keepdims else tuple(
        s for d, s in enumerate(shape) if d not in axes)
    return np.shape(q) + kept


def quantile_tangent(t, a, q, axis=None, method="linear", keepdims=False, nan=False):
    """The derivative of np.quantile(a, q, axis, method=method, keepdims=keepdims) along t
    (of np.nanquantile for `nan`)."""
    a_m, axes = _reduced_last(a, axis)
    t_m, _ = _reduced_last(np.broadcast_to(t, np.shape(a)), axis)
    rest = np.shape(a_m)[:-1]
    s = np.take_along_axis(t_m, np.argsort(a_m, axis=-1, kind="stable"), axis=-1)
    lo, hi, w, keep = _flat_points(*_points(a_m, q, method, nan), rest)
    out = keep * ((1.0 - w) * np.take_along_axis(s, lo, -1) + w * np.take_along_axis(s, hi, -1))
    out = np.moveaxis(np.reshape(out, rest + np.shape(q)), tuple(range(len(rest), len(rest) + np.ndim(q))),
                      tuple(range(np.ndim(q))))
    out = np.reshape(out, _result_shape(a, q, axes, keepdims))
    return out[()] if np.ndim(out) == 0 else out


def quantile_adjoint(c, a, q, axis=None, method="linear", keepdims=False, nan=False):
    """The transpose of quantile_tangent: the cotangent c of the quantiles, back on a."""
    a_m, axes = _reduced_last(a, axis)
    n, rest = np.shape(a_m)[-1], np.shape(a_m)[:-1]
    lo, hi, w, keep = _flat_points(*_points(a_m, q, method, nan), rest)
    c = np.reshape(np.asarray(c, dtype=float), np.shape(q) + rest)
    c = np.reshape(np.moveaxis(c, tuple(range(np.ndim(q))), tuple(range(len(rest), len(rest) + np.ndim(q)))),
                   rest + (-1,)) * keep
    s = np.zeros(rest + (n,))
    idx = np.arange(n)
    for k in range(np.shape(c)[-1]):
        s += (idx == lo[..., k, None]) * ((1.0 - w[..., k]) * c[..., k])[..., None]
        s += (idx == hi[..., k, None]) * (w[..., k] * c[..., k])[..., None]
    out = np.zeros(np.shape(s))
    np.put_along_axis(out, np.argsort(a_m, axis=-1, kind="stable"), s, axis=-1)
    nd = np.ndim(a)
    moved_shape = tuple(np.shape(a)[d] for d in range(nd) if d not in axes) + tuple(
        np.shape(a)[d] for d in axes)
    out = np.reshape(out, moved_shape)
    return np.moveaxis(out, tuple(range(nd - len(axes), nd)), axes) if nd else out[()]


def _reduceat_weights(a, indices, axis, ans, op):
    """W with a's result = sum over j of W[i, j] * a[j] to first order (the axis moved first;
    shape (m, n) for add, (m, n) + the other axes for maximum/minimum: the segment's tied
    extrema share the derivative equally, as np.max's do)."""
    a0 = np.moveaxis(np.asarray(a, dtype=float), axis, 0)
    n, idx = np.shape(a0)[0], np.asarray(indices)
    stop = np.append(idx[1:], n)
    j = np.arange(n)
    member = np.where((idx < stop)[:, None], (j >= idx[:, None]) & (j < stop[:, None]), j == idx[:, None])
    if op == "add":
        return member.astype(float)
    y0 = np.moveaxis(np.asarray(ans, dtype=float), axis, 0)
    hit = np.expand_dims(member, tuple(range(2, np.ndim(a0) + 1))) & (a0[None] == y0[:, None])
    return hit / np.maximum(np.sum(hit, axis=1, keepdims=True), 1)


def reduceat_tangent(t, a, indices, axis, ans, op):
    """The derivative of np.<op>.reduceat(a, indices, axis) along t."""
    w = _reduceat_weights(a, indices, axis, ans, op)
    t0 = np.moveaxis(np.broadcast_to(np.asarray(t, dtype=float), np.shape(a)), axis, 0)
    out = np.tensordot(w, t0, 1) if op == "add" else np.sum(w * t0[None], axis=1)
    return np.moveaxis(out, 0, axis)


def reduceat_adjoint(c, a, indices, axis, ans, op):
    """The transpose of reduceat_tangent: the cotangent c of the result, back on a."""
    w = _reduceat_weights(a, indices, axis, ans, op)
    c0 = np.moveaxis(np.broadcast_to(np.asarray(c, dtype=float), np.shape(ans)), axis, 0)
    out = np.tensordot(w.T, c0, 1) if op == "add" else np.sum(w * c0[:, None], axis=0)
    return np.moveaxis(out, 0, axis)
