"""The dispatcher behind every transformed function.

A transformed function looks at the kinds of its arguments on each call (float, int, ndarray
of a shape, containers) and of the globals the function reads; the first call with a new
combination runs the compiler and caches the generated function; later calls go straight to
it. Code is specialised on exact shapes; after `srcad.config.shape_variants` shapes of the
same ranks, one rank-only version serves them all. `inspect.getsource(g)` and
`srcad.source(g)` show the generated code of the latest specialisation.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys

import numpy as np

from . import cache, logs, sharing
from .analysis import reads
from .argnums import check_argnums
from .codegen.compile import add_source_notes
from .errors import ArgumentError
from .frontend.source import code_signature
from .gate import Gate, admit_arguments, shaped_like
from .ir import types as T
from .ir.kinds import array_library, dtype_kind
from .ir.nodes import atom_type
from .ir.values import of_value
from .namespaces import guarded, libraries
from .pickling import carry, reduce_recipe
from .pipeline import (
    Built,
    Spec,
    build,
    built_from_cache,
    depended_functions,
    forget_lowered,
    lowered,
    reads_of,
    static_arguments,
    transform_bases,
)
from .precision import cast_gradients, numpy_floats
from .pytrees import restore
from .settings import config
from .tracebacks import hide_internal_frames
from .watches import class_watches, fresh_check, user_function_globals

_SCALARS = (float, int, bool)  # (the types whose _quick_kind is their type alone)
_NUMPY_FLOATS = (np.float16, np.float32, np.float64, np.longdouble)


_TYPE_KEYS: dict = {}


def _type_key(n: int):
    """A function of n arguments giving the tuple of their types, made once per n: a call of it
    takes half the time of `tuple(map(type, args))` (CPython runs `type(x)` written out fast)."""
    if n not in _TYPE_KEYS:
        params = ", ".join(f"a{i}" for i in range(n))
        namespace: dict = {}
        exec(f"def type_key({params}):\n    return ({''.join(f'type(a{i}), ' for i in range(n))})", namespace)
        _TYPE_KEYS[n] = namespace["type_key"]
    return _TYPE_KEYS[n]


def _quick_kind(x):
    t = type(x)
    if t is float:
        return "f"
    if t is np.ndarray:
        return ("a", x.shape, x.dtype.char)  # (the dtype: gradients keep it, precision.py)
    if t is int:
        return "i"
    if t is bool:
        return "b"
    if t in _NUMPY_FLOATS:  # (NumPy's float scalars by their type: gradients keep it, precision.py)
        return ("s", t)
    library = array_library(x)
    if library is not None:  # (its calls apart from NumPy's: they run under namespaces.guard)
        return ("a", tuple(x.shape), dtype_kind(x), library)
    kind = of_value(x)
    if isinstance(kind, T.Fn):  # (a function given as an argument: see T.Fn)
        return T.Fn(x, shared=True)
    if isinstance(x, (list, tuple, dict)) and (names := libraries((x,))):
        return (kind, names)  # (arrays of other libraries inside: never NumPy's fast path, namespaces.py)
    return kind


def _code_kind(x):
    """_quick_kind with an array's dtype kind, without its library: float32 arrays, dask and CuPy
    arrays get the code of NumPy arrays of their kind and shape (the call casts the gradients,
    precision.py, or runs the code guarded, namespaces.py)."""
    k = _quick_kind(x)
    if type(k) is tuple and k[0] == "s":
        return of_value(x)
    return ("a", k[1], np.dtype(k[2]).kind if len(k) == 3 else k[2]) if type(k) is tuple and \
        k[0] == "a" else k


def _read_kind(entry, value):
    """The kind of a value the function reads (a global, a cell, an attribute), as the key of its
    code: a module global's int by its value (its shapes, np.zeros(H): reads.read_type)."""
    if type(value) is int and entry[0] == "srcad.global":
        return ("i", value)
    return _quick_kind(value)


def _rank_kind(k):
    if isinstance(k, tuple) and k and k[0] == "i":
        return "i"  # (a global's value: counted with the shapes, config.shape_variants)
    if isinstance(k, tuple) and k and k[0] == "a":
        return ("a", len(k[1]), k[2])
    if isinstance(k, T.Type):
        return T.without_shapes(k)
    return k


class Transformed:
    """A derivative of a user function; calling it runs generated code.

    Subclasses (api.py) call it otherwise (jvp with primals and tangents, vjp returning a
    function) and find their code the same way, with `_lookup`. Those that return values
    rather than a function name the call that makes their code in `first_call`.
    """

    first_call: tuple[str, str] | None = None  # (the call, the transformation's name)

    def __init__(self, fn, spec: Spec):
        self.fn = fn
        self.spec = spec
        self._cache: dict = {}
        self._fast: dict = {}  # argument kinds -> built code, for calls that need no preparation
        self._by_type: dict = {}  # argument types -> built code, where the types are the kinds
        self._variants: dict = {}
        self._latest = None
        self._readers = None
        self._deps = None  # the user functions the code inlined, by the global names they had
        self._fresh, self._checked = None, "never"  # a check that _deps hold, and the _deps checked
        self._inlined: dict = {}  # the functions inlined while specialising (methods), in order
        self._signature = _signature_of(fn)
        self._nparams = len(self._signature.parameters)
        self._names = tuple(self._signature.parameters)
        self._types = _type_key(self._nparams)
        self._gate = Gate(f"{spec.kind} of {getattr(fn, '__qualname__', 'f')}", _user_function(fn))
        self._gate.arrays = spec.kind in ("grad", "value_and_grad") and spec.target == "python"
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", None)
        self.__name__ = f"{spec.kind}_{getattr(fn, '__name__', 'f')}"
        self.__qualname__ = self.__name__
        check_argnums(spec.argnums, self._nparams, fn)
        # a transform of a function made from the same code as an earlier one borrows its code
        self._twin, self._cells = sharing.twin_of(self, fn, self._config()) if spec.target == "python" \
            else (None, None)  # (the numba target's functions are not rebound to other cells)

    def _config(self) -> tuple:
        """Everything besides the function that decides the code (subclasses add theirs)."""
        return (type(self), self.spec)

    def __reduce__(self):  # (pickled as the call that made it: srcad/pickling.py)
        what, maker, *args, keywords = self._recipe()
        return reduce_recipe(what, maker, *args, **keywords)

    def _recipe(self) -> tuple:
        """(what, maker, *arguments, keywords) that make this transform again (pickling.py)."""
        spec, fn = self.spec, getattr(self.fn, "__srcad_original__", self.fn)
        what = f"srcad.{spec.kind} of {getattr(fn, '__qualname__', 'a function')}"
        if spec.kind not in ("grad", "value_and_grad"):
            raise pickle.PicklingError(f"srcad: {type(self).__name__} ({what}) is internal and is not "
                                       "pickled: pickle the public transformation (grad, jacfwd, vmap...)")
        argnums = spec.argnums if spec.argnums_tuple else spec.argnums[0]
        target = {"target": spec.target} if spec.target != "python" else {}
        return (what, ("srcad", spec.kind), carry(fn),
                dict(argnums=argnums, has_aux=spec.has_aux, memory_budget=spec.memory_budget, **target))

    # what nested transforms and inlining see

    @property
    def __srcad_transform__(self):
        return self

    @property
    def __wrapped__(self):
        return self.latest().function

    def latest(self):
        if self._latest is None and self.first_call is not None:
            call, name = self.first_call
            raise ArgumentError(f"call {call} once, then use srcad.source({name}, f)")
        if self._latest is None:
            self._latest = self._build_types(tuple(T.UNKNOWN for _ in range(self._nparams)))
        return self._latest

    def function_for_call(self, args, kw=()):
        """The generated function to inline where user code calls this transform, while the
        caller is specialised (`args` and `kw` are its typed IR atoms): code for the types they
        have (the caller specialises it again), never the code built for the latest direct
        call; functions given as arguments are known to it too."""
        self._refresh()  # (a helper it inlines may have been rebound since it was built)
        types = [T.UNKNOWN] * self._nparams
        given = dict(kw)
        for i, name in enumerate(self._names):
            a = args[i] if i < len(args) else given.get(name)
            obj = getattr(getattr(a, "value", None), "obj", None)
            if obj is not None and T.is_function_value(obj):
                types[i] = T.Fn(obj)
            elif a is not None:  # (the caller's type; an int differentiated stands for a float: any value)
                t, nums = atom_type(a), self.spec.argnums
                int_wrt = isinstance(t, T.Int) and (i in nums or not nums)
                types[i] = T.UNKNOWN if int_wrt or isinstance(t, (T.Bool, T.Bottom, T.NoneT)) else t
        return self._function_for_types(tuple(types))

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
        return admit_arguments(self._gate, args, self._names, self.spec.argnums)

    def _refresh(self) -> None:
        """Rebuild from scratch when a global name of an inlined function (a helper, or f
        itself when called by name) now refers to another object: code inlines callees."""
        twin = self._twin
        if twin is not None:
            twin._refresh()
            if self._deps is not twin._deps:  # (the first call, or the twin started afresh)
                self._cache.clear(), self._fast.clear(), self._by_type.clear(), self._variants.clear()
                self._latest = self._readers = None
                self._deps = twin._deps
            return
        if self._deps is None:
            self._deps = user_function_globals(self._base())
        if self._checked is not self._deps:  # (the watches changed: a new check of them)
            self._fresh, self._checked = fresh_check(self._deps), self._deps
        if not self._fresh():
            t = self
            while t is not None:
                for g in t._inlined:
                    forget_lowered(g)
                t._cache.clear(), t._fast.clear(), t._by_type.clear(), t._variants.clear()
                t._inlined.clear()
                t._latest = t._readers = t._deps = None
                t._signature = _signature_of(t.fn)  # (its defaults may have changed)
                t = getattr(t.fn, "__srcad_transform__", None)
            for base in [self._base(), *transform_bases(self._base())]:
                forget_lowered(base)
            self._deps = user_function_globals(self._base())  # (checked from the next call)

    def _base(self):
        inner = getattr(self.fn, "__srcad_transform__", None)
        return inner._base() if inner is not None else self.fn

    def __call__(self, *args, **kwargs):
        try:  # (the API boundary: srcad's frames leave the traceback, srcad/tracebacks.py)
            if self._checked is not self._deps or self._twin is not None or not self._fresh():
                self._refresh()
            # (floats, ints and bools: their types are their kinds, the cheapest key of all;
            # NumPy arrays: (shape, dtype kind) inline, as _quick_kind gives them)
            built = None
            if not kwargs and len(args) == 1 and type(args[0]) is np.ndarray and self._nparams == 1:
                built = self._fast.get((("a", args[0].shape, args[0].dtype.char),))  # (one array)
            elif not kwargs:
                types = self._types(*args) if len(args) == self._nparams else tuple(map(type, args))
                built = self._by_type.get(types)
                if built is None and np.ndarray in types and len(args) == self._nparams:
                    built = self._fast.get(tuple([("a", a.shape, a.dtype.char) if type(a) is np.ndarray
                                                  else _quick_kind(a) for a in args]))
            if built is None:
                built, args = self._find(args, kwargs)
            self._latest = built
            try:  # (self.run inlined: this is the path of every call)
                result = built.function(*args)
            except Exception as e:
                result = self._failed(e, built.function, args, args)
            return self._restructure(result, args) if built.sequences or built.structs else result
        except Exception as e:
            hide_internal_frames(e)
            if sys.version_info >= (3, 11):
                raise
            raise e  # noqa: B904  (3.10: a bare raise restores the unfiltered traceback)

    def _find(self, args, kwargs):
        """(the code for a call, its arguments as the code takes them), remembered by the
        arguments' kinds for calls that need no preparation."""
        built = None
        if not kwargs and len(args) == self._nparams:
            built = self._fast.get(tuple([_quick_kind(a) for a in args]))
        if built is None:
            prepared = self._prepare(args, kwargs)
            built = self._lookup(prepared)
            if self._gate.arrays:  # (dask and CuPy arrays: their code runs guarded, namespaces.py)
                built = guarded(built, prepared, self._gate.what)
            built = cast_gradients(built, self.spec, prepared)  # (float32 arguments: precision.py)
            if prepared is args and not self._readers:  # (no global whose value is in the key)
                self._fast[tuple([_quick_kind(a) for a in args])] = built
                if all(type(a) in _SCALARS for a in args):
                    self._by_type[tuple(map(type, args))] = built
            args = prepared
        return built, args

    def run(self, fn, args, primals):
        """fn(*args), generated code for the primal arguments `primals`. Python floats raise
        ZeroDivisionError and OverflowError where NumPy's give inf or nan: when derivative code
        does (the derivative of np.log(x) or x ** 0.5 at x = 0.0) but the user's function runs
        at that point, the code runs again on NumPy floats, which give what NumPy gives."""
        try:
            return fn(*args)
        except Exception as e:
            return self._failed(e, fn, args, primals)

    def _failed(self, e: Exception, fn, args, primals):
        """What a call of fn(*args) that raised `e` gives (run)."""
        if isinstance(e, (ZeroDivisionError, OverflowError)) and self._primal_runs(primals):
            return fn(*numpy_floats(args))
        add_source_notes(e)  # (names the user's line behind the failing generated line)
        raise e

    def _primal_runs(self, primals) -> bool:
        try:
            self._base()(*primals)
        except Exception:
            return False
        return True

    def _restructure(self, result, args):
        """Gradients of list and tuple arguments as lists and tuples (NumPy code that converts a
        list to an array gives it an array cotangent)."""
        spec = self.spec
        if spec.kind == "value_and_grad":
            value = restore(result[0])  # (with has_aux, a pair)
            return value, self._restructure_grads(result[1], args)
        if spec.has_aux:
            return self._restructure_grads(result[0], args), restore(result[1])
        return self._restructure_grads(result, args)

    def _restructure_grads(self, grads, args):
        """...and dataclasses and registered objects as themselves (srcad/pytrees.py)."""
        if not self.spec.argnums_tuple:
            return restore(shaped_like(grads, args[self.spec.argnums[0]]))
        return tuple(restore(shaped_like(g, args[i])) for g, i in zip(grads, self.spec.argnums))

    def _read_kinds(self) -> tuple:
        """The kinds of the values the function reads from outside (globals, attributes)."""
        if self._readers is None and self._twin is not None:  # the twin's reads, of our cells
            self._twin._read_kinds()
            self._readers = tuple((entry, reads.reader(sharing.rebind_entry(entry, self._cells)))
                                  for entry, _ in self._twin._readers)
        if self._readers is None:
            self._readers = tuple((entry, reads.reader(entry)) for entry in self._free_reads())
        return tuple([_read_kind(entry, read()) for entry, read in self._readers])

    def _lookup(self, args, extra: tuple = (), argnums=None):
        """The code for these arguments, built on the first call with their kinds (and the
        kinds of the values the function reads). `argnums(arg_types)`, if given, chooses the
        positions to differentiate from the types (jvp, vjp), and `extra` adds what else
        decides the code to the key (jvp: which tangents are given)."""
        key = tuple(_code_kind(a) for a in args) + extra + self._read_kinds()
        built = self._cache.get(key)
        if built is None and self._twin is not None:  # the twin's code for our key, of our cells
            built = self._twin._code_for(key, args, argnums, self._free_types())
            built = self._cache[key] = sharing.rebind(built, self._cells)
        if built is None:
            built = self._code_for(key, args, argnums, self._free_types())
        self._latest = built
        return built

    def _code_for(self, key, args, argnums, free: dict):
        built = self._cache.get(key)
        if built is None:
            arg_types = tuple(of_value(a) for a in args)
            spec = self.spec if argnums is None else dataclasses.replace(self.spec,
                                                                         argnums=argnums(arg_types))
            built = self._build_for(key, arg_types, free, spec)
            built.wrt = spec.argnums
        return built

    def _build_for(self, key, arg_types, free, spec=None):
        """Build code specialised on exact shapes; after a few shapes of the same ranks, build
        (once) rank-only code that serves every shape."""
        rank_key = ("ranks",) + tuple(_rank_kind(k) for k in key)
        built = self._cache.get(rank_key)
        if built is None:
            variants = self._variants.get(rank_key, 0) + 1
            self._variants[rank_key] = variants
            if variants > config.shape_variants:
                logs.rank_only(self.spec, self.fn, variants)
                arg_types = tuple(T.without_shapes(t) for t in arg_types)
                free = {k: T.without_shapes(t) for k, t in free.items()}
                built = self._cache[rank_key] = self._build_types(arg_types, free, spec)
            else:
                built = self._build_types(arg_types, free, spec)
        else:
            logs.reused(self.spec, self.fn, arg_types, "rank-only code")
        built.sequences = any(isinstance(arg_types[i], (T.List, T.Tuple)) for i in self.spec.argnums)
        built.structs = any(T.holds_nodes(t) for t in arg_types)  # (objects cross as nodes: pytrees.py)
        self._cache[key] = built
        return built

    def _free_reads(self):
        if self._twin is not None:
            return tuple(sharing.rebind_entry(e, self._cells) for e in self._twin._free_reads())
        inner = getattr(self.fn, "__srcad_transform__", None)
        if inner is not None:  # a transform of a transform reads what the user function reads
            return inner._free_reads()
        if config.cache_dir:
            reads = cache.load_reads(self.fn)
            if reads is None:
                reads = reads_of(self.fn)
                cache.store_reads(self.fn, reads, depended_functions(self.fn))
            return reads
        return reads_of(self.fn)

    def reads_key(self) -> tuple:
        """What the code inlined where user code calls this transform is built from, besides
        argument types (pipeline.lowered: the caller is lowered again when it changes)."""
        self._refresh()
        return self._read_kinds()

    def _free_types(self) -> dict:
        return {reads.read_key(entry): reads.read_type(entry, read()) for entry, read in self._readers}

    def _build_types(self, arg_types, free_types=None, spec=None):
        if self._twin is not None:
            return sharing.rebind(self._twin._build_types(arg_types, free_types, spec), self._cells)
        inner = getattr(self.fn, "__srcad_transform__", None)
        target = inner._function_for_types(arg_types) if inner is not None else self.fn
        spec, free_types = spec or self.spec, free_types or {}
        start = logs.clock()
        key = cache.entry_key(target, spec, arg_types, free_types) if config.cache_dir and \
            spec.target == "python" else None  # (numba caches the numba target's machine code)
        hit = cache.load(key, target) if key else None
        if hit is not None:
            logs.built(spec, self.fn, arg_types, logs.clock() - start, "persistent cache hit")
            return built_from_cache(*hit)
        with logs.transformation(spec, self.fn, arg_types):
            built = build(target, spec, arg_types, free_types)
        logs.built(spec, self.fn, arg_types, logs.clock() - start,
                   "built" + (" (persistent cache miss)" if key else ""))
        new = [g for g in built.inlined if g not in self._inlined]
        if new:  # (the globals through which they reach helpers count for _refresh, as now)
            self._inlined.update(dict.fromkeys(new))
            self._deps = (self._deps or ()) + user_function_globals(*new)
        watches = class_watches(arg_types, free_types.values())
        if watches:  # (methods of the user's classes, inlined: replacing one builds again)
            self._deps = (self._deps or ()) + watches
        statics = static_arguments(arg_types)
        _mark_baked(built, statics)
        if statics and inner is None:  # (the functions given as arguments inlined helpers too)
            self._deps = (self._deps or ()) + user_function_globals(target, statics=statics)
        if key:
            cache.store(key, built, tuple(dict.fromkeys(lowered(target).functions + built.inlined)))
        return built

    def _function_for_types(self, arg_types):
        """Code for arguments of these types, and the values the function reads from outside of
        the types they have now (a transform of this one has them in its key too)."""
        key = ("types",) + tuple(arg_types) + self._read_kinds()
        built = self._cache.get(key)
        if built is None:
            built = self._cache[key] = self._build_types(tuple(arg_types), self._free_types())
        return built.function

    def __repr__(self) -> str:
        return f"<srcad {self.spec.kind} of {getattr(self.fn, '__qualname__', self.fn)!r}>"


def _mark_baked(built: Built, statics) -> None:
    """Record the functions given as arguments that the generated code holds (a library call
    given one): their code serves that function object only (ir/kinds.py same_function)."""
    if not statics:
        return
    held = {id(v) for v in getattr(built.function, "__globals__", {}).values()}
    for _, obj in statics:
        cells = getattr(getattr(obj, "func", obj), "__closure__", None) or ()
        if id(obj) in held or any(id(c) in held for c in cells):
            T.mark_baked(obj)


def _signature_of(fn):
    inner = getattr(fn, "__srcad_transform__", None)
    return inner._signature if inner is not None else code_signature(fn)


def _user_function(fn):
    """The user's function behind a transform (for error locations)."""
    inner = getattr(fn, "__srcad_transform__", None)
    return inner._base() if inner is not None else fn
