"""Elementwise helpers: log(x) that is 0 at x = 0 (the derivative of x ** y in y) and
where np.clip passes its argument's derivative.

The power rules (operators.py, builtins_.py, math_.py, numpy_elementwise.py) and
numpy.clip call them (their rules: helpers.py and internal.py).
"""

import numpy as np

__all__ = ["log_or_zero", "clip_mask"]


def log_or_zero(x):
    """log(x), and 0 where x is 0: the factor in d(x ** y)/dy = x ** y * log(x), whose
    limit at x = 0 (for y > 0) is 0, not 0 * -inf."""
    if isinstance(x, np.ndarray):
        return np.log(np.where(x == 0.0, 1.0, x))
    return float(np.log(x)) if x != 0.0 else 0.0


def clip_mask(x, lo, hi):
    """True where lo <= x <= hi (bounds may be None): where clip passes x's derivative."""
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    return inside
