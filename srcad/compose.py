"""Jacobians, Hessians and Hessian-vector products, composed from jvp, vjp and grad.

    jacfwd(f)(x)   forward mode, one jvp per input entry: shape out.shape + x.shape
    jacrev(f)(x)   reverse mode, one backward sweep per output entry (the forward runs once)
    hessian(f)(x)  jacfwd(grad(f)): forward-over-reverse
    hvp(f, primals, tangents)   H @ v as jvp(grad(f)), without forming H
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import arity
from .api import (
    BatchedTransformed,
    _cached,
    _jvp_of,
    as_python_function,
    batched_jacobian,
    check_options,
    grad,
    jvp,
    vjp_of,
)
from .argnums import position
from .codegen.numba_target import check_target
from .errors import ArgumentError, NondeterministicError, NonScalarOutputError, SrcadError
from .forms import first_result, hvp_value_form, jacobian_form, positional_arity
from .gate import Gate, admit_arguments, admit_tangents, check_output, shaped_like, zero_tangent
from .pickling import pickles_as_call
from .pytrees import restore
from .tracebacks import api_boundary
from .trees import flatten, unflatten


def _basis(x):
    """Unit tangents for every entry of x (a float or an array), in C order."""
    if isinstance(x, np.ndarray):
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = 1.0
            yield e.reshape(x.shape)
    else:
        yield 1.0


def _differentiable(x) -> bool:
    return isinstance(x, (float, np.floating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")


def _zero(x):
    return np.zeros(np.shape(x)) if isinstance(x, np.ndarray) else 0.0


def _argnums(argnums, n):
    nums = argnums if isinstance(argnums, (tuple, list)) else (argnums,)
    if isinstance(argnums, (tuple, list)) and not nums:
        raise ArgumentError("argnums is an empty tuple; name at least one argument")
    nums = tuple(position(i, n, f"{n} arguments") for i in nums)
    return tuple(i % n for i in nums), isinstance(argnums, (tuple, list))


def _admitted(kind: str, fun, args, nums):
    """args with the arguments in nums through the type gate (ints promoted to float)."""
    user = as_python_function(fun)
    user = getattr(getattr(user, "__srcad_transform__", None), "_base", lambda: user)()
    gate = Gate(f"{kind} of {getattr(fun, '__qualname__', getattr(fun, '__name__', 'f'))}", user)
    names = _names(fun)
    return admit_arguments(gate, tuple(args), names, nums), gate


def _names(fun):
    inner = getattr(fun, "__srcad_transform__", None)
    if inner is not None:
        return inner._names
    try:
        return tuple(inspect.signature(fun, follow_wrapped=False).parameters)
    except (TypeError, ValueError):
        return ()


def _assemble(columns, out_shape, in_shape):
    """Stack per-input-entry results into an array of shape out_shape + in_shape."""
    cols = [np.asarray(0.0 if c is None else c, dtype=float).reshape(out_shape) for c in columns]
    return np.stack(cols, axis=-1).reshape(out_shape + in_shape) if cols else np.zeros(out_shape + in_shape)


def _blocks(out_leaves, in_leaves, entry):
    """The Jacobian as a list (per output leaf) of lists (per input leaf) of arrays of shape
    out.shape + in.shape; entry(o, k) gives the columns for output leaf o, input leaf k."""
    return [[_assemble(entry(o, k), np.shape(out), np.shape(leaf)) for k, leaf in enumerate(in_leaves)]
            for o, out in enumerate(out_leaves)]


def _nest(parts, as_tuple: bool):
    """Output structure outside, then the tuple of argnums (if a tuple was given), then the
    argument's structure, as JAX nests Jacobians. parts: (blocks, out_spec, in_spec) per
    argnum, or a finished array (one output leaf, one argument leaf)."""
    parts = [(p if isinstance(p, tuple) else ([[p]], None, None)) for p in parts]
    out_spec = parts[0][1]
    rows = []
    for o in range(len(parts[0][0])):
        per_arg = [restore(unflatten(in_spec, blocks[o])) for blocks, _, in_spec in parts]
        rows.append(tuple(per_arg) if as_tuple else per_arg[0])
    return unflatten(out_spec, rows)


@pickles_as_call
def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, *, batched: bool = True, chunk_size: int | None = None,
           allow_int: bool = False, target: str = "python") -> Callable[..., Any]:
    """The Jacobian by forward mode: shape out.shape + arg.shape (a tuple for tuple argnums;
    for nested tuples, lists and dicts, the output's structure of the argument's structure).

    All directions go through the generated code at once (tangents with a leading batch
    axis) when srcad knows every shape; otherwise, with batched=False, or with a chunk_size
    smaller than the argument's size (memory: one column at a time), one jvp per direction.
    has_aux: f returns (output, aux), the result is (Jacobian, aux). `target`: "python"
    (default) or "numba" (docs/numba_target.md)."""
    check_options("jacfwd", holomorphic, allow_int)
    check_target(target, "jacfwd")
    if arity.variadic(fun):  # (*args, **kwargs, optional parameters: one transform per call shape)
        return arity.by_call(lambda w: jacfwd(w, argnums, has_aux, batched=batched, chunk_size=chunk_size,
                                              target=target), fun, "jacfwd")
    if has_aux:
        return _with_aux(lambda main: jacfwd(main, argnums, batched=batched, chunk_size=chunk_size,
                                             target=target), fun, "jacfwd")
    if chunk_size is not None and (type(chunk_size) is not int or chunk_size < 1):
        raise ArgumentError(f"jacfwd: chunk_size must be a positive int, got {chunk_size!r}")
    return _jacfwd(fun, argnums, batched, "jacfwd", fun, chunk_size, target)


def _with_aux(transform, fun, kind: str):
    """transform(f) for f returning (output, aux): (transform of the output, aux), aux from
    one more call of f (so f must give the same aux twice)."""
    main = first_result(fun)
    if main is None:
        raise ArgumentError(f"{kind}(..., has_aux=True) needs a function with positional parameters only")
    inner = transform(main)

    @api_boundary
    def with_aux(*args):
        return inner(*args), fun(*args)[1]

    with_aux.__name__, with_aux.__wrapped__ = getattr(inner, "__name__", kind), fun
    return with_aux


def _jacfwd(fun, argnums, batched: bool, kind: str, user, chunk_size=None, target: str = "python"):
    @api_boundary
    def jacobian(*args):
        nums, as_tuple = _argnums(argnums, len(args))
        args, gate = _admitted(kind, user, args, nums)
        parts = []
        for i in nums:
            whole = chunk_size is None or chunk_size >= np.size(args[i])
            empty = isinstance(args[i], np.ndarray) and args[i].size == 0  # (no direction: no columns)
            got = batched_jacobian(fun, args, i, target) if batched and whole and not empty else None
            like = _gradient_like(fun, args)
            parts.append(got if got is not None else _columns(fun, args, i, kind, user, nums, like, target))
        return _nest(parts, as_tuple)

    jacobian.__name__ = f"{kind}_{getattr(user, '__name__', 'f')}"
    jacobian.__wrapped__ = user  # (its signature: inspect.signature follows __wrapped__)
    if isinstance(argnums, (int, tuple)):  # transformed again: its form (forms.py)
        jacobian.__srcad_inline__ = functools.cache(
            lambda: jacobian_form(fun, argnums, "hessian" if kind == "hessian" else "jacfwd", grad))
    if isinstance(argnums, int):
        jacobian.__srcad_code__ = lambda: _latest_source(fun, [("jacfwd", argnums), "jvp"])
    return jacobian


def _latest_source(fun, keys) -> str | None:
    """The generated code of the latest call of the first of fun's transforms in `keys`."""
    cache = _cached(as_python_function(fun))
    for key in keys:
        t = cache.get(key)
        if t is not None and t._latest is not None:
            return t.latest().source
    return None


def _gradient_like(fun, args):
    """For fun = srcad.grad(f, argnums): what its result is shaped like (the arguments in
    argnums, a tuple of them for tuple argnums), else None."""
    spec = getattr(getattr(fun, "__srcad_transform__", None), "spec", None)
    if spec is None or spec.kind != "grad" or spec.has_aux or len(args) <= max(spec.argnums, default=-1):
        return None
    return tuple(args[j] for j in spec.argnums) if spec.argnums_tuple else args[spec.argnums[0]]


def _columns(fun, args, i, kind: str = "jacfwd", user=None, nums=(), out_like=None, target="python"):
    """One jvp per entry of each differentiable leaf of args[i] (and the first one again at
    the end: the evaluations must agree, see _check_repeatable); the other arguments in
    `nums` get zero tangents (not None: an object among them then stays a node, gate.py)."""
    leaves, spec = flatten(args[i])
    out, columns = None, []  # columns[k]: the flattened output tangents per entry of leaf k
    first = None  # (tangents, out, column) of the first evaluation
    for k, leaf in enumerate(leaves):
        cols = []
        for e in _basis(leaf) if _differentiable(leaf) else ():
            t = [_zero(x) for x in leaves]
            t[k] = e
            tangents = [zero_tangent(a) if j in nums else None for j, a in enumerate(args)]
            tangents[i] = unflatten(spec, t)
            out, col = jvp(fun, args, tangents, target=target)
            cols.append(flatten(col)[0])
            if first is None:
                first = (tangents, out, cols[-1])
            else:
                _check_repeatable(user or fun, kind, first[1], out)
        columns.append(cols)
    if first is not None and sum(len(c) for c in columns) > 1:
        again, col = jvp(fun, args, first[0], target=target)
        _check_repeatable(user or fun, kind, first[1], again, first[2], flatten(col)[0])
    out = fun(*args) if out is None else out
    if out_like is not None:  # (objects in it as themselves, also where jvp's code gives tuples)
        out = restore(shaped_like(out, out_like))
    latest = _jvp_of(fun, target=target)._latest
    check_output(Gate(f"jacfwd of {getattr(fun, '__qualname__', 'f')}", as_python_function(fun)), out,
                 latest.output_loc if latest is not None else None, none=False)
    out_leaves, out_spec = flatten(out)
    return _blocks(out_leaves, leaves, lambda o, k: [c[o] for c in columns[k]]), out_spec, spec


def _check_repeatable(fun, kind: str, out, again, col=None, col_again=None) -> None:
    """Evaluations of fun at the same point that must agree bit for bit (the code is the same
    and deterministic): when they do not, fun draws random numbers from a generator that
    advances, or reads state that changes, and the columns would mix different functions."""
    same = _bitwise_equal(out, again) and (col is None or all(
        _bitwise_equal(a, b) for a, b in zip(col, col_again)))
    if same:
        return
    name = getattr(fun, "__qualname__", "f")
    msg = (f"srcad.{kind} of {name} evaluates it once per column, and two evaluations at the same "
           "point differ: it draws random numbers from a generator that advances (or reads state "
           "that changes between calls), so the columns would come from different functions")
    hint = ("seed the generator inside the function (rs = np.random.RandomState(seed)), or pass the "
            "random draws in as an argument; srcad.hvp and srcad.jacrev evaluate it once")
    raise NondeterministicError(msg, _where(fun, msg, hint))


def _bitwise_equal(a, b) -> bool:
    la, lb = flatten(a)[0], flatten(b)[0]
    return len(la) == len(lb) and all(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
                                      for x, y in zip(la, lb))


def _where(fun, msg: str, hint: str) -> list:
    transform = getattr(fun, "__srcad_transform__", None)
    if transform is not None:  # (a transform: the user's function)
        fun = transform._base()
    return [Gate(msg, as_python_function(fun)).where(msg, hint)]


@pickles_as_call
def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, *, chunk_size: int | None = None, allow_int: bool = False,
           target: str = "python") -> Callable[..., Any]:
    """The Jacobian by reverse mode: one forward sweep, one backward sweep per output entry
    (one row at a time: chunk_size, a memory bound, is accepted). has_aux: (Jacobian, aux).
    `target`: "python" (default) or "numba" (docs/numba_target.md)."""
    check_options("jacrev", holomorphic, allow_int)
    check_target(target, "jacrev")
    if arity.variadic(fun):
        return arity.by_call(lambda w: jacrev(w, argnums, has_aux, chunk_size=chunk_size, target=target),
                             fun, "jacrev")
    if has_aux:
        return _with_aux(lambda main: jacrev(main, argnums, target=target), fun, "jacrev")

    @api_boundary
    def jacobian(*args):
        nums, as_tuple = _argnums(argnums, len(args))
        args, gate = _admitted("jacrev", fun, args, nums)
        vjp_t = vjp_of(fun, only=tuple(nums), target=target)
        out, vjp_fn = vjp_t(*args)  # cotangents for argnums alone
        check_output(gate, out, vjp_t._latest.output_loc, none=False)
        whole = _batched_rows(vjp_fn, out, args, nums, chunk_size, target)
        if whole is not None:
            return _nest(whole, as_tuple)
        out_leaves, out_spec = flatten(out)
        rows = []  # rows[o]: the cotangents of args per entry of output leaf o
        for o, leaf in enumerate(out_leaves):
            rows.append([])
            for e in _basis(leaf if isinstance(leaf, np.ndarray) else float(leaf)):
                ct = [_zero(x) for x in out_leaves]
                ct[o] = e
                rows[o].append(vjp_fn(unflatten(out_spec, ct)))
        parts = []
        for i in nums:
            in_leaves, in_spec = flatten(args[i])
            per_row = [[_leaves_of(r[i], len(in_leaves)) for r in row] for row in rows]
            blocks = [[_stack_rows([r[k] for r in per_row[o]], np.shape(out), np.shape(x))
                       for k, x in enumerate(in_leaves)] for o, out in enumerate(out_leaves)]
            parts.append((blocks, out_spec, in_spec))
        return _nest(parts, as_tuple)

    jacobian.__name__ = f"jacrev_{getattr(fun, '__name__', 'f')}"
    jacobian.__wrapped__ = fun
    if isinstance(argnums, (int, tuple)):  # transformed again: its form (forms.py)
        jacobian.__srcad_inline__ = functools.cache(lambda: jacobian_form(fun, argnums, "jacrev", grad))
    if isinstance(argnums, int):
        jacobian.__srcad_code__ = lambda: _jacrev_source(fun, (argnums % _arity(fun),))
    return jacobian


def _batched_rows(vjp_fn, out, args, nums, chunk_size, target: str = "python"):
    """The Jacobian's blocks (one per argnum) from one pass of the vjp's backward function
    with every output direction at once: the backward sweep is linear in its cotangent, so
    its batched forward mode in the cotangent (api.BatchedTransformed, kind "rows") gives
    every row. None where that does not apply (several outputs, containers, objects, a
    chunk_size smaller than the output, shapes srcad does not know): one sweep per row."""
    backward, residuals, wrt, structs = getattr(vjp_fn, "__srcad_backward__", (None,) * 4)
    if backward is None or structs or not _differentiable(out) or any(
            not _differentiable(args[i]) or i not in wrt for i in nums):
        return None
    if chunk_size is not None and chunk_size < np.size(out):
        return None
    cache = _cached(backward)
    key = "rows" if target == "python" else ("rows", target)
    rows = cache.get(key)
    if rows is None:
        rows = cache[key] = BatchedTransformed(getattr(backward, "__wrapped__", backward), len(residuals),
                                               "rows", target)
    try:
        got = rows((*residuals, _zero(out)))
    except SrcadError:  # (a residual's kind the gate does not pass: one sweep per row)
        return None
    if got is None:
        return None
    blocks = []
    for i in nums:
        ct = got[wrt.index(i)]
        jac = np.asarray(ct, dtype=float).reshape(np.shape(out) + np.shape(args[i]))
        blocks.append(float(jac) if jac.ndim == 0 else jac)
    return blocks


def _jacrev_source(fun, only) -> str | None:
    """The vjp's code, and the batched backward sweep's (jacrev's rows) where it was used."""
    t = _cached(as_python_function(fun)).get(("vjp", False, only))
    if t is None or t._latest is None:
        return None
    rows = _cached(t.latest().backward).get("rows")
    text = t.latest().source
    if rows is not None and rows._latest is not None:
        text += "\n\n" + rows.latest().source
    return text


def _arity(fun) -> int:
    return positional_arity(fun) or 1


def _stack_rows(rows, out_shape, in_shape):
    """Cotangents of one argument leaf, one per output entry: shape out_shape + in_shape."""
    arrays = [np.zeros(in_shape) if r is None else np.asarray(r, dtype=float).reshape(in_shape) for r in rows]
    return np.stack(arrays).reshape(out_shape + in_shape) if arrays else np.zeros(out_shape + in_shape)


def _leaves_of(cotangent, n):
    return [None] * n if cotangent is None else flatten(cotangent)[0]


@pickles_as_call
def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False, *, allow_int: bool = False,
            target: str = "python") -> Callable[..., Any]:
    """The Hessian of a scalar function: forward mode over reverse mode. Of a function with
    an array result, jacfwd(jacrev(f)): shape out.shape + arg.shape + arg.shape.
    has_aux: (Hessian, aux). `target`: "python" (default) or "numba" (docs/numba_target.md)."""
    check_options("hessian", holomorphic, allow_int)
    check_target(target, "hessian")
    if arity.variadic(fun):
        return arity.by_call(lambda w: hessian(w, argnums, has_aux, target=target), fun, "hessian")
    if has_aux:
        return _with_aux(lambda main: hessian(main, argnums, target=target), fun, "hessian")
    scalar = _jacfwd(grad(fun, argnums=argnums), argnums, True, "hessian", fun, None, target)
    nonscalar = jacfwd(jacrev(fun, argnums), argnums, target=target)

    @api_boundary
    def hessian_of(*args):
        try:
            return scalar(*args)
        except NonScalarOutputError:
            out = fun(*args)  # (an array result: jacfwd(jacrev(f)); anything else: the error)
            if not (isinstance(out, np.ndarray) and out.ndim > 0 and isinstance(argnums, int)):
                raise
            return nonscalar(*args)

    hessian_of.__name__, hessian_of.__wrapped__ = scalar.__name__, fun
    if isinstance(argnums, int):
        hessian_of.__srcad_inline__ = scalar.__srcad_inline__
        hessian_of.__srcad_code__ = scalar.__srcad_code__
    return hessian_of


jacfwd.__srcad_maker__ = jacrev.__srcad_maker__ = hessian.__srcad_maker__ = True  # (see api.grad)


@api_boundary
def hvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        target: str = "python") -> Any:
    """Hessian-vector product H v of a scalar function, as jvp(grad(f)). Returns one array
    per differentiated argument (a tuple when there are several). `target`: "python"
    (default) or "numba" (docs/numba_target.md)."""
    check_target(target, "hvp")
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError(f"hvp: {len(primals)} primals but {len(tangents)} tangents")
    fun = arity.for_call(fun, len(primals))
    gate = Gate(f"hvp of {getattr(fun, '__qualname__', 'f')}", as_python_function(fun), "it has a tangent")
    gate.arrays = target == "python"  # (dask, array API: namespaces.py; jvp of grad takes them)
    primals, tangents = admit_tangents(gate, primals, tangents, _names(fun))
    positions = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not positions:
        raise ArgumentError("hvp needs at least one float argument with a tangent")
    g = grad(fun, argnums=positions if len(positions) > 1 else positions[0])
    return _jvp_of(g, "tangent", target)(primals, tangents)  # (the gradient itself is not computed)


hvp.__srcad_value_form__ = lambda f, nargs: hvp_value_form(f, positional_arity(f), grad)  # (see api.jvp)
