"""The types of an operation's results, from its rule's type function and its typed
arguments: the exact shapes analysis/shapes.py finds, the kind a dtype= argument sets, and
the types of the globals and attributes a function reads (the dispatcher's `free_types`)."""

from __future__ import annotations

import numpy as np

from ..analysis.reads import read_key
from ..analysis.shapes import refine
from ..ir import types as T
from ..ir.nodes import Atom, Const, Ext, atom_type
from ..rules import registry


def out_types(rule, args, kw, nouts: int, free_types: dict | None = None, read=None) -> tuple[T.Type, ...]:
    """The types of the results of `rule` applied to typed arguments (`read`: what a
    srcad.getattr reads, analysis/reads.py)."""
    if rule.name in ("srcad.global", "srcad.cell"):
        key = (rule.name, id(args[0].value.obj), args[-1].value if rule.name == "srcad.global" else "")
        return ((free_types or {}).get(key, T.UNKNOWN),)
    if rule.name == "srcad.getattr" and read is not None:
        return ((free_types or {}).get(read_key(read), T.UNKNOWN),)
    if rule.name in ("srcad.tuple", "srcad.list"):
        sig = registry.Sig(rule, {str(i): atom_type(a) for i, a in enumerate(args)}, {})
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
    if "dtype" in rule.params:
        out = tuple(_with_dtype(t, registry.bind(rule, args, kw).get("dtype")) for t in out)
    return tuple(out[:nouts]) + (T.UNKNOWN,) * (nouts - len(out))



def _with_dtype(t: T.Type, a) -> T.Type:
    """A result type with the kind its dtype= argument gives: x.astype(int) is an int array,
    never differentiated."""
    kind = _dtype_kind(a)
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
