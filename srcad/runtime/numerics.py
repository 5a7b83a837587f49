"""Numerical routines: the weights of trapezoid quadrature, the adjoint of polynomial
evaluation in its coefficients, linear interpolation, and the adjoint of np.gradient.

srcad/rules/numpy_numerics.py calls them and holds their rules.
"""

import numpy as np

__all__ = ["trapezoid_weights", "polyval_adjoint", "interp_weights", "interp_fp_adjoint",
           "interp_slope", "interp_slope_adjoint", "gradient_adjoint"]


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
    np.add.at(out, i, np.where(w == 1.0, 0.0, c * (1.0 - w)))  # (never 0 * inf)
    np.add.at(out, i + 1, np.where(w == 0.0, 0.0, c * w))
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


def _gradient_axes(ndim, axis):
    if axis is None:
        return list(range(ndim))
    return [a % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]


def _gradient_band(n, spacing, edge_order):
    """np.gradient along one axis of length n as a band: (start, coefficients), where result
    i is sum_k coefficients[i, k] * f[start[i] + k] (three neighbours inside, the first or
    last edge_order + 1 elements at the ends). The coefficients come from np.gradient itself,
    applied to three combs (ones at every third element), which the windows tell apart."""
    combs = [np.gradient((np.arange(n) % 3 == r).astype(float), spacing, edge_order=edge_order)
             for r in range(3)]
    start = np.arange(n) - 1
    start[0], start[-1] = 0, n - 1 - edge_order
    length = np.full(n, 3)
    length[0] = length[-1] = edge_order + 1
    coef = np.zeros((n, 3))
    for k in range(3):
        j = start + k
        coef[:, k] = np.where(k < length, np.stack(combs)[j % 3, np.arange(n)], 0.0)
    return start, coef


def gradient_adjoint(c, f, spacing=1.0, axis=None, edge_order=1):
    """The adjoint of np.gradient(f, spacing, axis=axis, edge_order=edge_order) (linear in f):
    c is the cotangent of its result, a tuple of them when it differentiates along several
    axes; spacing is one number or the coordinates along the (one) axis."""
    axes = _gradient_axes(np.ndim(f), axis)
    cts = list(c) if len(axes) > 1 or isinstance(c, (tuple, list)) else [c]
    out = np.zeros(np.shape(f))
    for ax, ct in zip(axes, cts):
        n = np.shape(f)[ax]
        start, coef = _gradient_band(n, spacing, edge_order)
        moved, ct = np.moveaxis(out, ax, 0), np.moveaxis(np.asarray(ct, dtype=float), ax, 0)
        for k in range(3):
            keep = (coef[:, k] != 0.0) & (start + k < n)
            weights = np.reshape(coef[keep, k], (-1,) + (1,) * (np.ndim(ct) - 1))
            np.add.at(moved, start[keep] + k, weights * ct[keep])
    return out
