"""Generated code run with another `np`: a module that is NumPy but for some names (array
makers that make another library's arrays), and srcad.broadcast_to replaced alongside. The
array-API path (lending.py) and the dask path (namespaces.py) bind their makers this way."""

from __future__ import annotations

import types

import numpy as np

from . import runtime


def numpy_with(name: str, replaced: dict) -> types.ModuleType:
    """A module that is NumPy but for the names in `replaced` (what generated code sees as np)."""
    shim = types.ModuleType(name)
    shim.__dict__.update(np.__dict__)
    shim.__dict__.update(replaced)
    return shim


def with_numpy(function, shim: types.ModuleType, broadcast_to):
    """The generated `function` (whose `np` is NumPy) reading `shim` as np, and `broadcast_to`
    where it reads srcad.broadcast_to (the cotangent seed of np.sum or np.mean: a number
    broadcast, which would be NumPy's array otherwise)."""
    if not isinstance(function, types.FunctionType) or function.__globals__.get("np") is not np:
        return function
    namespace = dict(function.__globals__, np=shim)
    for name, value in function.__globals__.items():
        if value is runtime.broadcast_to:
            namespace[name] = broadcast_to
    return types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__,
                              function.__closure__)
