"""The type gate: what may cross into and out of a transformation.

Every leaf of every value handed to a transformation (differentiated arguments, `jvp`
tangents, `vjp` cotangents, the outputs of a differentiated function and the cotangents a
`custom_vjp` rule returns) is classified here, once, into one kind, and one table says what
each kind means for each way a transformation asks for derivatives:

    named     you name the value: `argnums` of grad, value_and_grad, jacfwd, jacrev,
              hessian; a jvp or hvp tangent that is not None
    implicit  vjp's primals: vjp differentiates what can be differentiated
    (other arguments are constants and are passed through untouched)

    kind       example                                    named         implicit
    float      1.0, np.float32(1), float ndarray          derivative    derivative
    int        3, np.int64(3), int ndarray                as float64    constant (None)
    bool       True, bool ndarray                         error         constant (None)
    none       None                                       None          None
    inert      str, bytes, functions, modules             error         constant (None)
    complex    1j, complex ndarray                        error         error
    foreign    dask/CuPy/JAX/torch/array-API arrays       error         error
    object     anything else: dataclasses, namespaces,    error         error
               ndarray subclasses (np.matrix), pandas

Tuples (also named tuples), lists and dicts are containers: their leaves are classified in
turn, at any depth, and so are the children of dataclasses and of classes registered with
`srcad.register_pytree` (srcad/pytrees.py), which cross as nodes standing for the object.
Nothing of a kind srcad does not know is ever treated as a constant with a zero derivative.
"""

from __future__ import annotations

import numpy as np

from .errors import ArgumentError, Diagnostic, NonScalarOutputError, TypeSupportError
from .ir.kinds import array_library, own_protocol_tuple
from .ir.types import value_kind as leaf_kind
from .namespaces import as_float, refusal_hint, zeros_of
from .pytrees import children_of, is_node, is_struct, parts, to_node

NAMED, IMPLICIT = "named", "implicit"

#: kind -> (what a named leaf becomes, what an implicit leaf becomes)
POLICY = {
    "float": ("diff", "diff"),
    "int": ("promote", "const"),
    "bool": ("refuse", "const"),
    "none": ("const", "const"),
    "inert": ("refuse", "const"),
    "complex": ("refuse", "refuse"),
    "foreign": ("refuse", "refuse"),
    "object": ("refuse", "refuse"),
}

_HINTS = {
    "bool": "bools are not differentiable; pass the value as a float, or as another argument",
    "inert": "only floats, float arrays and containers of them are differentiated: pass this "
             "value as an argument that is not differentiated (not in argnums), or close over it",
    "complex": "srcad differentiates real values: split the real and imaginary parts into float "
               "arguments (z.real, z.imag)",
    "foreign": "srcad differentiates NumPy arrays: convert it first (np.asarray(x), or x.compute() "
               "for dask), or pass it as an argument that is not differentiated",
    "object": "srcad differentiates floats, NumPy float arrays and tuples, lists, dicts, dataclasses "
              "and named tuples of them: make the class a dataclass or register it with "
              "srcad.register_pytree(cls, flatten, unflatten), pass the numbers you differentiate as "
              "arguments (np.asarray(m) for an ndarray subclass), or keep the object out of argnums",
}

_STRUCT_HINT = ("a field of a differentiated dataclass must hold floats, arrays or containers of them: "
                "declare it static (dataclasses.field(metadata={'static': True})) to make it a constant")


def type_name(x) -> str:
    t = type(x)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", None) else f"{mod}.{t.__qualname__}"


def _describe(x, kind: str) -> str:
    if type(x) is np.ndarray:
        return f"a NumPy array of dtype {x.dtype}"
    if isinstance(x, np.ndarray):
        return f"a {type_name(x)} (an ndarray subclass, whose operators differ from ndarray's)"
    if kind == "object":
        extra = " (a dataclass)" if hasattr(type(x), "__dataclass_fields__") else ""
        return f"an object of type {type_name(x)}{extra}"
    if x is None:
        return "None"
    return f"a {type_name(x)}"


class Gate:
    """Admit values for one transformation call; errors name `what` (e.g. 'grad of loss')
    and the user's function."""

    def __init__(self, what: str, fn=None, reason: str = "it is in argnums"):
        self.what, self.fn, self.reason = what, fn, reason  # reason: why a named value is differentiated
        self.arrays = False  # are dask and CuPy arrays differentiated (grad, value_and_grad: namespaces.py)?

    def refuse(self, path: str, x, kind: str, how: str, hint: str = ""):
        msg = f"{self.what}: {path} is {_describe(x, kind)}, which srcad cannot differentiate ({how})"
        if kind == "foreign" and not hint:
            hint = refusal_hint(x)
        return TypeSupportError(msg, [self.where(msg, hint or _HINTS.get(kind, ""))])

    def where(self, msg: str, hint: str) -> Diagnostic:
        code = getattr(self.fn, "__code__", None)
        if code is None:
            return Diagnostic("<unknown>", 0, 0, msg, hint)
        return Diagnostic(code.co_filename, code.co_firstlineno, 0, msg, hint)

    def admit(self, x, request: str, path: str, in_struct: bool = False):
        """x with named int leaves promoted to float, and dataclasses and registered objects
        as nodes (srcad/pytrees.py); raises for leaves the policy refuses."""
        t = type(x)
        if t is float or (t is np.ndarray and x.dtype.kind == "f"):
            return x
        if is_struct(x) or is_node(x):
            return self._admit_object(x, request, path)
        if t is tuple or t is list:
            new = [self.admit(e, request, f"{path}[{i}]") for i, e in enumerate(x)]
            return x if all(a is b for a, b in zip(new, x)) else t(new)
        if t is dict:
            new = {k: self.admit(v, request, f"{path}[{k!r}]") for k, v in x.items()}
            return x if all(new[k] is v for k, v in x.items()) else new
        if isinstance(x, tuple) and hasattr(x, "_fields") and not own_protocol_tuple(t):  # a named tuple
            new = [self.admit(e, request, f"{path}.{f}") for f, e in zip(x._fields, x)]
            return x if all(a is b for a, b in zip(new, x)) else t(*new)
        if isinstance(x, dict) and t.__module__ == "collections":  # OrderedDict, defaultdict
            new = self.admit(dict(x), request, path)
            return x if all(new[k] is v for k, v in x.items()) else new
        return self._leaf(x, request, path, in_struct)

    def _admit_object(self, x, request: str, path: str):
        """A dataclass or registered object as a node of its admitted children (srcad/pytrees.py);
        a node (admitted again) with its children admitted, its constants kept."""
        if is_struct(x):
            return to_node(x, lambda name, c: self.admit(c, request, f"{path}.{name}", True))
        k, names = children_of(x), type(x)._fields
        new = [self.admit(e, request, f"{path}.{names[i] or i}", True) for i, e in enumerate(x[:k])]
        return x if all(a is b for a, b in zip(new, x)) else type(x)(*new, *x[k:])

    def _leaf(self, x, request: str, path: str, in_struct: bool = False):
        kind = leaf_kind(x)
        if kind in ("float", "int") and array_library(x) is not None and not self.arrays:
            kind = "foreign"  # (a dask or CuPy array where only NumPy arrays are differentiated)
        action = POLICY[kind][0 if request == NAMED else 1]
        if action == "refuse":
            how = self.reason if request == NAMED else "vjp differentiates every argument"
            hint = _STRUCT_HINT if in_struct and kind in ("bool", "inert") else ""
            raise self.refuse(path, x, kind, how, hint)
        if action == "promote":
            if array_library(x) is not None:  # (never computed here: the library converts it)
                return as_float(x)
            return np.asarray(x, dtype=np.float64) if isinstance(x, np.ndarray) else float(x)
        return x


def admit_arguments(gate: Gate, args: tuple, names, positions, request: str = NAMED) -> tuple:
    """args with the leaves of args[i], i in positions, admitted; the same tuple if nothing
    changed."""
    out = list(args)
    for i in positions:
        out[i] = gate.admit(args[i], request, _arg_name(names, i))
    return args if all(a is b for a, b in zip(out, args)) else tuple(out)


def _arg_name(names, i: int) -> str:
    return f"argument {names[i]}" if names and i < len(names) else f"argument {i}"


# -- tangents and cotangents ----------------------------------------------------------------


def _is_zero_int(t) -> bool:
    kind = leaf_kind(t)
    return kind in ("int", "bool") and not np.any(t)


def admit_tangent(gate: Gate, primal, tangent, path: str):
    """(primal, tangent) for one argument of jvp: the tangent checked against the primal's
    structure and shapes; an int primal leaf with a float tangent is promoted to float, one
    with no tangent (None, or an int zero) stays a constant. Returns (primal, tangent) with
    tangent None when no leaf is differentiated."""
    if tangent is None:
        return primal, None
    if is_struct(primal):
        primal = to_node(primal, lambda name, c: c)
    if is_node(primal):
        return _admit_node_tangent(gate, primal, tangent, path)
    if isinstance(primal, (tuple, list, dict)):
        return _admit_tangent_tree(gate, primal, tangent, path)
    kind = leaf_kind(primal)
    if kind in ("int", "bool") and _is_zero_int(tangent):
        return primal, None
    if kind == "bool":
        raise gate.refuse(path, primal, kind, "it has a tangent")
    primal = gate.admit(primal, NAMED, path)
    return primal, _tangent_leaf(gate, primal, tangent, f"the tangent of {path}")


def admit_tangents(gate: Gate, primals: tuple, tangents: tuple, names) -> tuple[tuple, tuple]:
    """admit_tangent for every argument of a jvp call."""
    pairs = [admit_tangent(gate, p, t, _arg_name(names, i))
             for i, (p, t) in enumerate(zip(primals, tangents))]
    return tuple(p for p, _ in pairs), tuple(t for _, t in pairs)


def _admit_tangent_tree(gate: Gate, primal, tangent, path: str):
    if isinstance(primal, dict):
        if not isinstance(tangent, dict) or list(tangent) != list(primal):
            raise ArgumentError(f"{gate.what}: the tangent of {path} does not have its structure "
                                f"(dict keys {list(primal)})")
        pairs = [admit_tangent(gate, primal[k], tangent[k], f"{path}[{k!r}]") for k in primal]
        new_primal = {k: p for k, (p, _) in zip(primal, pairs)}
        if not any(t is not None for _, t in pairs):
            return new_primal, None
        return new_primal, {k: t if t is not None else zero_tangent(p) for k, (p, t) in zip(primal, pairs)}
    if not isinstance(tangent, (tuple, list)) or len(tangent) != len(primal):
        raise ArgumentError(f"{gate.what}: the tangent of {path} does not have its structure "
                            f"(a {type(primal).__name__} of length {len(primal)})")
    pairs = [admit_tangent(gate, p, t, f"{path}[{i}]") for i, (p, t) in enumerate(zip(primal, tangent))]
    rebuild = type(primal) if not hasattr(primal, "_fields") else (lambda xs: type(primal)(*xs))
    new_primal = rebuild([p for p, _ in pairs])
    if not any(t is not None for _, t in pairs):
        return new_primal, None
    return new_primal, rebuild([t if t is not None else zero_tangent(p) for p, t in pairs])


def _children_like(gate: Gate, node, x, what: str) -> tuple:
    """The children of x, a tangent or cotangent given for a node: an object of the class
    the node stands for, a node of the same class, or a tuple of children."""
    k = children_of(node)
    if is_struct(x):
        cls = type(node).__srcad_struct__.cls
        if type(x) is not cls:
            raise ArgumentError(f"{gate.what}: {what} is a {type(x).__qualname__}, but it should be a "
                                f"{cls.__qualname__}")
        x = tuple(parts(x)[0])
    elif type(x) is type(node):
        x = tuple(x[:k])
    if not isinstance(x, (tuple, list)) or len(x) != k:
        raise ArgumentError(f"{gate.what}: {what} does not have the structure of a "
                            f"{type(node).__srcad_struct__.cls.__qualname__}")
    return tuple(x)


def _admit_node_tangent(gate: Gate, primal, tangent, path: str):
    """admit_tangent of a node (a differentiated object): its children in turn; its
    constants are kept, in the tangent too."""
    k, names = children_of(primal), type(primal)._fields
    tangent = _children_like(gate, primal, tangent, f"the tangent of {path}")
    pairs = [admit_tangent(gate, p, t, f"{path}.{names[i] or i}")
             for i, (p, t) in enumerate(zip(primal[:k], tangent))]
    rebuild = type(primal)
    new_primal = rebuild(*[p for p, _ in pairs], *primal[k:])
    if not any(t is not None for _, t in pairs):
        return new_primal, None
    return new_primal, rebuild(*[t if t is not None else zero_tangent(p) for p, t in pairs], *primal[k:])


def zero_tangent(primal):
    """A zero tangent of primal's structure: zeros for float leaves, None for the others."""
    if is_node(primal):
        k = children_of(primal)
        return type(primal)(*[zero_tangent(v) for v in primal[:k]], *primal[k:])
    if isinstance(primal, dict):
        return {k: zero_tangent(v) for k, v in primal.items()}
    if isinstance(primal, (tuple, list)):
        items = [zero_tangent(v) for v in primal]
        return type(primal)(*items) if hasattr(primal, "_fields") else type(primal)(items)
    if leaf_kind(primal) != "float":
        return None
    return np.zeros(np.shape(primal)) if isinstance(primal, np.ndarray) else 0.0


def _tangent_leaf(gate: Gate, primal, t, what: str, of: str = "the argument"):
    """A tangent (or cotangent) leaf for a float primal leaf: float64 of the primal's shape."""
    if primal is None:
        return None
    if array_library(primal) is not None:  # (dask, CuPy, array API: srcad/namespaces.py)
        return _library_tangent(gate, primal, t, what, of)
    if t is None:
        return np.zeros(np.shape(primal)) if isinstance(primal, np.ndarray) else 0.0
    kind = leaf_kind(t)
    if kind not in ("float", "int"):
        if kind == "bool":
            kind = "object"
        raise gate.refuse(what, t, kind, "tangents and cotangents must be real floats")
    if np.shape(t) != np.shape(primal):
        raise ArgumentError(f"{gate.what}: {what} has shape {np.shape(t)}, but {of} has shape "
                            f"{np.shape(primal)}")
    if isinstance(primal, np.ndarray):
        return t if type(t) is np.ndarray and t.dtype.kind == "f" else np.asarray(t, dtype=np.float64)
    return float(t) if type(t) is not float else t


def _library_tangent(gate: Gate, primal, t, what: str, of: str):
    """The tangent of an array of another library: an array of that library of its shape (zeros
    of it for None), never converted."""
    if t is None:
        return zeros_of(primal)
    if np.ndim(primal) == 0 and type(t) in (float, int):  # (the cotangent of a scalar output)
        return float(t)
    if array_library(t) != array_library(primal) or leaf_kind(t) not in ("float", "int"):
        raise gate.refuse(what, t, "foreign", f"the tangent of a {array_library(primal)} array must be one "
                          "too, of real floats")
    if tuple(np.shape(t)) != tuple(np.shape(primal)):
        raise ArgumentError(f"{gate.what}: {what} has shape {tuple(np.shape(t))}, but {of} has shape "
                            f"{tuple(np.shape(primal))}")
    return t if leaf_kind(t) == "float" else as_float(t)


def admit_cotangent(gate: Gate, out, ct, path: str = "the cotangent"):
    """A vjp cotangent checked against the output `out` (structure, shapes, real floats)."""
    if is_node(out):
        k = children_of(out)
        cts = _children_like(gate, out, ct, path)
        items = [admit_cotangent(gate, o, c, f"{path}.{type(out)._fields[i] or i}")
                 for i, (o, c) in enumerate(zip(out[:k], cts))]
        return type(out)(*items, *out[k:])
    if isinstance(out, (tuple, list, dict)):
        if isinstance(out, dict):
            if not isinstance(ct, dict) or list(ct) != list(out):
                raise ArgumentError(f"{gate.what}: {path} does not have the output's structure "
                                    f"(dict keys {list(out)})")
            return {k: admit_cotangent(gate, out[k], ct[k], f"{path}[{k!r}]") for k in out}
        if not isinstance(ct, (tuple, list)) or len(ct) != len(out):
            raise ArgumentError(f"{gate.what}: {path} does not have the output's structure "
                                f"(a {type(out).__name__} of length {len(out)})")
        items = [admit_cotangent(gate, o, c, f"{path}[{i}]") for i, (o, c) in enumerate(zip(out, ct))]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    kind = leaf_kind(out)
    if kind in ("int", "bool", "none", "inert"):
        return ct  # no derivative flows into it
    return _tangent_leaf(gate, out, ct, path, "the output")


def check_output(gate: Gate, out, loc=None, path: str = "the output", none: bool = True):
    """The outputs of jvp, vjp, jacfwd and jacrev: real floats (ints, bools and None carry no
    derivative); strings and objects are a NonScalarOutputError, complex values and arrays
    of other libraries a TypeSupportError, at the user's return line `loc`."""
    if is_node(out):  # (its children: the rest are constants)
        out = tuple(out[:children_of(out)])
    elif is_struct(out):
        out = tuple(parts(out)[0])
    if isinstance(out, (tuple, list)):
        for i, o in enumerate(out):
            check_output(gate, o, loc, f"{path}[{i}]", none)
        return
    if isinstance(out, dict):
        for k, o in out.items():
            check_output(gate, o, loc, f"{path}[{k!r}]", none)
        return
    kind = leaf_kind(out)
    if kind in ("float", "int", "bool") or kind == "none" and none:
        return
    msg = f"{gate.what}: {path} is {_describe(out, kind)}; a differentiated output must be real floats"
    hint = ("return numbers or NumPy arrays (and tuples, lists and dicts of them); pass other "
            "values out with has_aux=True")
    where = Diagnostic(loc.file, loc.line, loc.col, msg, hint) if loc is not None else gate.where(msg, hint)
    cls = TypeSupportError if kind in ("complex", "foreign") else NonScalarOutputError
    raise cls(msg, [where])


def shaped_like(ct, primal):
    """A cotangent in the structure of its primal: a list (or tuple) argument that NumPy code
    used as an array gets its array cotangent back as a list (tuple) of floats."""
    if isinstance(primal, (list, tuple)):
        if isinstance(ct, np.ndarray) and ct.shape[:1] == (len(primal),):
            items = [shaped_like(c, p) for c, p in zip(ct, primal)]
        elif isinstance(ct, (list, tuple)) and len(ct) == len(primal):
            items = [shaped_like(c, p) for c, p in zip(ct, primal)]
            if all(a is b for a, b in zip(items, ct)) and type(ct) is type(primal):
                return ct
        else:
            return ct
        return type(primal)(*items) if hasattr(primal, "_fields") else type(primal)(items)
    if isinstance(primal, dict) and isinstance(ct, dict):
        return {k: shaped_like(ct[k], v) for k, v in primal.items()} if set(ct) == set(primal) else ct
    if isinstance(primal, (float, int)) and isinstance(ct, np.ndarray) and ct.shape == ():
        return float(ct)
    return ct
