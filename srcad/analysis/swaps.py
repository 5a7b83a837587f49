"""Loop-carried objects that trade places: double buffers, for the safety check.

    a, b = x.copy(), np.zeros_like(x)
    for t in range(n):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])   # writes into b while a is read after (as the new b)
        a, b = b, a

The alias relation joins what a loop carries with what its body yields, so `a` and `b` are one
class there, and the write into `b` would look visible through `a`. They are never one object
at the same time: they start as two objects the function made, and every iteration ends with
each carried name on the object another one had at its start (a permutation of them). So in
the body, a value that is (a view of, or an update of) one of them at the start of the
iteration is another object than any value coming from another one.
"""

from __future__ import annotations

from ..ir.nodes import Apply, For, Function, Var, While, iter_ops
from ..rules import registry
from .aliases import update_base
from .fresh import makes_new_object


def traded_places(fn: Function) -> tuple[dict, dict]:
    """({id(op): {value: the carried parameter whose object it is}} for the operations of the
    body of each loop whose carried objects trade places, {id(loop): the positions of those
    objects among what it carries}) (for aliases.Aliases `swapped`)."""
    defs = {o: op for op in iter_ops(fn.body) if isinstance(op, Apply) for o in op.outs}
    tables: dict = {}
    positions: dict = {}
    for loop in iter_ops(fn.body):
        if not isinstance(loop, (For, While)):
            continue
        params = loop.body.params[1:] if isinstance(loop, For) else loop.body.params
        roots = _roots(loop, set(params))
        read = {a for op in iter_ops(loop.body) for a in op.operands()} | set(loop.body.yields)
        sources = [roots.get(y) if p in read else None for p, y in zip(params, loop.body.yields)]
        slots = _permuted(params, sources)  # (a temporary's slot, t = a; a = b; b = t: not read)
        made = [_made_here(loop.init[i], defs) for i in slots]
        if len(slots) < 2 or None in made or len(set(made)) < len(made):
            continue
        kept = {params[i] for i in slots}
        table = {v: r for v, r in roots.items() if r in kept}
        tables.update({id(op): table for op in loop.body.ops})
        positions[id(loop)] = frozenset(slots)
    return tables, positions


def _roots(loop, params: set) -> dict:
    """{value of the loop's body: the carried parameter whose object it is}: the parameters,
    their views and the results of updates of them, in the body's own operations."""
    roots = {p: p for p in params}
    for op in loop.body.ops:
        if not isinstance(op, Apply) or not op.outs:
            continue
        k = update_base(op)
        rule = registry.lookup(op.prim)
        if k is not None:
            base = op.args[k]
        elif rule is not None and not rule.fresh and rule.view_of is None and op.args and not rule.structural:
            base = op.args[0]  # (a view of its first argument: x[1:], x.T, x.reshape(...))
        else:
            continue
        if base in roots:
            roots[op.outs[0]] = roots[base]
    return roots


def _permuted(params, sources) -> list:
    """The positions whose yields are the objects of the parameters at a permutation of the
    same positions (moving at least one object)."""
    where = {p: i for i, p in enumerate(params)}
    slots = {i for i, s in enumerate(sources) if s is not None}
    while True:
        targets = [where[sources[i]] for i in slots]
        keep = {i for i in slots if where[sources[i]] in slots and targets.count(where[sources[i]]) == 1}
        if keep == slots:
            break
        slots = keep
    if all(where[sources[i]] == i for i in slots):
        return []
    return sorted(slots)


def _made_here(a, defs: dict):
    """The operation of the function that made the object `a` is (through writes into it:
    `u = np.zeros(n); u[0] = ...`), or None for anything else (an argument, a view, a global)."""
    op = defs.get(a) if isinstance(a, Var) else None
    while op is not None and update_base(op) is not None and op.outs and op.outs[0] == a:
        a = op.args[update_base(op)]
        op = defs.get(a) if isinstance(a, Var) else None
    if op is None or not makes_new_object(op) or registry.lookup(op.prim).structural:
        return None
    return id(op)
