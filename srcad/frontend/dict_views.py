"""`ks = d.keys()` kept in a variable while the function changes `d`: Python's keys view is
live (a key added later shows in it), where srcad takes the keys the dict has at the call
(the dict's keys are part of its type). The fence (frontend/fence.py) refuses the view when
`d` is changed anywhere in the function (`d[k] = v`, `del d[k]`, `d.update(...)`, `d.pop(k)`,
`d.setdefault(...)`, `d.clear()`, `d |= e`); a view iterated where it is made (`for k in
d.keys()`) or copied (`list(d.keys())`) is exact. (d.values() and d.items() are views of d
for the check of unsafe mutations, which refuses a read of them after a change.)
"""

from __future__ import annotations

import gast

_CHANGES = frozenset({"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__"})


def stale_key_views(top) -> list:
    """The calls `d.keys()` assigned to a name in a function that also changes `d` in place."""
    kept, changed = [], set()
    for node in gast.walk(top):
        if isinstance(node, gast.Assign) and _keys_of(node.value) is not None and all(
                isinstance(t, gast.Name) for t in node.targets):
            kept.append(node.value)
        for name in _changes(node):
            changed.add(name)
    return [call for call in kept if _keys_of(call) in changed]


def _keys_of(value) -> str | None:
    """d for a call `d.keys()` of a name d."""
    func = value.func if isinstance(value, gast.Call) and not value.args and not value.keywords else None
    if isinstance(func, gast.Attribute) and func.attr == "keys" and isinstance(func.value, gast.Name):
        return func.value.id
    return None


def _changes(node) -> list:
    """The names a statement or call changes in place as a dict would be changed."""
    if isinstance(node, (gast.Assign, gast.AugAssign, gast.Delete)):
        targets = node.targets if isinstance(node, (gast.Assign, gast.Delete)) else [node.target]
        out = [t.value.id for t in targets if isinstance(t, gast.Subscript)
               and isinstance(t.value, gast.Name)]
        merged = isinstance(node, gast.AugAssign) and isinstance(node.op, gast.BitOr)
        return out + ([node.target.id] if merged and isinstance(node.target, gast.Name) else [])
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in _CHANGES \
            and isinstance(node.func.value, gast.Name):
        return [node.func.value.id]
    return []
