"""The abstract type of a concrete Python value (`of_value`): what the dispatcher
specialises code on, for arguments and for the globals and attributes a function reads."""

from __future__ import annotations

from .kinds import (
    array_library,
    dtype_kind,
    is_function,
    is_function_value,
    own_protocol_tuple,
    user_class,
    value_kind,
)
from .types import (
    BOOL,
    BOTTOM,
    COMPLEX,
    FLOAT,
    INT,
    NONE,
    STR,
    Array,
    Dict,
    Fn,
    Function,
    List,
    Object,
    Opaque,
    Tuple,
    Type,
    Unknown,
    join,
)


def of_value(x: object, path: tuple = ()) -> Type:
    """The abstract type of a concrete Python value (used to specialise on arguments);
    `path`: the ids of the objects it is reached through (see _object_type)."""
    import numpy as np  # local: ir/ must stay importable without touching numpy at import time

    if isinstance(x, bool) or isinstance(x, np.bool_):
        return BOOL
    if isinstance(x, (int, np.integer)):
        return INT
    if isinstance(x, (float, np.floating)):
        return FLOAT
    if isinstance(x, (complex, np.complexfloating)):
        return COMPLEX
    if type(x) is np.ndarray:
        return Array(x.ndim, x.dtype.kind, tuple(int(n) for n in x.shape))
    if array_library(x) is not None:  # (dask, CuPy, array-API namespaces: srcad/namespaces.py)
        return Array(x.ndim, dtype_kind(x), tuple(int(n) for n in x.shape))
    if x is None:
        return NONE
    if isinstance(x, str):
        return STR
    if isinstance(x, tuple) and own_protocol_tuple(type(x)):
        return Opaque(type(x).__name__, kind="object", owner=type(x).__module__ or "")  # (its own protocol)
    if isinstance(x, tuple):
        fields = getattr(type(x), "_fields", None)
        named = isinstance(fields, tuple) and len(fields) == len(x)
        inner = path + (id(x),) if named else path  # (a function in a field is known: T.Function)
        return Tuple(tuple(of_value(e, inner) for e in x), tuple(fields) if named else None,
                     type(x) if named else None)
    if type(x) is list:
        elt: Type = BOTTOM
        items = tuple(of_value(e, path) for e in x)
        for e in items:
            elt = join(elt, e)
        return List(elt, items if _joins_lossily(elt, items) else None)
    if isinstance(x, dict) and (type(x) is dict or type(x).__module__ == "collections"):
        return Dict(tuple((k, of_value(v, path)) for k, v in x.items()))
    if isinstance(x, slice) and all(isinstance(p, (int, type(None))) for p in (x.start, x.stop, x.step)):
        return Opaque("slice", (x.start, x.stop, x.step))
    if user_class(type(x)):  # (an instance of the user's class: value_kind would say "object")
        return _object_type(x, path)
    kind = value_kind(x)
    if kind == "inert" and path and is_function(x):  # (in an object's attribute)
        return Function(type(x).__name__, fn=x)
    if is_function_value(x):  # (an argument, or in a tuple, list or dict)
        return Fn(x)
    return Opaque(type(x).__name__, kind=kind, owner=type(x).__module__ or "")


#: how deep objects reached through objects are typed (deeper objects, and an object met
#: again on the way, as in self.parent.child, are typed without their attributes)
OBJECT_DEPTH = 4


def _joins_lossily(elt: Type, items: tuple) -> bool:
    """Does the element type of a list given to the function lose what its items are (objects
    of several classes; arrays of several shapes, `[W, b]`; functions), so that it keeps them
    (List.items)?"""
    if isinstance(elt, Object):
        return elt.cls is None and bool(elt.options)
    if isinstance(elt, (Opaque, Unknown)) and 1 < len(items) <= 32 and all(isinstance(i, Fn) for i in items):
        return True  # (functions: `acts = [np.tanh, sq]`; three or more join into unknown)
    return isinstance(elt, Array) and elt.shape is None and 1 < len(items) <= 32 and all(
        isinstance(i, Array) and i.shape is not None for i in items)


def _object_type(x: object, path: tuple) -> Type:
    """The type of an instance of a user's class: its class and its data attributes'
    types (those in its `__dict__`: reading a property could run code)."""
    cls = type(x)
    d = getattr(x, "__dict__", None)
    if len(path) >= OBJECT_DEPTH or id(x) in path or type(d) is not dict:
        return Object(cls.__name__, kind="object", owner=cls.__module__ or "", cls=cls)
    inner = path + (id(x),)
    attrs = tuple((k, of_value(v, inner)) for k, v in d.items() if type(k) is str)
    return Object(cls.__name__, kind="object", owner=cls.__module__ or "", cls=cls, attrs=attrs)
