"""Abstract types of IR values: a small lattice used to specialise generated code.

A type says what a value is at run time as far as differentiation cares:

    Float            a Python float or NumPy floating scalar
    Int, Bool        never differentiated
    Array(ndim, k)   an ndarray of known or unknown rank; k is the dtype kind ('f', 'i', 'b', ...)
    Num              a float or a float array, we do not know which
    Tuple, List, Dict  containers (pytrees) of the above
    NoneT, Str, Opaque  values that carry no derivative
    Unknown          anything at all
    Bottom           no value yet (the initial value of a loop variable first bound in the loop)

`join` is the least upper bound used where control flow merges. Types never make code wrong:
a less precise type only costs a run-time check (say, reducing a broadcast cotangent).
"""

from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base class of abstract types; instances are immutable and compare by value."""

    @property
    def differentiable(self) -> bool:
        return False

    @property
    def is_scalar(self) -> bool:
        return False


@dataclass(frozen=True)
class Bottom(Type):
    def __str__(self) -> str:
        return "bottom"


@dataclass(frozen=True)
class Unknown(Type):
    @property
    def differentiable(self) -> bool:
        return True

    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True)
class Float(Type):
    @property
    def differentiable(self) -> bool:
        return True

    @property
    def is_scalar(self) -> bool:
        return True

    def __str__(self) -> str:
        return "float"


@dataclass(frozen=True)
class Int(Type):
    @property
    def is_scalar(self) -> bool:
        return True

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class Bool(Type):
    @property
    def is_scalar(self) -> bool:
        return True

    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Array(Type):
    ndim: int | None = None
    kind: str | None = "f"  # numpy dtype kind, None when unknown
    shape: tuple[int, ...] | None = None  # known when specialised on argument shapes

    def __post_init__(self):
        if self.shape is not None and self.ndim is None:
            object.__setattr__(self, "ndim", len(self.shape))

    @property
    def differentiable(self) -> bool:
        return self.kind in ("f", None)

    def __str__(self) -> str:
        if self.shape is not None:
            return f"{_KIND_NAMES.get(self.kind, 'array')}[{', '.join(map(str, self.shape))}]"
        nd = "?" if self.ndim is None else str(self.ndim)
        return f"array{nd}{self.kind or '?'}"


_KIND_NAMES = {"f": "float", "i": "int", "u": "uint", "b": "bool"}


@dataclass(frozen=True)
class Num(Type):
    """A float or a float array: rank unknown."""

    @property
    def differentiable(self) -> bool:
        return True

    def __str__(self) -> str:
        return "num"


@dataclass(frozen=True)
class Tuple(Type):
    elts: tuple[Type, ...]
    fields: tuple[str, ...] | None = None  # a named tuple's field names (p.w is p[index of w])

    @property
    def differentiable(self) -> bool:
        return any(t.differentiable for t in self.elts)

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.elts)) + ("," if len(self.elts) == 1 else "") + ")"


@dataclass(frozen=True)
class List(Type):
    elt: Type

    @property
    def differentiable(self) -> bool:
        return self.elt.differentiable

    def __str__(self) -> str:
        return f"list[{self.elt}]"


@dataclass(frozen=True)
class Dict(Type):
    items: tuple[tuple[object, Type], ...]

    @property
    def differentiable(self) -> bool:
        return any(t.differentiable for _, t in self.items)

    def get(self, key: object) -> Type | None:
        for k, t in self.items:
            if k == key:
                return t
        return None

    def __str__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {t}" for k, t in self.items) + "}"


@dataclass(frozen=True)
class NoneT(Type):
    def __str__(self) -> str:
        return "None"


@dataclass(frozen=True)
class Str(Type):
    def __str__(self) -> str:
        return "str"


@dataclass(frozen=True)
class Opaque(Type):
    """A value that is not a number, array or container: `kind` is "inert" for values that
    cannot carry a derivative (a module, a function, a range, a slice, a string...), or the
    kind `value_kind` gives a value srcad does not know ("complex", "foreign", "object"),
    which a differentiated value may not meet."""

    what: str = "object"
    value: tuple | None = None  # a constant slice's (start, stop, step), for shape analysis
    kind: str = "inert"
    owner: str = ""  # the module of the value's class (logging for a Logger)

    @property
    def known(self) -> bool:
        return self.kind == "inert"

    def __str__(self) -> str:
        return self.what


class Fn(Opaque):
    """A function given as an argument (`act=np.tanh`, a user function, a lambda): code is
    specialised on the function itself, compared by identity, so that calls of it are
    resolved while transforming (its rule applied, or its body inlined)."""

    def __init__(self, obj: object):
        super().__init__(_function_name(obj))
        object.__setattr__(self, "obj", obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fn) and same_object(other.obj, self.obj)

    def __hash__(self) -> int:
        return hash(("Fn", self.what))


def same_object(a: object, b: object) -> bool:
    """The same object; or, for bound methods (a new object at every `obj.method`), the same
    function bound to the same object."""
    if a is b:
        return True
    if type(a).__name__ != "method" or type(b) is not type(a):
        return False
    return a.__func__ is b.__func__ and a.__self__ is b.__self__

    def __repr__(self) -> str:
        return f"Fn({self.what})"


def _function_name(obj: object) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__name__


def is_function_value(x: object) -> bool:
    """Is x a function srcad specialises code on when it is an argument (see Fn)?"""
    import functools
    import types

    import numpy as np

    t = type(x)
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
                      functools.partial)):
        return True
    return t.__name__ == "_ArrayFunctionDispatcher" or hasattr(t, "__srcad_transform__") or (
        t.__module__ == "srcad.custom")


BOTTOM, UNKNOWN, FLOAT, INT, BOOL, NUM = Bottom(), Unknown(), Float(), Int(), Bool(), Num()
NONE, STR = NoneT(), Str()
_INTEGRAL = (Bool, Int)


def _join_numeric(a: Type, b: Type) -> Type | None:
    """Join of two numeric types, or None when either is not numeric."""
    if isinstance(a, _INTEGRAL) and isinstance(b, _INTEGRAL):
        return INT
    if isinstance(a, (Float, Int, Bool)) and isinstance(b, (Float, Int, Bool)):
        return FLOAT
    if isinstance(a, Array) and isinstance(b, Array):
        ndim = a.ndim if a.ndim == b.ndim else None
        kind = a.kind if a.kind == b.kind else ("f" if "f" in (a.kind, b.kind) else None)
        return Array(ndim, kind, a.shape if a.shape == b.shape else None)
    numeric = (Float, Int, Bool, Array, Num)
    if isinstance(a, numeric) and isinstance(b, numeric):
        return NUM
    return None


def join(a: Type, b: Type) -> Type:
    """Least upper bound of two types."""
    if a == b or isinstance(b, Bottom):
        return a
    if isinstance(a, Bottom):
        return b
    num = _join_numeric(a, b)
    if num is not None:
        return num
    if isinstance(a, Tuple) and isinstance(b, Tuple) and len(a.elts) == len(b.elts):
        return Tuple(tuple(join(x, y) for x, y in zip(a.elts, b.elts)),
                     a.fields if a.fields == b.fields else None)
    if isinstance(a, List) and isinstance(b, List):
        return List(join(a.elt, b.elt))
    if isinstance(a, Dict) and isinstance(b, Dict) and [k for k, _ in a.items] == [
        k for k, _ in b.items
    ]:
        return Dict(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
    if isinstance(a, Fn) and isinstance(b, Fn):
        return Opaque("function")  # (two functions: which one is known only when the code runs)
    return UNKNOWN


def without_shapes(t: Type) -> Type:
    """The same type with array shapes forgotten (ranks kept)."""
    if isinstance(t, Array):
        return Array(t.ndim, t.kind)
    if isinstance(t, Tuple):
        return Tuple(tuple(without_shapes(e) for e in t.elts), t.fields)
    if isinstance(t, List):
        return List(without_shapes(t.elt))
    if isinstance(t, Dict):
        return Dict(tuple((k, without_shapes(v)) for k, v in t.items))
    return t


def shape_of(t: Type) -> tuple[int, ...] | None:
    """The exact shape of a value of type t: () for scalars, None when unknown."""
    if isinstance(t, (Float, Int, Bool)):
        return ()
    if isinstance(t, Array):
        return t.shape
    return None


def is_integral(t: Type) -> bool:
    """Ints, bools and integer or boolean arrays: values that are never differentiated."""
    return isinstance(t, _INTEGRAL) or (isinstance(t, Array) and t.kind in ("i", "u", "b"))


def of_value(x: object) -> Type:
    """The abstract type of a concrete Python value (used to specialise on arguments)."""
    import numpy as np  # local: ir/ must stay importable without touching numpy at import time

    if isinstance(x, bool) or isinstance(x, np.bool_):
        return BOOL
    if isinstance(x, (int, np.integer)):
        return INT
    if isinstance(x, (float, np.floating)):
        return FLOAT
    if type(x) is np.ndarray:
        return Array(x.ndim, x.dtype.kind, x.shape)
    if x is None:
        return NONE
    if isinstance(x, str):
        return STR
    if isinstance(x, tuple):
        fields = getattr(type(x), "_fields", None)
        return Tuple(tuple(of_value(e) for e in x), tuple(fields) if isinstance(fields, tuple) else None)
    if type(x) is list:
        elt: Type = BOTTOM
        for e in x:
            elt = join(elt, of_value(e))
        return List(elt)
    if isinstance(x, dict) and (type(x) is dict or type(x).__module__ == "collections"):
        return Dict(tuple((k, of_value(v)) for k, v in x.items()))
    if isinstance(x, slice) and all(isinstance(p, (int, type(None))) for p in (x.start, x.stop, x.step)):
        return Opaque("slice", (x.start, x.stop, x.step))
    if is_function_value(x):
        return Fn(x)
    return Opaque(type(x).__name__, kind=value_kind(x), owner=type(x).__module__ or "")


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
