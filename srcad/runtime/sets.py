"""np.unique's derivatives: each unique value moves with the mean of the equal elements
it stands for.

srcad/rules/numpy_shape.py calls them (their rules: helpers.py).
"""

import numpy as np

__all__ = ["unique_tangent", "unique_adjoint"]


def _unique_groups(ar, axis, equal_nan):
    """For np.unique(ar, axis=axis): the unique value (slice along axis) each element
    (slice) of ar is, flattened, and how many elements each unique value has."""
    _, inv, counts = np.unique(ar, return_inverse=True, return_counts=True, axis=axis, equal_nan=equal_nan)
    return np.ravel(inv), counts


def unique_tangent(t, ar, axis=None, equal_nan=True):
    """The tangent of np.unique(ar, axis=axis) from the tangent t of ar: each unique value
    moves with the mean of the tangents of the equal elements it stands for."""
    inv, counts = _unique_groups(ar, axis, equal_nan)
    t = np.broadcast_to(np.asarray(t, dtype=float), np.shape(ar))
    if axis is None:
        return np.bincount(inv, weights=np.ravel(t), minlength=len(counts)) / counts
    tm = np.moveaxis(t, axis, 0)
    out = np.zeros((len(counts),) + tm.shape[1:])
    np.add.at(out, inv, tm)
    return np.moveaxis(out / np.reshape(counts, (-1,) + (1,) * (tm.ndim - 1)), 0, axis)


def unique_adjoint(c, ar, axis=None, equal_nan=True):
    """The adjoint of unique_tangent (and so of np.unique(ar, axis=axis)) for the cotangent c
    of the unique values: each element of ar gets its unique value's share."""
    inv, counts = _unique_groups(ar, axis, equal_nan)
    c = np.asarray(c, dtype=float)
    if axis is None:
        return np.reshape((c / counts)[inv], np.shape(ar))
    cm = np.moveaxis(c, axis, 0) / np.reshape(counts, (-1,) + (1,) * (c.ndim - 1))
    return np.moveaxis(cm[inv], 0, axis)
