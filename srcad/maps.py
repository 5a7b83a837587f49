"""vmap and linearize.

    per_example = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))
    grads = per_example(w, xs, ys)          # grads[b] = grad(loss)(w, xs[b], ys[b])

    out, f_jvp = srcad.linearize(f, x)      # f(x), and t -> J(x) t
    f_jvp(t1), f_jvp(t2)

vmap maps a function over an axis of its arguments: `in_axes` is an int (every argument),
None (not mapped) or a tuple with one entry per positional argument; the results (an array,
a float, or a tuple/list/dict of them) are stacked along `out_axes`. Called directly, vmap(f)
runs code generated for the whole batch at once (transforms/vmapping.py: f's code for one
example, or a transform's generated code, vectorised over the batch axis), built per argument
kinds and shapes; where that is not possible (an `if` on a value that differs between
examples, arguments that are not arrays...) it calls f once per example, and srcad.source
says why. vmap(f) and the f_jvp of linearize can be transformed again (grad(vmap(f)),
jacfwd(f_jvp)...): srcad reads their forms (forms.py), a loop over the batch and a Jacobian
product.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import arity
from .analysis.reads import reader
from .api import as_python_function, grad, jvp
from .codegen.compile import add_source_notes
from .dispatch import Transformed, _quick_kind, _signature_of
from .errors import ArgumentError, SrcadError
from .forms import linearized_form, positional_arity, vmap_form
from .identifiers import identifier
from .ir import types as T
from .ir.kinds import array_library, user_class
from .ir.values import of_value
from .pickling import pickles_as_call
from .pipeline import Spec, reads_of
from .tracebacks import api_boundary
from .transforms.vmapping import NotVectorizable
from .trees import flatten, snapshot_arguments, unflatten
from .version import __version__


def _axes(in_axes, n: int) -> tuple:
    if in_axes is None or isinstance(in_axes, int):
        return (in_axes,) * n
    if isinstance(in_axes, (tuple, list)) and len(in_axes) == n and all(
            a is None or type(a) is int for a in in_axes):
        return tuple(in_axes)
    raise ArgumentError(f"vmap: in_axes must be an int, None, or a tuple of one int or None per "
                        f"positional argument ({n} given), got {in_axes!r}")


def _holds_arrays(a) -> bool:
    """A tuple or list mapped as np.array of it would mix up its items' index with their own
    axes: one holding anything but numbers (nested lists of numbers are an array's rows), or of
    another class (a named tuple)."""
    return isinstance(a, (tuple, list)) and not _numbers(a)


def _numbers(a) -> bool:
    if type(a) in (tuple, list):
        return all(_numbers(v) for v in a)
    return isinstance(a, (int, float, complex, np.number))


def _batch_size(args, axes) -> int:
    sizes = {}
    for i, (a, ax) in enumerate(zip(args, axes)):
        if ax is None:
            continue
        if isinstance(a, dict) or user_class(type(a)) or _holds_arrays(a):
            raise ArgumentError(f"vmap: argument {i} is a {type(a).__name__}, and vmap maps arrays (a list "
                                "or tuple of numbers as np.array of it; of arrays it would map the items' "
                                "index, where JAX maps each array's axis): map its arrays as arguments of "
                                "their own, or give it in_axes None")
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
    count = len(leaves[0][0])
    return unflatten(spec, [_stacked([lv[0][k] for lv in leaves], out_axes) for k in range(count)])


def _stacked(items: list, out_axes: int):
    """The per-example results stacked along out_axes, in their own array library: a dask
    array's stay lazy (NumPy's dispatch), an array-API array's stack in its namespace; never
    converted to NumPy."""
    if array_library(items[0]) is None:
        return np.moveaxis(np.stack([np.asarray(x) for x in items]), 0, out_axes)
    if hasattr(items[0], "__array_function__"):  # (dask, CuPy)
        return np.moveaxis(np.stack(items), 0, out_axes)
    xp = items[0].__array_namespace__()
    out = xp.stack(items)
    return out if out_axes % out.ndim == 0 else xp.moveaxis(out, 0, out_axes)


def _example(a, ax, b: int):
    """Example b of argument a along axis ax (a itself for ax None), in a's own library."""
    if ax is None:
        return a
    if array_library(a) is None or hasattr(a, "__array_function__"):
        return np.take(a, b, axis=ax)
    return a[(slice(None),) * (ax % a.ndim) + (b, ...)]  # (the array API has no np.take of an int)


class VmapTransformed(Transformed):
    """vmap(f) for in_axes given per argument: code vectorised over the batch, built per
    argument kinds and shapes (or the reason f runs once per example)."""

    def __init__(self, fun, in_axes: tuple, out_axes: int):
        n = len(_signature_of(fun).parameters)  # (arguments left at their defaults: not mapped)
        in_axes = in_axes + (None,) * (n - len(in_axes))
        super().__init__(fun, Spec("vmap", (), True, False, in_axes=in_axes, out_axes=out_axes))
        self.looped: dict = {}  # argument kinds -> why these arguments run once per example
        self.reason = None  # why the latest call ran once per example (None: vectorised)

    def arguments(self, args) -> tuple | None:
        """args with the defaults of the parameters they leave out (None: they do not bind)."""
        kinds = {p.kind for p in self._signature.parameters.values()}
        if kinds - {inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD}:
            return None
        if len(args) == self._nparams:
            return args
        try:
            bound = self._signature.bind(*args)
        except TypeError:
            return None
        bound.apply_defaults()
        full = tuple(bound.arguments.values())
        return full if len(full) == self._nparams else None

    def vectorised(self, args):
        """The code for these arguments (with its defaults filled in), or None when f runs once
        per example for them."""
        self._refresh()
        key = tuple(_quick_kind(a) for a in args) + self._read_kinds()
        if key in self.looped:
            self.reason = self.looped[key]
            return None
        built = self._cache.get(key)
        if built is None:
            try:
                built = self._cache[key] = self._build_batch(args)
            except (NotVectorizable, SrcadError) as e:
                self.reason = self.looped[key] = str(e).split("\n")[0]
                return None
        self._latest, self.reason = built, None
        return built

    def _build_batch(self, args):
        axes = self.spec.in_axes
        for i, (a, ax) in enumerate(zip(args, axes)):
            if ax is not None and type(a) is not np.ndarray:
                raise NotVectorizable(f"argument {i} is a {type(a).__name__}, not a NumPy array")
        examples = tuple(a if ax is None else np.take(a, 0, axis=ax) for a, ax in zip(args, axes))
        inner = getattr(self.fn, "__srcad_transform__", None)
        if inner is not None:
            _check_inner(inner, examples)
        batch = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
        spec = dataclasses.replace(self.spec, batch=batch)
        return self._build_types(tuple(of_value(a) for a in examples), self._free_types(), spec)

    def run_batch(self, built, args):
        """The vectorised code on args (None when it raised ZeroDivisionError or OverflowError:
        Python numbers in the per-example calls decide those, so f runs once per example)."""
        try:
            return built.function(*args)
        except (ZeroDivisionError, OverflowError):
            return None
        except Exception as e:  # name the user's line behind the failing generated line
            add_source_notes(e)
            raise


def _check_inner(inner, examples) -> None:
    """A transform's generated code runs as called directly only when its arguments need no
    conversion (ints promoted to floats, objects to nodes) and its results no restructuring
    (the gradient of a list that NumPy read as an array is given back as a list)."""
    if type(inner) is not Transformed:
        raise NotVectorizable(f"{inner!r} is not a function srcad vectorises")
    types = tuple(of_value(a) for a in examples)
    if inner._prepare(examples, {}) is not examples or any(T.holds_nodes(t) for t in types):
        raise NotVectorizable(f"{inner.__name__} converts its arguments (ints to floats, objects to nodes)")
    if any(isinstance(types[i], (T.List, T.Tuple, T.Dict)) for i in inner.spec.argnums):
        raw = inner._function_for_types(types)(*examples)
        if flatten(raw)[1] != flatten(inner(*examples))[1]:
            raise NotVectorizable(f"{inner.__name__} gives its results another structure than its code's")


class _Looped:
    """vmap(f) for a function srcad cannot read (a callable object it has no source for): f is
    called once per example."""

    def __init__(self, reason: str):
        self.reason = reason

    def arguments(self, args):
        return None


def _dispatcher(fun, axes: tuple, out_axes: int):
    try:
        return VmapTransformed(as_python_function(fun), axes, out_axes)
    except (SrcadError, TypeError, ValueError) as e:
        return _Looped(f"srcad cannot read {getattr(fun, '__name__', fun)!r}: {str(e).splitlines()[0]}")


def _loop_source(fun, reason: str) -> str:
    """What runs when f is called once per example, and why (shown by srcad.source)."""
    raw = getattr(fun, "__name__", None)
    name = identifier(raw if isinstance(raw, str) else None, "f")
    reason = " ".join(reason.split())
    return (f"def vmap_{name}(*args):\n"
            f"    # srcad {__version__}: vmap of {name} runs {name} once per example, not vectorised:\n"
            f"    #   {reason}\n"
            f"    return stack([{name}(*example_b) for example_b in examples(args, in_axes)], out_axes)\n")


@pickles_as_call
def vmap(fun: Callable[..., Any], in_axes: int | None | Sequence[int | None] = 0,
         out_axes: int = 0) -> Callable[..., Any]:
    """fun mapped over an axis of its arguments (see the module docstring)."""
    if not callable(fun):
        raise ArgumentError(f"vmap expects a function, got {fun!r}")
    if type(out_axes) is not int:
        raise ArgumentError(f"vmap: out_axes must be an int, got {out_axes!r}")
    dispatchers: dict = {}
    latest: list = [None]

    @api_boundary
    def mapped(*args, **kwargs):
        if kwargs:
            raise ArgumentError(f"vmap of {name}: keyword arguments ({', '.join(kwargs)}) are not mapped; "
                                "pass them positionally, with in_axes naming each one's axis (None: "
                                "not mapped)")
        axes = _axes(in_axes, len(args))
        n = _batch_size(args, axes)
        if n == 0:
            raise ArgumentError("vmap over an axis of length 0")
        vt = dispatchers.get(axes)
        if vt is None:
            vt = dispatchers[axes] = _dispatcher(arity.for_call(fun, len(args)), axes, out_axes)
        latest[0] = vt
        full = vt.arguments(args)
        built = vt.vectorised(full) if full is not None else None
        if built is not None:
            got = vt.run_batch(built, full)
            if got is not None:
                return got
            vt.reason = "the vectorised code raised ZeroDivisionError or OverflowError"
        elif full is None and isinstance(vt, VmapTransformed):
            vt.reason = f"its parameters are not all positional, or {len(args)} arguments do not bind to them"
        results = [fun(*[_example(a, ax, b) for a, ax in zip(args, axes)]) for b in range(n)]
        return _stack(results, out_axes)

    def code():
        vt = latest[0]
        if vt is None:
            return None
        return _loop_source(fun, vt.reason) if vt.reason is not None else vt.latest().source

    name = getattr(fun, "__name__", "f")
    mapped.__name__, mapped.__wrapped__ = f"vmap_{name}", fun
    mapped.__srcad_code__ = code
    n = positional_arity(fun)
    if n is not None and out_axes == 0 and (in_axes is None or isinstance(in_axes, int) or len(in_axes) == n):
        axes = (in_axes,) * n if in_axes is None or isinstance(in_axes, int) else tuple(in_axes)
        mapped.__srcad_inline__ = functools.cache(lambda: vmap_form(as_python_function(fun), n, axes, name))
    else:  # (no form: transforming it again is an error; srcad.source(mapped, *args) shows its code)
        mapped.__srcad_inline__ = lambda: None
    return mapped


def linearize(fun: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """`(fun(*primals), f_jvp)` with `f_jvp(*tangents)` the Jacobian-vector product at primals
    (one tangent per primal; None for a zero or an int argument)."""
    if not callable(fun):
        raise ArgumentError(f"linearize expects a function, got {fun!r}")
    if not primals:
        raise ArgumentError("linearize needs the primal arguments: linearize(f, x, ...)")
    primals = snapshot_arguments(tuple(primals))  # (f_jvp computes from them later)
    zero = tuple(None for _ in primals)
    out, _ = jvp(fun, primals, zero)
    read_then = _reads_now(fun)

    @api_boundary
    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise ArgumentError(f"f_jvp takes {len(primals)} tangent(s), one per primal, got {len(tangents)}")
        for entry, read, value in read_then:  # (f_jvp is the derivative at the point of linearize)
            if read() is not value:
                what = entry[2] or "a closure variable"
                raise ArgumentError(f"f_jvp: {getattr(fun, '__name__', 'f')} reads {what!r}, rebound since "
                                    "srcad.linearize, so the point it linearized at is gone: call "
                                    "srcad.linearize again")
        return jvp(fun, primals, tangents)[1]

    f_jvp.__name__ = f"jvp_{getattr(fun, '__name__', 'f')}"
    if len(primals) == 1:
        f_jvp.__srcad_inline__ = functools.cache(
            lambda: linearized_form(as_python_function(arity.for_call(fun, 1)), primals[0], grad))
    return out, f_jvp


def _reads_now(fun) -> tuple:
    """(read, reader, value now) for each global, closure variable and attribute fun reads."""
    try:
        entries = reads_of(as_python_function(fun))
    except SrcadError:
        return ()
    return tuple((e, read, read()) for e in entries for read in (reader(e),))


vmap.__srcad_maker__ = True  # (built inside a differentiated function, as api.grad)
