"""Broadcasting and its adjoint: a cotangent summed down to an operand's shape, a tangent or
a reduced value broadcast back up.

The elementwise and reduction rules call these (their rules: srcad/rules/internal.py).
"""

import numpy as np

from .cotangents import zeros_like

__all__ = ["unbroadcast", "broadcast_like", "broadcast_to", "sum_to_shape", "sum_adjoint",
           "expand_reduced"]


def unbroadcast(g, x):
    """Sum the cotangent g of a broadcast result down to the shape of x."""
    if isinstance(x, (list, tuple, dict)):  # an item of a dict or list written over: its
        if isinstance(g, (list, tuple, dict)):  # cotangent, or the 0.0 that zeroed it
            return g
        if np.ndim(g) == 0:
            return zeros_like(x)
    return _sum_down(g, np.shape(x), isinstance(x, np.ndarray))


def _sum_down(g, shape, array):
    """g summed down to `shape` (a 0-d array for `array`, else a number for shape ())."""
    if np.shape(g) == shape:  # (a number's cotangent is a number: a 0-d array typed
        # as a float was changed in place by `+=`, fuzz 14500:973)
        return g[()] if not array and not shape and type(g) is np.ndarray else g
    if np.ndim(g) < len(shape):  # (the 0.0 that zeroes a dict or list item written over)
        return g + _zeros_of(shape, g)
    if not shape:
        total = np.sum(g)
        return total.reshape(()) if array else total
    lead = np.ndim(g) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and np.shape(g)[lead + i] != 1
    )
    return np.sum(g, axis=axes).reshape(shape) if axes else np.reshape(g, shape)


def broadcast_like(t, ans):
    """Broadcast the tangent t to the shape of ans (where an input was broadcast)."""
    shape = np.shape(ans)
    if np.shape(t) == shape:  # (a list's tangent is a list: typed, and returned, as an array)
        return np.asarray(t) if isinstance(t, (list, tuple)) else t
    return t + _zeros_of(shape, t)


def _zeros_of(shape, like):
    """np.zeros(shape), in the array library of `like` when it is an array of another library
    (dask, CuPy: through NumPy's dispatch): a full-size NumPy array would join its graph."""
    if isinstance(like, (np.ndarray, np.generic, float, int, complex)) or not hasattr(
            like, "__array_function__"):
        return np.zeros(shape)
    dtype = np.result_type(like.dtype, np.float64)
    if tuple(np.shape(like)) == tuple(shape):  # (dask: the chunks of `like`, not new ones)
        return np.zeros_like(like, dtype=dtype)
    return np.zeros_like(like, shape=shape, dtype=dtype)


def broadcast_to(v, shape):
    """v broadcast to a known shape (a read-only view; a number for shape (), as its type
    says: the cotangent of a float seeds a loop that adds to it in place)."""
    if shape == () and np.ndim(v) == 0:
        return v[()] if isinstance(v, np.ndarray) else v
    return np.broadcast_to(v, shape)


def sum_to_shape(g, shape):
    """Sum g down to the given shape (the adjoint of broadcast_to)."""
    return _sum_down(g, tuple(shape), True)


def sum_adjoint(g, x):
    """The adjoint of builtins.sum(x): g for every element (row) of x."""
    if isinstance(x, (list, tuple)):
        return [g] * len(x)
    return np.broadcast_to(g, np.shape(x))


def expand_reduced(v, x, axis=None, keepdims=False):
    """Broadcast v, the result of reducing x over `axis`, back to the shape of x (a read-only
    view; a number when x is a number, as the type says: codegen may add to it in place)."""
    if not isinstance(x, np.ndarray) and np.ndim(x) == 0 and np.ndim(v) == 0:
        return v[()] if isinstance(v, np.ndarray) else v
    if axis is not None and not keepdims and np.ndim(x) > 0:  # (a 0-d x may have axis 0 or -1)
        v = np.expand_dims(v, axis)
    if not hasattr(v, "__array_function__") or isinstance(v, (np.ndarray, np.generic)):
        if not isinstance(x, np.ndarray) and hasattr(x, "__array_function__"):  # (dask, CuPy)
            return v + _zeros_of(np.shape(x), x)
    return np.broadcast_to(v, np.shape(x))
