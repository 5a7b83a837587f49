"""Abstract types of IR values: a small lattice used to specialise generated code.

A type says what a value is at run time as far as differentiation cares:

    Float            a Python float or NumPy floating scalar
    Int, Bool        never differentiated
    Array(ndim, k)   an ndarray of known or unknown rank; k is the dtype kind ('f', 'i', 'b', ...)
    Num              a float or a float array, we do not know which
    Tuple, List, Dict  containers (pytrees) of the above; a named tuple's Tuple knows its
                     class and field names (also srcad's stand-in for a dataclass or
                     registered class being differentiated, srcad/pytrees.py)
    NoneT, Str, Opaque  values that carry no derivative
    Object           an instance of a user's class that is not differentiated: its class
                     (whose methods srcad inlines) and the types of its data attributes
    Function         a function or class held in an object's attribute (self.act = np.tanh),
                     known while transforming
    Unknown          anything at all
    Bottom           no value yet (the initial value of a loop variable first bound in the loop)

`join` is the least upper bound used where control flow merges. Types never make code wrong:
a less precise type only costs a run-time check (say, reducing a broadcast cotangent).
"""

from __future__ import annotations

from dataclasses import dataclass

from .kinds import (  # noqa: F401 (T.value_kind, T.is_function_value...)
    BAKED_CODES,
    function_name,
    is_function,
    is_function_value,
    mark_baked,
    same_function,
    same_object,
    user_class,
    value_kind,
)


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
class _Number(Type):
    """A differentiable scalar (the base of Float and Complex, never a type itself)."""

    @property
    def differentiable(self) -> bool:
        return True

    @property
    def is_scalar(self) -> bool:
        return True


@dataclass(frozen=True)
class Float(_Number):
    def __str__(self) -> str:
        return "float"


@dataclass(frozen=True)
class Complex(_Number):
    def __str__(self) -> str:
        return "complex"


@dataclass(frozen=True)
class Int(Type):
    # the value of a module global int the code is specialised on (dispatch.py): a constant
    # folded into shapes (np.zeros(H) for H = 8); None for any int
    value: int | None = None

    @property
    def is_scalar(self) -> bool:
        return True

    def __str__(self) -> str:
        return "int" if self.value is None else f"int={self.value}"


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
        return self.kind in ("f", "c", None)

    def __str__(self) -> str:
        if self.shape is not None:
            return f"{_KIND_NAMES.get(self.kind, 'array')}[{', '.join(map(str, self.shape))}]"
        nd = "?" if self.ndim is None else str(self.ndim)
        return f"array{nd}{self.kind or '?'}"


_KIND_NAMES = {"f": "float", "i": "int", "u": "uint", "b": "bool", "c": "complex"}


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
    cls: type | None = None  # a named tuple's class (for its methods and isinstance)

    @property
    def differentiable(self) -> bool:
        return any(t.differentiable for t in self.elts)

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.elts)) + ("," if len(self.elts) == 1 else "") + ")"


@dataclass(frozen=True)
class List(Type):
    """A list of elements of type `elt`; `items`, for a list given to the function whose items
    are objects of several classes (`layers = [Conv(...), Pool(...), Dense(...)]`): the type of
    each (its length is known, a loop over it is unrolled and each item's methods resolved)."""

    elt: Type
    items: tuple[Type, ...] | None = None
    # a list of arrays built in the function (a display [a, b]): its items' exact shapes, for
    # the adjoint of joining them (passes/pieces.py); only srcad.list sets it (result_types.py)
    shapes: tuple[tuple[int, ...], ...] | None = None

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


@dataclass(frozen=True)
class Object(Opaque):
    """An instance of a user's class that is not differentiated (a layer, a model, a config):
    `cls` (methods and `__call__` are inlined from it) and `attrs`, the types of the data in
    its `__dict__` (`self.n_hidden`, `self.W`), read when the code runs. A differentiated
    value may not meet the object itself (its kind is "object"), only what is read out of it."""

    cls: type | None = None
    attrs: tuple[tuple[str, Type], ...] = ()
    # cls None: one of several objects, each of these types (Objects, or the Tuples of nodes
    # standing for differentiated objects); no options: one of them, or something else
    options: tuple[Type, ...] = ()
    nodes: bool = False  # (cls None) maybe a node standing for a differentiated object

    @property
    def differentiable(self) -> bool:
        return any(o.differentiable for o in self.options) or (self.nodes and not self.options)

    def attr(self, name: str) -> Type | None:
        for k, t in self.attrs:
            if k == name:
                return t
        return None


@dataclass(frozen=True)
class Function(Opaque):
    """A function or class held in an object's attribute (`self.act = np.tanh`): calls of it
    are resolved while transforming, as calls of functions named in the code are. Part of
    the dispatcher's key, so code is rebuilt when the attribute holds another function.

    The same concept as `Fn` (a function given as an argument), reached through an object:
    an argument's function is bound as a constant when the code is lowered (Fn), whereas an
    attribute's is only known while specialising, and two of them may meet (layers with
    different activations), so a Function may stand for one of several (`options`), told
    apart when the code runs (transforms/calls.py)."""

    fn: object = None
    options: tuple = ()  # (fn None) one of these functions (layers with different activations)


class Fn(Opaque):
    """A function given as an argument (`act=np.tanh`, a user function, a lambda): code is
    specialised on the function itself, compared by identity, so that calls of it are
    resolved while transforming (its rule applied, or its body inlined). A function held in
    an object's attribute is a `Function` instead (see there)."""

    def __init__(self, obj: object, shared: bool = False):
        super().__init__(function_name(obj))
        object.__setattr__(self, "obj", obj)
        object.__setattr__(self, "shared", shared)

    def __eq__(self, other: object) -> bool:
        """The same function; for the dispatcher's keys of functions given as arguments
        themselves (`shared`), also one made from the same code (kinds.same_function): the code
        reads their captured values from the argument (frontend/lower.py cell_sources)."""
        if not isinstance(other, Fn):
            return False
        if self.shared and other.shared:
            return same_function(other.obj, self.obj)
        return same_object(other.obj, self.obj)

    def __hash__(self) -> int:
        return hash(("Fn", self.what))

    def __repr__(self) -> str:
        return f"Fn({self.what})"


BOTTOM, UNKNOWN, FLOAT, INT, BOOL, NUM = Bottom(), Unknown(), Float(), Int(), Bool(), Num()
COMPLEX = Complex()
NONE, STR = NoneT(), Str()
_INTEGRAL = (Bool, Int)
_SCALARS = (Float, Int, Bool, Complex)
_NUMBERS = (Float, Int, Bool, Complex, Array, Num)


def is_complex(t: Type) -> bool:
    """A complex number or a complex array (Array kind "c")."""
    return isinstance(t, Complex) or (isinstance(t, Array) and t.kind == "c")


def as_complex(t: Type) -> Type:
    """The type of a value like one of type t, but complex: a float (int, bool) is a complex
    number, an array a complex array of its rank, Num a complex array of unknown rank;
    other types (Unknown) are themselves."""
    if isinstance(t, (Float, Int, Bool, Complex)):
        return COMPLEX
    if isinstance(t, Array):
        return Array(t.ndim, "c", t.shape)
    if isinstance(t, Num):
        return Array(None, "c")
    return t


def as_real(t: Type) -> Type:
    """The type of the real part of a value of type t (np.real, np.abs of a complex value)."""
    if isinstance(t, Complex):
        return FLOAT
    if isinstance(t, Array) and t.kind == "c":
        return Array(t.ndim, "f", t.shape)
    return t


def _join_numeric(a: Type, b: Type) -> Type | None:
    """Join of two numeric types, or None when either is not numeric. A complex type joined
    with another number is complex (a complex array of unknown rank when they differ in rank),
    so that a value that may be complex is never typed real."""
    if is_complex(a) or is_complex(b):
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Array(None, "c")  # (what is not known may be a number: never typed real)
        if not (isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS)):
            return None
        if isinstance(a, _SCALARS) and isinstance(b, _SCALARS):
            return COMPLEX
        if isinstance(a, Array) and isinstance(b, Array):
            return Array(a.ndim if a.ndim == b.ndim else None, "c", a.shape if a.shape == b.shape else None)
        return Array(None, "c")
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
    if isinstance(a, Tuple) and isinstance(b, Tuple) and len(a.elts) == len(b.elts) and (
            a.cls is b.cls or not (_is_node(a) or _is_node(b))):
        same = a.fields == b.fields and a.cls is b.cls
        return Tuple(tuple(join(x, y) for x, y in zip(a.elts, b.elts)),
                     a.fields if same else None, a.cls if same else None)
    if isinstance(a, List) and isinstance(b, List):
        return List(join(a.elt, b.elt))
    if isinstance(a, Dict) and isinstance(b, Dict) and [k for k, _ in a.items] == [
        k for k, _ in b.items
    ]:
        return Dict(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
    if isinstance(a, Fn) and isinstance(b, Fn):
        return Opaque("function")  # (two functions: which one is known only when the code runs)
    if isinstance(a, Object) and isinstance(b, Object) and a.cls is b.cls and a.cls is not None:
        same = [k for k, _ in a.attrs] == [k for k, _ in b.attrs]
        attrs = tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.attrs, b.attrs)) if same else ()
        return Object(a.what, kind=a.kind, cls=a.cls, attrs=attrs)
    if isinstance(a, Function) and isinstance(b, Function):
        fns = tuple(dict.fromkeys(_functions(a) + _functions(b)))  # (by identity)
        names = " | ".join(getattr(f, "__name__", "function") for f in fns)
        return Function(names, options=fns) if len(fns) <= MAX_OPTIONS else UNKNOWN
    if holds_nodes(a) or holds_nodes(b) or (_objects(a) is not None and _objects(b) is not None):
        return _mixed(a, b)
    return UNKNOWN


#: at most this many functions or classes a value may be one of (an `if` chain tells them apart)
MAX_OPTIONS = 8


def _functions(t: Function) -> tuple:
    return (t.fn,) if t.fn is not None else t.options


def _is_node(t: Type) -> bool:
    """Is t the type of a node standing for a differentiated object (srcad/pytrees.py)?"""
    return isinstance(t, Tuple) and hasattr(t.cls, "__srcad_struct__")


def holds_nodes(t: Type) -> bool:
    """May a value of type t be or hold nodes standing for differentiated objects?"""
    if isinstance(t, Tuple):
        return _is_node(t) or any(holds_nodes(e) for e in t.elts)
    if isinstance(t, List):
        return holds_nodes(t.elt)
    if isinstance(t, Dict):
        return any(holds_nodes(v) for _, v in t.items)
    return isinstance(t, Object) and t.nodes


def _objects(t: Type) -> tuple | None:
    """The types of the objects a value of type t is one of (None if it may be something else)."""
    if isinstance(t, Object):
        return (t,) if t.cls is not None else (t.options or None)
    return (t,) if _is_node(t) else None


def _mixed(a: Type, b: Type) -> Object:
    """The join of objects of different classes (each an option, transforms/calls.py tells
    them apart), or of a differentiated object and another value (then no options: it
    cannot be used, transforms/structs.py)."""
    oa, ob = _objects(a), _objects(b)
    options: list = list(oa or ())
    for o in ob or ():
        same = [k for k, e in enumerate(options) if type(e) is type(o) and e.cls is o.cls]
        if same:
            options[same[0]] = join(options[same[0]], o)
        else:
            options.append(o)
    if oa is None or ob is None or len(options) > MAX_OPTIONS:
        options = []
    names = [c.__name__ for c in (class_of(o) for o in options) if c is not None]
    nodes = holds_nodes(a) or holds_nodes(b)  # (differentiated objects: containers, not "object"s)
    return Object(" | ".join(names) or "object", kind="nodes" if nodes else "object", options=tuple(options),
                  nodes=nodes)


def without_shapes(t: Type) -> Type:
    """The same type with array shapes forgotten (ranks kept)."""
    if isinstance(t, Array):
        return Array(t.ndim, t.kind)
    if isinstance(t, Int):
        return INT  # (a global's value is forgotten with the shapes: rank-only code reads it)
    if isinstance(t, Tuple):
        return Tuple(tuple(without_shapes(e) for e in t.elts), t.fields, t.cls)
    if isinstance(t, List):
        items = None if t.items is None else tuple(without_shapes(i) for i in t.items)
        return List(without_shapes(t.elt), items)
    if isinstance(t, Dict):
        return Dict(tuple((k, without_shapes(v)) for k, v in t.items))
    if isinstance(t, Object):
        return Object(t.what, kind=t.kind, cls=t.cls, attrs=tuple((k, without_shapes(v)) for k, v in t.attrs),
                      options=tuple(without_shapes(o) for o in t.options), nodes=t.nodes)
    return t


def class_of(t: Type):
    """The class of every value of type t, when the type says it: an Object's, a named
    tuple's, or the class a node stands for (a differentiated object, srcad/pytrees.py)."""
    if isinstance(t, Object):
        return t.cls
    if isinstance(t, Tuple) and t.cls is not None:
        struct = getattr(t.cls, "__srcad_struct__", None)
        return struct.cls if struct is not None else t.cls
    return None


def shape_of(t: Type) -> tuple[int, ...] | None:
    """The exact shape of a value of type t: () for scalars, None when unknown."""
    if isinstance(t, (Float, Int, Bool, Complex)):
        return ()
    if isinstance(t, Array):
        return t.shape
    return None


def is_integral(t: Type) -> bool:
    """Ints, bools and integer or boolean arrays: values that are never differentiated."""
    return isinstance(t, _INTEGRAL) or (isinstance(t, Array) and t.kind in ("i", "u", "b"))
