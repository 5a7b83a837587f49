"""What srcad.vmap's vectorised code calls: copies of a value for every example of a batch,
one example of a batched value, and the checks that keep math's errors where NumPy warns.
Their rules: srcad/rules/internal.py."""

import numpy as np

__all__ = ["batch_copies", "example_of", "domain_checked"]


def batch_copies(x, n):
    """x for each of n examples: arrays and numbers get a leading axis of length n (a new,
    writable array); lists, tuples and dicts are copied leaf by leaf; other values (None,
    strings) are the same for every example and stay as they are."""
    if isinstance(x, (list, tuple)):
        items = [batch_copies(v, n) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    if isinstance(x, dict):
        return {k: batch_copies(v, n) for k, v in x.items()}
    if isinstance(x, (np.ndarray, float, int, complex, np.number, np.bool_)):
        a = np.asarray(x)
        out = np.empty((n,) + a.shape, dtype=a.dtype)
        out[...] = a
        return out
    return x


def example_of(x, b):
    """Example b of a batched value (arrays, and the leaves of lists, tuples and dicts)."""
    if isinstance(x, (list, tuple)):
        items = [example_of(v, b) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    if isinstance(x, dict):
        return {k: example_of(v, b) for k, v in x.items()}
    return x[b] if isinstance(x, np.ndarray) or hasattr(x, "__array_function__") else x


def domain_checked(y, x, x2=None):
    """y, a NumPy function's results for a math function's arguments x (and x2): where the
    arguments are finite but the result is not (math.sqrt(-1.0), math.log(0.0)), math raises
    ValueError, and so does the vectorised code."""
    bad = ~np.isfinite(y)
    if bad.any():
        for v in (x, x2) if x2 is not None else (x,):
            bad = bad & np.isfinite(v)
        if bad.any():
            raise ValueError("math domain error")
    return y
