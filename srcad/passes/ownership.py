"""Copies that let codegen write arrays in place: a loop's own copy of an array it writes
into, made once before the loop; and a copy of a small view read across a write into its
base, instead of a copy of the whole base.

A loop-carried array that the body updates in place (`acc[j] += v`, typical of cotangents
of indexed reads) is written in place by codegen only when nothing else can see the
object. When its initial value came from outside (an argument, a read-only broadcast) or
is still used elsewhere, codegen must copy before each write, on every iteration. One copy
before the loop gives the same values (here the initial value is an argument):

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def f(a, v):
    ...     for j in range(3):
    ...         a[j] = a[j] + v[j]
    ...     return a
    >>> show(own_loop_updates(ir(f, np.ones(3), np.ones(3))))
    def f(%a0: float[3], %v1: float[3]):
      %a13: float[3] = numpy.copy(%a0)
      %a10: float[3], %j12: int = for %j2 in range(0, 3, 1) carry(%a3 = %a13, %j9 = undef):
        %4: float = operator.getitem(%a3, %j2)
        %6: float = operator.getitem(%v1, %j2)
        %7: float = operator.add(%4, %6)
        %a8: float[3] = operator.setitem(%a3, %j2, %7)
        yield %a8, %j2
      return %a10

Likewise, the adjoint of `y[k] = v` reads the row `g = y_bar[k]`, zeroes it, and later uses
g: copying the row (`y_bar[k].copy()`) lets `y_bar` itself be updated in place, where
keeping the view would copy all of `y_bar` on every write.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from ..analysis.aliases import Aliases, update_base
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Ext, For, Function, If, Var, While, iter_ops, max_var_id


def _updated(block: Block) -> set:
    """Values that operations of `block` (or of `if`s in it) write into."""
    out = set()
    for op in block.ops:
        if isinstance(op, Apply):
            k = update_base(op)
            if k is not None and isinstance(op.args[k], Var):
                out.add(op.args[k])
        elif isinstance(op, If):
            out |= _updated(op.then) | _updated(op.orelse)
    return out


class _Own:
    def __init__(self, fn: Function):
        self.aliases = Aliases(fn)
        self.uses = Counter(a for op in iter_ops(fn.body) for a in op.operands() if isinstance(a, Var))
        self.next_id = max_var_id(fn) + 1

    def block(self, b: Block) -> Block:
        ops = []
        for op in b.ops:
            if isinstance(op, If):
                op = op.map(block=self.block)
            elif isinstance(op, (For, While)):
                op = self.loop(op, ops)
            ops.append(op)
        return dataclasses.replace(b, ops=tuple(ops))

    def loop(self, op, ops: list):
        body = self.block(op.body)
        op = dataclasses.replace(op, body=body)
        if isinstance(op, While):
            op = dataclasses.replace(op, cond=self.block(op.cond))
        params = body.params[1:] if isinstance(op, For) else body.params
        written = _updated(body)
        init = list(op.init)
        for i, (a, p) in enumerate(zip(op.init, params)):
            if not (isinstance(a, Var) and isinstance(a.type, T.Array) and p in written):
                continue
            if self.aliases.owned(p) and self.uses[a] <= 1:
                continue
            copy = Var(self.next_id, p.hint or a.hint, a.type)
            self.next_id += 1
            ops.append(Apply((copy,), "numpy.copy", (a,), (), op.loc))
            init[i] = copy
        return dataclasses.replace(op, init=tuple(init))


def own_loop_updates(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Own(fn).block(fn.body))


def _uses(ops) -> set:
    out = set()
    for op in ops:
        for inner in iter_ops_of(op):
            out.update(a for a in inner.operands() if isinstance(a, Var))
            if isinstance(inner, (For, While)):
                out.update(a for a in inner.body.yields if isinstance(a, Var))
            if isinstance(inner, If):
                out.update(a for b in (inner.then, inner.orelse) for a in b.yields if isinstance(a, Var))
    return out


def iter_ops_of(op):
    yield op
    blocks = (op.then, op.orelse) if isinstance(op, If) else (op.body,) if isinstance(op, For) else (
        (op.cond, op.body) if isinstance(op, While) else ())
    for b in blocks:
        for inner in b.ops:
            yield from iter_ops_of(inner)


class _Views:
    def __init__(self, fn: Function):
        self.aliases = Aliases(fn)
        self.next_id = max_var_id(fn) + 1

    def _writes(self, op) -> set:
        """Alias classes that `op` (or anything nested in it) writes into."""
        out = set()
        for inner in iter_ops_of(op):
            if isinstance(inner, Apply):
                k = update_base(inner)
                if k is not None and isinstance(inner.args[k], Var):
                    out.add(self.aliases.find(inner.args[k]))
        return out

    def block(self, b: Block) -> Block:
        ops = [op.map(block=self.block) for op in b.ops]
        out = []
        for i, op in enumerate(ops):
            if self._read_across_write(op, ops[i + 1:], b.yields):
                view = Var(self.next_id, "", op.outs[0].type)
                self.next_id += 1
                out.append(dataclasses.replace(op, outs=(view,)))
                op = Apply(op.outs, "numpy.copy", (view,), (), op.loc)
            out.append(op)
        return dataclasses.replace(b, ops=tuple(out))

    def _read_across_write(self, op, rest, yields) -> bool:
        if not (isinstance(op, Apply) and op.prim == "operator.getitem" and isinstance(op.args[0], Var)
                and isinstance(op.args[0].type, T.Array) and isinstance(op.outs[0].type, T.Array)):
            return False
        v, base = op.outs[0], self.aliases.find(op.args[0])
        for j, later in enumerate(rest):
            if base in self._writes(later):
                after = _uses(rest[j + 1:]) | {a for a in yields if isinstance(a, Var)}
                return v in after
        return False


def copy_views_read_across_writes(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Views(fn).block(fn.body))


def own_results(fn: Function, only: tuple | None = None) -> Function:
    """Every array the function returns (through tuples, lists and dicts) is its own: a
    derivative that simplified to an argument, a global or closure array, a view of one, a
    read-only broadcast (d/dx sum(x) is ones broadcast from a scalar), or an array returned at
    two places (d/dx and d/dy of x + y) is copied, so that changing one result in place
    (g *= lr, g += wd * w) changes nothing else: not the caller's arguments, not the
    function's constants, not another result. `only`: the positions of the tuple returned that
    are results (a vjp's forward function also returns its residuals, which stay as they are)."""
    aliases = Aliases(fn)
    defs = {op.outs[0]: op for op in fn.body.ops if isinstance(op, Apply) and len(op.outs) == 1}
    next_id = [max_var_id(fn) + 1]
    extra: list = []
    seen: set = set()

    def copy(a):
        v = Var(next_id[0], "", a.type if isinstance(a, Var) else T.UNKNOWN)
        next_id[0] += 1
        array = isinstance(a, Var) and isinstance(a.type, T.Array) or isinstance(a, Const)
        extra.append(Apply((v,), "numpy.copy" if array else "srcad.copy_value", (a,), (), fn.loc))
        return v

    def own(a, positions=None):
        d = defs.get(a) if isinstance(a, Var) else None
        if d is not None and d.prim in ("srcad.tuple", "srcad.list", "srcad.dict"):
            args = tuple(own(x) if positions is None or i in positions else x for i, x in enumerate(d.args))
            if args == d.args:
                return a
            v = Var(next_id[0], a.hint, a.type)
            next_id[0] += 1
            extra.append(Apply((v,), d.prim, args, (), d.loc))
            return v
        if isinstance(a, Const):
            held = a.value.obj if isinstance(a.value, Ext) else a.value
            return copy(a) if isinstance(held, np.ndarray) else a
        if not (isinstance(a, Var) and isinstance(a.type, (T.Array, T.Num, T.Unknown))):
            return a
        root = aliases.find(a)
        if not aliases.owned(a) or root in seen:
            return copy(a)
        seen.add(root)
        return a

    yields = tuple(own(y, only if k == 0 else None) for k, y in enumerate(fn.body.yields))
    if not extra:
        return fn
    body = dataclasses.replace(fn.body, ops=fn.body.ops + tuple(extra), yields=yields)
    return dataclasses.replace(fn, body=body)
