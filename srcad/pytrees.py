"""Objects as containers of differentiated values ("pytrees"): dataclasses, and any class
registered with `srcad.register_pytree(cls, flatten, unflatten)`.

    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Params:
    ...     w: float
    ...     b: float
    >>> node = to_node(Params(1.0, 2.0), lambda name, child: child)
    >>> node, restore(node)
    (Params*(1.0, 2.0), Params(w=1.0, b=2.0))

A dataclass's fields are its children, except fields declared static
(`dataclasses.field(metadata={"static": True})`, as equinox and flax spell it), which are
constants. A registered class's children are what its `flatten(obj) -> (children, aux)`
returns, and `unflatten(aux, children)` builds an object from them, as in JAX's
`register_pytree_node`.

Inside generated code, a differentiated object is a stand-in: a named tuple of its children
(a *node*, whose class says which class it stands for), so that every transformation treats
it as it treats tuples. The transform reads `p.w` as the child named w (for a registered
class: the attribute that is the child, found by identity), and the object's literal
attributes that are not children (`self.activation = "tanh"`, a static field) as constants,
part of the node's class and so of the code's key. Gradients, tangents and outputs are
turned back into the class at the boundary (`restore`).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from typing import Any

from .errors import ArgumentError
from .ir import types as T

_REGISTRY: dict = {}  # class -> (flatten, unflatten)


def register_pytree(cls: type, flatten: Callable[[Any], tuple], unflatten: Callable[..., Any]) -> None:
    """Let srcad differentiate instances of `cls` as containers: `flatten(obj)` returns
    `(children, aux)` (children: a sequence of floats, arrays or other pytrees; aux: hashable
    data that is not differentiated), and `unflatten(aux, children)` builds an object.
    Returns cls, so that it also works as a class decorator's helper."""
    if not isinstance(cls, type) or issubclass(cls, (tuple, list, dict)):
        raise ArgumentError(f"register_pytree: {cls!r} is not a class (tuples, lists and dicts are "
                            "containers already)")
    if not callable(flatten) or not callable(unflatten):
        raise ArgumentError("register_pytree(cls, flatten, unflatten): flatten and unflatten must be "
                            "functions")
    _REGISTRY[cls] = (flatten, unflatten)
    return cls


def registered(cls) -> bool:
    return cls in _REGISTRY


def is_struct(x) -> bool:
    """Is x an object srcad differentiates as a container (a dataclass instance, or an
    instance of a registered class; named tuples are tuples already)?"""
    t = type(x)
    return t in _REGISTRY or (hasattr(t, "__dataclass_fields__") and not isinstance(x, (type, tuple)))


@dataclasses.dataclass(frozen=True)
class Struct:
    """What a node stands for: the class, the aux data of a registered class, and how many
    of the node's items are children (the rest are constants: static fields, a registered
    object's literal attributes)."""

    cls: type
    aux: object = None
    children: int = 0

    def rebuild(self, names: tuple, items: list):
        """An instance of the class with these items (children, then constants)."""
        if self.cls in _REGISTRY:
            return _REGISTRY[self.cls][1](self.aux, items[: self.children])
        obj = object.__new__(self.cls)  # (a gradient need not satisfy __init__'s checks)
        for name, value in zip(names, items):
            object.__setattr__(obj, name, value)
        return obj


def _static(f: dataclasses.Field) -> bool:
    return f.metadata.get("static") is True or f.metadata.get("pytree_node") is False


def _constant(v) -> bool:
    """Can a registered object's attribute that is not a child be read as a constant?"""
    if isinstance(v, tuple):
        return all(_constant(e) for e in v)
    return v is None or type(v) in (bool, int, str) or T.is_function(v)


def parts(x) -> tuple[list, tuple, list, Struct]:
    """(children, names, constants, Struct) of a dataclass or registered object: `names`
    names the children (a registered class's child that no attribute holds: "") and then
    the constants."""
    t = type(x)
    if t in _REGISTRY:
        children, aux = _REGISTRY[t][0](x)
        children = list(children)
        attrs = dict(vars(x)) if isinstance(getattr(x, "__dict__", None), dict) else {}
        fields = _names_by_identity(children, attrs)
        statics = [(k, v) for k, v in attrs.items() if k not in fields and _constant(v) and type(k) is str]
        try:
            hash(aux)
        except TypeError:
            raise ArgumentError(f"the aux data that flatten returns for {t.__qualname__} must be hashable "
                                f"(as in JAX): got {aux!r}") from None
    else:
        fs = dataclasses.fields(x)
        fields = tuple(f.name for f in fs if not _static(f))
        children = [getattr(x, n) for n in fields]
        statics, aux = [(f.name, getattr(x, f.name)) for f in fs if _static(f)], None
    names = tuple(fields) + tuple(k for k, _ in statics)
    return children, names, [v for _, v in statics], Struct(t, aux, len(children))


def _names_by_identity(children: list, attrs: dict) -> tuple:
    """The attribute holding each child ("" when none holds exactly that object)."""
    names, used = [], set()
    for c in children:
        found = [k for k, v in attrs.items() if v is c and k not in used and type(k) is str]
        names.append(found[0] if len(found) == 1 else "")
        used.update(found[:1])
    return tuple(names)


_NODE_CLASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # class -> {key: node class}


def node_class(struct: Struct, names: tuple) -> type:
    """The class of the nodes standing for objects of struct.cls with these items (made once
    per combination, so that code keyed by it is reused)."""
    per_class = _NODE_CLASSES.setdefault(struct.cls, {})
    key = (names, struct.aux, struct.children)
    got = per_class.get(key)
    if got is None:
        got = per_class[key] = type(f"{struct.cls.__name__}*", (_Node,), {
            "__slots__": (), "_fields": names, "_srcad_children": struct.children,
            "__srcad_struct__": struct, "__module__": __name__})
    return got


class _Node(tuple):
    """A named tuple of an object's children and constants (named tuples are rebuilt as
    `type(x)(*items)`)."""

    __slots__ = ()
    _fields: tuple = ()

    def __new__(cls, *items):
        return tuple.__new__(cls, items)

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self))})"


def is_node(x) -> bool:
    return isinstance(x, _Node)


def children_of(node) -> int:
    """How many of a node's items are children (the others are constants)."""
    return type(node).__srcad_struct__.children


def to_node(x, child):
    """The node standing for the object x; child(name, value) admits each child."""
    children, names, statics, struct = parts(x)
    labels = [n or f"<child {i}>" for i, n in enumerate(names)]
    return node_class(struct, names)(*[child(n, c) for n, c in zip(labels, children)], *statics)


def restore(x):
    """x with every node (also inside tuples, lists and dicts) turned back into the class it
    stands for. (Derivatives' nodes keep the constants of their primal's: runtime/cotangents.py
    keeps the items of a node past its children.)"""
    t = type(x)
    if isinstance(x, _Node):
        k = t.__srcad_struct__.children
        return t.__srcad_struct__.rebuild(t._fields, [restore(c) for c in x[:k]] + list(x[k:]))
    if t is tuple or t is list or (isinstance(x, tuple) and hasattr(x, "_fields")):
        items = [restore(e) for e in x]
        if all(a is b for a, b in zip(items, x)):
            return x
        return t(*items) if t is not tuple and t is not list else t(items)
    if t is dict:
        items = {k: restore(v) for k, v in x.items()}
        return x if all(items[k] is v for k, v in x.items()) else items
    return x
