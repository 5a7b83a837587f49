"""Gather the scalar factors of a product of arrays, so each array is touched once.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> from srcad.passes.dce import dce
    >>> def f(x, a):
    ...     return -(100.0 * (2 * x)) * a
    >>> show(dce(gather_scalars(ir(f, np.ones(3), np.ones(3)))))
    def f(%x0: float[3], %a1: float[3]):
      %6: float[3] = operator.mul(%x0, %a1)
      %5: float[3] = operator.mul(-200.0, %6)
      return %5

Generated adjoints multiply a cotangent by rule factors and constants (`g * (2 * x)`,
`-(g * ans) / y`); on arrays every operation is a pass over memory and an allocation. A
product tree (single-use `*`, `/` and unary `-` nodes in one block) is rewritten as the
product of its scalar factors (cheap) times the product of its array factors, when that
takes fewer array operations. NumPy broadcasting is associative and commutative, so the
result has the same shape; only rounding may differ, by an ulp or so.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from ..analysis.shapes import axes_key
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Block, Const, Function, Var, atom_type, iter_blocks, max_var_id

_MUL, _DIV, _NEG = "operator.mul", "operator.truediv", "operator.neg"
_PRODUCT = (_MUL, _DIV, _NEG)


def _is_scalar(a: Atom) -> bool:
    if isinstance(a, Const):
        return type(a.value) in (int, float)
    return isinstance(a.type, (T.Float, T.Int))


def _size(a: Atom) -> int | None:
    """The number of elements of an array of known shape."""
    t = atom_type(a)
    if isinstance(t, T.Array) and t.shape is not None and None not in t.shape:
        return math.prod(t.shape)
    return None


def _is_array(a: Atom) -> bool:
    return isinstance(atom_type(a), T.Array) and atom_type(a).kind in ("f", "i", "u", "b", None)


class _Gatherer:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1
        self.uses: Counter = Counter()
        for b in iter_blocks(fn.body):
            for op in b.ops:
                self.uses.update(a for a in op.operands() if isinstance(a, Var))
            self.uses.update(a for a in b.yields if isinstance(a, Var))

    def fresh(self, t: T.Type) -> Var:
        v = Var(self.next, "", t)
        self.next += 1
        return v

    def block(self, b: Block) -> Block:
        defs = {}
        ops = []
        for op in b.ops:
            if isinstance(op, Apply):
                if op.prim in _PRODUCT and len(op.outs) == 1 and not op.kw:
                    defs[op.out] = op
                if op.prim in ("operator.getitem", "numpy.expand_dims"):
                    op = self.hoisted(op, defs, ops)
                    defs.update((o, op) for o in op.outs if op.prim in _PRODUCT)
                new = self.rewrite(op, defs) if op.prim in _PRODUCT and not op.kw else None
                ops.extend(new if new is not None else [op])
            else:
                ops.append(op.map(block=self.block))
        return Block(b.params, tuple(ops), b.yields)

    def hoisted(self, op: Apply, defs: dict, ops: list) -> Apply:
        """(c * a)[:, None] -> c * a[:, None] for a scalar c (a key of whole slices and new
        axes only; np.expand_dims), so that c joins the product the result is a factor of."""
        x, key = op.args if len(op.args) == 2 else (None, None)
        d = defs.get(x) if isinstance(x, Var) else None
        parts = key.value if isinstance(key, Const) and isinstance(key.value, tuple) else ()
        view = op.prim == "numpy.expand_dims" and isinstance(key, Const) or axes_key(parts) is not None
        if d is None or d.prim != _MUL or self.uses[x] != 1 or op.kw or not view:
            return op
        for c, a in (d.args, d.args[::-1]):
            if _is_scalar(c) and _is_array(a) and atom_type(a) == atom_type(x):
                moved = self.fresh(op.out.type)
                ops.append(Apply((moved,), op.prim, (a, key), (), op.loc))
                return Apply(op.outs, _MUL, (c, moved), (), op.loc)
        return op

    def factors(self, a: Atom, power: int, defs: dict, out: list, root: bool = False) -> int:
        """Flatten a product tree into (atom, ±1) factors; returns the sign; counts array ops."""
        op = defs.get(a) if isinstance(a, Var) else None
        if op is None or (not root and self.uses[a] != 1):
            out.append((a, power))
            return 1
        self.array_ops += _is_array(op.out)
        self.cost = None if self.cost is None or _size(op.out) is None else self.cost + _size(op.out)
        if op.prim == _NEG:
            return -self.factors(op.args[0], power, defs, out)
        sign = self.factors(op.args[0], power, defs, out)
        return sign * self.factors(op.args[1], power if op.prim == _MUL else -power, defs, out)

    def rewrite(self, op: Apply, defs: dict):
        if not _is_array(op.out):
            return None
        self.array_ops, self.cost = 0, 0
        leaves: list = []
        sign = self.factors(op.out, 1, defs, leaves, root=True)
        scalars = [(a, p) for a, p in leaves if _is_scalar(a)]
        arrays = [(a, p) for a, p in leaves if not _is_scalar(a)]
        if not arrays or not all(_is_array(a) for a, _ in arrays):
            return None
        needed = len(arrays) - 1 + (arrays[0][1] < 0) + bool(scalars or sign < 0)
        smallest = min(arrays, key=lambda f: (f[1] < 0, _size(f[0]) or 0))
        into = (self.cost is not None and bool(scalars or sign < 0) and smallest[1] > 0
                and all(_size(a) is not None for a, _ in arrays) and _size(smallest[0]) < _size(op.out))
        if into:  # the scalar multiplies the smallest array factor: the cost in elements
            cost = _size(smallest[0]) + (len(arrays) - 1 + (arrays[0][1] < 0)) * _size(op.out)
            if cost >= self.cost:
                return None
        elif needed >= self.array_ops:
            return None
        new: list = []
        try:
            scale = self.product(scalars, sign, new, op.loc)
        except ZeroDivisionError:
            return None
        if into and scale is not None:
            scaled = self.emit(_MUL, (scale, smallest[0]), smallest[0].type, new, op.loc)
            arrays[arrays.index(smallest)] = (scaled, 1)
            scale = None
        arrays.sort(key=lambda f: f[1] < 0)  # numerators first
        acc = arrays[0][0] if arrays[0][1] > 0 else None
        for a, p in arrays[1 if acc is not None else 0:]:
            if acc is None:
                acc = self.emit(_DIV, (Const(1.0), a), a.type, new, op.loc)
                continue
            acc = self.emit(_MUL if p > 0 else _DIV, (acc, a), op.out.type, new, op.loc)
        if scale == Const(-1.0):
            new.append(Apply(op.outs, _NEG, (acc,), (), op.loc))
        elif scale is not None:
            new.append(Apply(op.outs, _MUL, (scale, acc), (), op.loc))
        elif new:
            last = new.pop()
            new.append(dataclasses.replace(last, outs=op.outs))
        else:
            return None
        return new

    def product(self, scalars, sign: int, new: list, loc) -> Atom | None:
        """The product of the scalar factors (constants folded), or None if it is 1."""
        const = float(sign)
        rest = []
        for a, p in scalars:
            if isinstance(a, Const):
                const = const * a.value if p > 0 else const / a.value
            else:
                rest.append((a, p))
        acc: Atom | None = None
        for a, p in rest:
            if acc is None:
                acc = a if p > 0 else self.emit(_DIV, (Const(1.0), a), T.FLOAT, new, loc)
            else:
                acc = self.emit(_MUL if p > 0 else _DIV, (acc, a), T.FLOAT, new, loc)
        if acc is None:
            return None if const == 1.0 else Const(const)
        if const != 1.0:
            acc = self.emit(_MUL, (Const(const), acc), T.FLOAT, new, loc)
        return acc

    def emit(self, prim: str, args, t: T.Type, new: list, loc) -> Var:
        v = self.fresh(t)
        new.append(Apply((v,), prim, tuple(args), (), loc))
        return v


def gather_scalars(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Gatherer(fn).block(fn.body))
