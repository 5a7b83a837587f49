"""Loop-invariant code motion, for operations that cannot fail or cost much.

An operation in a loop body whose operands all come from outside the loop computes the
same value on every iteration; it moves in front of the loop when running it there is
harmless even if the loop runs zero times: scalar + - * (no exception is possible on
floats and ints), and transposes of arrays (a view).

    >>> from srcad.examples import ir, show
    >>> def f(y, k, dt, n):
    ...     for i in range(n):
    ...         y = y + 0.5 * dt * (-k * y)
    ...     return y
    >>> show(licm(ir(f, 1.0, 1.0, 0.1, 3)))
    def f(%y0: float, %k1: float, %dt2: float, %n3: int):
      %7: float = operator.mul(0.5, %dt2)
      %y14: float, %i17: int = for %i4 in range(0, %n3, 1) carry(%y5 = %y0, %i13 = undef):
        %9: float = operator.neg(%k1)
        %10: float = operator.mul(%9, %y5)
        %11: float = operator.mul(%7, %10)
        %y12: float = operator.add(%y5, %11)
        yield %y12, %i4
      return %y14

After the move, `cse` shares the value with equal ones outside (the forward and backward
sweeps often compute the same invariant).
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, Function, If, Var, While
from ..rules import registry

_SCALARS = (T.Float, T.Int, T.Bool)


def _scalar(a) -> bool:
    if isinstance(a, Const):
        return isinstance(a.value, (bool, int, float))
    return isinstance(a.type, _SCALARS)


def _harmless(op: Apply) -> bool:
    if op.kw or len(op.outs) != 1:
        return False
    rule = registry.lookup(op.prim)
    if rule.ring and len(op.args) == 2:  # + - * of scalars (-k stays where it reads best)
        return all(_scalar(a) for a in op.args) and isinstance(op.outs[0].type, _SCALARS)
    return rule.kind == "view" and len(op.args) == 1 and isinstance(op.args[0], Var) and isinstance(
        op.args[0].type, T.Array) and op.args[0].type.ndim == 2  # x.T of a matrix: O(1)


def _hoist(body: Block, inside: set, loc) -> tuple[list, Block]:
    """Split the top level of a loop body into invariant ops (now at the loop's line) and
    the rest."""
    moved, kept = [], []
    defined = set(inside)
    for op in body.ops:
        if isinstance(op, Apply) and _harmless(op) and not any(
                isinstance(a, Var) and a in defined for a in op.args):
            moved.append(dataclasses.replace(op, loc=loc))
        else:
            kept.append(op)
            defined.update(op.outs)
    return moved, dataclasses.replace(body, ops=tuple(kept))


def _block(b: Block) -> Block:
    ops = []
    for op in b.ops:
        if isinstance(op, If):
            op = op.map(block=_block)
        elif isinstance(op, For):
            moved, body = _hoist(_block(op.body), set(op.body.params), op.loc)
            ops.extend(moved)
            op = dataclasses.replace(op, body=body)
        elif isinstance(op, While):
            moved, body = _hoist(_block(op.body), set(op.body.params), op.loc)
            ops.extend(moved)
            op = dataclasses.replace(op, body=body, cond=_block(op.cond))
        ops.append(op)
    return dataclasses.replace(b, ops=tuple(ops))


def licm(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_block(fn.body))
