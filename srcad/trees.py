"""Nested tuples, lists, dicts, dataclasses and registered classes of floats and arrays
("pytrees", srcad/pytrees.py), as the Jacobian functions see them: a flat list of leaves
and a spec that rebuilds the structure.

    >>> leaves, spec = flatten({"W": 1.0, "b": (2.0, 3.0)})
    >>> leaves, unflatten(spec, [4.0, 5.0, 6.0])
    ([1.0, 2.0, 3.0], {'W': 4.0, 'b': (5.0, 6.0)})
"""

from __future__ import annotations

import numpy as np

from .pytrees import children_of, is_node, is_struct, parts


def flatten(tree) -> tuple[list, object]:
    """The leaves of `tree` in order (dicts in insertion order) and its spec."""
    leaves: list = []

    def walk(t):
        if isinstance(t, dict):
            return ("dict", tuple(t), tuple(walk(v) for v in t.values()))
        if is_struct(t):
            children, names, statics, struct = parts(t)
            return ("struct", (struct.rebuild, names, statics), tuple(walk(c) for c in children))
        if is_node(t):  # (a differentiated object inside srcad: its children, then constants)
            k = children_of(t)
            return ("struct", (lambda names, items: type(t)(*items), t._fields, list(t[k:])),
                    tuple(walk(c) for c in t[:k]))
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
        if s[0] == "struct":
            rebuild, names, statics = s[1]
            return rebuild(names, [build(c) for c in s[2]] + statics)
        children = [build(c) for c in s[1]]
        return s[0](*children) if hasattr(s[0], "_fields") else s[0](children)

    return build(spec)


def snapshot_arguments(args: tuple) -> tuple:
    """The arguments with their NumPy array leaves copied (snapshot), except arrays that share
    memory with another of them (`vjp(f, x, x)`, `x` and `x[1:]`): copied apart, a write of f
    into one would no longer show through the other, and srcad's check of that aliasing
    (transforms/owning.py) would not see it."""
    leaves, spec = flatten(args)
    shared = _overlapping([(i, leaf) for i, leaf in enumerate(leaves) if isinstance(leaf, np.ndarray)])
    return unflatten(spec, [leaf.copy() if isinstance(leaf, np.ndarray) and i not in shared else leaf
                            for i, leaf in enumerate(leaves)])


def _overlapping(arrays: list) -> set:
    """The positions of the arrays whose memory spans meet another's (as np.may_share_memory
    decides), in one sweep over the spans sorted by their start (many parameters: no pairs)."""
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # (NumPy 1)
        byte_bounds = np.byte_bounds
    shared: set = set()
    reach, owner = None, None
    for low, high, i in sorted(byte_bounds(a) + (i,) for i, a in arrays if a.size):
        if reach is not None and low < reach:
            shared.update((i, owner))
        if reach is None or high > reach:
            reach, owner = high, i
    return shared


def snapshot(tree):
    """`tree` with its NumPy array leaves copied: what a vjp_fn or f_jvp computes from, so that
    the caller writing into an array it passed (`z[0] = 2.0`) does not change a derivative
    taken before (JAX's arrays cannot be written; NumPy's can)."""
    if isinstance(tree, np.ndarray):
        return tree.copy()
    leaves, spec = flatten(tree)
    if not any(isinstance(leaf, np.ndarray) for leaf in leaves):
        return tree
    return unflatten(spec, [leaf.copy() if isinstance(leaf, np.ndarray) else leaf for leaf in leaves])
