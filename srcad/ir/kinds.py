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
    return t.__name__ == "_ArrayFunctionDispatcher" or hasattr(t, "__srcad_transform__") or (
        t.__module__ == "srcad.custom")
