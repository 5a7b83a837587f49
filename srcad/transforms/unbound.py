"""Variables first assigned inside a loop, in reverse mode's forward sweep.

    for W, b in params:                  outputs = None
        outputs = inputs @ W + b         for _k in range(len(params)):
        inputs = np.tanh(outputs)            _stack_outputs.append(outputs)
    return np.sum(outputs)                   ...
                                         outputs = _assigned(outputs, 'outputs')

`outputs` is carried by the loop (it is read after it) but unbound before it. When the
backward sweep needs the value it had at the start of each iteration (here only for the
shape of its zero cotangent), the forward sweep pushes it, also in the first iteration,
where Python has no value for it: such a variable starts as None instead. Where the user's
function reads it, the sweep reads it through `srcad.assigned`, which raises the
UnboundLocalError the function raises when it is still unassigned there (a loop that ran
zero times).
"""

from __future__ import annotations

from ..ir.nodes import UNDEF, Block, Const, For, If, Var, While, iter_ops


def _params(op) -> tuple:
    return op.body.params[1:] if isinstance(op, For) else op.body.params


def unbound_starts(body: Block, push: dict) -> tuple[set, set]:
    """(id(loop), slot) pairs that start as None, and the primal values that may be that None.

    `push` maps id(loop) to the values its forward iterations push (Plan.push). A slot starts
    as None when its initial value is unbound and its parameter is pushed, by this loop or by
    a nested loop it starts (the nested loop's first push reads it).
    """
    loops = [op for op in iter_ops(body) if isinstance(op, (For, While))]
    slot_of = {p: (op, i) for op in loops for i, p in enumerate(_params(op))}
    needed = {(id(op), i) for op in loops for i, p in enumerate(_params(op)) if p in push.get(id(op), ())}
    todo = [(op, i) for op in loops for i in range(len(op.init)) if (id(op), i) in needed]
    while todo:
        op, i = todo.pop()
        outer = slot_of.get(op.init[i]) if isinstance(op.init[i], Var) else None
        if outer is not None and (id(outer[0]), outer[1]) not in needed:
            needed.add((id(outer[0]), outer[1]))
            todo.append(outer)
    starts = {(id(op), i) for op in loops for i, a in enumerate(op.init)
              if (id(op), i) in needed and isinstance(a, Const) and a.value is UNDEF}
    return starts, _maybe_none(body, loops, starts)


def _maybe_none(body: Block, loops: list, starts: set) -> set:
    """Values that may hold the None a slot of `starts` begins with (a fixed point through
    loop parameters and results and the results of ifs)."""
    none: set = set()
    for op in loops:
        for i, p in enumerate(_params(op)):
            if (id(op), i) in starts:
                none.update((p, op.outs[i]))
    ifs = [op for op in iter_ops(body) if isinstance(op, If)]
    changed = bool(none)
    while changed:
        before = len(none)
        for op in loops:
            for i, p in enumerate(_params(op)):
                if op.init[i] in none or op.body.yields[i] in none or p in none:
                    none.update((p, op.outs[i]))
                    if isinstance(op, While):
                        none.add(op.cond.params[i])
        for op in ifs:
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                if a in none or b in none:
                    none.add(o)
        changed = len(none) != before
    return none
