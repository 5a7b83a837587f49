"""Sums over one axis of a matrix (or of a larger array), as matrix-vector products.

NumPy sums a matrix over either axis one short row at a time; BLAS's matrix-vector product
does the same sum 2-14x faster (a (10^4, 10) float matrix: 300 µs against 40 µs), and a
product's sum needs no product at all:

    sum(u[:, None] * B, axis=0)  ->  u @ B             (a column times a matrix)
    sum(B * v, axis=1)           ->  B @ v             (a matrix times a row)
    sum(A * B, axis=k)           ->  einsum('ij,ij->j' or '->i', A, B)   (A * B used only here)
    sum(X, axis=k)               ->  srcad.axis_sum(X, k)   (X's product with a vector of ones)

for float matrices of known shape; arrays of rank 3 or more take the last form (runtime/
products.py views them as matrices). The first two read the product's factors whether or not
the product is also used elsewhere; the einsum needs the product to be used only by the sum
(else it is computed anyway). A backward sweep makes these sums everywhere: the cotangent of
a broadcast bias, of `x - mean[j]`, the row-wise squared norms of a mixture model. Only the
order of the additions differs. Not for the numba target (no np.einsum; its loops are fast).

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> def f(u, b):
    ...     return np.sum(np.expand_dims(u, 1) * b, axis=0) + np.sum(b * b, axis=1)[0]
    >>> show(dce(blas_sums(ir(f, np.ones(50), np.ones((50, 3))))))
    def f(%u0: float[50], %b1: float[50, 3]):
      %4: float[3] = operator.matmul(%u0, %b1)
      %6: float[50] = numpy.einsum('ij,ij->i', %b1, %b1)
      %7: float = operator.getitem(%6, 0)
      %8: float[3] = operator.add(%4, %7)
      return %8
"""

from __future__ import annotations

import dataclasses
import math

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, atom_type, max_var_id
from .census import uses_and_defs

#: below this many elements NumPy's own reduction is as fast as anything (one call either way)
_MIN_SIZE = 64


def _matrix(a) -> tuple | None:
    """The shape of a float matrix of known shape."""
    t = atom_type(a)
    if isinstance(t, T.Array) and t.kind == "f" and t.shape is not None and len(t.shape) == 2 \
            and None not in t.shape:
        return t.shape
    return None


def _float_shape(a) -> tuple | None:
    t = atom_type(a)
    if isinstance(t, T.Array) and t.kind == "f" and t.shape is not None and None not in t.shape:
        return t.shape
    return None


class _Sums:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1
        self.uses, self.defs = uses_and_defs(fn)

    def emit(self, new: list, prim: str, args: tuple, shape: tuple, loc, kw: tuple = ()) -> Var:
        v = Var(self.next, "", T.Array(len(shape), "f", shape))
        self.next += 1
        new.append(Apply((v,), prim, args, kw, loc))
        return v

    def block(self, b: Block) -> Block:
        ops: list = []
        for op in b.ops:
            if isinstance(op, Apply):
                ops.extend(self.rewrite(op))
            else:
                ops.append(op.map(block=self.block))
        return Block(b.params, tuple(ops), b.yields)

    def rewrite(self, op: Apply) -> list:
        axis = _summed_axis(op)
        x = op.args[0] if axis is not None else None
        shape = _float_shape(x) if x is not None else None
        if shape is None or len(shape) < 2 or not -len(shape) <= axis < len(shape) \
                or _float_shape(op.out) is None or math.prod(shape) < _MIN_SIZE:
            return [op]
        axis %= len(shape)
        new: list = []
        got = self.from_product(x, shape, axis, new, op.loc) if len(shape) == 2 else None
        if got is None:
            got = self.emit(new, "srcad.axis_sum", (x, Const(axis)), _float_shape(op.out), op.loc)
        last = new.pop()
        return new + [dataclasses.replace(last, outs=op.outs)]

    def from_product(self, x, shape: tuple, axis: int, new: list, loc) -> Var | None:
        """sum(x, axis) from the factors of x = a * b, or None."""
        d = self.defs.get(x) if isinstance(x, Var) else None
        if not isinstance(d, Apply) or d.prim != "operator.mul" or d.kw or len(d.args) != 2:
            return None
        out = (shape[1 - axis],)
        for big, small in (d.args, d.args[::-1]):
            if _matrix(big) != shape:
                continue
            s = _float_shape(small)
            if axis == 0 and s == (shape[0], 1):  # a column: its entries weigh the rows
                return self.emit(new, "operator.matmul", (self.vector(small, new, loc), big), out, loc)
            if axis == 1 and s in ((shape[1],), (1, shape[1])):  # a row: weighs the columns
                return self.emit(new, "operator.matmul", (big, self.vector(small, new, loc)), out, loc)
        if all(_matrix(a) == shape for a in d.args) and self.uses[x] == 1:
            spec = "ij,ij->j" if axis == 0 else "ij,ij->i"
            return self.emit(new, "numpy.einsum", (Const(spec),) + d.args, out, loc)
        return None

    def vector(self, v, new: list, loc):
        """The 1-d vector of the entries of v, a column (n, 1) or row (1, d) or vector."""
        s = _float_shape(v)
        if len(s) == 1:
            return v
        d = self.defs.get(v) if isinstance(v, Var) else None
        if isinstance(d, Apply) and d.prim == "numpy.expand_dims" and len(d.args) == 2 and not d.kw \
                and _float_shape(d.args[0]) == (max(s),) and isinstance(d.args[1], Const):
            return d.args[0]
        return self.emit(new, "numpy.reshape", (v, Const((max(s),))), (max(s),), loc)


def _summed_axis(op: Apply) -> int | None:
    """The axis of `np.sum(x, axis=k)` with nothing else given, or None."""
    if op.prim != "numpy.sum" or len(op.args) != 1:
        return None
    kw = dict(op.kw)
    axis = kw.pop("axis", None)
    if not isinstance(axis, Const) or type(axis.value) is not int or \
            not all(a in (Const(False), Const(None)) for a in kw.values()) or \
            not set(kw) <= {"keepdims", "dtype", "out"}:
        return None
    return axis.value


def blas_sums(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Sums(fn).block(fn.body))
