"""Lists a loop fills with a known number of arrays: their items' shapes after the loop.

    terms = []
    for j in range(k):              # k known when the code is specialised (k = alphas.shape[0])
        ...
        terms.append(v)             # v: float[n], every iteration
    inner = np.array(terms)         # float[k, n]: known rank and shape

A list carried by a `for` loop whose trip count is a constant, whose items before the loop
are known (a display such as `[]`), and to which every iteration appends arrays of exact
shapes — appends in the loop body itself, not under a branch, in a loop with no `break` —
holds those items then the appended ones once per iteration. Its type after the loop
records the items' shapes (T.List.shapes), so that `np.array(terms)`, `np.stack(terms)` and
the adjoints of joining it know their shapes: code specialised to a rank instead of helpers
that test it at run time. Any other list, or a loop of unknown length, keeps its type.
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, Var, atom_type
from ..rules import registry

#: at most this many items' shapes are recorded (a type holds them all)
MAX_ITEMS = 4096


def trips(op: For) -> int | None:
    """The loop's trip count, when its range is made of constants."""
    bounds = (op.start, op.stop, op.step)
    if not all(isinstance(b, Const) and type(b.value) is int for b in bounds) or op.step.value == 0:
        return None
    return len(range(op.start.value, op.stop.value, op.step.value))


def counted_lists(op: For, body: Block, types: tuple, before) -> tuple:
    """`types` (the carried values' types after the loop) with the items' shapes of each list
    the loop fills as above; `before(i)` gives the shapes of carried list i's items before the
    loop (None when not known)."""
    n = trips(op)
    if n is None or op.exits:
        return types
    defs = {o: a for a in body.ops if isinstance(a, Apply) for o in a.outs}
    out = list(types)
    for i, t in enumerate(types):
        if not isinstance(t, T.List) or t.shapes is not None:
            continue
        start = before(i)
        added = _appended_shapes(body.yields[i], body.params[i + 1], defs)
        if start is None or added is None or len(start) + n * len(added) > MAX_ITEMS:
            continue
        shapes = tuple(start) + tuple(added) * n
        if shapes:
            out[i] = dataclasses.replace(t, shapes=shapes)
    return tuple(out)


def _appended_shapes(last, param: Var, defs: dict) -> tuple | None:
    """The shapes of the arrays appended, in order, on the way from `param` to `last` by
    appends alone (rules whose list_shapes is "xs+v"); None for anything else."""
    shapes: list = []
    at = last
    while at != param:
        op = defs.get(at) if isinstance(at, Var) else None
        rule = registry.lookup(op.prim) if op is not None else None
        if rule is None or "+" not in rule.list_shapes or op.kw or len(op.args) != len(rule.params):
            return None
        xs, v = (rule.params.index(k) for k in rule.list_shapes.split("+"))
        item = atom_type(op.args[v])
        if not isinstance(item, T.Array) or item.shape is None or None in item.shape:
            return None
        shapes.append(item.shape)
        at = op.args[xs]
    return tuple(reversed(shapes))
