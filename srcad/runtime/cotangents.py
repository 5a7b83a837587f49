"""Cotangents and tangents as values: zeros of any value, their sum over containers,
copies, and the value derivatives do not flow through.

The transforms emit these everywhere (their rules: srcad/rules/internal.py).
"""

import numpy as np

__all__ = ["stop_gradient", "zeros_like", "add", "copy_value"]


def stop_gradient(x):
    """Return x unchanged; derivatives do not flow through it (at any order)."""
    return x


def zeros_like(x):
    """A zero cotangent or tangent for x: 0.0 for scalars, zeros for arrays and containers
    (None for None, which carries no derivative)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    if hasattr(x, "__array_function__") and hasattr(x, "dtype"):  # (dask, CuPy: their zeros)
        return np.zeros_like(x, dtype=np.result_type(x.dtype, np.float64))
    if isinstance(x, (list, tuple)):
        k = _children(x)
        items = [zeros_like(e) for e in x[:k]] + list(x[k:])
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)  # (named tuples too)
    if isinstance(x, dict):
        return {k: zeros_like(v) for k, v in x.items()}
    return None if x is None else 0.0


def _children(x) -> int:
    """How many items of a list or tuple carry derivatives: all, except in srcad's stand-in for
    a differentiated object (srcad/pytrees.py), whose items past its children are constants
    (a static field), the same in its derivatives."""
    k = getattr(type(x), "_srcad_children", None)
    return len(x) if k is None else k


def add(a, b):
    """Sum two cotangents elementwise, also for lists, tuples and dicts of them (a list or
    tuple and an array: as NumPy adds them, the tangent of xs - x)."""
    if isinstance(a, (list, tuple)) != isinstance(b, (list, tuple)) and a is not None \
            and b is not None:
        return np.add(a, b)
    if isinstance(a, (list, tuple)):
        k = _children(a)
        items = [add(x, y) for x, y in zip(a[:k], b[:k])] + list(a[k:])
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
    if isinstance(a, dict):
        return {k: add(a[k], b[k]) for k in a}
    if a is None or b is None:  # the cotangent of a None leaf
        return b if a is None else a
    return a + b


def copy_value(x):
    """A shallow copy of a mutable container (arrays, lists, dicts); tuples and numbers as is."""
    if isinstance(x, (np.ndarray, list, dict)):
        return x.copy()
    return x
