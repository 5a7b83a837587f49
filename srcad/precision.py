"""Gradients in the precision of their arguments.

srcad's types know an array's dtype kind (float, int, bool), not its precision: float32 and
float64 arguments get the same generated code, which computes in whatever precision NumPy's
promotion gives. A gradient must have its argument's dtype, as JAX's does (a float32 weight's
update `w - lr * g` stays float32): where the code computes in float64 (a cast inside the
function, `x.astype(np.float64)`, or a float64 constant `x * np.array([1.0, 2.0])`), the
gradient of a float32 argument came back float64. The dispatcher (dispatch.py) keys its fast
paths on the dtype itself, and for a call with a float argument other than float64 runs the
code through `cast_gradients`, which casts each gradient to its argument's dtype (a float64
argument's too, where the code computed it from float32 values alone). Arguments that
hold arrays (lists, dicts, objects) keep what the code gives.

Also here: `numpy_floats`, Python floats as NumPy's, with which generated code that raised
ZeroDivisionError or OverflowError on Python floats runs again (dispatch.Transformed.run).
"""

from __future__ import annotations

import dataclasses

import numpy as np


def _float_dtype(x):
    """The dtype of a NumPy float array or scalar (a gradient for it has it), else None."""
    return x.dtype if (type(x) is np.ndarray or isinstance(x, np.floating)) and x.dtype.kind == "f" else None


def _narrow(x):
    """The dtype a gradient for x must have when it is not float64's, else None."""
    dtype = _float_dtype(x)
    return dtype if dtype is not None and dtype != np.float64 else None


_CASTING: dict = {}  # (id of a Built, the dtypes) -> (that Built, its casting copy)


def cast_gradients(built, spec, args):
    """`built` (pipeline.Built) with its gradients cast to their arguments' dtypes (grad and
    value_and_grad, of either target), or `built` itself when every one is float64's."""
    if spec.kind not in ("grad", "value_and_grad") or built.sequences or \
            built.structs:
        return built
    if not any(_narrow(a) is not None for a in args):
        return built
    dtypes = tuple(_float_dtype(args[i]) for i in spec.argnums)  # (mixed: float64's too, as JAX's)
    key = (id(built), dtypes)
    got = _CASTING.get(key)
    if got is None or got[0] is not built:
        if len(_CASTING) >= 256:  # (a bound: the oldest goes first)
            del _CASTING[next(iter(_CASTING))]
        casting = _casting(built.function, spec, dtypes)
        got = _CASTING[key] = (built, dataclasses.replace(built, function=casting))
    return got[1]


def _casting(function, spec, dtypes):
    one = not spec.argnums_tuple
    with_value = spec.kind == "value_and_grad"
    aux = spec.has_aux and not with_value  # (grad with has_aux: (gradient, aux))

    def cast(g, dtype):
        if dtype is None or getattr(g, "dtype", dtype) == dtype:
            return g
        return np.asarray(g, dtype=dtype) if isinstance(g, np.ndarray) else dtype.type(g)

    def casting(*args):
        out = function(*args)
        grads = out[1] if with_value else out[0] if aux else out
        grads = cast(grads, dtypes[0]) if one else tuple(cast(g, d) for g, d in zip(grads, dtypes))
        return (out[0], grads) if with_value else (grads, out[1]) if aux else grads

    casting.__wrapped__ = function
    return casting


def numpy_floats(x):
    """x with its Python floats (also inside tuples, lists and dicts) as np.float64."""
    if type(x) is float:
        return np.float64(x)
    if type(x) in (tuple, list):
        return type(x)(numpy_floats(v) for v in x)
    if type(x) is dict:
        return {k: numpy_floats(v) for k, v in x.items()}
    return x
