"""Constant folding, algebraic simplification and copy propagation, in one walk: `g * 1.0`
is g, `np.ndim(x)` of a 2-d array is 2, `if True` is its first branch, an item of a tuple
built in the function is that item, `g * (1.0 / y)` is `g / y`.

    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> def f(g, y, z):
    ...     a = g * 1.0
    ...     t = (a, y)
    ...     return t[0] * (1.0 / z)
    >>> show(dce(simplify(ir(f, 1.0, 2.0, 3.0))))
    def f(%g0: float, %y1: float, %z2: float):
      %7: float = operator.truediv(%g0, %z2)
      return %7

Identities that would change a value's type or shape are applied only when types show they
do not (x * 1 -> x needs x to be a float or float array, not an int).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from ..ir import types as T
from ..ir.nodes import (
    UNDEF,
    Apply,
    Atom,
    Block,
    Const,
    For,
    Function,
    If,
    Var,
    While,
    atom_type,
    iter_blocks,
    max_var_id,
)
from ..ir.rewrite import sub_atom, substitute_block
from ..rules import registry
from ..rules.shapes import broadcast
from ..rules.shapes_numpy import expand_dims_of
from .fold import basic_key, fold_apply
from .pieces import KnownPieces
from .uniform import UniformIdentities


def _is_num(a: Atom, value: float) -> bool:
    return isinstance(a, Const) and type(a.value) in (int, float) and a.value == value


def _keeps(x: Atom, c: Const) -> bool:
    """Does x op c (c a 0 or 1) have x's type? Floats always; ints and int arrays with an int c."""
    if _floaty(x):
        return True
    t = atom_type(x)
    integral = isinstance(t, T.Int) or (isinstance(t, T.Array) and t.kind in ("i", "u"))
    return integral and type(c.value) is int and not (isinstance(x, Const) and isinstance(x.value, np.ndarray)
                                                      and x.value.dtype.kind not in "iu")


def _floaty(a: Atom) -> bool:
    """A float or float array: an identity like x * 1 -> x keeps its type (an int or bool
    times 1.0 would become a float)."""
    t = atom_type(a)
    if isinstance(a, Const) and isinstance(a.value, np.ndarray):
        return a.value.dtype.kind == "f"
    return isinstance(t, (T.Float, T.Num, T.Unknown)) or (isinstance(t, T.Array) and t.kind in ("f", None))


def _uses(fn: Function) -> Counter:
    counts: Counter = Counter()
    for b in iter_blocks(fn.body):
        for op in b.ops:
            counts.update(a for a in op.operands() if isinstance(a, Var))
        counts.update(a for a in b.yields if isinstance(a, Var))
    return counts


class Simplifier(KnownPieces, UniformIdentities):
    def __init__(self, fn: Function):
        self.subst: dict[Var, Atom] = {}
        self.defs: dict[Var, Apply] = {}
        self.uses = _uses(fn)
        self.next_id = max_var_id(fn) + 1
        self.pending: list = []  # operations an identity needs emitted before its result
        self.rewrites = 0  # changes that substitute nothing (a cheaper operation, a dropped if)

    def fresh(self, t) -> Var:
        v = Var(self.next_id, "", t)
        self.next_id += 1
        return v

    def atom(self, a: Atom) -> Atom:
        return sub_atom(a, self.subst)

    def block(self, b: Block) -> Block:
        ops: list = []
        for op in b.ops:
            ops.extend(self.op(op))
        return Block(b.params, tuple(ops), tuple(self.atom(a) for a in b.yields))

    def op(self, op) -> list:
        if isinstance(op, Apply):
            return self.apply(op)
        if isinstance(op, If):
            return self.if_(op)
        return self.loop(op.map(self.atom, self.block), offset=1 if isinstance(op, For) else 0)

    def apply(self, op: Apply) -> list:
        op = op.map(self.atom)
        args, kw = op.args, op.kw
        rule = registry.lookup(op.prim)
        if op.prim == "srcad.bound" and isinstance(args[0], Const) and args[0].value is UNDEF:
            # a read of a variable that turned out to be unassigned on every path
            self.rewrites += 1
            return [Apply(op.outs, "srcad.unbound", args[1:], (), op.loc, keep=True)]
        if op.prim == "srcad.scatter_add" and len(args) == 3 and not kw:
            restored = self.restore(*args)
            if restored is not None:
                self.subst[op.outs[0]] = restored
                self.rewrites += 1
                return []
        if op.prim in ("srcad.setitem", "operator.setitem") and len(args) == 3 and not kw:
            added = self.added_in_place(*args)
            if added is not None:
                self.rewrites += 1
                return [dataclasses.replace(op, prim="srcad.scatter_add", args=(args[0], args[1], added))]
        if len(op.outs) == 1 and not rule.impure and rule.updates is None:
            folded = fold_apply(op.prim, args, kw)
            if folded is None:
                folded = self.identity(op) if not kw else self.shaped(op)
            pending, self.pending = self.pending, []
            self.rewrites += len(pending)
            if isinstance(folded, Apply):
                self.rewrites += 1
                op = folded
            elif folded is not None:
                self.subst[op.out] = folded
                return pending
            for extra in pending:
                self.defs[extra.out] = extra
            if pending:
                self.defs[op.out] = op
                return pending + [op]
        if len(op.outs) == 1:
            self.defs[op.out] = op
        return [op]

    def identity(self, op: Apply):
        """An algebraic identity: an equivalent atom, a cheaper Apply, or None."""
        p, a = op.prim, op.args
        if len(a) == 2:
            x, y = a
            if p == "operator.add":
                added = self.added(op, x, y)
                if added is not None:
                    return added
            if p == "operator.sub" and _is_num(y, 0) and _keeps(x, y) and atom_type(x) == op.out.type:
                return x
            if p in ("operator.mul", "operator.truediv"):
                masked = self.masked(op)
                if masked is not None:
                    return masked
            if p == "operator.mul":
                if _is_num(y, 1) and _keeps(x, y) and atom_type(x) == op.out.type:
                    return x
                if _is_num(x, 1) and _keeps(y, x) and atom_type(y) == op.out.type:
                    return y
                for u, v in ((x, y), (y, x)):
                    d = self.defs.get(v) if isinstance(v, Var) else None
                    if d and d.prim == "operator.truediv" and _is_num(d.args[0], 1) and self.uses[v] == 1:
                        return dataclasses.replace(op, prim="operator.truediv", args=(u, d.args[1]))
            if p in ("operator.truediv", "operator.pow") and _is_num(y, 1) and _floaty(x) \
                    and atom_type(x) == op.out.type:
                return x
            if p == "operator.getitem" and isinstance(y, Const) and isinstance(x, Var):
                d = self.defs.get(x)
                if d and d.prim in ("srcad.tuple", "srcad.list") and isinstance(y.value, int) \
                        and -len(d.args) <= y.value < len(d.args):
                    return d.args[y.value]
                if d and d.prim == "srcad.array_adjoint":
                    return self.item_of_adjoint(op)
        if p == "srcad.array_adjoint" and len(a) == 2 and isinstance(atom_type(a[1]), T.Array):
            return a[0]  # (np.array of an array: its cotangent as it is)
        if p == "srcad.split_like":
            return self.split_known(op)
        if p == "srcad.array_adjoint" and len(a) == 2 and isinstance(a[0], Var):
            d = self.defs.get(a[0])  # splitting a cotangent like x twice is splitting it once
            if d and d.prim == "srcad.array_adjoint" and d.args[1:] == a[1:]:
                return a[0]
        if p == "numpy.where" and len(a) == 3 and isinstance(a[0], Const):
            return self.constant_where(op)
        if p == "numpy.where" and len(a) == 3 and isinstance(a[0], Var):
            d = self.defs.get(a[0])  # every write of a basic key wins: np.where(True, g[k], 0) is g[k]
            if d and d.prim == "srcad.write_winners" and basic_key(atom_type(d.args[1])):
                return a[1]
        if p == "operator.neg" and isinstance(a[0], Var):
            d = self.defs.get(a[0])
            if d and d.prim == "operator.neg":
                return d.args[0]
            if d and d.prim == "numpy.where":
                return self.masked(op)
        return self.shaped(op)

    def added(self, op: Apply, x: Atom, y: Atom):
        """x + 0 is x; u + -w is u - w (exactly, in IEEE arithmetic); t + t is 2.0 * t."""
        if _is_num(y, 0) and _keeps(x, y) and atom_type(x) == op.out.type:
            return x
        if _is_num(x, 0) and _keeps(y, x) and atom_type(y) == op.out.type:
            return y
        for u, v in ((x, y), (y, x)):
            d = self.defs.get(v) if isinstance(v, Var) else None
            if d and d.prim == "operator.neg" and len(d.args) == 1 and _floaty(d.args[0]) and _floaty(u):
                return dataclasses.replace(op, prim="operator.sub", args=(u, d.args[0]))
        if x == y and isinstance(x, Var) and atom_type(x) == op.out.type and (
                isinstance(x.type, T.Float) or (isinstance(x.type, T.Array) and x.type.kind == "f")):
            return dataclasses.replace(op, prim="operator.mul", args=(Const(2.0), x))  # t + t is 2 t (exact)
        return self.joined_wheres(op, x, y)

    def elementwise(self, prim: str, operands: tuple, loc) -> Var | None:
        """prim(*operands), float operands of known shapes, emitted before the rewritten op (or None)."""
        shape = broadcast(*(T.shape_of(atom_type(v)) for v in operands))
        if shape is None or not all(map(_floaty, operands)):
            return None
        arrays = any(isinstance(atom_type(v), T.Array) for v in operands)
        inner = self.fresh(T.Array(len(shape), "f", shape) if arrays else T.Float())
        self.pending.append(Apply((inner,), prim, operands, (), loc))
        return inner

    def joined_wheres(self, op: Apply, x: Atom, y: Atom):
        """where(m, 0, a) + where(m, 0, b) is where(m, 0, a + b) (the zero in either branch, the
        same in both), when each where is used only here: one np.where fewer, exactly (0 + 0 is 0)."""
        dx, dy = (self.defs.get(v) if isinstance(v, Var) else None for v in (x, y))
        if not (dx and dy and dx.prim == dy.prim == "numpy.where" and len(dx.args) == len(dy.args) == 3) \
                or dx.kw or dy.kw or dx.args[0] != dy.args[0] or self.uses[x] != 1 or self.uses[y] != 1:
            return None
        zeros = [i for i in (1, 2) if _is_num(dx.args[i], 0) and _is_num(dy.args[i], 0)]
        if len(zeros) != 1:
            return None
        inner = self.elementwise("operator.add", (dx.args[3 - zeros[0]], dy.args[3 - zeros[0]]), op.loc)
        if inner is None:
            return None
        picks = (Const(0.0), inner) if zeros[0] == 1 else (inner, Const(0.0))
        return dataclasses.replace(op, prim="numpy.where", args=(dx.args[0],) + picks)

    def masked(self, op: Apply):
        """In adjoint code `where(m, g, 0) * y` is `where(m, g * y, 0)` (and likewise for /,
        unary -, and a zero in the other branch): a cotangent that np.where masked stays 0 where y is inf
        or NaN, as it is in the branch of the user's where that was not selected."""
        if op.loc is None or not op.loc.adjoint:
            return None
        x, y = op.args if len(op.args) == 2 else (op.args[0], None)
        for w, other, first in ((x, y, True), (y, x, False))[:1 + (op.prim == "operator.mul")]:
            d = self.defs.get(w) if isinstance(w, Var) else None
            if d is None or d.prim != "numpy.where" or len(d.args) != 3 or d.kw or \
                    d.loc is None or not d.loc.adjoint:
                continue
            m, a, b = d.args
            if _is_num(a, 0) == _is_num(b, 0):
                continue
            sel = b if _is_num(a, 0) else a
            operands = (sel,) if other is None else (sel, other) if first else (other, sel)
            inner = self.elementwise(op.prim, operands, op.loc)
            if inner is None:
                continue
            picks = (inner, Const(0.0)) if sel is a else (Const(0.0), inner)
            return dataclasses.replace(op, prim="numpy.where", args=(m,) + picks)
        return None

    def restore(self, b1: Atom, key: Atom, g: Atom):
        """`b1 = setitem(b, k, 0); scatter_add(b1, k, b[k])` is b (the adjoint of `y[k] += v`),
        for keys that select each element once."""
        d = self.defs.get(b1) if isinstance(b1, Var) else None
        if d is None or d.prim not in ("srcad.setitem", "operator.setitem") or len(d.args) != 3:
            return None
        if d.args[1] != key or not _is_num(d.args[2], 0) or not basic_key(atom_type(key)):
            return None
        r = self.defs.get(g) if isinstance(g, Var) else None
        if r is None or r.prim != "operator.getitem" or r.args != (d.args[0], key):
            return None
        return d.args[0]

    def added_in_place(self, b: Atom, key: Atom, w: Atom):
        """`b[k] = b[k] + v` (the form `b[k] += v` takes in code srcad transforms again) is a
        scatter-add of v at k: the v, or None. Float arrays and keys that select each
        element once only."""
        d = self.defs.get(w) if isinstance(w, Var) else None
        if d is None or d.prim != "operator.add" or len(d.args) != 2 or self.uses[w] != 1:
            return None
        if not (isinstance(atom_type(b), T.Array) and atom_type(b).kind == "f"
                and basic_key(atom_type(key))):
            return None
        for r, v in ((d.args[0], d.args[1]), (d.args[1], d.args[0])):
            g = self.defs.get(r) if isinstance(r, Var) else None
            if g is not None and g.prim == "operator.getitem" and g.args == (b, key) and _floaty(v) \
                    and T.shape_of(atom_type(w)) == T.shape_of(atom_type(r)) is not None:
                return v
        return None

    # identities that need exact shapes (code specialised on argument shapes)

    def shaped(self, op: Apply):
        """Drop shape-only work: reductions to a shape a cotangent already has, operands
        used only for their shape, and broadcasts of scalars that the next elementwise
        operation would do anyway."""
        p, a = op.prim, op.args
        if op.kw and p != "numpy.sum":
            return None  # (keyword arguments: only np.sum(x, axis=...) is rewritten)
        shape = lambda x: T.shape_of(atom_type(x))  # noqa: E731
        if p == "srcad.sum_to_shape" and len(a) == 2 and a[1] == Const(()):
            return dataclasses.replace(op, prim="numpy.sum", args=(a[0],), kw=())
        if p == "numpy.sum" and len(a) >= 1 and isinstance(a[0], Var) and all(
                k in ("axis", "keepdims") for k, _ in op.kw):
            d = self.defs.get(a[0])
            if d is not None and d.prim == "operator.neg" and self.uses[a[0]] == 1:
                inner = self.fresh(op.out.type)  # -sum(x): negate the (smaller) result
                self.pending.append(Apply((inner,), "numpy.sum", (d.args[0],) + a[1:], op.kw, op.loc))
                return dataclasses.replace(op, prim="operator.neg", args=(inner,), kw=())
        if p == "srcad.unbroadcast" and len(a) == 2:
            c, x = a
            sc, sx = shape(c), shape(x)
            if sx is not None and sc == sx:
                return c
            if sx is not None and sc is not None:
                return dataclasses.replace(op, prim="srcad.sum_to_shape", args=(c, Const(sx)))
        if p == "srcad.broadcast_like" and len(a) == 2 and shape(a[1]) is not None:
            if shape(a[0]) == shape(a[1]):
                return a[0]
            return dataclasses.replace(op, prim="srcad.broadcast_to", args=(a[0], Const(shape(a[1]))))
        if p == "srcad.expand_reduced" and len(a) >= 2 and shape(a[1]) is not None:
            axis = a[2] if len(a) > 2 else Const(None)
            if axis == Const(None) and shape(a[0]) == ():
                return dataclasses.replace(op, prim="srcad.broadcast_to", args=(a[0], Const(shape(a[1]))),
                                           kw=())
        if p == "srcad.expand_reduced" and len(a) >= 3 and shape(a[1]) is not None \
                and shape(a[0]) is not None and isinstance(a[2], Const) and a[2].value is not None \
                and (len(a) < 4 or a[3] == Const(False)):
            return self.expand_axes(op, a[0], a[2], shape(a[1]))
        if p in ("srcad.zeros_like", "numpy.zeros_like") and shape(a[0]) is not None and \
                isinstance(atom_type(a[0]), T.Array) and atom_type(a[0]).kind in ("f", None):
            return dataclasses.replace(op, prim="numpy.zeros", args=(Const(shape(a[0])),), kw=())
        if p in ("numpy.shape", "numpy.ndarray.shape") and len(a) == 1 and shape(a[0]) is not None:
            return Const(shape(a[0]))
        if p == "srcad.sum_to_shape" and len(a) == 2 and isinstance(a[1], Const) and shape(a[0]) is not None:
            return self.sum_to_shape(op, a[0], shape(a[0]), a[1].value)
        if p == "srcad.expand_reduced" and len(a) == 4 and a[3] == Const(True) and shape(a[1]) is not None:
            return dataclasses.replace(op, prim="srcad.broadcast_to", args=(a[0], Const(shape(a[1]))), kw=())
        if p == "srcad.T" and isinstance(atom_type(a[0]), T.Array) and atom_type(a[0]).ndim == 2:
            return dataclasses.replace(op, prim="numpy.ndarray.T")
        if p == "numpy.sum":
            return self.uniform_sum(op)
        if p == "numpy.size" and len(a) == 1 and not op.kw and shape(a[0]) is not None:
            n = 1
            for d in shape(a[0]):
                n *= d
            return Const(n)
        rule = registry.lookup(p)
        if rule is not None and rule.kind == "elementwise" and not rule.inplace and len(a) in (2, 3):
            return self.unbroadcast_scalar(op)
        return None

    def expand_axes(self, op: Apply, v: Atom, axis: Const, want: tuple):
        """expand_reduced over known axes: `np.expand_dims` then a broadcast (which the next
        elementwise operation usually does by itself, see unbroadcast_scalar)."""
        if want == ():  # a 0-d input (NumPy takes axis 0 or -1 of it): nothing to expand
            return dataclasses.replace(op, prim="srcad.broadcast_to", args=(v, Const(want)), kw=())
        dims = _expand_dims_shape(T.shape_of(atom_type(v)), axis.value)
        if dims is None:
            return None
        d = self.defs.get(v) if isinstance(v, Var) else None
        if d is not None and d.prim == "srcad.broadcast_to" and T.shape_of(atom_type(d.args[0])) == ():
            return dataclasses.replace(op, prim="srcad.broadcast_to", args=(d.args[0], Const(want)), kw=())
        tv = atom_type(v)  # (the kind of v: a complex cotangent stays complex)
        inner = self.fresh(T.Array(len(dims), tv.kind if isinstance(tv, T.Array) else
                                   "c" if T.is_complex(tv) else "f", dims))
        self.pending.append(Apply((inner,), "numpy.expand_dims", (v, axis), (), op.loc))
        return dataclasses.replace(op, prim="srcad.broadcast_to", args=(inner, Const(want)), kw=())

    def sum_to_shape(self, op: Apply, c: Atom, have: tuple, want: tuple):
        """sum_to_shape with both shapes known: a plain np.sum over the broadcast axes."""
        if have == want:
            return c
        lead = len(have) - len(want)
        if lead < 0:
            return None
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(want)
                                          if d == 1 and have[lead + i] != 1)
        if not axes:
            return dataclasses.replace(op, prim="numpy.reshape", args=(c, Const(want)), kw=())
        if not want:
            return dataclasses.replace(op, prim="numpy.sum", args=(c,), kw=())
        if lead == len(axes):  # only leading axes: the result already has the wanted shape
            return dataclasses.replace(op, prim="numpy.sum", args=(c,), kw=(("axis", Const(
                axes[0] if len(axes) == 1 else axes)),))
        if lead == 0:
            return dataclasses.replace(op, prim="numpy.sum", args=(c,), kw=(
                ("axis", Const(axes[0] if len(axes) == 1 else axes)), ("keepdims", Const(True))))
        return None

    def unbroadcast_scalar(self, op: Apply):
        """`broadcast_to(v, S) * y` with y of shape S is `v * y` (broadcasting does the rest);
        likewise for the operands of np.where."""
        out_shape = T.shape_of(op.out.type)
        args = list(op.args)
        for i, x in enumerate(args):
            d = self.defs.get(x) if isinstance(x, Var) else None
            if d is None or d.prim != "srcad.broadcast_to" or T.shape_of(atom_type(d.args[0])) is None:
                continue
            others = args[:i] + args[i + 1:]
            if out_shape is not None and broadcast(*(T.shape_of(atom_type(o)) for o in others),
                                                   T.shape_of(atom_type(d.args[0]))) == out_shape:
                args[i] = d.args[0]
                return dataclasses.replace(op, args=tuple(args))
            other = others[0]
            if (len(args) == 2 and isinstance(other, Const) and isinstance(d.args[0], Const)
                    and T.shape_of(atom_type(d.args[0])) == ()):
                args[i] = d.args[0]  # a constant times a broadcast constant stays a broadcast
                folded = fold_apply(op.prim, tuple(args))
                if folded is not None:
                    return dataclasses.replace(op, prim="srcad.broadcast_to", args=(folded, d.args[1]), kw=())
        return self.uniform_product(op, args)

    def if_(self, op: If) -> list:
        cond = self.atom(op.cond)
        if isinstance(cond, Const):
            taken = self.block(op.then if cond.value else op.orelse)
            for o, y in zip(op.outs, taken.yields):
                self.subst[o] = y
            self.rewrites += 1
            return list(taken.ops)
        then, orelse = self.block(op.then), self.block(op.orelse)
        keep, pre = [], []
        for i, (o, a, b) in enumerate(zip(op.outs, then.yields, orelse.yields)):
            if a == b:
                self.subst[o] = a
            elif a == Const(True) and b == Const(False) and isinstance(atom_type(cond), T.Bool):
                self.subst[o] = cond  # `flag = True if c else False` is `c`
            elif a == Const(False) and b == Const(True) and isinstance(atom_type(cond), T.Bool):
                pre.append(Apply((o,), "operator.not_", (cond,), (), op.loc))
            else:
                keep.append(i)
        self.rewrites += len(pre) + (len(keep) < len(op.outs))
        if not then.ops and not orelse.ops and not keep:
            self.rewrites += 1
            return pre
        return pre + [If(tuple(op.outs[i] for i in keep), cond,
                   Block((), then.ops, tuple(then.yields[i] for i in keep)),
                   Block((), orelse.ops, tuple(orelse.yields[i] for i in keep)), op.loc)]

    def loop(self, op, offset: int) -> list:
        """Drop carried values that never change (yield is the parameter or the init)."""
        params = op.body.params[offset:]
        n = len(op.outs)
        keep = []
        for i in range(n):
            y = op.body.yields[i]
            if y == params[i] or y == op.init[i]:
                self.subst[params[i]] = op.init[i]
                self.subst[op.outs[i]] = op.init[i]
                if isinstance(op, While):
                    self.subst[op.cond.params[i]] = op.init[i]
            else:
                keep.append(i)
        if len(keep) == n:
            return [op]
        self.rewrites += 1
        # apply the new substitutions inside the body, then rebuild with fewer carried values
        body = substitute_block(op.body, self.subst)
        extra = body.yields[n:]
        new_body = Block(body.params[:offset] + tuple(params[i] for i in keep), body.ops,
                         tuple(body.yields[i] for i in keep) + extra)
        changes = dict(outs=tuple(op.outs[i] for i in keep), init=tuple(op.init[i] for i in keep),
                       body=new_body)
        if isinstance(op, While):
            cond = substitute_block(op.cond, self.subst)
            changes["cond"] = Block(tuple(cond.params[i] for i in keep), cond.ops, cond.yields)
        return [dataclasses.replace(op, **changes)]


def simplify(fn: Function) -> Function:
    """Fold constants, apply identities and forward copies; run to a fixed point."""
    for _ in range(4):
        s = Simplifier(fn)
        new = dataclasses.replace(fn, body=s.block(fn.body))
        if not s.subst and not s.rewrites:
            return new
        fn = new
    return fn


def _expand_dims_shape(shape, axis):
    return expand_dims_of(shape, axis)


