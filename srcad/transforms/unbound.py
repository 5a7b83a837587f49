"""Variables that may be unassigned where reverse mode's forward sweep stores them.

    for W, b in params:                  outputs = None
        outputs = inputs @ W + b         for _k in range(len(params)):
        inputs = np.tanh(outputs)            _stack_outputs.append(outputs)
    return np.sum(outputs)                   ...
                                         outputs = _assigned(outputs, 'outputs')

`outputs` is carried by the loop (it is read after it) but unbound before it. When the
backward sweep needs the value it had at the start of each iteration (here only for the
shape of its zero cotangent), the forward sweep pushes it, also in the first iteration,
where Python has no value for it: such a variable starts as None instead. Likewise a value
assigned in one branch of an `if` only, whose zero cotangent the backward sweep takes from
the value itself (a tuple of arrays of shapes known only at run time), or which vjp returns
as a residual, is None on the other branch:

    if c:                                if c:
        t = (x, z)                           t = x, z
                                         else:
                                             t = None
    ...                                  ...  t_bar = _zeros_like(t)   (None when t is)

(where t is unassigned, nothing reads t's cotangent). Where the user's function reads such a
variable while it may be unassigned (frontend/definite.py's `srcad.bound` checks), the sweep
reads it through `srcad.assigned`, which raises the UnboundLocalError the function raises
(a loop that ran zero times, a branch that was not taken).
"""

from __future__ import annotations

from ..ir.nodes import UNDEF, Block, Const, For, If, Var, While, iter_ops


def _params(op) -> tuple:
    return op.body.params[1:] if isinstance(op, For) else op.body.params


def _undef(a) -> bool:
    return isinstance(a, Const) and a.value is UNDEF


def unbound_starts(body: Block, push: dict, bound=()) -> tuple[set, set]:
    """(id(op), slot) pairs of loops that start as None and of ifs whose branch yields None
    for an unassigned value, and the primal values that may be that None.

    `push` maps id(loop) to the values its forward iterations push (Plan.push); `bound` are
    further values the forward sweep must bind (zeros taken from them, vjp's residuals).
    A loop's slot starts as None when its initial value is unbound and its parameter or
    result must be bound, an if's slot when a branch leaves it unbound and its result must
    be bound; what must be bound flows back through the values loops and ifs join.
    """
    regions = [op for op in iter_ops(body) if isinstance(op, (For, While, If))]
    must = {v for vs in push.values() for v in vs} | set(bound)
    todo = list(must)
    sources = _sources(regions)
    while todo:
        for a in sources.get(todo.pop(), ()):
            if isinstance(a, Var) and a not in must:
                must.add(a)
                todo.append(a)
    starts = set()
    for op in regions:
        if isinstance(op, If):
            for i, o in enumerate(op.outs):
                if o in must and (_undef(op.then.yields[i]) or _undef(op.orelse.yields[i])):
                    starts.add((id(op), i))
            continue
        for i, (p, o) in enumerate(zip(_params(op), op.outs)):
            if (p in must or o in must) and _undef(op.init[i]):
                starts.add((id(op), i))
    return starts, _maybe_none(regions, starts)


def _sources(regions: list) -> dict:
    """The values each result and loop parameter of `regions` may take its value from."""
    out: dict = {}
    for op in regions:
        if isinstance(op, If):
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                out[o] = (a, b)
            continue
        for i, (p, o) in enumerate(zip(_params(op), op.outs)):
            joined = (op.init[i], op.body.yields[i], p)
            out[o] = joined
            out[p] = joined[:2]
    return out


def _maybe_none(regions: list, starts: set) -> set:
    """Values that may hold the None a slot of `starts` begins with (a fixed point through
    loop parameters and results and the results of ifs)."""
    none: set = set()
    for op in regions:
        if isinstance(op, If):
            none.update(o for i, o in enumerate(op.outs) if (id(op), i) in starts)
            continue
        for i, p in enumerate(_params(op)):
            if (id(op), i) in starts:
                none.update((p, op.outs[i]))
    changed = bool(none)
    while changed:
        before = len(none)
        for op in regions:
            if isinstance(op, If):
                for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                    if a in none or b in none:
                        none.add(o)
                continue
            for i, p in enumerate(_params(op)):
                if op.init[i] in none or op.body.yields[i] in none or p in none:
                    none.update((p, op.outs[i]))
                    if isinstance(op, While):
                        none.add(op.cond.params[i])
        changed = len(none) != before
    return none
