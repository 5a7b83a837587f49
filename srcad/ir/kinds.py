"""The kinds of Python values, as the type gate (srcad/gate.py) classifies them, and the
questions about a value's class that typing it asks (is the class the user's own; is the
value a function)."""

from __future__ import annotations

import weakref

#: The kinds of Python values, as the type gate (srcad/gate.py) classifies them.
_DTYPE_KINDS = {"f": "float", "i": "int", "u": "int", "b": "bool", "c": "complex"}
_FOREIGN_MODULES = ("dask", "cupy", "jax", "jaxlib", "torch", "tensorflow", "array_api_strict", "sparse",
                    "mlx")
_ARRAY_PROTOCOLS = ("__array_namespace__", "__cuda_array_interface__", "__dlpack__",
                    "__array_function__", "__array__")


#: module prefixes of the arrays whose NumPy protocols srcad's code relies on (srcad/namespaces.py)
_PROTOCOL_LIBRARIES = {"dask.array": "dask", "cupy": "cupy"}


def array_library(x: object) -> str | None:
    """"dask" or "cupy" for an array of a library srcad differentiates through NumPy's dispatch
    protocols, or the name of the namespace of an array that implements only the array API
    standard (`x.__array_namespace__()`: "array_api_strict"), of a known shape; None for anything
    else, also JAX arrays (immutable: srcad/namespaces.py)."""
    module = type(x).__module__
    if module.startswith("numpy") or module == "builtins":
        return None
    for prefix, name in _PROTOCOL_LIBRARIES.items():
        if module.startswith(prefix) and hasattr(x, "__array_function__") and hasattr(x, "dtype"):
            return name if _known_shape(x) else None
    if (hasattr(x, "__array_namespace__") and not hasattr(x, "__array_function__")
            and not module.startswith(("jax", "jaxlib")) and _known_shape(x)):
        try:
            return x.__array_namespace__().__name__
        except Exception:  # (a namespace that refuses to say)
            return None
    return None


def _known_shape(x) -> bool:
    shape = getattr(x, "shape", None)
    return shape is not None and not any(n is None or n != n for n in shape)  # (dask: unknown chunks)


def dtype_kind(x) -> str:
    """NumPy's kind letter of an array's dtype ("f", "i", "u", "b", "c"; "O" if unknown), also for
    an array-API array, whose dtype has no `kind`."""
    kind = getattr(x.dtype, "kind", None)
    if isinstance(kind, str):
        return kind
    try:
        xp = x.__array_namespace__()
        for letter, name in (("b", "bool"), ("i", "signed integer"), ("u", "unsigned integer"),
                             ("f", "real floating"), ("c", "complex floating")):
            if xp.isdtype(x.dtype, name):
                return letter
    except Exception:  # (a namespace of an older standard, without isdtype: refused as "foreign")
        pass
    return "O"


def _dtype_kind(k: str) -> str:
    return _DTYPE_KINDS.get(k, "object" if k in "OV" else "inert")  # (strings, dates: inert)


def value_kind(x: object) -> str:
    """One of "float", "int", "bool", "none", "complex", "inert" (cannot carry a derivative:
    strings, functions, modules, slices...), "foreign" (arrays of other libraries: dask, CuPy,
    JAX, torch, array-API namespaces) and "object" (anything else, also ndarray subclasses
    such as np.matrix and pandas/xarray objects, whose operators differ from NumPy's), for a
    value that is not a tuple, list or dict."""
    import types

    import numpy as np

    t = type(x)
    if t is float:
        return "float"
    if t is np.ndarray:
        return _dtype_kind(x.dtype.kind)
    if t is int:
        return "int"
    if t is bool or t is np.bool_:
        return "bool"
    if x is None:
        return "none"
    if isinstance(x, np.generic):
        return _dtype_kind(x.dtype.kind)
    if isinstance(x, complex):
        return "complex"
    inert = (str, bytes, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
             types.ModuleType, type, slice, range, type(Ellipsis), np.dtype, np.ufunc)
    if isinstance(x, inert):
        return "inert"
    module = t.__module__.split(".")[0]
    if isinstance(x, np.ndarray) or module in ("pandas", "xarray"):
        return "object"  # ndarray subclasses (np.matrix, masked arrays), labelled arrays: other semantics
    if any(hasattr(x, a) for a in _ARRAY_PROTOCOLS) or module in _FOREIGN_MODULES:
        if array_library(x) is not None and dtype_kind(x) in "fiub":  # (namespaces.py)
            return _dtype_kind(dtype_kind(x))
        return "foreign"
    if isinstance(x, (float, int)):  # subclasses of float and int
        return "float" if isinstance(x, float) else "int"
    return "object"


def is_function(x: object) -> bool:
    """A function, method, ufunc, partial or class: what a call of an attribute resolves to."""
    import functools
    import types

    import numpy as np

    return isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
                          functools.partial, type))


_LIBRARY_MODULES = ("numpy", "scipy", "pandas", "xarray", "builtins", "srcad", "collections", "typing",
                    "functools", "math", "operator", "abc", "enum")
_USER_CLASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def user_class(cls: type) -> bool:
    """Is `cls` a class of the user's (not in the standard library or an installed package),
    whose instances are plain objects (value_kind "object": not numbers, strings, arrays)?
    Only their methods are inlined and their attributes typed (answered once per class)."""
    got = _USER_CLASSES.get(cls)
    if got is None:
        got = _USER_CLASSES[cls] = _defined_by_user(cls)
    return got


def _defined_by_user(cls: type) -> bool:
    import os
    import sys
    import sysconfig

    import numpy as np

    values = (int, float, complex, str, bytes, type, tuple, list, dict, np.ndarray, np.generic)
    if issubclass(cls, values) or any(hasattr(cls, a) for a in _ARRAY_PROTOCOLS):
        return False
    module = getattr(cls, "__module__", None) or ""
    if module.split(".")[0] in _LIBRARY_MODULES:
        return False
    file = getattr(sys.modules.get(module), "__file__", None)
    if not file:
        return True  # (__main__ run interactively, classes made by exec)
    file = os.path.abspath(file)
    if file.startswith(os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep):
        return False
    return not any(d in file.replace("\\", "/").split("/") for d in ("site-packages", "dist-packages"))


def same_object(a: object, b: object) -> bool:
    """The same object; or, for bound methods (a new object at every `obj.method`), the same
    function bound to the same object."""
    if a is b:
        return True
    if type(a).__name__ != "method" or type(b) is not type(a):
        return False
    return a.__func__ is b.__func__ and a.__self__ is b.__self__


#: Code objects of functions given as arguments whose generated code holds the function itself
#: (it was given to a library call, not inlined), and the functions of such partials: such code
#: serves that function object only.
BAKED_CODES: set = set()


def mark_baked(fn: object) -> None:
    import functools

    target = fn.func if isinstance(fn, functools.partial) else getattr(fn, "__code__", None)
    try:
        BAKED_CODES.add(target)
    except TypeError:  # (an unhashable callable: partials of it are never shared)
        BAKED_CODES.add(type(target))


def same_function(a: object, b: object) -> bool:
    """May code specialised on the function argument `a` serve `b`? The same object (same_object);
    or a function made from the same code, with the same globals and defaults, whose captured
    functions and other objects the code bakes in are the same, and whose code does not hold
    `a` itself: the code reads its other captured values from the argument when it runs
    (`f.__closure__[k]`), as for a lambda made anew on every call, `g(x, lambda z: z * k)`."""
    import functools
    import types

    if same_object(a, b):
        return True
    if type(a) is functools.partial and type(b) is functools.partial:
        return _same_partial(a, b)
    if type(a) is not types.FunctionType or type(b) is not types.FunctionType:
        return False
    code = a.__code__
    if code is not b.__code__ or a.__globals__ is not b.__globals__ or code in BAKED_CODES:
        return False
    if not _same_items(a.__defaults__ or (), b.__defaults__ or ()) or not _same_items(
            tuple((a.__kwdefaults__ or {}).items()), tuple((b.__kwdefaults__ or {}).items())):
        return False
    for x, y in zip(a.__closure__ or (), b.__closure__ or ()):
        try:
            u, v = x.cell_contents, y.cell_contents
        except ValueError:
            return False
        if (_baked(u) or _baked(v)) and u is not v:
            return False
    return True


def _same_partial(a, b) -> bool:
    """functools.partial objects of the same function: literals and functions among their
    arguments are baked into the code and must be the same; numbers and arrays are read from
    the argument when the code runs and must have the same type (and shape)."""
    try:
        if a.func in BAKED_CODES or type(a.func) in BAKED_CODES:
            return False
    except TypeError:
        return False
    if not same_function(a.func, b.func) or len(a.args) != len(b.args) or list(a.keywords) != list(
            b.keywords):
        return False
    values = zip(a.args + tuple(a.keywords.values()), b.args + tuple(b.keywords.values()))
    return all(_same_bound(u, v) for u, v in values)


def _same_bound(u: object, v: object) -> bool:
    if u is v:
        return True
    if type(u) is not type(v):
        return False
    if partial_reads(u):
        return getattr(u, "shape", None) == getattr(v, "shape", None) and getattr(
            u, "dtype", None) == getattr(v, "dtype", None)
    return _literal(u) and u == v


def partial_reads(value: object) -> bool:
    """Is a functools.partial argument read from the partial when the code runs (a float or a
    float array), rather than baked into it?"""
    import numpy as np

    return type(value) is float or isinstance(value, np.floating) or (
        type(value) is np.ndarray and value.dtype.kind == "f")


def _literal(value: object) -> bool:
    return value is None or isinstance(value, (bool, int, str)) or (
        isinstance(value, tuple) and all(_literal(x) for x in value))


def _same_items(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def is_static(obj: object) -> bool:
    """Objects the transform may bake into generated code (functions, modules, classes and
    other callables); frontend/resolve.py reads the others when the code runs."""
    import types

    return isinstance(obj, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                            types.MethodType, type)) or callable(obj)


def _baked(value: object) -> bool:
    """Does the transform bake a captured value into the code (as frontend/resolve.py does)?"""
    return is_static(value) and not isinstance(value, (list, dict))


def function_name(obj: object) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__name__


def is_function_value(x: object) -> bool:
    """Is x a function srcad specialises code on when it is an argument (see types.Fn)?"""
    import functools
    import types

    import numpy as np

    t = type(x)
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
                      functools.partial)):
        return True
    return t.__name__ == "_ArrayFunctionDispatcher" or hasattr(t, "__srcad_transform__") or hasattr(
        x, "__srcad_made__") or (
        t.__module__ == "srcad.custom")


def plain_named_tuple(cls) -> bool:
    """Is cls a named tuple class (collections.namedtuple, typing.NamedTuple, or a subclass)
    whose instances behave as the tuple of their fields: no method of the tuple protocol
    (`__iter__`, `__getitem__`, `__mul__`...), `_replace` or `_make` of its own, and no
    property in place of a field? Its own other methods are fine (inlined where called)."""
    return _named_tuple_kind(cls) == "plain"


def own_protocol_tuple(cls) -> bool:
    """Is cls a named tuple class with a tuple protocol of its own (not plain_named_tuple):
    its instances are not the tuple of their fields."""
    return _named_tuple_kind(cls) == "own"


_NAMED_TUPLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _named_tuple_kind(cls) -> str | None:
    """"plain" or "own" (see above) for a class collections.namedtuple made (also by
    typing.NamedTuple) or a subclass of one, else None; answered once per class."""
    fields = getattr(cls, "_fields", None)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(fields, tuple)
            and getattr(cls.__new__, "__module__", "").startswith("namedtuple_")):
        return None
    got = _NAMED_TUPLES.get(cls)
    if got is None:
        got = _NAMED_TUPLES[cls] = "plain" if _behaves_as_fields(cls) else "own"
    return got


def _behaves_as_fields(cls) -> bool:
    for klass in cls.__mro__[:cls.__mro__.index(tuple)]:
        for name, value in vars(klass).items():
            if name in _NAMED_TUPLE_DATA or type(value).__name__ == "_tuplegetter" or \
                    name.startswith("__srcad"):
                continue
            module = getattr(getattr(value, "__func__", value), "__module__", "") or ""
            if module == "collections" or module.startswith("namedtuple_"):
                continue  # (what namedtuple made)
            if name in cls._fields or name.startswith("__") or name in ("_replace", "_make", "_asdict"):
                return False
    return True


_NAMED_TUPLE_DATA = frozenset({"__doc__", "__slots__", "_fields", "_field_defaults", "__match_args__",
                               "__module__", "__annotations__", "__orig_bases__", "__qualname__",
                               "__dict__", "__weakref__", "__parameters__"})
