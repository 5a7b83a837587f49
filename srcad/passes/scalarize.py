"""Split tuples that flow through loops and ifs into their elements.

    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> from srcad.passes.simplify import simplify
    >>> def f(x, n):
    ...     state = (x, 0.0)
    ...     for _ in range(n):
    ...         p, v = state
    ...         state = (p + v, v - p)
    ...     return state[0]
    >>> show(dce(simplify(scalarize(ir(f, 1.0, 3)))))
    def f(%x0: float, %n1: int):
      %state20: float, %state24: float = for %_3 in range(0, %n1, 1) carry(%state19 = %x0, %state23 = 0.0):
        %8: float = operator.add(%state19, %state23)
        %9: float = operator.sub(%state23, %state19)
        yield %8, %9
      return %state20

A loop-carried value (or an `if` result) of a tuple type with known length becomes one
carried value per element; the tuple is rebuilt where it is used and `simplify` then folds
`tuple(a, b)[0]` to `a`, so no tuple remains. Derivatives of the elements are then ordinary
scalar or array derivatives instead of derivatives of containers.
"""

from __future__ import annotations

import dataclasses

from ..analysis.unassigned import maybe_undefined
from ..ir import types as T
from ..ir.nodes import UNDEF, Apply, Atom, Block, Const, For, Function, If, Var, While, max_var_id

_MAX_ARITY = 16


def _splittable(t: T.Type) -> bool:
    """A plain tuple of a few items. A named tuple or a node (a differentiated object,
    pytrees.py) stays whole: packed again from its items it would be a plain tuple, and the
    caller would get a tuple for the object (or, through a gradient transformed again, the
    constants of a node among its numbers)."""
    return isinstance(t, T.Tuple) and t.cls is None and 0 < len(t.elts) <= _MAX_ARITY


def _undef(a: Atom) -> bool:
    """A value not assigned on some path: its tuple stays whole (packing its elements again
    after the join would read a variable Python never assigned)."""
    return isinstance(a, Const) and a.value is UNDEF


class _Scalarizer:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1
        self.changed = False
        # a tuple that may be unassigned (a loop's first iteration) stays whole: taking it
        # apart would read it where the user's code does not
        self.maybe_undef = maybe_undefined(fn.body)

    def whole(self, a: Atom) -> bool:
        return _undef(a) or a in self.maybe_undef

    def fresh(self, hint: str, t: T.Type) -> Var:
        v = Var(self.next, hint, t)
        self.next += 1
        return v

    def get(self, tup: Atom, i: int, t: T.Type, loc, out: list) -> Atom:
        if isinstance(tup, Const) and isinstance(tup.value, tuple):
            return Const(tup.value[i])
        if isinstance(tup, Const) and tup.value is UNDEF:  # (not assigned on this path)
            return tup
        v = self.fresh("", t)
        out.append(Apply((v,), "operator.getitem", (tup, Const(i)), (), loc))
        return v

    def pack(self, target: Var, parts, loc) -> Apply:
        return Apply((target,), "srcad.tuple", tuple(parts), (), loc)

    def block(self, b: Block) -> Block:
        ops = []
        for op in b.ops:
            ops.extend(self.op(op))
        return Block(b.params, tuple(ops), b.yields)

    def op(self, op) -> list:
        if isinstance(op, Apply):
            return [op]
        if isinstance(op, If):
            return self.split_if(op.map(block=self.block))
        return self.split_loop(op.map(block=self.block), offset=1 if isinstance(op, For) else 0)

    def split_if(self, op: If) -> list:
        which = [i for i, o in enumerate(op.outs) if _splittable(o.type)
                 and not self.whole(op.then.yields[i]) and not self.whole(op.orelse.yields[i])]
        if not which:
            return [op]
        self.changed = True
        outs, ty, ey, after = [], list(), list(), []
        then_ops, else_ops = list(op.then.ops), list(op.orelse.ops)
        for i, o in enumerate(op.outs):
            if i not in which:
                outs.append(o)
                ty.append(op.then.yields[i])
                ey.append(op.orelse.yields[i])
                continue
            parts = []
            for k, et in enumerate(o.type.elts):
                part = self.fresh(o.hint, et)
                parts.append(part)
                ty.append(self.get(op.then.yields[i], k, et, op.loc, then_ops))
                ey.append(self.get(op.orelse.yields[i], k, et, op.loc, else_ops))
            outs.extend(parts)
            after.append(self.pack(o, parts, op.loc))
        new = If(tuple(outs), op.cond, Block((), tuple(then_ops), tuple(ty)),
                 Block((), tuple(else_ops), tuple(ey)), op.loc)
        return [new] + after

    def split_loop(self, op, offset: int) -> list:
        params = op.body.params[offset:]
        n = len(op.outs)
        which = [i for i in range(n) if _splittable(params[i].type) and not self.whole(op.init[i])
                 and params[i] not in self.maybe_undef]
        if not which:
            return [op]
        self.changed = True
        before, after, head = [], [], []
        new_params, new_init, new_outs = list(op.body.params[:offset]), [], []
        new_cparams = []
        body_ops = list(op.body.ops)
        tail: list = []
        new_yields = []
        cond_head = []
        for i in range(n):
            p, init, y, out = params[i], op.init[i], op.body.yields[i], op.outs[i]
            cp = op.cond.params[i] if isinstance(op, While) else None
            if i not in which:
                new_params.append(p)
                new_init.append(init)
                new_outs.append(out)
                new_yields.append(y)
                if cp is not None:
                    new_cparams.append(cp)
                continue
            ps, os_, cps = [], [], []
            for k, et in enumerate(p.type.elts):
                ps.append(self.fresh(p.hint, et))
                os_.append(self.fresh(out.hint, et))
                new_init.append(self.get(init, k, et, op.loc, before))
                new_yields.append(self.get(y, k, et, op.loc, tail))
                if cp is not None:
                    cps.append(self.fresh(cp.hint, et))
            new_params.extend(ps)
            new_outs.extend(os_)
            new_cparams.extend(cps)
            head.append(self.pack(p, ps, op.loc))
            after.append(self.pack(out, os_, op.loc))
            if cp is not None:
                cond_head.append(self.pack(cp, cps, op.loc))
        extra = op.body.yields[n:]
        body = Block(tuple(new_params), tuple(head + body_ops + tail), tuple(new_yields) + extra)
        changes = dict(outs=tuple(new_outs), init=tuple(new_init), body=body)
        if isinstance(op, While):
            changes["cond"] = Block(tuple(new_cparams), tuple(cond_head) + op.cond.ops, op.cond.yields)
        return before + [dataclasses.replace(op, **changes)] + after


def scalarize(fn: Function) -> Function:
    """Split loop-carried and if-joined tuples into their elements (to a fixed point)."""
    for _ in range(4):
        s = _Scalarizer(fn)
        body = s.block(fn.body)
        if not s.changed:
            return fn
        fn = dataclasses.replace(fn, body=body)
    return fn

