"""Differentiated objects inside a function: what may be done with a node.

A dataclass or registered object that is differentiated crosses into generated code as a
node, a named tuple of its children standing for it (srcad/pytrees.py). Inside the function
it must behave as the object would, so a node may only be

- read by attribute: a child or constant (`p.w` is the node's item), a property (its getter
  inlined) or a class attribute;
- called by method or `__call__` (inlined, transforms/calls.py);
- asked `isinstance(p, C)`, `p is None` (answered from its type while transforming);
- passed to the user's functions (inlined), stored in and read from lists, tuples and dicts,
  and returned.

Each rule says which of its arguments may be (or hold) a node: `Rule.objects`.

Anything else (`p[0]`, `len(p)`, `for v in p`, `np.sum(p)`, a library call, `type(p)`) would
see a tuple where Python sees the object, and is a TypeSupportError at its line. So is a
value that is a node on one path and something else on another.
"""

from __future__ import annotations

import inspect

from ..errors import TypeSupportError, diagnostic
from ..ir import types as T
from ..ir.nodes import Apply, Const, atom_type
from ..pytrees import registered
from ..rules import registry


def struct_of(t: T.Type):
    """The Struct (pytrees.py) a node of type t stands for, or None."""
    return getattr(t.cls, "__srcad_struct__", None) if isinstance(t, T.Tuple) else None


def node_like(t: T.Type) -> bool:
    """Is a value of type t a node, or maybe one (objects of several classes, T.Object.nodes)?"""
    return struct_of(t) is not None or (isinstance(t, T.Object) and t.nodes)


def _what(t: T.Type) -> str:
    struct = struct_of(t)
    if struct is None:
        return f"a value that may be a differentiated object ({t})"
    return f"a differentiated {struct.cls.__qualname__}"


def check_objects(op: Apply, prim: str, args, kw) -> None:
    """Refuse an operation `prim` (as the user wrote it, or resolved by type) that takes a
    node, or a container holding nodes, other than as its rule's `objects` says."""
    rule = registry.lookup(prim)
    how = rule.objects if rule is not None else ""
    if how == "any":
        return
    for i, a in enumerate(list(args) + [a for _, a in kw]):
        t = atom_type(a)
        if node_like(t) and not (how == "store" and i == rule.stores):
            _refuse(op, t, "read it by attribute (p.w), call its methods, or pass it to your own "
                    "functions; give a library function the numbers it needs (p.w), not the object")
        if not how and T.holds_nodes(t):
            msg = f"{_use(prim)} a container holding differentiated objects"
            raise TypeSupportError(msg, [diagnostic(op.loc, msg, "read the numbers out of the objects "
                                                    "first (e.g. [layer.W for layer in layers])")])


def check_join(a: T.Type, b: T.Type, joined: T.Type, loc) -> None:
    """Refuse a value that is a node on one path and something other than an object on another
    (objects of several classes are options an `if` chain tells apart: transforms/calls.py)."""
    if isinstance(joined, T.Object) and joined.nodes and not joined.options and T.BOTTOM not in (a, b):
        msg = f"a value that is {_named(a)} on one path and {_named(b)} on another"
        raise TypeSupportError(msg, [diagnostic(loc, msg, "give the variable differentiated objects of "
                                                "one class on every path")])


def _named(t: T.Type) -> str:
    return _what(t) if node_like(t) else str(t)


def struct_attribute(op: Apply, t: T.Type, name: str):
    """The class holding `p.name` for a node p when name is neither a child nor a constant
    (a class attribute, read when the code runs), or a TypeSupportError."""
    struct = struct_of(t)
    raw = inspect.getattr_static(struct.cls, name, None)
    if raw is not None and not callable(raw) and not hasattr(raw, "__get__"):
        return struct.cls
    if registered(struct.cls):
        why = ("it is not among the children its flatten function returns, nor a constant (an int, "
               "str, bool, None or function)")
        hint = ("return it among the children from flatten (then it is differentiated), or pass it as "
                "another argument")
    else:
        why, hint = "it is not one of its fields", "make it a field, or pass it as another argument"
    msg = f"srcad cannot read attribute .{name} of {_what(t)} ({why})"
    raise TypeSupportError(msg, [diagnostic(op.loc, msg, hint)])


def _use(prim: str) -> str:
    return "a call srcad does not inline, given" if prim == "srcad.call" else f"{prim} of"


def _refuse(op: Apply, t: T.Type, hint: str) -> None:
    use = _use(op.prim)
    if op.prim == "srcad.method" and op.args and isinstance(op.args[0], Const):
        use = f"method .{op.args[0].value}() (not a method of its class), on"
    msg = f"{use} {_what(t)}: inside the function srcad differentiates it as the container of its fields"
    raise TypeSupportError(msg, [diagnostic(op.loc, msg, hint)])
