"""Nested tuples, lists and dicts of floats and arrays ("pytrees"), as the Jacobian
functions see them: a flat list of leaves and a spec that rebuilds the structure.

    >>> leaves, spec = flatten({"W": 1.0, "b": (2.0, 3.0)})
    >>> leaves, unflatten(spec, [4.0, 5.0, 6.0])
    ([1.0, 2.0, 3.0], {'W': 4.0, 'b': (5.0, 6.0)})
"""

from __future__ import annotations


def flatten(tree) -> tuple[list, object]:
    """The leaves of `tree` in order (dicts in insertion order) and its spec."""
    leaves: list = []

    def walk(t):
        if isinstance(t, dict):
            return ("dict", tuple(t), tuple(walk(v) for v in t.values()))
        if isinstance(t, (list, tuple)):
            return (type(t), tuple(walk(v) for v in t))
        leaves.append(t)
        return None

    return leaves, walk(tree)


def unflatten(spec, leaves):
    """The tree of `spec` with `leaves` in place of the original ones."""
    items = iter(leaves)

    def build(s):
        if s is None:
            return next(items)
        if s[0] == "dict":
            return dict(zip(s[1], (build(c) for c in s[2])))
        children = [build(c) for c in s[1]]
        return s[0](*children) if hasattr(s[0], "_fields") else s[0](children)

    return build(spec)
