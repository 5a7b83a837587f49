"""The types of an operation's results, from its rule's type function and its typed
arguments: the exact shapes analysis/shapes.py finds, the kind a dtype= argument sets, and
the types of the globals and attributes a function reads (the dispatcher's `free_types`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..analysis.reads import read_key
from ..analysis.shapes import infer, refine
from ..ir import types as T
from ..ir.nodes import Atom, Const, Ext, atom_type
from ..rules import registry


def out_types(rule, args, kw, nouts: int, free_types: dict | None = None, read=None,
              items=None) -> tuple[T.Type, ...]:
    """The types of the results of `rule` applied to typed arguments (`read`: what a
    srcad.getattr reads, analysis/reads.py; `items(a)`: a list built in the function as the
    tuple of its items' types, or None, for the rules whose shape reads them: `item_shapes`)."""
    if rule.name in ("srcad.global", "srcad.cell"):
        key = (rule.name, id(args[0].value.obj), args[-1].value if rule.name == "srcad.global" else "")
        return ((free_types or {}).get(key, T.UNKNOWN),)
    if rule.name == "srcad.getattr" and read is not None:
        return ((free_types or {}).get(read_key(read), T.UNKNOWN),)
    if rule.name in ("srcad.tuple", "srcad.list", "srcad.named_tuple"):  # (a named tuple's class first)
        named = rule.name == "srcad.named_tuple" and isinstance(args[0], Const)
        consts = {"0": args[0].value} if named else {}
        sig = registry.Sig(rule, {str(i): atom_type(a) for i, a in enumerate(args)}, consts)
    elif rule.name == "srcad.dict":
        pairs = tuple((args[i].value, atom_type(args[i + 1])) for i in range(0, len(args), 2))
        return (T.Dict(pairs),)
    else:
        sig = registry.call_types(rule, args, kw, atom_type, const_value)
    if rule.out is None or nouts == 0:
        return (T.UNKNOWN,) * nouts
    out = rule.out(sig)
    out = out if isinstance(out, tuple) else (out,)
    # shapes come only from analysis/shapes.py: a type function passing an input's type
    # through (x.T, transpose...) must not carry its shape along
    containers = (T.Tuple, T.List, T.Dict)
    keep = rule.structural or (args and isinstance(atom_type(args[0]), containers))
    out = tuple(refine(rule, sig, t if keep else T.without_shapes(t)) for t in out)
    if rule.item_shapes and items is not None and len(out) == 1:
        out = (_joined_shape(rule, args, kw, out[0], items),)
    if rule.list_shapes and args:
        out = (_with_item_shapes(out[0], rule, args, kw),)
    elif rule.name not in ("srcad.tuple", "operator.getitem"):
        out = tuple(_without_item_shapes(t) for t in out)  # (a list changed or made otherwise)
    if "dtype" in rule.params:
        out = tuple(_with_dtype(t, registry.bind(rule, args, kw).get("dtype")) for t in out)
    if rule.complex == "real":
        out = tuple(T.as_real(t) for t in out)
    elif rule.complex != "typed" and _complex_operand(rule, args, kw):
        out = tuple(_promoted(t, rule.complex == "keeps") for t in out)
    return tuple(out[:nouts]) + (T.UNKNOWN,) * (nouts - len(out))


def _joined_shape(rule, args, kw, out: T.Type, items) -> T.Type:
    """`out` with the exact shape of joining the items of a list built in the function."""
    if not isinstance(out, T.Array) or out.shape is not None:
        return out
    sig = registry.call_types(rule, args, kw, lambda a: items(a) or atom_type(a), const_value)
    shape = infer(rule, sig)
    if shape is None or (out.ndim is not None and out.ndim != len(shape)):
        return out
    return T.Array(len(shape), out.kind, shape)


def _with_item_shapes(t: T.Type, rule, args, kw) -> T.Type:
    """The list `t` with its items' exact shapes (rule.list_shapes), or without any."""
    if not isinstance(t, T.List):
        return t
    if rule.list_shapes == "*":  # a list display
        shapes = tuple(T.shape_of(atom_type(a)) if isinstance(atom_type(a), T.Array) else None for a in args)
    elif "+" in rule.list_shapes:  # xs.append(v): xs's items, then v
        bound = registry.bind(rule, args, kw)
        xs, v = (atom_type(bound.get(k, Const(None))) for k in rule.list_shapes.split("+"))
        exact = isinstance(v, T.Array) and v.shape is not None and None not in v.shape
        known = isinstance(xs, T.List) and xs.shapes is not None and exact
        shapes = xs.shapes + (v.shape,) if known else None
    else:  # split_like(c, arrays): shaped like arrays; array_adjoint(v, x): like the list v
        bound = registry.bind(rule, args, kw)
        source = atom_type(bound[rule.list_shapes]) if rule.list_shapes in bound else None
        shapes = source.shapes if isinstance(source, T.List) else None
        others = [atom_type(a) for k, a in bound.items() if k != rule.list_shapes]
        if any(_splits_further(o) for o in others):
            shapes = None  # (array_adjoint(v, x) of an x holding lists splits v further)
    if not shapes or None in shapes:
        return dataclasses.replace(t, shapes=None)
    return dataclasses.replace(t, shapes=shapes)


def _splits_further(t: T.Type) -> bool:
    """Might an operand of this type make items that are not arrays of the list's shapes (a
    scalar zero cotangent, a list of lists)?"""
    if isinstance(t, T.List):
        return not isinstance(t.elt, T.Array)
    if isinstance(t, T.Tuple):
        return not all(isinstance(e, T.Array) for e in t.elts)
    return isinstance(t, (T.Float, T.Num, T.Unknown))


def _without_item_shapes(t: T.Type) -> T.Type:
    if isinstance(t, T.List):
        return dataclasses.replace(t, elt=_without_item_shapes(t.elt), shapes=None)
    if isinstance(t, T.Tuple):
        return dataclasses.replace(t, elts=tuple(_without_item_shapes(e) for e in t.elts))
    return t


def literal_shape(t: T.Type, depth: int) -> tuple | None:
    """The shape of the array NumPy makes of a value of type t (a nested tuple type of known
    items: the type of a list built in the function, Specializer.item_types), if its rank is
    `depth`; None when it cannot be sure."""
    shape = _nested_shape(t)
    return shape if shape is not None and len(shape) == depth else None


def _nested_shape(t: T.Type) -> tuple | None:
    if isinstance(t, (T.Float, T.Int, T.Bool)):
        return ()
    if isinstance(t, T.Array):
        return t.shape
    if not isinstance(t, T.Tuple) or not t.elts:
        return None
    inner = {_nested_shape(e) for e in t.elts}
    if len(inner) != 1 or None in inner:
        return None
    return (len(t.elts),) + inner.pop()


def _complex_operand(rule, args, kw) -> bool:
    """Does a call have a complex operand (a complex number or array, or a list or tuple
    holding one that NumPy reads as an array)? Indexing a container gives its item's type."""
    operands = list(args) + [a for _, a in kw]
    if rule.name == "operator.getitem" and args and isinstance(atom_type(args[0]), (T.Tuple, T.List, T.Dict)):
        operands = operands[1:]
    return any(_may_be_complex(atom_type(a)) for a in operands)


def _may_be_complex(t: T.Type) -> bool:
    if isinstance(t, T.Tuple):
        return any(_may_be_complex(e) for e in t.elts)
    if isinstance(t, T.List):
        return _may_be_complex(t.elt)
    if isinstance(t, T.Dict):
        return any(_may_be_complex(v) for _, v in t.items)
    return T.is_complex(t)


def _promoted(t: T.Type, keeps: bool) -> T.Type:
    """A result type of an operation with a complex operand: complex, except an int or bool (a
    comparison, an index) of a rule that is not complex-correct (a complex-correct rule that
    keeps complex values makes only complex numbers of them, whatever its type function says:
    a type must never say real of a value that may be complex); the numbers in a list or
    tuple likewise."""
    if isinstance(t, (T.Float, T.Num)) or (isinstance(t, T.Array) and t.kind in ("f", None)):
        return T.as_complex(t)
    if keeps and (isinstance(t, (T.Int, T.Bool)) or isinstance(t, T.Array)):
        return T.as_complex(t)
    if keeps and isinstance(t, T.Unknown):
        return T.Array(None, "c")  # (a number or an array: complex-correct rules make no others)
    if isinstance(t, T.Tuple):
        return T.Tuple(tuple(_promoted(e, keeps) for e in t.elts), t.fields, t.cls)
    if isinstance(t, T.List):
        items = None if t.items is None else tuple(_promoted(e, keeps) for e in t.items)
        return T.List(_promoted(t.elt, keeps), items)
    return t


def _with_dtype(t: T.Type, a) -> T.Type:
    """A result type with the kind its dtype= argument gives: x.astype(int) is an int array,
    never differentiated."""
    kind = _dtype_kind(a)
    if kind == "c":  # (np.zeros(n, dtype=complex))
        return T.as_complex(t)
    if kind is None or kind not in "fiub":
        return t
    if isinstance(t, T.Array):
        return T.Array(t.ndim, kind, t.shape)
    if isinstance(t, (T.Float, T.Int, T.Bool, T.Num)):
        return T.FLOAT if kind == "f" else (T.BOOL if kind == "b" else T.INT)
    return t


def _dtype_kind(a) -> str | None:
    """The NumPy kind ('f', 'i', 'b'...) a dtype= argument names, or None if not known."""
    if not isinstance(a, Const) or a.value is None:
        return None
    value = a.value.obj if isinstance(a.value, Ext) else a.value
    try:
        return np.dtype(value).kind
    except TypeError:
        return None


def const_value(a: Atom):
    if isinstance(a, Const) and not isinstance(a.value, Ext):
        return a.value
    return registry.NOT_CONST
