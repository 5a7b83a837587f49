"""Arguments the function writes into get a copy of their own.

A function that writes into an array, list or dict it was given (`x[0] = a * b`, `xs.append(v)`,
a write through a view of the argument) changes its caller's object. Derivative code must not:
it runs the function's arithmetic, perhaps more than once (jacfwd's columns), and a transform
returns derivatives, not side effects, as JAX's do. So the argument is copied once, on entry,
and the function's writes go into the copy, which srcad owns and checks like any local array:

    def f(x):                          def grad_f(x):
        x[0] = x[1] * x[2]                 x = _own_argument(x, (), 'f.py:2:4')
        return np.sum(x * x)               ...

The copy holds the same values, so every value the function computes is the same, unless
another argument, or a global or closure variable the function reads, is the same object, a
view of it or a container holding it (`f(x, x)`, `f(G)` with f reading G), through which the
write would show in Python: `own_argument` raises `UnsafeMutationError` then. A write
into a global, into an item of an argument's list (`xs[0][1] = v`) or anything else srcad cannot
own stays refused by transforms/safety.py.
"""

from __future__ import annotations

import dataclasses

from ..analysis.aliases import Aliases, update_base
from ..analysis.swaps import traded_places
from ..frontend.planned import generated_at
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, max_var_id
from ..ir.rewrite import substitute_block
from .safety import _reachable_ops, _user_write

_OWNABLE = (T.Array, T.List, T.Dict)


def own_written_arguments(fn: Function, trusted: bool = False) -> Function:
    """fn with each argument it writes into (an array, list or dict: itself or through a view)
    replaced by a checked copy made on entry; fn itself when there is none. `trusted`: fn is
    srcad's generated code (its own writes are safe by construction)."""
    writes = _writes_into_arguments(fn, trusted)
    if not writes:
        return fn
    params, next_id = fn.body.params, max_var_id(fn) + 1
    ops, subst, outside = [], {}, []
    for read in _reads_of_containers(fn):  # (a global or closure array the function also reads)
        outside.append(Var(next_id, "", read.outs[0].type))
        ops.append(dataclasses.replace(read, outs=(outside[-1],)))
        next_id += 1
    for p, loc in writes.items():
        others = [q for q in params if q is not p] + outside
        held = Var(next_id, "", T.Tuple(tuple(q.type for q in others)))
        copy = Var(next_id + 1, p.hint, p.type)
        next_id += 2
        where = f"{loc.file}:{loc.line}:{loc.col}" if loc is not None else fn.name
        ops += [Apply((held,), "srcad.tuple", tuple(others), (), loc),
                Apply((copy,), "srcad.own_argument", (p, held, Const(where)), (), loc)]
        subst[p] = copy
    body = substitute_block(fn.body, subst)
    return dataclasses.replace(fn, body=Block(fn.body.params, tuple(ops) + tuple(body.ops), body.yields))


def _reads_of_containers(fn: Function) -> list:
    """The reads of globals and closure variables that may hold arrays (the caller may have
    passed one of them as the argument written into: `f(G)` with f reading G too), those the
    function always makes (outside its branches and loops: read on entry too, they exist)."""
    return [op for op in fn.body.ops if isinstance(op, Apply) and op.prim in ("srcad.global", "srcad.cell")
            and len(op.outs) == 1 and isinstance(op.outs[0].type, _OWNABLE + (T.Tuple, T.Unknown))]


def _writes_into_arguments(fn: Function, trusted: bool) -> dict:
    """{an argument: the location of the first of the user's writes into it (or a view of it)}."""
    updates = [op for op in _reachable_ops(fn.body) if isinstance(op, Apply) and _user_write(op)
               and update_base(op) is not None and not generated_at(op.loc, trusted)]
    updates = [op for op in updates if isinstance(op.args[update_base(op)], Var)
               and not op.args[update_base(op)].type.is_scalar]
    candidates = [p for p in fn.body.params if isinstance(p.type, _OWNABLE)]
    if not updates or not candidates:
        return {}
    aliases = Aliases(fn, user=True, swapped=traded_places(fn)[1])
    out: dict = {}
    for op in updates:
        base = op.args[update_base(op)]
        if aliases.owned(base) or (op.prim == "operator.setitem" and getattr(base.type, "ndim", None) == 0):
            continue  # (`x[...] = v` of a 0-d array crashes the code generator, as a local's: refused)
        for p in candidates:
            if p not in out and aliases.find(p) == aliases.find(base):
                out[p] = op.loc
    return out
