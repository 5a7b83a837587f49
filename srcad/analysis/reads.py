"""What a function reads from outside itself when it runs: module globals, closure cells, and
the data attributes of objects reached through them or given while transforming
(`cfg.scale`, `self.w`, `model.layer.bias`).

Generated code reads these when it runs, so a changed value is seen; the dispatcher also
reads them on every call and specialises code on their *types* (a float, an array of some
shape, a complex number...), so that code built while `cfg.scale` was a float is never run
when it has become an array, and a value srcad cannot differentiate through is refused.

A read is a triple `(prim, ext, name)`:

    ("srcad.global", Ext(module), "cfg")         module.cfg
    ("srcad.cell", Ext(cell), "")                a closure variable
    ("srcad.static", Ext(obj), "")               an object known while transforming (self)
    ("srcad.getattr", <read of the object>, "scale")   an attribute of another read

Only attributes held in an object's `__dict__` are specialised on (reading a property
could run code); others read as unknown and stay run-time values.
"""

from __future__ import annotations

import types

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Ext, Var, iter_ops
from ..ir.values import of_value

_MISSING = object()


def free_reads(body: Block) -> tuple:
    """Every read of `body`, bases before the attributes read through them."""
    out: list = []
    entries: dict = {}  # Var id -> its read
    for op in iter_ops(body):
        if not isinstance(op, Apply) or not op.outs:
            continue
        entry = _entry(op, entries)
        if entry is not None:
            entries[op.outs[0].id] = entry
            for e in _chain(entry):
                if e not in out:
                    out.append(e)
    return tuple(out)


def _chain(entry) -> list:
    prim, ext, _ = entry
    base = _chain(ext) if prim == "srcad.getattr" and ext[0] != "srcad.static" else []
    return base + [entry]


def _entry(op: Apply, entries: dict):
    if op.prim == "srcad.global":
        return (op.prim, op.args[0].value, op.args[1].value)
    if op.prim == "srcad.cell":
        return (op.prim, op.args[0].value, "")
    if op.prim == "srcad.getattr" and len(op.args) == 2 and isinstance(op.args[0], Const):
        base = op.args[1]
        if isinstance(base, Var) and base.id in entries:
            return (op.prim, entries[base.id], op.args[0].value)
        if isinstance(base, Const) and isinstance(base.value, Ext) and _is_data_object(base.value.obj):
            return (op.prim, ("srcad.static", base.value, ""), op.args[0].value)
    return None


def _is_data_object(obj) -> bool:
    return not isinstance(obj, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType))


def read_key(entry) -> tuple:
    """A hashable key of a read, by object identity (what free_types are keyed by)."""
    prim, ext, name = entry
    if prim == "srcad.getattr":
        return (prim, read_key(ext), name)
    return (prim, id(ext.obj), name)


def reader(entry):
    """A function returning the read's current value (_MISSING when it has none)."""
    prim, ext, name = entry
    if prim == "srcad.cell":
        cell = ext.obj

        def read_cell():
            try:
                return cell.cell_contents
            except ValueError:  # (an empty cell)
                return _MISSING
        return read_cell
    if prim == "srcad.static":
        obj = ext.obj
        return lambda: obj
    if prim == "srcad.getattr":
        base = reader(ext)

        def read_attr():
            d = getattr(base(), "__dict__", None)  # (a dict, or a class's mappingproxy)
            return d.get(name, _MISSING) if d is not None and hasattr(d, "get") else _MISSING
        return read_attr
    obj = ext.obj
    return lambda: getattr(obj, name, _MISSING)


def read_type(entry, value) -> T.Type:
    """The type code is specialised on for what a read gives: a module global's int by its value
    (its shapes, np.zeros(H)), else as type_of_read."""
    if type(value) is int and entry[0] == "srcad.global":
        return T.Int(value)
    return type_of_read(value)


def type_of_read(value) -> T.Type:
    """(A function read from an attribute is known: calls of it are resolved, T.Function.)"""
    if value is _MISSING:
        return T.UNKNOWN
    t = of_value(value)
    return T.Function(t.what, fn=value) if isinstance(t, T.Opaque) and T.is_function(value) else t

