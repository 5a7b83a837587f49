"""Activity analysis: which values need derivatives.

A value is *varied* if it depends differentiably on an input being differentiated, and
*useful* if it reaches a differentiated output through differentiable operations. Only
values that are both (active) get tangents or cotangents; everything else costs nothing.
Ints, bools, strings and opaque objects are never active. Loops are iterated to a fixed
point, since a loop variable can become varied in a later iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import Apply, Atom, Block, For, If, Var, While
from ..ir.types import is_integral
from ..rules import registry
from .operands import operand_params
from .policy import check_types
from .safety import check_unseen_changes


def _can_carry(v: Var) -> bool:
    return v.type.differentiable and not is_integral(v.type)


@dataclass
class Activity:
    varied: set
    useful: set

    def active(self, a) -> bool:
        return isinstance(a, Var) and a in self.varied and a in self.useful


def _varied_block(block: Block, V: set) -> None:
    for op in block.ops:
        if isinstance(op, Apply):
            rule = registry.lookup(op.prim)
            if any(isinstance(a, Var) and a in V for _, a in operand_params(op, rule)):
                V.update(o for o in op.outs[:1 if rule.custom else None] if _can_carry(o))
        elif isinstance(op, If):
            _varied_block(op.then, V)
            _varied_block(op.orelse, V)
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                if (a in V or b in V) and _can_carry(o):
                    V.add(o)
        else:
            _varied_loop(op, V)


def _loop_params(op) -> tuple[Var, ...]:
    return op.body.params[1:] if isinstance(op, For) else op.body.params


def _varied_loop(op, V: set) -> None:
    params = _loop_params(op)
    cparams = op.cond.params if isinstance(op, While) else ()
    while True:
        before = len(V)
        for i, p in enumerate(params):
            if (op.init[i] in V or op.body.yields[i] in V) and _can_carry(p):
                V.add(p)
                if cparams:
                    V.add(cparams[i])
        if isinstance(op, While):
            _varied_block(op.cond, V)
        _varied_block(op.body, V)
        for i, p in enumerate(params):
            if (op.init[i] in V or op.body.yields[i] in V) and _can_carry(p):
                V.add(p)
        if len(V) == before:
            break
    for o, p in zip(op.outs, params):
        if p in V:
            V.add(o)


def _useful_block(block: Block, U: set, V: set) -> None:
    for op in reversed(block.ops):
        if isinstance(op, Apply):
            if any(o in U for o in op.outs):
                rule = registry.lookup(op.prim)
                U.update(a for _, a in operand_params(op, rule) if isinstance(a, Var) and a in V)
        elif isinstance(op, If):
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                if o in U:
                    U.update(x for x in (a, b) if isinstance(x, Var) and x in V)
            _useful_block(op.then, U, V)
            _useful_block(op.orelse, U, V)
        else:
            _useful_loop(op, U, V)


def _useful_loop(op, U: set, V: set) -> None:
    params = _loop_params(op)
    while True:
        before = len(U)
        for i, p in enumerate(params):
            y = op.body.yields[i]
            if (op.outs[i] in U or p in U) and isinstance(y, Var) and y in V:
                U.add(y)
        _useful_block(op.body, U, V)
        if len(U) == before:
            break
    for i, p in enumerate(params):
        if (p in U or op.outs[i] in U) and isinstance(op.init[i], Var) and op.init[i] in V:
            U.add(op.init[i])


def analyze(body: Block, wrt: tuple[Var, ...], outputs: tuple[Atom, ...]) -> Activity:
    """Activity of every value of `body` for derivatives of `outputs` w.r.t. `wrt`."""
    V = {v for v in wrt if _can_carry(v)}
    _varied_block(body, V)
    U = {o for o in outputs if isinstance(o, Var) and o in V}
    _useful_block(body, U, V)
    U |= set(wrt) & V
    check_types(body, V)  # the type policy, in every transformation
    check_unseen_changes(body, outputs, V, U)
    return Activity(V, U)
