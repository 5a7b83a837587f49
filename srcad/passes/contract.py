"""Sums of per-iteration products, contracted once after the loop.

A loop that adds an outer product (or a matrix product over a short inner axis) of two
values of the iteration into an accumulator,

    acc = np.zeros((m, n))                  A = np.empty((T, m, b)); H = np.empty((T, b, n))
    for t in range(T):                      for t in range(T):
        ...                        ->           ...
        acc = acc + a @ h                       A[t] = a; H[t] = h
                                            acc = np.tensordot(A, H, axes=((0, 2), (0, 1)))

does a small product, an m x n temporary and a pass over the accumulator per iteration;
with the factors stored instead, an iteration copies them (a few hundred nanoseconds) and
one contraction over all iterations runs after the loop. A backward sweep's
`W_bar += g @ h.T` of an RNN is the typical case. The products recognised: `P @ Q` of
matrices (an operand `X.T` stores X), `np.outer(a, b)` of vectors, and `c * r` of a
column (m, 1) and a row ((n,) or (1, n)). A factor `X[t]`, a row of an array X the loop does
not change read at the loop index, is not stored: the contraction reads X's rows.

The rewrite happens only where it is exact and pays:
- a `for` loop without `break` (its trip count is known when it starts) and a literal step;
- the accumulator starts as `np.zeros(shape)` used nowhere else, and the loop reads it only
  in the one `acc + product` whose result is its next value;
- the product is used only there, and every shape is known;
- per iteration the stored factors hold no more numbers than the product.

Only rounding differs (the terms are summed in another order).

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def f(a, h):
    ...     acc = np.zeros((3, 2))
    ...     for t in range(4):
    ...         acc = acc + np.outer(np.sin(a[t]), h[t])
    ...     return acc
    >>> from srcad.passes.dce import dce
    >>> show(dce(contract_after_loops(ir(f, np.ones((4, 3)), np.ones((4, 2))))))
    def f(%a0: float[4, 3], %h1: float[4, 2]):
      %_steps17: float[4, 3] = numpy.empty((4, 3))
      %_steps20: float[4, 3] = for %t3 in range(0, 4, 1) carry(%_steps18 = %_steps17):
        %6: float[3] = operator.getitem(%a0, %t3)
        %7: float[3] = numpy.sin(%6)
        %_steps19: float[4, 3] = operator.setitem(%_steps18, %t3, %7)
        yield %_steps19
      %acc21: float[3, 2] = numpy.tensordot(%_steps20, %h1, axes=((0,), (0,)))
      return %acc21
"""

from __future__ import annotations

import dataclasses
import math

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, Function, Var, iter_blocks, max_var_id
from ..ir.rewrite import substitute_block
from .census import uses_and_defs


@dataclasses.dataclass(frozen=True)
class _Factor:
    """A factor of the product as stored per iteration: `atom` (of shape `shape`), its free
    (result) axis and its inner (contracted) axis, None for a vector of an outer product;
    `unit`: an axis of length 1 that the contraction leaves out (a column times a vector)."""

    atom: Var
    shape: tuple[int, ...]
    free: int
    inner: int | None
    unit: int | None = None


def _shape(a) -> tuple | None:
    t = a.type if isinstance(a, Var) else None
    if isinstance(t, T.Array) and t.kind == "f" and t.shape is not None and None not in t.shape:
        return t.shape
    return None


def _int(a) -> int | None:
    return a.value if isinstance(a, Const) and type(a.value) is int else None


def _defined(b: Block) -> set:
    return {v for blk in iter_blocks(b) for v in blk.params} | {
        v for blk in iter_blocks(b) for op in blk.ops for v in op.outs}


class _Contract:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1
        self.uses, self.defs = uses_and_defs(fn)

    def fresh(self, t: T.Type, hint: str = "") -> Var:
        v = Var(self.next, hint, t)
        self.next += 1
        return v

    # -- recognising ---------------------------------------------------------------------

    def factors(self, prod: Apply) -> tuple[_Factor, _Factor] | None:
        """The two factors of the product `prod` (an m x n matrix), or None."""
        out = _shape(prod.out)
        if out is None or len(out) != 2 or prod.kw or len(prod.args) != 2:
            return None
        a, b = prod.args
        sa, sb = _shape(a), _shape(b)
        if sa is None or sb is None:
            return None
        if prod.prim == "operator.matmul" and len(sa) == 2 and len(sb) == 2:
            return self.operand(a, sa, 0), self.operand(b, sb, 1)
        if prod.prim == "numpy.outer" and len(sa) == 1 and len(sb) == 1:
            return _Factor(a, sa, 0, None), _Factor(b, sb, 0, None)
        if prod.prim == "operator.mul" and out[0] > 1:
            for c, sc, r, sr in ((a, sa, b, sb), (b, sb, a, sa)):
                if sc == (out[0], 1) and sr == (out[1],):
                    col = self.defs.get(c)
                    if (isinstance(col, Apply) and col.prim == "numpy.expand_dims" and not col.kw
                            and _shape(col.args[0]) == (out[0],) and col.args[1] in (Const(-1), Const(1))):
                        return _Factor(col.args[0], (out[0],), 0, None), _Factor(r, sr, 0, None)
                    return _Factor(c, sc, 0, None, unit=1), _Factor(r, sr, 0, None)
                if sc == (out[0], 1) and sr == (1, out[1]):
                    return _Factor(c, sc, 0, 1), _Factor(r, sr, 1, 0)
        return None

    def operand(self, a: Var, s: tuple, free: int) -> _Factor:
        """A matrix operand of `@` whose free axis is `free`; `X.T` stores X."""
        op = self.defs.get(a)
        if (isinstance(op, Apply) and op.prim == "numpy.ndarray.T" and _shape(op.args[0]) is not None
                and len(_shape(op.args[0])) == 2):
            return _Factor(op.args[0], _shape(op.args[0]), 1 - free, free)
        return _Factor(a, s, free, 1 - free)

    def accumulation(self, loop: For, i: int, body_ops: dict, inside: set):
        """(add, factors, rows) when carried value i only ever becomes `acc + product`."""
        p, nxt, init = loop.body.params[1 + i], loop.body.yields[i], loop.init[i]
        z = self.defs.get(init) if isinstance(init, Var) else None
        if not (isinstance(z, Apply) and z.prim == "numpy.zeros" and not z.kw and len(z.args) == 1
                and self.uses[init] == 1 and _shape(init) is not None and len(_shape(init)) == 2):
            return None
        add = body_ops.get(nxt)
        if not (isinstance(add, Apply) and add.prim in ("operator.add", "operator.iadd") and not add.kw
                and p in add.args and add.args[0] != add.args[1] and self.uses[p] == 1
                and self.uses[nxt] == 1):
            return None
        m = add.args[1] if add.args[0] == p else add.args[0]
        prod = body_ops.get(m)
        if not (isinstance(prod, Apply) and self.uses[m] == 1 and _shape(m) == _shape(init) == _shape(p)
                and _shape(add.out) == _shape(init)):
            return None
        fs = self.factors(prod)
        if fs is None:
            return None
        rows = tuple(self.rows(f, loop, inside) for f in fs)
        stored = sum(math.prod(f.shape) for f, r in zip(fs, rows) if r is None)
        if stored > math.prod(_shape(m)):  # storing would move more numbers than adding
            return None
        return add, fs, rows

    def rows(self, f: _Factor, loop: For, inside: set):
        """(X, slice) when f is `X[t]`, X an array the loop does not change, t its index."""
        op = self.defs.get(f.atom)
        if not (isinstance(op, Apply) and op.prim == "operator.getitem" and op.args[1] == loop.body.params[0]
                and isinstance(op.args[0], Var) and op.args[0] not in inside):
            return None
        x, sx = op.args[0], _shape(op.args[0])
        start, stop, step = _int(loop.start), _int(loop.stop), _int(loop.step)
        if sx is None or sx[1:] != f.shape or None in (start, stop, step) or not (
                step > 0 and 0 <= start <= stop <= sx[0]):
            return None
        return x, slice(start, stop, step)

    # -- rewriting -----------------------------------------------------------------------

    def block(self, b: Block) -> Block:
        ops: list = []
        subst: dict = {}
        for op in b.ops:
            op = op.map(block=self.block)
            if isinstance(op, For) and not op.exits and _int(op.step):
                pre, op, post = self.loop(op, subst)
                ops.extend(pre)
                ops.append(op)
                ops.extend(post)
            else:
                ops.append(op)
        out = Block(b.params, tuple(ops), b.yields)
        return substitute_block(out, subst) if subst else out

    def loop(self, loop: For, subst: dict):
        body_ops = {v: op for op in loop.body.ops if isinstance(op, Apply) for v in op.outs}
        inside = _defined(loop.body)
        found = {i: acc for i in range(len(loop.init))
                 if (acc := self.accumulation(loop, i, body_ops, inside)) is not None}
        if not found:
            return [], loop, []
        pre: list = []
        post: list = []
        trips = self.trip_count(loop, pre)
        index, index_ops = self.position(loop)
        carried: list = []  # (param, init, yield, out) of the stored factors
        stores: dict = {}  # the add an accumulation made -> the stores that replace it
        stacks: dict = {}  # a factor -> its values after the loop
        for i, (add, fs, rows) in found.items():
            stacked = []
            mine = stores.setdefault(id(add), [])  # (the add goes, whether or not stores replace it)
            for f, r in zip(fs, rows):
                if r is not None:
                    x = r[0] if r[1] == slice(0, _shape(r[0])[0], 1) else self.emit(
                        post, "operator.getitem", (r[0], Const(r[1])), (trips,) + f.shape, loop)
                elif f.atom in stacks:
                    x = stacks[f.atom]
                else:
                    x = stacks[f.atom] = self.store(f, trips, index, pre, carried, mine, add.loc, loop)
                if f.unit is not None:
                    key = (slice(None),) * (1 + f.unit) + (0,)
                    x = self.emit(post, "operator.getitem", (x, Const(key)), (trips, f.shape[0]), loop)
                stacked.append(x)
            axes = tuple((0,) if f.inner is None else (0, 1 + f.inner) for f in fs)
            acc = loop.outs[i]
            new = self.fresh(acc.type, acc.hint)
            post.append(Apply((new,), "numpy.tensordot", tuple(stacked), (("axes", Const(axes)),), loop.loc))
            subst[acc] = new
        return pre, self.rebuild(loop, set(found), carried, stores, index_ops), post

    def emit(self, ops: list, prim: str, args: tuple, shape: tuple, loop: For, hint: str = "") -> Var:
        known = None if not isinstance(shape[0], int) else shape
        v = self.fresh(T.Array(len(shape), "f", known), hint)
        ops.append(Apply((v,), prim, args, (), loop.loc))
        return v

    def store(self, f: _Factor, trips, index, pre: list, carried: list, stores: list, loc, loop: For) -> Var:
        """A stack of f's values, one per iteration, written by `stores`; its value after the loop."""
        whole = (trips,) + f.shape
        if isinstance(trips, int):
            shape = Const(whole)
        else:
            shape = self.fresh(T.Tuple(tuple(T.INT for _ in whole)))
            pre.append(Apply((shape,), "srcad.tuple", (trips,) + tuple(Const(n) for n in f.shape), (),
                             loop.loc))
        hint = f"_{f.atom.hint}_steps" if f.atom.hint else "_steps"
        empty = self.emit(pre, "numpy.empty", (shape,), whole, loop, hint)
        s_in, s_out, s_end = (self.fresh(empty.type, hint) for _ in range(3))
        stores.append(Apply((s_out,), "operator.setitem", (s_in, index, f.atom), (), loc))
        carried.append((s_in, empty, s_out, s_end))
        return s_end

    def trip_count(self, loop: For, pre: list):
        """len(range(start, stop, step)): an int, or a value computed before the loop."""
        bounds = (loop.start, loop.stop, loop.step)
        if all(_int(a) is not None for a in bounds):
            return len(range(*(_int(a) for a in bounds)))
        r = self.fresh(T.Opaque("range"))
        n = self.fresh(T.INT)
        pre.append(Apply((r,), "builtins.range", bounds, (), loop.loc))
        pre.append(Apply((n,), "builtins.len", (r,), (), loop.loc))
        return n

    def position(self, loop: For):
        """The iteration's position 0, 1, ... in the loop's range (in a reversed loop too)."""
        t = loop.body.params[0]
        start, step = loop.start, _int(loop.step)
        if start == Const(0) and step == 1:
            return t, []
        d = self.fresh(T.INT)
        ops = [Apply((d,), "operator.sub", (t, start), (), loop.loc)]
        if step == 1:
            return d, ops
        k = self.fresh(T.INT)
        ops.append(Apply((k,), "operator.floordiv", (d, Const(step)), (), loop.loc))
        return k, ops

    def rebuild(self, loop: For, gone: set, carried: list, stores: dict, index_ops: list) -> For:
        body = loop.body
        ops = list(index_ops)
        for op in body.ops:
            ops.extend(stores.get(id(op), [op]))
        keep = [i for i in range(len(loop.init)) if i not in gone]
        params = (body.params[0],) + tuple(body.params[1 + i] for i in keep) + tuple(c[0] for c in carried)
        yields = tuple(body.yields[i] for i in keep) + tuple(c[2] for c in carried)
        return dataclasses.replace(
            loop, outs=tuple(loop.outs[i] for i in keep) + tuple(c[3] for c in carried),
            init=tuple(loop.init[i] for i in keep) + tuple(c[1] for c in carried),
            body=Block(params, tuple(ops), yields))


def contract_after_loops(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Contract(fn).block(fn.body))
