"""The public transformations: grad, value_and_grad, ... and srcad.source.

A transformed function is a small dispatcher. On each call it looks at the kinds of its
arguments (float, int, ndarray of rank k, containers) and of the globals the function reads;
the first call with a new combination runs the compiler and caches the generated function;
later calls go straight to it. `inspect.getsource(g)` and `srcad.source(g)` show the
generated code of the latest specialisation.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref

import numpy as np

from . import cache, runtime
from .codegen.compile import add_source_notes, register_source
from .custom import CustomRule
from .errors import ArgumentError, TypeSupportError
from .ir import types as T
from .pipeline import (Built, Spec, build_batched, build_forward, build_reverse, build_vjp,
                       differentiable_positions, free_reads, lowered)
from .transforms.batched import NotBatchable

stop_gradient = runtime.stop_gradient




def _quick_kind(x):
    t = type(x)
    if t is float:
        return "f"
    if t is np.ndarray:
        return ("a", x.shape, x.dtype.kind)
    if t is int:
        return "i"
    if t is bool:
        return "b"
    return T.of_value(x)


def _rank_kind(k):
    if isinstance(k, tuple) and k and k[0] == "a":
        return ("a", len(k[1]), k[2])
    if isinstance(k, T.Type):
        return T.without_shapes(k)
    return k


def _reader(prim: str, ext, name: str):
    if prim == "srcad.cell":
        cell = ext.obj
        return lambda: cell.cell_contents
    obj = ext.obj
    return lambda: getattr(obj, name)


class Transformed:
    """A derivative of a user function; calling it runs generated code."""

    def __init__(self, fn, spec: Spec, builder=build_reverse):
        self.fn = fn
        self.spec = spec
        self._builder = builder
        self._cache: dict = {}
        self._fast: dict = {}  # argument kinds -> built code, for calls that need no preparation
        self._variants: dict = {}
        self._latest = None
        self._readers = None
        self._signature = _signature_of(fn)
        self._nparams = len(self._signature.parameters)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", None)
        self.__name__ = f"{spec.prefix}_{getattr(fn, '__name__', 'f')}"
        self.__qualname__ = self.__name__
        _check_argnums(spec.argnums, self._nparams, fn)

    # what nested transforms and inlining see

    @property
    def __srcad_transform__(self):
        return self

    @property
    def __wrapped__(self):
        return self.latest().function

    def latest(self):
        if self._latest is None:
            self._latest = self._build_types(tuple(T.UNKNOWN for _ in range(self._nparams)))
        return self._latest

    def function_for_call(self, args):
        """The generated function to inline where user code calls this transform."""
        return self.latest().function

    def source(self, *args, **kwargs) -> str:
        if args or kwargs:
            args = self._prepare(args, kwargs)
            return self._lookup(args).source
        return self.latest().source

    # calling

    def _prepare(self, args, kwargs):
        if kwargs or len(args) != self._nparams:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise ArgumentError(f"{self.__name__}: {e}") from None
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
        for i in self.spec.argnums:
            a = args[i]
            if isinstance(a, (complex, np.complexfloating)) or (type(a) is np.ndarray and a.dtype.kind == "c"):
                raise TypeSupportError(f"{self.__name__}: argument {i} is complex; srcad differentiates "
                                       "real floats and float arrays (split real and imaginary parts)")
            if type(a) is int or (type(a) is np.ndarray and a.dtype.kind in "iub"):
                args = args[:i] + (np.asarray(a, dtype=float) if type(a) is np.ndarray else float(a),) + args[i + 1:]
        return args

    def __call__(self, *args, **kwargs):
        built = None
        if not kwargs and len(args) == self._nparams:
            built = self._fast.get(tuple([_quick_kind(a) for a in args]))
        if built is None:
            prepared = self._prepare(args, kwargs)
            built = self._lookup(prepared)
            if prepared is args and not self._readers:  # (no global whose value is in the key)
                self._fast[tuple([_quick_kind(a) for a in args])] = built
            args = prepared
        self._latest = built
        fn = built.function
        try:
            return fn(*args)
        except Exception as e:  # name the user's line behind the failing generated line
            add_source_notes(e)
            raise

    def _lookup(self, args):
        if self._readers is None:
            self._readers = tuple((key, _reader(*key)) for key in self._free_reads())
        key = tuple(_quick_kind(a) for a in args)
        if self._readers:
            key += tuple(_quick_kind(read()) for _, read in self._readers)
        built = self._cache.get(key)
        if built is None:
            built = self._build_for(key, tuple(T.of_value(a) for a in args), self._free_types())
        self._latest = built
        return built

    def _build_for(self, key, arg_types, free, spec=None):
        """Build code specialised on exact shapes; after a few shapes of the same ranks, build
        (once) rank-only code that serves every shape."""
        rank_key = ("ranks",) + tuple(_rank_kind(k) for k in key)
        built = self._cache.get(rank_key)
        if built is None:
            variants = self._variants.get(rank_key, 0) + 1
            self._variants[rank_key] = variants
            if variants > cache.config.shape_variants:
                arg_types = tuple(T.without_shapes(t) for t in arg_types)
                free = {k: T.without_shapes(t) for k, t in free.items()}
                built = self._cache[rank_key] = self._build_types(arg_types, free, spec)
            else:
                built = self._build_types(arg_types, free, spec)
        self._cache[key] = built
        return built

    def _free_reads(self):
        inner = getattr(self.fn, "__srcad_transform__", None)
        if inner is not None:  # a transform of a transform reads what the user function reads
            return inner._free_reads()
        if cache.config.cache_dir:
            reads = cache.load_reads(self.fn)
            if reads is None:
                reads = free_reads(lowered(self.fn))
                cache.store_reads(self.fn, reads)
            return reads
        return free_reads(lowered(self.fn))

    def _free_types(self) -> dict:
        return {(prim, id(ext.obj), name): T.of_value(read()) for (prim, ext, name), read in self._readers}

    def _build_types(self, arg_types, free_types=None, spec=None):
        inner = getattr(self.fn, "__srcad_transform__", None)
        target = inner._function_for_types(arg_types) if inner is not None else self.fn
        spec, free_types = spec or self.spec, free_types or {}
        key = cache.entry_key(target, spec, arg_types, free_types) if cache.config.cache_dir else None
        hit = cache.load(key) if key else None
        if hit is not None:
            return _from_cache(*hit)
        built = self._builder(target, spec, arg_types, free_types)
        if key:
            cache.store(key, built, [f for f in (_source_file(g) for g in lowered(target).functions) if f])
        return built

    def _function_for_types(self, arg_types):
        key = ("types",) + tuple(arg_types)
        built = self._cache.get(key)
        if built is None:
            built = self._cache[key] = self._build_types(tuple(arg_types))
        return built.function

    def __repr__(self) -> str:
        return f"<srcad {self.spec.kind} of {getattr(self.fn, '__qualname__', self.fn)!r}>"


class JvpTransformed(Transformed):
    """`jvp(f, primals, tangents)`: forward mode, specialised per argument kinds (kind
    "tangent": the tangent output alone)."""

    def __init__(self, fn, kind: str = "jvp"):
        super().__init__(fn, Spec(kind, (), True, False), build_forward)

    def __call__(self, primals, tangents):
        primals, tangents = tuple(primals), tuple(tangents)
        if len(primals) != len(tangents):
            raise ArgumentError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
        if len(primals) != self._nparams:
            primals = self._prepare(primals, {})
        if self._readers is None:
            self._readers = tuple((key, _reader(*key)) for key in self._free_reads())
        kinds = tuple(_quick_kind(a) for a in primals)
        present = tuple(t is not None for t in tangents)
        key = kinds + present + tuple(_quick_kind(read()) for _, read in self._readers)
        built = self._cache.get(key)
        if built is None:
            arg_types = tuple(T.of_value(a) for a in primals)
            wrt = tuple(i for i in differentiable_positions(arg_types) if present[i])
            built = self._build_for(key, arg_types, self._free_types(), Spec(self.spec.kind, wrt, True, False))
            built.wrt = wrt
        self._latest = built
        return built.function(*primals, *(_as_tangent(tangents[i]) for i in built.wrt))

    def latest(self):
        if self._latest is None:
            raise ArgumentError("call srcad.jvp(f, ...) once, then use srcad.source(srcad.jvp, f)")
        return self._latest


class VjpTransformed(Transformed):
    """`vjp(f, *primals)`: a generated forward function that returns residuals, and a
    generated backward function that maps an output cotangent to input cotangents."""

    def __init__(self, fn, has_aux: bool, only: tuple | None = None):
        super().__init__(fn, Spec("vjp", (), True, has_aux), build_vjp)
        self.only = only  # cotangents for these positions alone (jacrev's argnums)

    def __call__(self, *primals):
        if len(primals) != self._nparams:
            primals = self._prepare(primals, {})
        if self._readers is None:
            self._readers = tuple((key, _reader(*key)) for key in self._free_reads())
        key = tuple(_quick_kind(a) for a in primals) + tuple(_quick_kind(read()) for _, read in self._readers)
        built = self._cache.get(key)
        if built is None:
            arg_types = tuple(T.of_value(a) for a in primals)
            wrt = tuple(i for i in differentiable_positions(arg_types) if self.only is None or i in self.only)
            built = self._build_for(key, arg_types, self._free_types(), Spec("vjp", wrt, True, self.spec.has_aux))
            built.wrt = wrt
        self._latest = built
        out, aux, residuals = built.function(*primals)
        backward, wrt, n = built.backward, built.wrt, len(primals)

        def vjp_fn(cotangent):
            cts = backward(*residuals, cotangent)
            full = [None] * n
            for i, c in zip(wrt, cts):
                full[i] = c
            return tuple(full)

        return (out, vjp_fn, aux) if self.spec.has_aux else (out, vjp_fn)

    def latest(self):
        if self._latest is None:
            raise ArgumentError("call srcad.vjp(f, ...) once, then use srcad.source(srcad.vjp, f)")
        return self._latest


def vjp(fun, *primals, has_aux: bool = False):
    """Reverse mode for any output: `out, vjp_fn = vjp(f, *primals)`; `vjp_fn(ct)` returns one
    cotangent per primal (None for arguments that are not differentiated, like ints)."""
    return vjp_of(fun, has_aux)(*primals)


def vjp_of(fun, has_aux: bool = False, only: tuple | None = None) -> VjpTransformed:
    """The vjp transform of `fun` (cotangents for the positions in `only`, or for all)."""
    key = ("vjp", has_aux, only)
    fun = as_python_function(fun)
    cache = _cached(fun)
    if key not in cache:
        cache[key] = VjpTransformed(fun, has_aux, only)
    return cache[key]


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


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

    def __init__(self, fn, argnum: int):
        super().__init__(fn, Spec("jacfwd", (argnum,), False, False), build_batched)
        self.argnum = argnum
        self.unbatchable: set = set()

    def __call__(self, primals):
        primals = self._prepare(tuple(primals), {}) if len(primals) != self._nparams else tuple(primals)
        x = primals[self.argnum]
        n = x.size if isinstance(x, np.ndarray) else 1
        if self._readers is None:
            self._readers = tuple((key, _reader(*key)) for key in self._free_reads())
        key = tuple(_quick_kind(a) for a in primals) + tuple(_quick_kind(read()) for _, read in self._readers)
        if key in self.unbatchable:
            return None
        built = self._cache.get(key)
        if built is None:
            arg_types = tuple(T.of_value(a) for a in primals)
            try:
                built = self._build_types(arg_types, self._free_types(), Spec("jacfwd", (self.argnum,), False, False, n))
            except NotBatchable:
                self.unbatchable.add(key)
                return None
            self._cache[key] = built
        self._latest = built
        seeds = np.eye(n).reshape((n,) + np.shape(x))
        return built.function(*primals, seeds)

    def latest(self):
        if self._latest is None:
            raise ArgumentError("call srcad.jacfwd(f)(...) once, then use srcad.source(srcad.jacfwd, f)")
        return self._latest


def batched_jacobian(fun, args, argnum: int):
    """d fun / d args[argnum] with all directions at once, or None when not batchable."""
    x = args[argnum]
    if not (isinstance(x, (float, np.floating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")):
        return None
    fun = as_python_function(fun)
    cache = _cached(fun)
    key = ("jacfwd", argnum)
    if key not in cache:
        cache[key] = BatchedTransformed(fun, argnum)
    got = cache[key](args)
    if got is None:
        return None
    out, t_out = got
    n = x.size if isinstance(x, np.ndarray) else 1
    out_shape = np.shape(out)
    cols = np.asarray(t_out, dtype=float).reshape((n,) + out_shape)
    jac = np.moveaxis(cols, 0, -1).reshape(out_shape + np.shape(x))
    return float(jac) if jac.ndim == 0 else jac


def _as_tangent(t):
    return float(t) if type(t) is int else t


def _jvp_of(fun, kind: str = "jvp") -> JvpTransformed:
    cache = _cached(fun)
    got = cache.get(kind)
    if got is None:
        wrapped = as_python_function(fun)
        got = cache[kind] = JvpTransformed(fun, kind) if wrapped is fun else _jvp_of(wrapped, kind)
    return got


def jvp(fun, primals, tangents):
    """Forward mode: `(f(*primals), J @ tangents)` from one pass of generated code.

    Int and bool arguments are not differentiated: their tangents may be 0, 0.0 or None and
    are ignored. A tangent of None means zero.
    """
    return _jvp_of(fun)(primals, tangents)


def _source_file(fn):
    try:
        return inspect.getsourcefile(fn)
    except TypeError:
        return None


def _from_cache(namespace: dict, meta: dict, text: str) -> Built:
    names = meta["names"]
    built = Built(namespace[names[0]], text, None, [], meta["name"])
    if len(names) > 1:
        built.backward = namespace[names[1]]
    return built


def _signature_of(fn):
    inner = getattr(fn, "__srcad_transform__", None)
    return inner._signature if inner is not None else inspect.signature(fn)


def _check_argnums(argnums, nparams: int, fn) -> None:
    for i in argnums:
        if not isinstance(i, int) or not -nparams <= i < nparams:
            raise ArgumentError(f"argnums {i!r} is out of range for {getattr(fn, '__qualname__', fn)}, "
                                f"which takes {nparams} arguments")


def _spec(kind: str, argnums, has_aux: bool, nparams: int) -> Spec:
    as_tuple = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if as_tuple else (argnums,)
    nums = tuple(i + nparams if isinstance(i, int) and i < 0 else i for i in nums)
    return Spec(kind, nums, as_tuple, has_aux)


_WRAPPERS: dict = {}


def as_python_function(fun):
    """`fun` itself if srcad can read its source; for a primitive (np.sin, math.exp) or a
    custom-rule function, a one-line Python function that calls it."""
    if hasattr(fun, "__srcad_transform__"):
        return fun
    from .rules.registry import rule_for_object

    if isinstance(fun, types.FunctionType) and rule_for_object(fun) is None:
        return fun
    if id(fun) in _WRAPPERS:
        return _WRAPPERS[id(fun)][1]
    try:
        sig = inspect.signature(getattr(fun, "fun", fun))
    except (TypeError, ValueError):
        sig = None
    params, namespace = [], {"_target": fun}
    for i, p in enumerate(sig.parameters.values() if sig else [inspect.Parameter("x", 1)]):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            break
        if p.default is p.empty:
            params.append(p.name)
        elif isinstance(fun, CustomRule):
            namespace[f"_d{i}"] = p.default
            params.append(f"{p.name}=_d{i}")
        else:
            break  # a library function's optional parameters stay at their defaults
    names = [p.split("=")[0] for p in params]
    name = getattr(fun, "__name__", "f").strip("<>") or "f"
    source = f"def {name}({', '.join(params)}):\n    return _target({', '.join(names)})\n"
    filename = f"<srcad wrapper of {name}>"
    register_source(filename, source)
    exec(compile(source, filename, "exec"), namespace)
    _WRAPPERS[id(fun)] = (fun, namespace[name])
    return namespace[name]


def _transform(kind: str, fun, argnums, has_aux: bool):
    if fun is None:
        return functools.partial(_transform, kind, argnums=argnums, has_aux=has_aux)
    if not callable(fun):
        raise ArgumentError(f"{kind} expects a function, got {fun!r}")
    cache = _cached(fun)
    quick = (kind, tuple(argnums) if isinstance(argnums, (list, tuple)) else argnums,
             isinstance(argnums, (list, tuple)), has_aux)  # (before the costly signature)
    if quick not in cache:
        wrapped = as_python_function(fun)
        if wrapped is not fun:  # a primitive: the transform of its one-line wrapper
            cache[quick] = _transform(kind, wrapped, argnums, has_aux)
            return cache[quick]
        spec = _spec(kind, argnums, has_aux, len(_signature_of(fun).parameters))
        if spec not in cache:
            cache[spec] = Transformed(fun, spec)
        cache[quick] = cache[spec]
    return cache[quick]


def grad(fun=None, argnums=0, has_aux: bool = False):
    """The gradient of a scalar function: `grad(f)(x)` is df/dx at x.

    Use as `@grad`, `@grad(argnums=1)` or `grad(f, argnums=(0, 1))`. With `has_aux=True`, f
    returns (output, aux) and the gradient comes back as (gradient, aux).
    """
    return _transform("grad", fun, argnums, has_aux)


def value_and_grad(fun=None, argnums=0, has_aux: bool = False):
    """Like grad, but returns (value, gradient) from one call."""
    return _transform("value_and_grad", fun, argnums, has_aux)


def saved_values(fun, *args, argnums=0, **kwargs) -> list:
    """What reverse mode stores per loop iteration for these arguments: a list of records
    with `name`, `type`, `line` (where the value is computed), `loop_line`, `nbytes` (per
    iteration, None if unknown) and `bytes_per_iteration` (text). Also in the header of
    the generated source."""
    g = grad(fun, argnums=argnums)
    return list(g._lookup(g._prepare(args, kwargs)).saved)


def source(g, *args, **kwargs) -> str:
    """The generated source of a transformed function (for example arguments, if given).

    For the transformations that return values rather than functions, name them and the
    function: `srcad.source(srcad.jvp, f)` (or vjp, jacfwd) gives the code of the latest
    call `srcad.jvp(f, ...)`.
    """
    if g in (jvp, vjp) or getattr(g, "__name__", "") == "jacfwd":
        if not args:
            raise ArgumentError(f"srcad.source({g.__name__}, f): which function f?")
        fun = as_python_function(args[0])
        found = [t for k, t in _cached(fun).items() if _kind_of(k) == g.__name__ and t._latest is not None]
        if not found:
            raise ArgumentError(f"call srcad.{g.__name__}({getattr(fun, '__name__', 'f')}, ...) once, "
                                "then ask for its source")
        return found[-1].latest().source
    inner = getattr(g, "__srcad_transform__", None)
    if inner is None:
        raise ArgumentError(f"{g!r} is not a function made by srcad")
    return inner.source(*args, **kwargs)


def _kind_of(key) -> str:
    if isinstance(key, tuple):
        return key[0]
    return key if isinstance(key, str) else getattr(key, "kind", "")
