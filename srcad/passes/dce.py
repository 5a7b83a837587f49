"""Dead-code elimination: drop operations and loop-carried values nothing needs.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def f(x):
    ...     y = np.sin(x)          # unused
    ...     s, t = 0.0, 1.0
    ...     for i in range(3):
    ...         s = s + x
    ...         t = t * x          # carried, but its result is unused
    ...     return s
    >>> show(dce(ir(f, 1.0)))
    def f(%x0: float):
      %s9: float = for %i2 in range(0, 3, 1) carry(%s3 = 0.0):
        %s5: float = operator.add(%s3, %x0)
        yield %s5
      return %s9

Liveness starts from the function's results and from operations with effects (print,
raise, assert, calls srcad cannot see into, and anything that may raise: `math.log(x)` with
its result unused still raises for x <= 0, and so must the derivative; see
analysis/effects.py), and flows backwards; loop-carried values are live if their result is, or if
something live in the body reads their parameter (a fixed point).
"""

from __future__ import annotations

import dataclasses

from ..analysis.effects import has_effect as _effect
from ..analysis.effects import must_keep
from ..ir.nodes import Apply, Block, For, Function, If, Var, While
from ..rules import registry


class _Live:
    def __init__(self, effects: bool = True):
        self.live: set[Var] = set()
        self.effects = effects  # (False: what the results alone need)

    def _effect(self, op) -> bool:
        return self.effects and _effect(op)

    def use(self, atoms) -> bool:
        before = len(self.live)
        self.live.update(a for a in atoms if isinstance(a, Var))
        return len(self.live) != before

    def block(self, b: Block) -> None:
        """Mark what `b` needs, given which of its yields are live (already in self.live)."""
        for op in reversed(b.ops):
            self.op(op)

    def op(self, op) -> None:
        if not isinstance(op, (If, For, While)):
            if self._effect(op) or any(o in self.live for o in op.outs):
                self.use(op.operands())
            return
        if isinstance(op, If):
            needed = [i for i, o in enumerate(op.outs) if o in self.live]
            if needed or self._effect(op):
                self.use(op.then.yields[i] for i in needed)
                self.use(op.orelse.yields[i] for i in needed)
                self.block(op.then)
                self.block(op.orelse)
                self.use([op.cond])
            return
        self.loop(op)

    def loop(self, op) -> None:
        offset = 1 if isinstance(op, For) else 0
        params = op.body.params[offset:]
        n = len(op.outs)
        if not any(o in self.live for o in op.outs) and not self._effect(op):
            return
        extra = op.body.yields[n:]
        self.use(extra)
        while True:
            changed = False
            for i in range(n):
                if op.outs[i] in self.live or params[i] in self.live or (
                        isinstance(op, While) and op.cond.params[i] in self.live):
                    changed |= self.use([op.body.yields[i], params[i], op.outs[i]])
            before = len(self.live)
            self.block(op.body)
            if isinstance(op, While):
                self.use(op.cond.yields)
                self.block(op.cond)
            if not changed and len(self.live) == before:
                break
        self.use(op.operands()[:3] if isinstance(op, For) else ())
        self.use(op.init[i] for i in range(n) if op.outs[i] in self.live)


def _sweep_block(b: Block, live: set) -> Block:
    ops = []
    for op in b.ops:
        if not isinstance(op, (If, For, While)):
            if _effect(op) or any(o in live for o in op.outs):
                ops.append(op)
        elif isinstance(op, If):
            keep = [i for i, o in enumerate(op.outs) if o in live]
            then, orelse = _sweep_block(op.then, live), _sweep_block(op.orelse, live)
            if keep or then.ops or orelse.ops:
                ops.append(If(tuple(op.outs[i] for i in keep), op.cond,
                              Block((), then.ops, tuple(then.yields[i] for i in keep)),
                              Block((), orelse.ops, tuple(orelse.yields[i] for i in keep)), op.loc))
        elif any(o in live for o in op.outs) or _effect(op):
            ops.append(_sweep_loop(op, live))
    return Block(b.params, tuple(ops), b.yields)


def _sweep_loop(op, live: set):
    offset = 1 if isinstance(op, For) else 0
    n = len(op.outs)
    keep = [i for i in range(n) if op.outs[i] in live]
    body = _sweep_block(op.body, live)
    new_body = Block(body.params[:offset] + tuple(body.params[offset + i] for i in keep), body.ops,
                     tuple(body.yields[i] for i in keep) + body.yields[n:])
    changes = dict(outs=tuple(op.outs[i] for i in keep), init=tuple(op.init[i] for i in keep),
                   body=new_body)
    if isinstance(op, While):
        cond = _sweep_block(op.cond, live)
        changes["cond"] = Block(tuple(cond.params[i] for i in keep), cond.ops, cond.yields)
    return dataclasses.replace(op, **changes)


def mark_kept(fn: Function) -> Function:
    """Mark the user's operations that may raise (or that srcad cannot see into) `keep`, so
    that they run in derivative code even where their results are unused.

        >>> import math
        >>> import numpy as np
        >>> from srcad.examples import ir
        >>> def f(x, a):
        ...     math.log(x)       # raises for x <= 0
        ...     np.log(a)         # an array: NumPy only warns
        ...     return x
        >>> [op.keep for op in mark_kept(ir(f, 1.0, np.ones(2))).body.ops]
        [True, False]
    """
    def mark(b: Block) -> Block:
        ops = tuple(op.map(block=mark) if not isinstance(op, Apply) else dataclasses.replace(
            op, keep=True) if not op.keep and must_keep(op) else op for op in b.ops)
        return dataclasses.replace(b, ops=ops)
    return dataclasses.replace(fn, body=mark(fn.body))


def forget_kept(fn: Function) -> Function:
    """mark_kept undone for operations that are kept only because they may raise: for code
    derived from srcad's own generated code, specialised on the exact shapes it ran with
    (jacrev's batched backward sweep), where only the results matter."""
    def clear(b: Block) -> Block:
        ops = tuple(op.map(block=clear) if not isinstance(op, Apply) else dataclasses.replace(
            op, keep=False) if op.keep and _merely_raises(op) else op for op in b.ops)
        return dataclasses.replace(b, ops=ops)
    return dataclasses.replace(fn, body=clear(fn.body))


def _merely_raises(op: Apply) -> bool:
    rule = registry.lookup(op.prim)
    return rule is not None and not (rule.impure or rule.opaque or rule.custom)


def needed_values(fn: Function) -> set:
    """The values the results and the effects of fn need (the user's operations that may
    raise counted as effects), and whether an operation matters for them."""
    lv = _Live()
    lv.use(fn.body.yields)
    lv.block(mark_kept(fn).body)
    return lv.live


def needed_by(body: Block, outputs) -> set:
    """The values `outputs` need, effects aside (`print(v)` is no use of v)."""
    lv = _Live(effects=False)
    lv.use(outputs)
    lv.block(body)
    return lv.live


def matters(op, needed: set) -> bool:
    """Does dead-code elimination keep this operation (given needed_values)?"""
    return _effect(op) or must_keep(op) or any(o in needed for o in op.outs)


def dce(fn: Function) -> Function:
    """Remove everything that does not contribute to the results or to an effect."""
    lv = _Live()
    lv.use(fn.body.yields)
    lv.block(fn.body)
    return dataclasses.replace(fn, body=_sweep_block(fn.body, lv.live))
