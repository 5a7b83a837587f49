"""Elementwise helpers: log(x) that is 0 at x = 0 (the derivative of x ** y in y), where
np.clip passes its argument's derivative, and which choice np.select takes.

The power rules (operators.py, builtins_.py, math_.py, numpy_elementwise.py) and
numpy.clip call them (their rules: helpers.py and internal.py).
"""

import numpy as np

from .broadcasting import unbroadcast

__all__ = ["log_or_zero", "sinc_slope", "sinc_curvature", "sinc_third", "clip_mask", "not_a_count",
           "select_rest", "select_choices_adjoint"]


def log_or_zero(x):
    """log(x), and 0 where x is 0: the factor in d(x ** y)/dy = x ** y * log(x), whose
    limit at x = 0 (for y > 0) is 0, not 0 * -inf."""
    if isinstance(x, np.ndarray) or hasattr(x, "__array_function__"):  # (dask, CuPy arrays too)
        return np.log(np.where(x == 0.0, 1.0, x))
    return float(np.log(x)) if x != 0.0 else 0.0


def sinc_slope(x):
    """d sinc(x)/dx = (cos(pi x) - sinc(x)) / x, and its limit 0 at x = 0."""
    x = np.asarray(x, dtype=float)
    nonzero = np.where(x == 0.0, 1.0, x)
    out = np.where(x == 0.0, 0.0, (np.cos(np.pi * x) - np.sinc(x)) / nonzero)
    return float(out) if out.ndim == 0 else out


def sinc_curvature(x):
    """d2 sinc(x)/dx2 = -pi^2 sinc(x) - 2 sinc'(x) / x (sinc solves x y'' + 2 y' + pi^2 x y = 0),
    and its limit -pi^2 / 3 at x = 0."""
    x = np.asarray(x, dtype=float)
    nonzero = np.where(x == 0.0, 1.0, x)
    out = np.where(x == 0.0, -np.pi ** 2 / 3.0, -np.pi ** 2 * np.sinc(x) - 2.0 * sinc_slope(x) / nonzero)
    return float(out) if out.ndim == 0 else out


def sinc_third(x):
    """d3 sinc(x)/dx3 = -(3 sinc'' + pi^2 x sinc' + pi^2 sinc) / x (the ODE differentiated),
    and its limit 0 at x = 0 (sinc is even)."""
    x = np.asarray(x, dtype=float)
    nonzero = np.where(x == 0.0, 1.0, x)
    rest = 3.0 * sinc_curvature(x) + np.pi ** 2 * (x * sinc_slope(x) + np.sinc(x))
    out = np.where(x == 0.0, 0.0, -rest / nonzero)
    return float(out) if out.ndim == 0 else out


def not_a_count(k):
    """Where k is not a whole number >= 0 (where scipy.stats' discrete distributions have
    log-probability -inf): an integer array needs only its sign, not np.floor."""
    if isinstance(k, (int, np.integer)) or getattr(getattr(k, "dtype", None), "kind", "f") in "iub":
        return k < 0
    return (k < 0.0) | (np.floor(k) != k)


def clip_mask(x, lo, hi):
    """True where lo <= x <= hi (bounds may be None): where clip passes x's derivative."""
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    return inside


def select_rest(condlist):
    """True where np.select(condlist, choicelist, default) takes default: no condition holds."""
    conds = np.broadcast_arrays(*[np.asarray(c, dtype=bool) for c in condlist])
    return np.logical_not(np.logical_or.reduce(conds)) if conds else np.asarray(True)


def select_choices_adjoint(c, condlist, choicelist):
    """The adjoint of np.select(condlist, choicelist, default) in choicelist: the cotangent c
    where each choice is taken (its condition the first that holds), one per choice."""
    taken = np.zeros(np.shape(c), dtype=bool)
    out = []
    for cond, choice in zip(condlist, choicelist):
        here = np.logical_and(np.broadcast_to(cond, np.shape(c)), np.logical_not(taken))
        taken = np.logical_or(taken, here)
        out.append(unbroadcast(np.where(here, c, 0.0), choice))
    return out
