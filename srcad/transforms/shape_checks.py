"""Shapes the user's code combines that NumPy refuses, seen while specialising.

When the shapes of an operation's operands are known and NumPy would refuse them (operands
that do not broadcast, `w @ v` of a (3,) and a (2,), a reshape to another size), the
operation is preceded by `srcad.shape_error`, which raises ShapeError at the user's line
when that line runs. Not at transform time: a branch that never runs may hold such an
operation, as Python allows. And not left to the operation itself: in derivative code it
may be dropped as unused, or its adjoint may fail first with another operation's message.

    %y = operator.matmul(%w, %v)    ->    srcad.shape_error('model.py:3:11', 'matmul: ...')
                                          %y = operator.matmul(%w, %v)
"""

from __future__ import annotations

from ..errors import where_text
from ..ir import types as T
from ..ir.nodes import Apply, Const, atom_type
from ..rules import registry
from ..rules import shapes as sh
from .result_types import const_value


def _shape(t: T.Type):
    if isinstance(t, (T.Float, T.Int, T.Bool)):
        return ()
    return T.shape_of(t) if isinstance(t, T.Array) else None


def _broadcast_problem(rule, sig) -> str | None:
    names = [n for n in rule.params if n in sig.types]
    types = [sig.type(n) for n in names]
    if not types or any(isinstance(t, (T.List, T.Tuple, T.Dict)) for t in types):
        return None
    shapes = [_shape(t) for t in types if not isinstance(t, (T.NoneT, T.Str)) and not isinstance(t, T.Opaque)]
    if len(shapes) < 2 or any(s is None for s in shapes) or sh.broadcast(*shapes) is not None:
        return None
    return f"operands could not be broadcast together with shapes {' '.join(map(str, shapes))}"


def _matmul_problem(rule, sig) -> str | None:
    a, b = (_shape(sig.type(n)) for n in rule.params[:2])
    if a is None or b is None or not a or not b or sh._matmul(a, b) is not None:
        return None
    if rule.shape is sh.dot and (len(a) > 2 or len(b) > 2):
        return None  # (np.dot of higher ranks contracts otherwise: not checked)
    if len(a) > 2 and len(b) > 2 and sh.broadcast(a[:-2], b[:-2]) is None:
        return f"the stacked dimensions of {a} and {b} do not broadcast"
    return f"mismatched sizes in a matrix product: {a} and {b} (the last axis of the first must match " \
           f"the {'only' if len(b) == 1 else 'second to last'} axis of the second)"


def _reshape_problem(rule, sig) -> str | None:
    x, target = _shape(sig.type(rule.params[0])), sig.const("shape", None)
    target = (target,) if isinstance(target, int) else target
    if x is None or not isinstance(target, tuple) or not all(isinstance(d, int) for d in target):
        return None
    size, known = 1, 1
    for d in x:
        size *= d
    for d in target:
        known *= d if d != -1 else 1
    if -1 not in target and known == size or -1 in target and known and size % known == 0:
        return None
    return f"cannot reshape an array of size {size} (shape {x}) into shape {target}"


PROBLEMS = {sh.elementwise: _broadcast_problem, sh.where: _broadcast_problem, sh.matmul: _matmul_problem,
            sh.dot: _matmul_problem, sh.reshape: _reshape_problem}


def problem(op: Apply) -> str | None:
    """What NumPy would refuse about op's operand shapes, when they are known (else None)."""
    rule = registry.lookup(op.prim)
    check = PROBLEMS.get(getattr(rule, "shape", None))
    if check is None or not rule.params:
        return None
    sig = registry.call_types(rule, op.args, op.kw, atom_type, const_value)
    try:
        return check(rule, sig)
    except (TypeError, IndexError, KeyError):
        return None


def with_shape_checks(ops: list) -> list:
    """ops, each one whose shapes NumPy refuses preceded by a srcad.shape_error."""
    out = []
    for op in ops:
        message = problem(op) if isinstance(op, Apply) else None
        if message is not None:
            where = where_text(op.loc, "?")
            out.append(Apply((), "srcad.shape_error", (Const(where), Const(message)), (), op.loc))
        out.append(op)
    return out
