"""Values that generated code must leave unassigned where the user's code does.

A read of a variable that may be unassigned is a `srcad.bound` check (frontend/definite.py):
generated code reads the variable's Python name, and Python raises UnboundLocalError when no
path assigned that name. So the name of a value a check reads must be assigned exactly where
the value is not undefined: codegen gives its group of values a name no other value uses,
and coalesces it only with values whose definition means the value is defined (those an
`if` branch or a loop body that assigns it defines), never with a value defined before:

    w = x[0]  (hoisted)              w_1 = ...            (a name of its own)
    if c:                            if c:
        pass              ->             w_1 = w
    _bound(w, 'w')                   _bound(w_1, 'w')
"""

from __future__ import annotations

from ..ir.nodes import UNDEF, Block, Const, For, If, Var, While, iter_blocks, iter_ops


def _undef(a) -> bool:
    return isinstance(a, Const) and a.value is UNDEF


def _defined_in(block: Block) -> set:
    out = set()
    for b in iter_blocks(block):
        out.update(b.params)
        for op in b.ops:
            out.update(op.outs)
    return out


def _joins(body: Block) -> dict:
    """For each If result and loop value: the (source, block that defines it there) pairs
    its value comes from (block None: from before the loop)."""
    out: dict = {}
    for op in iter_ops(body):
        if isinstance(op, If):
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                out[o] = ((a, op.then), (b, op.orelse))
        elif isinstance(op, (For, While)):
            params = op.body.params[1:] if isinstance(op, For) else op.body.params
            for i, (p, o) in enumerate(zip(params, op.outs)):
                joined = ((op.init[i], None), (op.body.yields[i], op.body))
                out[p] = out[o] = joined
                if isinstance(op, While):
                    out[op.cond.params[i]] = joined
    return out


def maybe_undefined(body: Block, joins: dict | None = None) -> set:
    """The If results and loop values that may be undefined: joined from undef, directly or
    through other joins."""
    joins = _joins(body) if joins is None else joins
    maybe = set()
    changed = True
    while changed:
        changed = False
        for v, sources in joins.items():
            if v not in maybe and any(_undef(a) or a in maybe for a, _ in sources):
                maybe.add(v)
                changed = True
    return maybe


def unassigned_values(body: Block) -> tuple[set, set]:
    """(values a check reads that may be undefined, with the joins they come from; the
    values that may share a name with them)."""
    joins = _joins(body)
    maybe = maybe_undefined(body, joins)
    checked = {op.args[0] for op in iter_ops(body) if getattr(op, "prim", None) == "srcad.bound"}
    together: dict = {}  # a loop's parameter, result (and condition parameter): one join
    for v, sources in joins.items():
        together.setdefault(id(sources), []).append(v)
    web, todo = set(), [v for v in checked if v in maybe]
    while todo:
        v = todo.pop()
        if v in web:
            continue
        web.add(v)
        todo.extend(together[id(joins[v])])
        todo.extend(a for a, _ in joins[v] if a in maybe)
    allowed, inside = set(web), {}
    for v in web:
        for a, block in joins[v]:
            if isinstance(a, Var) and block is not None:
                if id(block) not in inside:
                    inside[id(block)] = _defined_in(block)
                if a in inside[id(block)]:
                    allowed.add(a)
    return web, allowed
