"""Stores of objects a loop body makes on each iteration, for the safety check.

    for i in range(n):
        row = np.zeros(m)      # a new object on every iteration
        row[0] = ...           # written before it is stored: no other reference sees it yet
        rows.append(row)       # a *late store*: rows holds this object only from here on

The alias relation treats the elements of a container as one object, so without this the
write to `row` would look visible through `rows` (which holds the rows of earlier
iterations). A late store is one whose element was made earlier in the same loop body,
in that iteration; writes placed before the store in that body cannot be seen through it.
"""

from __future__ import annotations

from ..ir.nodes import Apply, Block, For, If, Var, While, iter_blocks
from ..rules import registry
from .aliases import update_base


def makes_new_object(op: Apply) -> bool:
    """Does the operation return a new object (an allocation, not a view, an update, an item
    or something from outside)?"""
    rule = registry.lookup(op.prim)
    return update_base(op) is None and rule is not None and rule.fresh and not rule.opaque \
        and op.prim != "operator.getitem" and len(op.outs) == 1 \
        and registry.view_source(rule, op.args, op.kw) is None


def _made(block: Block) -> set:
    """Values of `block` whose object this execution of the block made (or updated)."""
    made: set = set()
    for op in block.ops:
        if isinstance(op, Apply):
            k = update_base(op)
            if k is not None:
                if op.args[k] in made:
                    made.add(op.outs[0])
            elif makes_new_object(op):
                made.add(op.outs[0])
        elif isinstance(op, If):  # (each branch once: per output, nested ifs took exponential time)
            then, orelse = made | _made(op.then), made | _made(op.orelse)
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                if a in then and b in orelse:
                    made.add(o)
        elif isinstance(op, (For, While)):
            params = op.body.params[1:] if isinstance(op, For) else op.body.params
            chained, inner = _chained(op.body), _made(op.body)
            for i, o in enumerate(op.outs):
                y = op.body.yields[i]
                if op.init[i] in made and (chained.get(y) == params[i] or y in inner):
                    made.add(o)
    return made


def _chained(block: Block) -> dict:
    """value -> the block parameter it is an updated version of (through updates only)."""
    root = {p: p for p in block.params}
    for op in block.ops:
        if isinstance(op, Apply):
            k = update_base(op)
            if k is not None and isinstance(op.args[k], Var) and op.args[k] in root:
                root[op.outs[0]] = root[op.args[k]]
    return root


def late_stores(body_blocks) -> list:
    """(store op, element, block, index of the store in the block) for every loop body."""
    out = []
    for block in body_blocks:
        made = _made(block)
        for i, op in enumerate(block.ops):
            k = _stored(op)
            if k is not None:
                e = op.args[k]
                if isinstance(e, Var) and e in made:
                    out.append((op, e, block, i))
    return out


def _stored(op):
    """The index of the argument a store puts into its container (xs.append(v), d[k] = v)."""
    if not isinstance(op, Apply):
        return None
    rule = registry.lookup(op.prim)
    k = rule.stores if rule is not None else None
    return k if k is not None and len(op.args) > k else None


def loop_bodies(fn) -> list:
    return [b for outer in iter_blocks(fn.body) for op in outer.ops if isinstance(op, (For, While))
            for b in ([op.body] if isinstance(op, For) else [op.cond, op.body])]


def before_late_stores(op, base, late, aliases, pos) -> bool:
    """Is the write `op` into `base` placed, in its loop body, before every late store of
    base's object (and is there one)? Then the containers of those stores cannot see it."""
    mine = _late_by_object(late, aliases).get(aliases.find(base), ())
    path = dict(pos.get(id(op), ()))
    return bool(mine) and all(path.get(id(b), j) < j for b, j in mine)


def _late_by_object(late, aliases) -> dict:
    """The late stores' (block, index) by the alias class of what they store (once for each
    list of them: codegen asks of every update)."""
    got = getattr(aliases, "late_index", None)
    if got is None or got[0] is not late:
        index: dict = {}
        for _, e, b, j in late:
            index.setdefault(aliases.find(e), []).append((b, j))
        got = aliases.late_index = (late, index)
    return got[1]


def positions(block: Block, out: dict | None = None, path: tuple = ()) -> dict:
    """id(op) -> ((id(block), index), ...) for the op and every block enclosing it."""
    out = {} if out is None else out
    for i, op in enumerate(block.ops):
        here = path + ((id(block), i),)
        out[id(op)] = here
        for b in op.blocks() if hasattr(op, "blocks") else ():
            positions(b, out, here)
    return out
