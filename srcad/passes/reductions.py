"""Sums taken before the products and broadcasts that feed them.

A sum over an axis of a value used only there is pushed towards the values it is made of,
where that saves a pass over the big array:

    sum(A @ M, axis=0)  ->  sum(A, axis=0) @ M        (and sum(M @ A, axis=1) -> M @ sum(A, axis=1))
    sum(A * v, axis=0)  ->  sum(A, axis=0) * v        (v constant along the axis: a row, a scalar)
    sum(-A, axis)       ->  -sum(A, axis)
    sum(A * B, axis=0)  ->  diagonal(A.T @ B)         (when A.T @ B is computed before: no product)
    sum(A + B, axis)    ->  sum(A, axis) + sum(B, axis)   (when A or B is pushed further)
    sum(einsum('mij,ijk->mik', A, B), axis=0)  ->  einsum('ij,ijk->ik', sum(A, axis=0), B)

A backward sweep often builds such a value: the cotangent of `xc` in `z = xc * q + xc @ L.T`
is `z_bar * q + z_bar @ L`, and `xc = x - mean` sums it over the points; after the rewrite
(and `cse`) one `sum(z_bar, axis=0)` feeds two small products. Every intermediate is used
only by the sum it is pushed through, so nothing is computed twice; only rounding differs.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> def f(a, m, q):
    ...     return np.sum(a @ m + a * q, axis=0)
    >>> show(dce(push_sums(ir(f, np.ones((5, 2)), np.ones((2, 2)), np.ones(2)))))
    def f(%a0: float[5, 2], %m1: float[2, 2], %q2: float[2]):
      %7: float[2] = numpy.sum(%a0, axis=0)
      %8: float[2] = operator.matmul(%7, %m1)
      %9: float[2] = numpy.sum(%a0, axis=0)
      %10: float[2] = operator.mul(%9, %q2)
      %6: float[2] = operator.add(%8, %10)
      return %6
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, atom_type, iter_blocks, max_var_id
from .product_adjoints import parsed_spec


def _shape(a) -> tuple | None:
    t = atom_type(a)
    if isinstance(t, T.Array) and t.kind == "f" and t.shape is not None and None not in t.shape:
        return t.shape
    return None


def _scalar(a) -> bool:
    if isinstance(a, Const):
        return type(a.value) in (int, float)
    return isinstance(a.type, (T.Float, T.Int))


class _Push:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1
        self.uses: Counter = Counter()
        self.defs: dict = {}
        self.available: list = []  # matrix products computed before the op being rewritten
        for b in iter_blocks(fn.body):
            for op in b.ops:
                self.uses.update(a for a in op.operands() if isinstance(a, Var))
                self.defs.update((v, op) for v in op.outs if isinstance(op, Apply) and len(op.outs) == 1)
            self.uses.update(a for a in b.yields if isinstance(a, Var))

    def emit(self, new: list, prim: str, args: tuple, shape: tuple, loc, kw: tuple = ()) -> Var:
        v = Var(self.next, "", T.Array(len(shape), "f", shape) if shape else T.FLOAT)
        self.next += 1
        new.append(Apply((v,), prim, args, kw, loc))
        return v

    def summed(self, x, axis: int, new: list, loc) -> Var:
        shape = _shape(x)
        out = shape[:axis] + shape[axis + 1:]
        return self.emit(new, "numpy.sum", (x,), out, loc, (("axis", Const(axis)),))

    def push(self, x, axis: int, new: list, loc):
        """sum(x, axis) built from the parts of x (ops appended to `new`), or None when
        that saves nothing; x is used only by this sum."""
        op = self.defs.get(x) if isinstance(x, Var) else None
        shape = _shape(x)
        if op is None or op.kw or shape is None or not isinstance(op, Apply):
            return None
        out = shape[:axis] + shape[axis + 1:]
        args = op.args
        if op.prim == "operator.neg":
            inner = self.part(args[0], shape, axis, new, loc)
            return self.emit(new, "operator.neg", (inner,), out, loc)
        if op.prim in ("operator.add", "operator.sub") and all(_shape(a) == shape for a in args):
            trial: list = []
            pushed = [self.push(a, axis, trial, loc) if self.uses[a] == 1 else None for a in args]
            if pushed == [None, None]:
                return None
            new.extend(trial)
            parts = [p if p is not None else self.summed(a, axis, new, loc) for a, p in zip(args, pushed)]
            return self.emit(new, op.prim, tuple(parts), out, loc)
        if op.prim == "operator.mul":
            diagonal = self.diagonal_of(args, shape, axis)
            if diagonal is not None:  # (sum(a * b, axis=0) is the diagonal of a.T @ b, if computed)
                return self.emit(new, "numpy.diagonal", (diagonal,), out, loc)
            for big, small in (args, args[::-1]):
                if _shape(big) == shape and self.constant_along(small, shape, axis):
                    part = self.part(big, shape, axis, new, loc)
                    return self.emit(new, "operator.mul", (part, small), out, loc)
        if op.prim == "numpy.einsum":
            return self.einsum(args, axis, out, new, loc)
        if op.prim == "operator.matmul" and len(shape) == 2 and all(
                _shape(a) is not None and len(_shape(a)) == 2 for a in args):
            a, b = args
            if axis == 0:
                return self.emit(new, "operator.matmul", (self.summed(a, 0, new, loc), b), out, loc)
            return self.emit(new, "operator.matmul", (a, self.summed(b, 1, new, loc)), out, loc)
        return None

    def einsum(self, args, axis: int, out: tuple, new: list, loc):
        """sum(einsum('mij,ijk->mik', g, L), axis=0) -> einsum('ij,ijk->ik', sum(g, axis=0), L):
        the summed letter in one operand only (once) is summed there first."""
        spec = args[0].value if args and isinstance(args[0], Const) else None
        parsed = parsed_spec(spec, 2) if isinstance(spec, str) and "->" in spec and len(args) == 3 else None
        if parsed is None:
            return None
        terms, result = parsed
        letter = result[axis]
        holders = [i for i, t in enumerate(terms) if letter in t]
        if len(holders) != 1 or terms[holders[0]].count(letter) != 1:
            return None
        i = holders[0]
        operand = args[1 + i]
        if _shape(operand) is None:
            return None
        parts = list(args[1:])
        parts[i] = self.part(operand, _shape(operand), terms[i].index(letter), new, loc)
        terms[i] = terms[i].replace(letter, "")
        new_spec = ",".join(terms) + "->" + result.replace(letter, "")
        return self.emit(new, "numpy.einsum", (Const(new_spec), *parts), out, loc)

    def diagonal_of(self, args, shape: tuple, axis: int) -> Var | None:
        """A matrix product `a.T @ b` (or `b.T @ a`) computed before this point, when the
        product `a * b` of two (n, d) matrices is summed over axis 0: its diagonal is that sum."""
        if axis != 0 or len(shape) != 2 or not all(_shape(a) == shape for a in args):
            return None
        for a, b in (args, args[::-1]):
            for v in self.available:
                d = self.defs.get(v)
                if d is not None and d.prim == "operator.matmul" and not d.kw and d.args[1] == b \
                        and self.transposed(d.args[0]) == a and _shape(v) == (shape[1], shape[1]):
                    return v
        return None

    def transposed(self, v):
        d = self.defs.get(v) if isinstance(v, Var) else None
        if d is not None and not d.kw and len(d.args) == 1 and d.prim in ("numpy.ndarray.T", "srcad.T",
                                                                         "numpy.transpose"):
            return d.args[0]
        return None

    def part(self, a, shape, axis, new, loc):
        got = self.push(a, axis, new, loc) if self.uses[a] == 1 else None
        return got if got is not None else self.summed(a, axis, new, loc)

    @staticmethod
    def constant_along(v, shape: tuple, axis: int) -> bool:
        """Is v (broadcast against an array of `shape`) the same along `axis`, without it?"""
        if _scalar(v):
            return True
        s = _shape(v)
        return s is not None and len(s) < len(shape) - axis and s == shape[len(shape) - len(s):]

    def block(self, b: Block) -> Block:
        ops: list = []
        outer = len(self.available)  # (values defined before this point, here or around it)
        for op in b.ops:
            if isinstance(op, Apply):
                ops.extend(self.rewrite(op))
                self.available.extend(op.outs)
            else:
                ops.append(op.map(block=self.block))
        del self.available[outer:]
        return Block(b.params, tuple(ops), b.yields)

    def rewrite(self, op: Apply) -> list:
        kw = dict(op.kw)
        axis = kw.pop("axis", None)
        keep = kw.pop("keepdims", Const(False))
        if not (op.prim == "numpy.sum" and len(op.args) == 1 and isinstance(axis, Const)
                and type(axis.value) is int and not kw and keep in (Const(False), Const(True))):
            return [op]
        x = op.args[0]
        shape = _shape(x)
        if shape is None or self.uses[x] != 1 or _shape(op.out) is None:
            return [op]
        axis = axis.value
        if not -len(shape) <= axis < len(shape):
            return [op]
        new: list = []
        got = self.push(x, axis % len(shape), new, op.loc)
        if got is None:
            return [op]
        if keep.value:  # (keepdims: the pushed sum with the axis put back)
            return new + [Apply(op.outs, "numpy.expand_dims", (got, Const(axis % len(shape))), (), op.loc)]
        last = new.pop()
        return new + [dataclasses.replace(last, outs=op.outs)]


def push_sums(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Push(fn).block(fn.body))
