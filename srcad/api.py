"""The public transformations: grad, value_and_grad, jvp, vjp, the batched Jacobian, and
srcad.source. Each is a dispatcher (dispatch.py) that builds code with pipeline.py."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import arity, forms, runtime, sharing
from .argnums import spec_for
from .codegen.numba_target import check_target
from .custom import CustomRule
from .dispatch import Transformed, _quick_kind, _signature_of
from .errors import ArgumentError
from .gate import IMPLICIT, NAMED, admit_arguments, admit_cotangent, admit_tangents, check_output, shaped_like
from .identifiers import is_identifier
from .ir.values import of_value
from .namespaces import first_namespace, guarded, guarded_function, libraries
from .pickling import Made, carry
from .pipeline import Spec, differentiable_positions
from .precision import numpy_floats
from .pytrees import restore
from .rules.registry import rule_for_object
from .tracebacks import api_boundary
from .transforms.batched import NotBatchable
from .trees import snapshot, snapshot_arguments

stop_gradient = runtime.stop_gradient


class JvpTransformed(Transformed):
    """`jvp(f, primals, tangents)`: forward mode, specialised per argument kinds (kind
    "tangent": the tangent output alone)."""

    first_call = ("srcad.jvp(f, ...)", "srcad.jvp")

    def __init__(self, fn, kind: str = "jvp", target: str = "python"):
        super().__init__(fn, Spec(kind, (), True, False, target=target))
        self._gate.reason = "it has a tangent"
        self._gate.arrays = kind in ("jvp", "tangent") and target == "python"  # (dask, array API; hvp)

    def _recipe(self) -> tuple:
        what = f"srcad.jvp of {getattr(self.fn, '__qualname__', 'a function')}"
        return what, ("srcad.api", "_jvp_of"), carry(self.fn), self.spec.kind, self.spec.target, {}

    @api_boundary
    def __call__(self, primals, tangents):
        self._refresh()
        primals, tangents = tuple(primals), tuple(tangents)
        if len(primals) != len(tangents):
            raise ArgumentError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
        if len(primals) != self._nparams:
            primals = self._prepare(primals, {})  # defaults filled in: they get no tangent
            tangents = tangents + (None,) * (len(primals) - len(tangents))
        primals, tangents = admit_tangents(self._gate, primals, tangents, self._names)
        present = tuple(t is not None for t in tangents)
        built = self._lookup(primals, present,
                             lambda types: tuple(i for i in differentiable_positions(types) if present[i]))
        if self._gate.arrays:
            built = guarded(built, (*primals, *tangents), self._gate.what)
        result = self.run(built.function, (*primals, *(tangents[i] for i in built.wrt)), primals)
        check_output(self._gate, result[0] if self.spec.kind == "jvp" else result, built.output_loc)
        return restore(result) if built.structs else result


class VjpTransformed(Transformed):
    """`vjp(f, *primals)`: a generated forward function that returns residuals, and a
    generated backward function that maps an output cotangent to input cotangents."""

    first_call = ("srcad.vjp(f, ...)", "srcad.vjp")

    def __init__(self, fn, has_aux: bool, only: tuple | None = None, target: str = "python"):
        self.only = only  # cotangents for these positions alone (jacrev's argnums)
        super().__init__(fn, Spec("vjp", (), True, has_aux, target=target))
        self._gate.arrays = only is None and target == "python"  # (dask, array API: namespaces.py)

    def _config(self) -> tuple:
        return super()._config() + (self.only,)

    def _recipe(self) -> tuple:
        what = f"srcad.vjp of {getattr(self.fn, '__qualname__', 'a function')}"
        spec = self.spec
        return what, ("srcad.api", "vjp_of"), carry(self.fn), spec.has_aux, self.only, spec.target, {}

    @api_boundary
    def __call__(self, *primals):
        self._refresh()
        given = len(primals)  # vjp_fn returns one cotangent per primal given (not per default)
        if len(primals) != self._nparams:
            primals = self._prepare(primals, {})
        primals = admit_arguments(self._gate, primals, self._names,
                                  self.only if self.only is not None else range(len(primals)),
                                  NAMED if self.only is not None else IMPLICIT)
        only = self.only
        built = self._lookup(primals, (), lambda types: tuple(i for i in differentiable_positions(types)
                                                             if only is None or i in only))
        names = libraries(primals) if self._gate.arrays else ()
        forward = guarded_function(built.function, names, self._gate.what) if names else built.function
        out, aux, residuals = self.run(forward, primals, primals)
        check_output(self._gate, out, built.output_loc)
        backward, wrt, gate, node_out = built.backward, built.wrt, self._gate, out
        if names:  # (the backward sweep on the residuals, of those libraries too)
            backward = guarded_function(backward, names, self._gate.what, first_namespace(primals))

        @api_boundary
        def vjp_fn(cotangent):
            ct = admit_cotangent(gate, node_out, cotangent)
            try:
                cts = backward(*residuals, ct)
            except (ZeroDivisionError, OverflowError):  # (derivative code only: the forward ran)
                cts = backward(*numpy_floats(residuals), numpy_floats(ct))
            full = [None] * given
            for i, c in zip(wrt, cts):
                if i < given:
                    full[i] = restore(shaped_like(c, primals[i])) if built.structs else \
                        shaped_like(c, primals[i])
            return tuple(full)

        fn, positions = self.fn, tuple(i for i in wrt if i < given)
        vjp_fn.__srcad_inline__ = lambda: forms.vjp_form(fn, primals, positions, grad, _cached(fn))
        vjp_fn.__srcad_code__ = lambda: built.source
        vjp_fn.__srcad_backward__ = (backward, residuals, wrt, built.structs)  # (jacrev's batched rows)
        if built.structs:
            out, aux = restore(out), restore(aux)
        return (out, vjp_fn, aux) if self.spec.has_aux else (out, vjp_fn)


@api_boundary
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False,
        target: str = "python") -> tuple:
    """Reverse mode for any output: `out, vjp_fn = vjp(f, *primals)`; `vjp_fn(ct)` returns one
    cotangent per primal (None for arguments that are not differentiated, like ints).
    `target`: "python" (default) or "numba" (docs/numba_target.md), for both generated functions."""
    primals = snapshot_arguments(tuple(primals))  # (vjp_fn computes from them later)
    got = vjp_of(arity.for_call(fun, len(primals)), has_aux, target=check_target(target, "vjp"))(*primals)
    what = f"the vjp_fn of {getattr(fun, '__qualname__', 'a function')}"  # (pickles as this vjp call)
    out = snapshot(got[0])  # (vjp_fn may read it, np.exp's rule does: the caller may write into theirs)
    return (out, Made(got[1], what, vjp_function, carry(fun), primals, has_aux, target), *got[2:])


def vjp_function(fun, primals: tuple, has_aux: bool, target: str):
    """The vjp_fn of vjp(fun, *primals) (a pickled vjp_fn is made again where it is unpickled)."""
    return vjp(fun, *primals, has_aux=has_aux, target=target)[1]


def vjp_of(fun, has_aux: bool = False, only: tuple | None = None, target: str = "python") -> VjpTransformed:
    """The vjp transform of `fun` (cotangents for the positions in `only`, or for all)."""
    key = ("vjp", has_aux, only) + ((target,) if target != "python" else ())
    fun = as_python_function(fun)
    cache = _cached(fun)
    if key not in cache:
        cache[key] = VjpTransformed(fun, has_aux, only, target)
    return cache[key]


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cached(fun) -> dict:
    try:
        got = _CACHE.get(fun)
        if got is None:
            got = _CACHE[fun] = {}
        return got
    except TypeError:  # not weak-referenceable: no caching
        return {}


class BatchedTransformed(Transformed):
    """Forward mode pushing every basis direction of one argument through at once."""

    first_call = ("srcad.jacfwd(f)(...)", "srcad.jacfwd")

    def __init__(self, fn, argnum: int, kind: str = "jacfwd", target: str = "python"):
        super().__init__(fn, Spec(kind, (argnum,), False, False, target=target))
        self.argnum, self.kind = argnum, kind
        self.unbatchable: set = set()

    @api_boundary
    def __call__(self, primals):
        self._refresh()
        primals = self._prepare(tuple(primals), {}) if len(primals) != self._nparams else tuple(primals)
        x = primals[self.argnum]
        n = x.size if isinstance(x, np.ndarray) else 1
        key = tuple(_quick_kind(a) for a in primals) + self._read_kinds()
        if key in self.unbatchable:
            return None
        built = self._cache.get(key)
        if built is None:
            arg_types = tuple(of_value(a) for a in primals)
            try:
                built = self._build_types(arg_types, self._free_types(),
                                          Spec(self.kind, (self.argnum,), False, False, n,
                                               target=self.spec.target))
            except NotBatchable:
                self.unbatchable.add(key)
                return None
            self._cache[key] = built
        self._latest = built
        seeds = np.eye(n).reshape((n,) + np.shape(x))
        return self.run(built.function, (*primals, seeds), primals)


def batched_jacobian(fun, args, argnum: int, target: str = "python"):
    """d fun / d args[argnum] with all directions at once, or None when not batchable."""
    x = args[argnum]
    if not (isinstance(x, (float, np.floating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")):
        return None
    fun = as_python_function(fun)
    cache = _cached(fun)
    key = ("jacfwd", argnum) + ((target,) if target != "python" else ())
    if key not in cache:
        cache[key] = BatchedTransformed(fun, argnum, target=target)
    got = cache[key](args)
    if got is None:
        return None
    out, t_out = got
    check_output(cache[key]._gate, out, cache[key]._latest.output_loc)
    if not isinstance(out, (float, np.floating, np.ndarray)):
        return None  # a tuple, list or dict of outputs: one jvp per direction instead
    n = x.size if isinstance(x, np.ndarray) else 1
    out_shape = np.shape(out)
    cols = np.asarray(t_out, dtype=float).reshape((n,) + out_shape)
    jac = np.moveaxis(cols, 0, -1).reshape(out_shape + np.shape(x))
    return float(jac) if jac.ndim == 0 else jac


def _jvp_of(fun, kind: str = "jvp", target: str = "python") -> JvpTransformed:
    cache = _cached(fun)
    key = kind if target == "python" else (kind, target)
    got = cache.get(key)
    if got is None:
        wrapped = as_python_function(fun)
        got = cache[key] = JvpTransformed(fun, kind, target) if wrapped is fun else _jvp_of(wrapped, kind,
                                                                                            target)
    return got


@api_boundary
def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False, *,
        target: str = "python") -> tuple:
    """Forward mode: `(f(*primals), J @ tangents)` from one pass of generated code; with
    `has_aux=True`, f returns (output, aux) and jvp returns (output, tangent, aux).

    Int and bool arguments are not differentiated: their tangents may be 0, 0.0 or None and
    are ignored. A tangent of None means zero. `target`: "python" (default) or "numba"
    (docs/numba_target.md).
    """
    check_target(target, "jvp")
    for what, v in (("primals", primals), ("tangents", tangents)):
        if not isinstance(v, (tuple, list)):
            raise ArgumentError(f"jvp: {what} must be a tuple or list with one entry per argument of "
                                f"{getattr(fun, '__name__', 'f')}, got {type(v).__name__} "
                                "(for one argument: (x,))")
    fun = arity.for_call(fun, len(primals))
    if not has_aux:
        return _jvp_of(fun, target=target)(primals, tangents)
    out, tangent = _jvp_of(fun, target=target)(primals, tangents)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ArgumentError(f"jvp(..., has_aux=True): {getattr(fun, '__name__', 'f')} must return a pair "
                            f"(output, aux), got {type(out).__name__}")
    return out[0], tangent[0], out[1]


_WRAPPERS: dict = {}


def as_python_function(fun):
    """`fun` itself if srcad can read its source; for a primitive (np.sin, math.exp) or a
    custom-rule function, a one-line Python function that calls it."""
    fun = getattr(fun, "__srcad_made__", fun)  # (jacfwd(f), vmap(f)...: the function itself)
    if hasattr(fun, "__srcad_transform__"):
        if fun.__srcad_transform__.spec.target != "python":  # (numba's machine code: nothing to read)
            raise ArgumentError(f"{fun.__name__} has target={fun.__srcad_transform__.spec.target!r} and "
                                "cannot be transformed again: transform the default target's (grad(grad(f), "
                                "target='numba') makes numba code of the second derivative)")
        return fun
    inline = getattr(fun, "__srcad_inline__", None)
    form = inline() if inline is not None else None
    if form is not None:  # jacfwd(f), vjp_fn...: their form, which srcad reads (forms.py)
        return form
    if isinstance(fun, types.FunctionType) and fun.__module__ in ("srcad.compose", "srcad.api"):
        raise ArgumentError(f"{fun.__name__} (from srcad.{fun.__module__.split('.')[-1]}) cannot be "
                            "transformed again: nest grad, value_and_grad and jvp instead "
                            "(hessian is jacfwd(grad(f)); jacfwd(grad(f)) and grad(grad(f)) work)")
    if isinstance(fun, types.FunctionType) and rule_for_object(fun) is None:
        return fun
    wrapper = sharing.partial_wrapper(fun)
    if wrapper is not None:
        return wrapper
    if id(fun) in _WRAPPERS:
        return _WRAPPERS[id(fun)][1]
    sig = arity.call_signature(fun)
    # The wrapper's text is srcad's template filled with identifiers only: the callable's
    # __name__ and its parameter names are data (anyone can set them), so they are sanitised.
    params, call, used, namespace = [], [], {"_target"}, {"_target": fun}
    for i, p in enumerate(sig.parameters.values() if sig else [inspect.Parameter("x", 1)]):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or (
                p.kind == p.KEYWORD_ONLY and not is_identifier(p.name)):
            break
        if p.default is not p.empty and not isinstance(fun, CustomRule):
            break  # a library function's optional parameters stay at their defaults
        pname = arity.fresh_name(used, p.name, f"x{i}")
        if p.default is p.empty:
            params.append(pname)
        else:
            namespace[f"_d{i}"] = p.default
            params.append(f"{pname}=_d{i}")
        call.append(f"{p.name}={pname}" if p.kind == p.KEYWORD_ONLY else pname)
    name = arity.wrapper_name(fun)
    wrapper = arity.compile_wrapper(fun, name, params, call, f"<srcad: wrapper of {name}>", namespace)
    _WRAPPERS[id(fun)] = (fun, wrapper)
    return wrapper


def _transform(kind: str, fun, argnums, has_aux: bool, memory_budget=None, target: str = "python"):
    if fun is None:
        return functools.partial(_transform, kind, argnums=argnums, has_aux=has_aux,
                                 memory_budget=memory_budget, target=target)
    if not callable(fun):
        raise ArgumentError(f"{kind} expects a function, got {fun!r}")
    if memory_budget is not None and (type(memory_budget) is not int or memory_budget <= 0):
        raise ArgumentError(f"{kind}: memory_budget must be a positive int (bytes), got {memory_budget!r}")
    if arity.variadic(fun):  # (*args, **kwargs, optional parameters: one transform per call shape)
        made = arity.by_call(lambda w: _transform(kind, w, argnums, has_aux, memory_budget, target), fun,
                             kind)
        options = {"target": target} if target != "python" else {}  # (pickled as this call: pickling.py)
        what = f"srcad.{kind} of {getattr(fun, '__qualname__', 'a function')}"
        return Made(made, what, globals()[kind], fun, argnums=argnums, has_aux=has_aux,
                    memory_budget=memory_budget, **options)
    cache = _cached(fun)
    quick = (kind, tuple(argnums) if isinstance(argnums, (list, tuple)) else argnums,
             isinstance(argnums, (list, tuple)), has_aux, memory_budget, target)  # (before the signature)
    if quick not in cache:
        wrapped = as_python_function(fun)
        if wrapped is not fun:  # a primitive: the transform of its one-line wrapper
            cache[quick] = _transform(kind, wrapped, argnums, has_aux, memory_budget, target)
            return cache[quick]
        spec = spec_for(kind, argnums, has_aux, _signature_of(fun), fun)
        if memory_budget is not None:
            spec = dataclasses.replace(spec, memory_budget=memory_budget)
        if target != "python":
            spec = dataclasses.replace(spec, target=target)
        if spec not in cache:
            cache[spec] = Transformed(fun, spec)
        cache[quick] = cache[spec]
    return cache[quick]


def check_options(kind: str, holomorphic: bool = False, allow_int: bool = False) -> None:
    """JAX's options: holomorphic=True needs complex inputs, which srcad does not take;
    allow_int is accepted either way (ints named in argnums are promoted to floats and
    differentiated: srcad's int policy, docs/guide.md)."""
    if holomorphic:
        raise ArgumentError(f"{kind}(..., holomorphic=True): srcad differentiates real inputs only; split "
                            "complex inputs into real and imaginary parts (floats)")
    if not isinstance(allow_int, bool):
        raise ArgumentError(f"{kind}: allow_int must be True or False, got {allow_int!r}")


def grad(fun: Callable[..., Any] | None = None, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, *, memory_budget: int | None = None,
         target: str = "python") -> Callable[..., Any]:
    """The gradient of a scalar function: `grad(f)(x)` is df/dx at x.

    Use as `@grad`, `@grad(argnums=1)` or `grad(f, argnums=(0, 1))`. With `has_aux=True`, f
    returns (output, aux) and the gradient comes back as (gradient, aux). `holomorphic=True`
    is an error (real inputs only); `allow_int` is accepted (ints are promoted either way).
    `memory_budget` (bytes): loops store checkpoints once per segment and recompute each
    segment in the backward sweep (passes/checkpointing.py), instead of storing every
    iteration's values. `target`: "python" (default: CPython code) or "numba" (the code
    compiled by numba.njit; docs/numba_target.md).
    """
    check_options("grad", holomorphic, allow_int)
    return _transform("grad", fun, argnums, has_aux, memory_budget, check_target(target, "grad"))


def value_and_grad(fun: Callable[..., Any] | None = None, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False, allow_int: bool = False, *,
                   memory_budget: int | None = None, target: str = "python") -> Callable[..., Any]:
    """Like grad, but returns (value, gradient) from one call (`target` as for grad)."""
    check_options("value_and_grad", holomorphic, allow_int)
    return _transform("value_and_grad", fun, argnums, has_aux, memory_budget,
                      check_target(target, "value_and_grad"))


# inside a differentiated function, `srcad.grad(f)(x)` is built while transforming (the
# frontend calls these with the function known then) and its generated code is inlined
grad.__srcad_maker__ = value_and_grad.__srcad_maker__ = True
# srcad.jvp(f, primals, tangents) and srcad.vjp(f, *primals) inside one: their forms (forms.py)
# (nargs: the arguments after f; jvp's primals come as one tuple, as many as f's parameters)
jvp.__srcad_value_form__ = lambda f, nargs: forms.jvp_value_form(f, forms.positional_arity(f), grad)
vjp.__srcad_value_form__ = lambda f, nargs: _vjp_value_form(arity.for_call(f, nargs), nargs)


def _vjp_value_form(f, nargs: int):
    return forms.vjp_value_form(f, nargs, grad, _cached(f))


def saved_values(fun: Callable[..., Any], *args: Any, argnums: int | Sequence[int] = 0,
                 **kwargs: Any) -> list:
    """What reverse mode stores per loop iteration for these arguments: a list of records
    with `name`, `type`, `line` (where the value is computed), `loop_line`, `nbytes` (per
    iteration, None if unknown) and `bytes_per_iteration` (text). Also in the header of
    the generated source."""
    g = grad(arity.for_call(fun, len(args), tuple(kwargs)), argnums=argnums)
    return list(g._lookup(g._prepare(args, kwargs)).saved)


def source(g: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The generated source of a transformed function (for example arguments, if given).

    For the transformations that return values rather than functions, name them and the
    function: `srcad.source(srcad.jvp, f)` (or vjp, jacfwd) gives the code of the latest
    call `srcad.jvp(f, ...)`.
    """
    if g in (jvp, vjp) or getattr(g, "__name__", "") == "jacfwd":
        if not args:
            raise ArgumentError(f"srcad.source({g.__name__}, f): which function f?")
        fun = as_python_function(arity.latest_wrapper(args[0]) or args[0])
        found = [t for k, t in _cached(fun).items() if _kind_of(k) == g.__name__ and t._latest is not None]
        if not found:
            raise ArgumentError(f"call srcad.{g.__name__}({getattr(fun, '__name__', 'f')}, ...) once, "
                                "then ask for its source")
        return found[-1].latest().source
    if getattr(g, "__srcad_resolve__", None) is not None:  # (a variadic function's: per call shape)
        if not (args or kwargs):
            raise ArgumentError(f"{getattr(g, '__name__', g)} is made per call: srcad.source(g, *args) shows "
                                "the code for those arguments")
        (g, args), kwargs = g.__srcad_resolve__(args, kwargs), {}
    inner = getattr(g, "__srcad_transform__", None)
    if inner is None and getattr(g, "__srcad_inline__", None) is not None:
        return _composed_source(g, args, kwargs)
    if inner is None:
        raise ArgumentError(f"{g!r} is not a function made by srcad")
    return inner.source(*args, **kwargs)


def _composed_source(g, args, kwargs) -> str:
    """jacfwd(f), jacrev(f), hessian(f), vmap(f), a vjp_fn: with example arguments, the code
    generated for them when called directly (g runs once); without, the form srcad reads
    when it transforms g again (forms.py)."""
    code = getattr(g, "__srcad_code__", None)
    if (args or kwargs) and code is not None:
        g(*args, **kwargs)
        text = code()
        if text is not None:
            return text
    form = g.__srcad_inline__()
    if form is None:
        raise ArgumentError(f"{getattr(g, '__name__', g)} has no source srcad can show: call it with "
                            "example arguments, srcad.source(g, x)")
    return inspect.getsource(form)


def _kind_of(key) -> str:
    if isinstance(key, tuple):
        return key[0]
    return key if isinstance(key, str) else getattr(key, "kind", "")
