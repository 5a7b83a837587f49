"""Jacobians, Hessians and Hessian-vector products, composed from jvp, vjp and grad.

    jacfwd(f)(x)   forward mode, one jvp per input entry: shape out.shape + x.shape
    jacrev(f)(x)   reverse mode, one backward sweep per output entry (the forward runs once)
    hessian(f)(x)  jacfwd(grad(f)): forward-over-reverse
    hvp(f, primals, tangents)   H @ v as jvp(grad(f)), without forming H
"""

from __future__ import annotations

import numpy as np

from .api import _jvp_of, batched_jacobian, grad, jvp, vjp_of
from .errors import ArgumentError


def _basis(x):
    """Unit tangents for every entry of x (a float or an array), in C order."""
    if isinstance(x, np.ndarray):
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = 1.0
            yield e.reshape(x.shape)
    else:
        yield 1.0


def _argnums(argnums, n):
    nums = argnums if isinstance(argnums, (tuple, list)) else (argnums,)
    for i in nums:
        if not -n <= i < n:
            raise ArgumentError(f"argnums {i} is out of range for {n} arguments")
    return tuple(i % n for i in nums), isinstance(argnums, (tuple, list))


def _assemble(columns, out_shape, in_shape):
    """Stack per-input-entry results into an array of shape out_shape + in_shape."""
    cols = [np.asarray(c, dtype=float).reshape(out_shape) for c in columns]
    return np.stack(cols, axis=-1).reshape(out_shape + in_shape) if cols else np.zeros(out_shape + in_shape)


def jacfwd(fun, argnums=0, batched: bool = True):
    """The Jacobian by forward mode: shape out.shape + arg.shape (a tuple for tuple argnums).

    All directions go through the generated code at once (tangents with a leading batch
    axis) when srcad knows every shape; otherwise, or with batched=False, one jvp per
    direction."""

    def jacobian(*args):
        nums, as_tuple = _argnums(argnums, len(args))
        results = []
        for i in nums:
            got = batched_jacobian(fun, args, i) if batched else None
            results.append(got if got is not None else _columns(fun, args, i))
        return tuple(results) if as_tuple else results[0]

    jacobian.__name__ = f"jacfwd_{getattr(fun, '__name__', 'f')}"
    return jacobian


def _columns(fun, args, i):
    cols, out_shape = [], None
    for e in _basis(args[i]):
        tangents = [None] * len(args)
        tangents[i] = e
        out, col = jvp(fun, args, tangents)
        out_shape = np.shape(out)
        cols.append(col)
    return _assemble(cols, out_shape, np.shape(args[i]))


def jacrev(fun, argnums=0):
    """The Jacobian by reverse mode: one forward sweep, one backward sweep per output entry."""

    def jacobian(*args):
        nums, as_tuple = _argnums(argnums, len(args))
        out, vjp_fn = vjp_of(fun, only=tuple(nums))(*args)  # cotangents for argnums alone
        rows = [vjp_fn(e) for e in _basis(out if isinstance(out, np.ndarray) else float(out))]
        results = []
        for i in nums:
            in_shape = np.shape(args[i])
            per_out = [np.asarray(r[i], dtype=float).reshape(in_shape) for r in rows]
            results.append(np.stack(per_out).reshape(np.shape(out) + in_shape))
        return tuple(results) if as_tuple else results[0]

    jacobian.__name__ = f"jacrev_{getattr(fun, '__name__', 'f')}"
    return jacobian


def hessian(fun, argnums=0):
    """The Hessian of a scalar function: forward mode over reverse mode."""
    return jacfwd(grad(fun, argnums=argnums), argnums=argnums)


def hvp(fun, primals, tangents):
    """Hessian-vector product H v of a scalar function, as jvp(grad(f)). Returns one array
    per differentiated argument (a tuple when there are several)."""
    primals, tangents = tuple(primals), tuple(tangents)
    positions = tuple(i for i, (p, t) in enumerate(zip(primals, tangents))
                      if t is not None and not isinstance(p, (bool, int, np.integer)))
    if not positions:
        raise ArgumentError("hvp needs at least one float argument with a tangent")
    g = grad(fun, argnums=positions if len(positions) > 1 else positions[0])
    return _jvp_of(g, "tangent")(primals, tangents)  # (the gradient itself is not computed)
