"""Give values that are not assigned on every path a None on the others, where something
reads them unconditionally.

A value the user assigns in one branch only (or in a loop that may run zero times) joins an
undefined value (UNDEF) on the other paths; generated code leaves the variable unassigned
there, which is right as long as only code on the assigning path reads it. The forward
function of `vjp` returns every residual in one tuple, so it reads such values on every
path: there they become None on the paths where the user's code never assigned them (the
backward function reads them only on the paths where they were).

    %a: float[2] = if %c:                 %a: float[2] = if %c:
        ...  yield %a1                        ...  yield %a1
      else:                        ->       else:
        yield undef                            yield None
    return (..., %a)                      return (..., %a)
"""

from __future__ import annotations

import dataclasses

from ..ir.nodes import UNDEF, Atom, Block, Const, For, Function, If, Var, While


def _undef(a: Atom) -> bool:
    return isinstance(a, Const) and a.value is UNDEF


def _defined(a: Atom, needed: set) -> Atom:
    if _undef(a):
        return Const(None)
    if isinstance(a, Var):
        needed.add(a)
    return a


def _block(b: Block, needed: set, positions=None) -> Block:
    """b with the values of `needed` defined on every path; `positions` of b's yields too."""
    yields = list(b.yields)
    for i in positions or ():
        yields[i] = _defined(yields[i], needed)
    ops = list(b.ops)
    for k in range(len(ops) - 1, -1, -1):
        op = ops[k]
        at = [i for i, o in enumerate(getattr(op, "outs", ())) if o in needed]
        if not at or not isinstance(op, (If, For, While)):
            continue
        if isinstance(op, If):
            ops[k] = dataclasses.replace(op, then=_block(op.then, needed, at),
                                         orelse=_block(op.orelse, needed, at))
        else:
            init = tuple(_defined(a, needed) if i in at else a for i, a in enumerate(op.init))
            body = _block(op.body, needed, at)
            ops[k] = dataclasses.replace(op, init=init, body=body)
    return dataclasses.replace(b, ops=tuple(ops), yields=tuple(yields))


def define_everywhere(fn: Function, values) -> Function:
    """fn with each of `values` (and what they join) None on the paths that leave it
    unassigned."""
    return dataclasses.replace(fn, body=_block(fn.body, set(values)))
