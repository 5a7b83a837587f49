"""Item reads and writes: the scatter-add adjoint of reading items, the functional form of
item assignment and what its derivatives need (which write of a repeated index wins,
the zero of the item replaced, a dict without a key), and the adjoints of np.take and
np.take_along_axis.

Their rules: srcad/rules/internal.py and helpers.py; operators.py and numpy_shape.py
call them.
"""

import numpy as np

from .cotangents import add, zeros_like

__all__ = ["scatter_add", "scatter_add_lazily", "setitem", "write_winners", "without_key", "zero_item",
           "take_adjoint", "take_along_adjoint"]


def scatter_add(acc, idx, g):
    """acc[idx] += g, accumulating repeated indices; returns acc (changed in place; a new
    tuple for tuples)."""
    if isinstance(acc, tuple):
        items = list(acc)
        items[idx] = add(items[idx], g)
        return type(acc)(*items) if hasattr(acc, "_fields") else tuple(items)
    if isinstance(acc, (list, dict)):
        acc[idx] = add(acc[idx], g)
        return acc
    if not isinstance(acc, np.ndarray) and type(acc).__module__.startswith("dask."):
        return scatter_add_lazily(acc, idx, g)
    np.add.at(acc, idx, g)
    return acc


def scatter_add_lazily(acc, idx, g):
    """acc[idx] += g accumulating repeated indices, for a dask array acc (dask has no np.add.at):
    a new array, acc plus the weighted count of the flat positions idx selects (found on
    broadcast views of NumPy coordinates; an index made from a dask array would compute it).
    Only NumPy's functions, which hand dask arrays to dask."""
    shape, axes = np.shape(acc), range(np.ndim(acc))
    coords = [np.broadcast_to(np.arange(n).reshape([-1 if k == a else 1 for k in axes]),
                              shape)[idx] for a, n in enumerate(shape)]
    weights = np.ravel(np.broadcast_to(g, np.shape(coords[0])))
    positions = np.ravel(np.ravel_multi_index(tuple(coords), shape))
    if not isinstance(weights, np.ndarray):  # (dask's bincount wants both in its chunks)
        positions = np.zeros_like(weights, dtype=np.intp) + positions
    added = np.bincount(positions, weights=weights, minlength=int(np.prod(shape)))
    return acc + np.reshape(added, shape)


def setitem(x, idx, v, old=None, added=False):
    """A copy of x with x[idx] = v (the functional form of item assignment; `old`, the zero
    of the item replaced, and `added`, whether the write adds a key, only serve derivatives)."""
    x = x.copy()
    x[idx] = v
    return x


def write_winners(x, idx):
    """For `x[idx] = v`: which selected positions keep their value. An index that repeats
    (x[[0, 0]] = v) keeps only its last write, so only that entry of v has a derivative."""
    keys = idx if isinstance(idx, tuple) else (idx,)
    if isinstance(x, (dict, list, tuple)) or not hasattr(x, "shape") or all(
            isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in keys):
        return True  # (a dict key or list index names one item)
    shape = np.zeros(np.shape(x), dtype=bool)[idx].shape  # (x may be a dask array: not read)
    ids = np.arange(int(np.prod(shape))).reshape(shape)
    last = np.zeros(np.shape(x), dtype=np.intp)
    last[idx] = ids
    return last[idx] == ids


def without_key(d, key):
    """A copy of the dict d without `key` (the cotangent of a dict before a write added it)."""
    return {k: v for k, v in d.items() if k != key}


def zero_item(x, idx):
    """The zero of the item x[idx] of a list or dict that a write replaces, which its
    derivative puts in its place (0.0 for a new key)."""
    return zeros_like(x[idx]) if not isinstance(x, dict) or idx in x else 0.0


def take_adjoint(g, a, indices, axis=None):
    """The adjoint of np.take(a, indices, axis): scatter-add g back (repeats accumulate)."""
    shape = np.shape(a)
    out = np.zeros(shape)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)
        return out
    axis = axis % len(shape)
    k = np.ndim(indices)
    np.add.at(np.moveaxis(out, axis, 0), indices,
              np.moveaxis(g, tuple(range(axis, axis + k)), tuple(range(k))))
    return out


def take_along_adjoint(g, arr, indices, axis=-1):
    """The adjoint of np.take_along_axis(arr, indices, axis) (repeats accumulate)."""
    shape = np.shape(arr)
    out = np.zeros(shape)
    if axis is None:
        np.add.at(out.reshape(-1), np.ravel(indices), np.ravel(g))
        return out
    axis = axis % len(shape)
    index = list(np.indices(np.shape(g), sparse=True))
    for d, n in enumerate(shape):
        if n == 1 and d != axis:
            index[d] = 0
    index[axis] = indices
    np.add.at(out, tuple(index), g)
    return out
