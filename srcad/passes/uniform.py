"""Identities of the simplifier for arrays that hold one number everywhere:
a broadcast scalar times a scalar stays a broadcast scalar, the sum of a broadcast scalar is
a product, `np.where` with a constant condition is the operand it picks, and in adjoint code
a scalar factor leaves a sum.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> from srcad.passes.simplify import simplify
    >>> def f(s):
    ...     return np.sum(np.broadcast_to(s, (4, 5)))
    >>> show(dce(simplify(ir(f, 2.0))))
    def f(%s0: float):
      %2: float = operator.mul(%s0, 20)
      return %2

The mixin works on the simplifier's state (`defs`, `uses`, `pending`, `fresh`).
"""

from __future__ import annotations

import dataclasses
import math

from ..ir import types as T
from ..ir.nodes import Apply, Const, Var, atom_type


def _scalar_float(a) -> bool:
    return isinstance(atom_type(a), T.Float)


def _vectors(args) -> bool:
    """Two float vectors of one known shape."""
    ta, tb = (atom_type(x) for x in args)
    return all(isinstance(t, T.Array) and t.kind == "f" and t.ndim == 1 for t in (ta, tb)) \
        and T.shape_of(ta) == T.shape_of(tb) is not None


class UniformIdentities:
    def uniform_product(self, op: Apply, args: list):
        """`broadcast_to(v, S) * s` with v and s numbers is `broadcast_to(v * s, S)`: the
        product of two numbers, broadcast when (and if) something needs the array. (In adjoint
        code only: a broadcast is a read-only view, and user code may write into its product.)"""
        if op.loc is None or not op.loc.adjoint or len(args) != 2 or \
                op.prim not in ("operator.mul", "operator.truediv"):
            return None
        out = op.out.type
        if not (isinstance(out, T.Array) and out.kind == "f"):
            return None
        for i, x in enumerate(args):
            d = self.defs.get(x) if isinstance(x, Var) else None
            other = args[1 - i]
            if d is None or d.prim != "srcad.broadcast_to" or not _scalar_float(d.args[0]) or \
                    not _scalar_float(other) or isinstance(other, Const):
                continue
            inner = self.fresh(T.Float())
            pair = (d.args[0], other) if i == 0 else (other, d.args[0])
            self.pending.append(Apply((inner,), op.prim, pair, (), op.loc))
            return dataclasses.replace(op, prim="srcad.broadcast_to", args=(inner, d.args[1]), kw=())
        return None

    def uniform_sum(self, op: Apply):
        """np.sum of a number broadcast to a known shape: the number times the size; in
        adjoint code, np.sum(c * X) is c * np.sum(X), and np.sum(a * b) of two vectors of one
        shape is np.dot(a, b) (no temporary)."""
        if op.prim not in ("numpy.sum", "numpy.ndarray.sum") or len(op.args) != 1 or op.kw \
                or not isinstance(op.out.type, T.Float):
            return None
        d = self._product(op.args[0], op)
        if d is not None:
            if _vectors(d.args):
                return dataclasses.replace(op, prim="numpy.dot", args=d.args)
            for c, x in (d.args, d.args[::-1]):  # sum(c * X) is c * sum(X): one full-size pass less
                if _scalar_float(c) and isinstance(atom_type(x), T.Array) and atom_type(x).kind == "f":
                    inner = self.fresh(T.Float())
                    e = self._product(x, op)  # (and sum(c * (a * b)) is c * np.dot(a, b))
                    dot = e is not None and _vectors(e.args)
                    self.pending.append(Apply((inner,), "numpy.dot" if dot else "numpy.sum",
                                              e.args if dot else (x,), (), op.loc))
                    return dataclasses.replace(op, prim="operator.mul", args=(c, inner))
        d = self.defs.get(op.args[0]) if isinstance(op.args[0], Var) else None
        if d is None or d.prim not in ("srcad.broadcast_to", "numpy.broadcast_to") or len(d.args) != 2 \
                or not _scalar_float(d.args[0]) or not isinstance(d.args[1], Const) or d.kw:
            return None
        size = Const(math.prod(d.args[1].value))
        return dataclasses.replace(op, prim="operator.mul", args=(d.args[0], size), kw=())

    def _product(self, x, op: Apply):
        """x's definition when it is a product `a * b` that only `op` (adjoint code) reads."""
        d = self.defs.get(x) if isinstance(x, Var) else None
        if d is None or d.prim != "operator.mul" or len(d.args) != 2 or d.kw or self.uses[x] != 1 \
                or op.loc is None or not op.loc.adjoint:
            return None
        return d

    def constant_where(self, op: Apply):
        """np.where(True, a, b) is a (and np.where(False, a, b) is b) where that has the
        result's type."""
        if op.prim != "numpy.where" or len(op.args) != 3 or op.kw or not isinstance(op.args[0], Const) \
                or type(op.args[0].value) is not bool:
            return None
        picked = op.args[1] if op.args[0].value else op.args[2]
        return picked if atom_type(picked) == op.out.type else None
