"""One-shot iterators: generator expressions and `map`, `zip`, `filter`, `enumerate`,
`reversed`, `iter` calls.

srcad reads them as lists (higher_order.py), which gives Python's values only when the
iterator is consumed once. A second pass over a Python iterator finds it empty; over srcad's
list it would find every element again, and the derivative would silently count them twice.
So the fence allows a one-shot iterator only where it is consumed exactly once:

- as what a `for` loop or a comprehension iterates over;
- as an argument of a builtin that consumes it (`sum(map(f, xs))`, `list(zip(a, b))`, ...);
- unpacked (`a, b = zip(*pairs)`, `f(*map(g, xs))`);
- stored in a variable that is read exactly once, in one of the places above, and not inside a
  loop, comprehension or nested function that the assignment is not also in.

Anything else (`m = map(f, xs)` read twice, read in a loop, passed to a helper or returned) is
refused at its line.
"""

from __future__ import annotations

import gast

#: Calls that make a one-shot iterator (by their name as written).
MAKERS = frozenset({"map", "zip", "filter", "enumerate", "reversed", "iter"})

#: Builtins that consume an iterable argument once.
CONSUMERS = frozenset({
    "sum", "list", "tuple", "sorted", "min", "max", "any", "all", "dict", "len", "map", "zip",
    "enumerate", "filter", "reversed", "iter", "next", "fsum", "prod", "reduce",
})


def is_one_shot(node: gast.AST) -> bool:
    return isinstance(node, gast.GeneratorExp) or (
        isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in MAKERS)


def _parents(top: gast.AST) -> dict[int, gast.AST]:
    out = {}
    for node in gast.walk(top):
        for child in gast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _consumed_once_here(node: gast.AST, parent: gast.AST | None) -> bool:
    """Whether `node`'s position consumes it at most once per evaluation of the parent."""
    if isinstance(parent, gast.For):
        return parent.iter is node
    if isinstance(parent, gast.comprehension):
        return parent.iter is node
    if isinstance(parent, gast.Starred):
        return True
    if isinstance(parent, gast.Call) and node in parent.args:
        f = parent.func
        name = f.id if isinstance(f, gast.Name) else f.attr if isinstance(f, gast.Attribute) else None
        return name in CONSUMERS
    if isinstance(parent, gast.Assign):
        return all(isinstance(t, (gast.Tuple, gast.List)) for t in parent.targets)
    return False


def _repeating(node: gast.AST, top: gast.AST, parents: dict[int, gast.AST]) -> set[int]:
    """The loops, comprehensions and nested functions that may evaluate `node` many times."""
    out, prev, child, p = set(), None, node, parents.get(id(node))
    while p is not None and p is not top:
        if isinstance(p, (gast.For, gast.While)) and child is not getattr(p, "iter", None):
            out.add(id(p))
        elif isinstance(p, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            first = p.generators[0]
            if not (child is first and prev is first.iter):  # (the first iterable: evaluated once)
                out.add(id(p))
        elif isinstance(p, (gast.FunctionDef, gast.Lambda)):
            out.add(id(p))
        prev, child, p = child, p, parents.get(id(p))
    return out


def misuses(top: gast.AST) -> list[gast.AST]:
    """The one-shot iterators of `top` (nested functions included) that may be consumed more
    than once (each reported once, at the iterator)."""
    parents = _parents(top)
    loads: dict[str, list[gast.Name]] = {}
    for node in gast.walk(top):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads.setdefault(node.id, []).append(node)
    bad = []
    for node in gast.walk(top):
        if not is_one_shot(node):
            continue
        parent = parents.get(id(node))
        if _consumed_once_here(node, parent):
            continue
        if not _stored_and_read_once(node, parent, top, parents, loads):
            bad.append(node)
    return bad


def _stored_and_read_once(node, parent, top, parents, loads) -> bool:
    if not (isinstance(parent, gast.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], gast.Name)):
        return False
    reads = loads.get(parent.targets[0].id, [])
    if len(reads) != 1:
        return False
    read = reads[0]
    if not _consumed_once_here(read, parents.get(id(read))):
        return False
    return _repeating(read, top, parents) <= _repeating(parent, top, parents)
