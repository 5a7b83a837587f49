"""vmap and linearize.

    per_example = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))
    grads = per_example(w, xs, ys)          # grads[b] = grad(loss)(w, xs[b], ys[b])

    out, f_jvp = srcad.linearize(f, x)      # f(x), and t -> J(x) t
    f_jvp(t1), f_jvp(t2)

vmap maps a function over an axis of its arguments: `in_axes` is an int (every argument),
None (not mapped) or a tuple with one entry per positional argument; the results (an array,
a float, or a tuple/list/dict of them) are stacked along `out_axes`. It calls the function
once per batch entry: the function's own generated code (a transform's) runs per entry,
not code vectorised over the batch. vmap(f) and the f_jvp of linearize can be transformed
again (grad(vmap(f)), jacfwd(f_jvp)...): srcad reads their forms (forms.py), a loop over
the batch and a Jacobian product.
"""

from __future__ import annotations

import functools

import numpy as np

from .api import as_python_function, grad, jvp
from .errors import ArgumentError
from .forms import linearized_form, positional_arity, vmap_form
from .trees import flatten, unflatten


def _axes(in_axes, n: int) -> tuple:
    if in_axes is None or isinstance(in_axes, int):
        return (in_axes,) * n
    if isinstance(in_axes, (tuple, list)) and len(in_axes) == n and all(
            a is None or type(a) is int for a in in_axes):
        return tuple(in_axes)
    raise ArgumentError(f"vmap: in_axes must be an int, None, or a tuple of one int or None per "
                        f"positional argument ({n} given), got {in_axes!r}")


def _batch_size(args, axes) -> int:
    sizes = {}
    for i, (a, ax) in enumerate(zip(args, axes)):
        if ax is None:
            continue
        shape = np.shape(a)
        if not -len(shape) <= ax < len(shape):
            raise ArgumentError(f"vmap: in_axes {ax} of argument {i} is out of range for its shape {shape}")
        sizes[i] = shape[ax]
    if not sizes:
        raise ArgumentError("vmap: in_axes maps no argument (all None)")
    if len(set(sizes.values())) > 1:
        raise ArgumentError(f"vmap: the mapped axes have different sizes: "
                            f"{', '.join(f'argument {i}: {s}' for i, s in sizes.items())}")
    return next(iter(sizes.values()))


def _stack(results, out_axes: int):
    leaves = [flatten(r) for r in results]
    spec = leaves[0][1]
    stacked = [np.moveaxis(np.stack([np.asarray(lv[0][k]) for lv in leaves]), 0, out_axes)
               for k in range(len(leaves[0][0]))]
    return unflatten(spec, stacked)


def vmap(fun, in_axes=0, out_axes: int = 0):
    """fun mapped over an axis of its arguments (see the module docstring)."""
    if not callable(fun):
        raise ArgumentError(f"vmap expects a function, got {fun!r}")
    if type(out_axes) is not int:
        raise ArgumentError(f"vmap: out_axes must be an int, got {out_axes!r}")

    def mapped(*args):
        axes = _axes(in_axes, len(args))
        n = _batch_size(args, axes)
        results = [fun(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)])
                   for b in range(n)]
        if not results:
            raise ArgumentError("vmap over an axis of length 0")
        return _stack(results, out_axes)

    name = getattr(fun, "__name__", "f")
    mapped.__name__, mapped.__wrapped__ = f"vmap_{name}", fun
    n = positional_arity(fun)
    if n is not None and out_axes == 0 and (in_axes is None or isinstance(in_axes, int) or len(in_axes) == n):
        axes = (in_axes,) * n if in_axes is None or isinstance(in_axes, int) else tuple(in_axes)
        mapped.__srcad_inline__ = functools.cache(lambda: vmap_form(as_python_function(fun), n, axes, name))
    return mapped


def linearize(fun, *primals):
    """`(fun(*primals), f_jvp)` with `f_jvp(*tangents)` the Jacobian-vector product at primals
    (one tangent per primal; None for a zero or an int argument)."""
    if not callable(fun):
        raise ArgumentError(f"linearize expects a function, got {fun!r}")
    if not primals:
        raise ArgumentError("linearize needs the primal arguments: linearize(f, x, ...)")
    zero = tuple(None for _ in primals)
    out, _ = jvp(fun, primals, zero)

    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise ArgumentError(f"f_jvp takes {len(primals)} tangent(s), one per primal, got {len(tangents)}")
        return jvp(fun, primals, tangents)[1]

    f_jvp.__name__ = f"jvp_{getattr(fun, '__name__', 'f')}"
    if len(primals) == 1:
        f_jvp.__srcad_inline__ = functools.cache(
            lambda: linearized_form(as_python_function(fun), primals[0], grad))
    return out, f_jvp


vmap.__srcad_maker__ = True  # (built inside a differentiated function, as api.grad)
