"""The adjoints of the NumPy functions that move elements around: transposes, joining
and splitting, stacking, tile, repeat, pad and diagonals.

srcad/rules/numpy_shape.py and numpy_arrays.py call them (their rules: internal.py and
helpers.py).
"""

import numpy as np

__all__ = ["T", "inverse_axes", "rolled_axis", "c_column", "split_like", "join_like", "unstack_like",
           "untile", "unrepeat", "pad_adjoint", "diag_adjoint", "diagonal_adjoint", "items_like"]


def T(x):
    """Swap the last two axes (the transpose of a stack of matrices)."""
    return np.swapaxes(x, -1, -2)


def inverse_axes(axes):
    """The inverse of a transpose permutation (None stays None)."""
    return None if axes is None else tuple(np.argsort([a % len(axes) for a in axes]))


def rolled_axis(ndim, axis, start=0):
    """Where np.rollaxis(a, axis, start) puts `axis` (as np.moveaxis's destination)."""
    axis, start = axis % max(ndim, 1), start + ndim if start < 0 else start
    return start - 1 if axis < start else start


def c_column(x):
    """A piece of np.c_[...] as NumPy places it: a 1-d array as a column, a number as a 1 x 1
    array, an array of two or more dimensions as it is."""
    nd = np.ndim(x)
    return np.reshape(x, (-1, 1)) if nd == 1 else (np.reshape(x, (1, 1)) if nd == 0 else x)


def split_like(g, arrays, axis=0, ndmin=1):
    """Split g, the cotangent of joining `arrays` along `axis`, into pieces shaped like them.

    ndmin says how the arrays were promoted before joining: 1, 2 or 3 as np.atleast_1d/2d/3d,
    -2 for np.column_stack (1-d arrays become columns); axis None means flattened."""
    if axis is None:
        sizes = [np.size(x) for x in arrays]
        pieces = _slices(np.ravel(g), sizes, 0)
    else:
        shapes = [np.shape(x) for x in arrays]
        if ndmin == -2:
            shapes = [s + (1,) if len(s) < 2 else s for s in shapes]
            shapes = [(1,) * (2 - len(s)) + s for s in shapes]
        else:
            promote = (np.atleast_1d, np.atleast_2d, np.atleast_3d)[ndmin - 1]
            shapes = [promote(np.empty(s, dtype=bool)).shape for s in shapes]
        sizes = [s[axis] for s in shapes]
        pieces = _slices(g, sizes, axis)
    return items_like([float(np.reshape(p, ())) if isinstance(x, float)
                        else np.reshape(p, np.shape(x)) for p, x in zip(pieces, arrays)], arrays)


def _slices(g, sizes, axis):
    """g cut along `axis` into consecutive pieces of these sizes (views; what np.split makes,
    by slicing, which arrays of other libraries implement lazily: dask has no np.split)."""
    axis = axis % np.ndim(g)
    ends = [int(e) for e in np.cumsum(sizes)]
    return [g[(slice(None),) * axis + (slice(end - size, end),)] for size, end in zip(sizes, ends)]


def items_like(pieces, arrays):
    """The cotangents of the items of `arrays` as the cotangent of `arrays`: a list, or one
    array shaped like it when `arrays` is an array (a sequence of its rows)."""
    if isinstance(arrays, np.ndarray):
        return np.reshape(np.array(pieces, dtype=float), np.shape(arrays))
    if hasattr(arrays, "__array_function__") and hasattr(arrays, "shape"):  # (dask, CuPy)
        return np.stack(pieces) if len(pieces) else np.zeros_like(arrays, dtype=float)
    return pieces


def join_like(pieces, arrays, axis=0, ndmin=1):
    """The adjoint of split_like: join pieces shaped like `arrays` as split_like cut them."""
    if axis is None:
        return np.concatenate([np.ravel(p) for p in pieces])
    out = []
    for p in pieces:
        s = np.shape(p)
        if ndmin == -2:
            s = s + (1,) if len(s) < 2 else s
            s = (1,) * (2 - len(s)) + s
        else:
            s = (np.atleast_1d, np.atleast_2d, np.atleast_3d)[ndmin - 1](np.empty(s, dtype=bool)).shape
        out.append(np.reshape(p, s))
    return np.concatenate(out, axis=axis)


def unstack_like(c, arrays, axis=0):
    """The adjoint of np.stack(arrays, axis): the slices of c along `axis`, one per item of
    `arrays` (a float for a float), in a list (an array when `arrays` is an array)."""
    c = c if hasattr(c, "__array_function__") else np.asarray(c)  # (dask, array-API: never converted)
    pieces = list(np.moveaxis(c, axis, 0))
    return items_like([float(p) if isinstance(x, float) else np.reshape(p, np.shape(x))
                        for p, x in zip(pieces, arrays)], arrays)


def untile(g, a, reps):
    """The adjoint of np.tile(a, reps): sum the tiles of g into the shape of a."""
    shape = np.shape(a)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(reps)
    n = max(len(shape), len(reps))
    full = (1,) * (n - len(shape)) + tuple(shape)
    reps = (1,) * (n - len(reps)) + reps
    paired = [d for pair in zip(reps, full) for d in pair]
    return np.reshape(np.sum(np.reshape(g, paired), axis=tuple(range(0, 2 * n, 2))), shape)


def unrepeat(g, a, repeats, axis=None):
    """The adjoint of np.repeat(a, repeats, axis): sum the copies of each element."""
    shape = np.shape(a)
    out = np.zeros(shape)
    if axis is None or not shape:  # (a 0-d a is repeated as a 1-d array)
        flat = out.reshape(-1)
        np.add.at(flat, np.repeat(np.arange(flat.size), repeats), np.ravel(g))
        return out
    axis = axis % len(shape)
    src = np.repeat(np.arange(shape[axis]), repeats)
    np.add.at(np.moveaxis(out, axis, 0), src, np.moveaxis(g, axis, 0))
    return out


def pad_adjoint(g, array, pad_width, mode="constant"):
    """The adjoint of np.pad(array, pad_width, mode) for the index-based modes (constant,
    edge, reflect, symmetric, wrap): every padded element sends its cotangent to its source."""
    shape = np.shape(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (len(shape), 2))
    if mode == "constant":
        return np.array(g[tuple(slice(lo, lo + n) for (lo, _), n in zip(widths, shape))])
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"srcad: no derivative for np.pad with mode={mode!r} "
                         "(supported: constant, edge, reflect, symmetric, wrap)")
    src = np.pad(np.arange(int(np.prod(shape))).reshape(shape), widths, mode=mode)
    out = np.zeros(int(np.prod(shape)))
    np.add.at(out, np.ravel(src), np.ravel(g))
    return out.reshape(shape)


def diag_adjoint(g, v, k=0):
    """The adjoint of np.diag(v, k): the k-th diagonal of g when v is a vector, else a
    matrix shaped like v holding g on its k-th diagonal."""
    if np.ndim(v) == 1:
        return np.diag(g, k).copy()  # (np.diag of a matrix is a read-only view; a cotangent is written to)
    out = np.zeros(np.shape(v))
    i = np.arange(np.shape(g)[0])
    if k >= 0:
        out[i, i + k] = g
    else:
        out[i - k, i] = g
    return out


def diagonal_adjoint(g, a, offset=0, axis1=0, axis2=1):
    """The adjoint of np.diagonal(a, offset, axis1, axis2): g written on that diagonal of
    an array of zeros shaped like a."""
    shape = np.shape(a)
    out = np.zeros(shape)
    view = np.moveaxis(out, (axis1 % len(shape), axis2 % len(shape)), (-2, -1))
    i = np.arange(np.shape(g)[-1])
    if offset >= 0:
        view[..., i, i + offset] = g
    else:
        view[..., i - offset, i] = g
    return out
