"""argnums, as every transformation reads it: a position or a tuple of positions, a NumPy
integer as an int, a negative position counted from the last argument (as JAX's)."""

from __future__ import annotations

import operator

import numpy as np

from .errors import ArgumentError
from .pipeline import Spec


def position(i, n: int, where: str):
    """argnum i as an int in range for n arguments (`where` names them in the error)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
        raise ArgumentError(f"argnums {i!r} is out of range for {where}")
    return operator.index(i)


def check_argnums(argnums, nparams: int, fn) -> tuple:
    """The positions, as ints, each in range for fn's nparams arguments."""
    where = f"{getattr(fn, '__qualname__', fn)}, which takes {nparams} arguments"
    return tuple(position(i, nparams, where) for i in argnums)


def spec_for(kind: str, argnums, has_aux: bool, signature, fn=None) -> Spec:
    """The Spec of a transformation of fn (whose inspect.Signature is `signature`). A negative
    position counts from the last argument passed, as JAX's: where fn has parameters with
    defaults, which that is depends on the call, so it is refused (grad counted it from the
    signature's end, jacfwd from the call's, and hessian mixed the two)."""
    nparams = len(signature.parameters)
    as_tuple = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if as_tuple else (argnums,)
    if as_tuple and not nums:
        raise ArgumentError(f"{kind}: argnums is an empty tuple; name at least one argument")
    nums = check_argnums(nums, nparams, fn)  # (before negative positions are resolved: -3 of 2 is out)
    if any(i < 0 for i in nums) and any(p.default is not p.empty for p in signature.parameters.values()):
        raise ArgumentError(f"{kind}: negative argnums {argnums!r} count from the last argument passed, "
                            f"which {getattr(fn, '__qualname__', 'f')} (with default values) leaves to the "
                            "call: give the position from the start (argnums=1)")
    return Spec(kind, tuple(i + nparams if i < 0 else i for i in nums), as_tuple, has_aux)
