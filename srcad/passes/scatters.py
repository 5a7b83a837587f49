"""Two additions into the same part of a cotangent become one: `acc[i] += a; acc[i] += b` is
`acc[i] += a + b` (np.add.at adds linearly, so this holds for repeated indices too).

The backward sweep adds each use's cotangent into its source where that use is, so reading
`x[:-1]` twice gives two slice updates of `x_bar`; each update makes a view and walks the
slice. After the rewrite the two contributions meet first, where the scalar factors they
share can be gathered (passes/algebra.py):

    >>> from srcad.ir import types as T
    >>> from srcad.ir.nodes import Apply, Block, Function, Var, Const
    >>> from srcad.ir.printer import format_function
    >>> row, part = T.Array(1, "f", (4,)), T.Array(1, "f", (3,))
    >>> z, a, b = Var(1, "z", row), Var(2, "a", part), Var(3, "b", part)
    >>> s1, s2 = Var(4, "", z.type), Var(5, "", z.type)
    >>> i = Const(slice(None, -1, None))
    >>> body = Block((z, a, b), (Apply((s1,), "srcad.scatter_add", (z, i, a)),
    ...                          Apply((s2,), "srcad.scatter_add", (s1, i, b))), (s2,))
    >>> print(format_function(merge_scatters(Function("f", (), body))).rstrip())
    def f(%z1: float[4], %a2: float[3], %b3: float[3]):
      %6: float[3] = operator.add(%a2, %b3)
      %5: float[4] = srcad.scatter_add(%z1, slice(None, -1, None), %6)
      return %5
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, iter_ops, max_var_id


def _addition(op) -> bool:
    return isinstance(op, Apply) and op.prim == "srcad.scatter_add" and len(op.args) == 3 and not op.kw


class _Merge:
    def __init__(self, fn: Function):
        self.uses = Counter(a for op in iter_ops(fn.body) for a in op.operands() if isinstance(a, Var))
        for op in iter_ops(fn.body):
            if not isinstance(op, Apply):
                self.uses.update(a for b in op.blocks() for a in b.yields if isinstance(a, Var))
        self.uses.update(a for a in fn.body.yields if isinstance(a, Var))
        self.next_id = max_var_id(fn) + 1

    def block(self, b: Block) -> Block:
        out: list = []
        at: dict = {}  # the result of an addition -> its position in out
        for op in b.ops:
            if not isinstance(op, Apply):
                op = op.map(block=self.block)
            elif _addition(op):
                j = at.get(op.args[0])
                if j is not None and self._mergeable(out[j], op):
                    earlier, out[j] = out[j], None
                    total = self._sum(earlier.args[2], op.args[2], out, op.loc)
                    op = dataclasses.replace(op, args=(earlier.args[0], op.args[1], total))
                at[op.outs[0]] = len(out)
            out.append(op)
        return dataclasses.replace(b, ops=tuple(op for op in out if op is not None))

    def fresh(self, t) -> Var:
        self.next_id += 1
        return Var(self.next_id - 1, "", t)

    def _sum(self, a: Var, b: Var, out: list, loc) -> Var:
        """a + b appended to out; c * x + c * y as c * (x + y) when both products are used
        only here (one pass over the arrays fewer)."""
        pa, pb = _scaled(a, out), _scaled(b, out)
        if pa and pb and pa[1] == pb[1] and self.uses[a] == self.uses[b] == 1 \
                and _sum_type(pa[2], pb[2]) is not None:
            out[pa[0]] = out[pb[0]] = None
            inner = self.fresh(a.type)
            out.append(Apply((inner,), "operator.add", (pa[2], pb[2]), (), loc))
            total = self.fresh(a.type)
            out.append(Apply((total,), "operator.mul", (pa[1], inner), (), loc))
            return total
        total = self.fresh(a.type)
        out.append(Apply((total,), "operator.add", (a, b), (), loc))
        return total

    def _mergeable(self, earlier: Apply, later: Apply) -> bool:
        """The same index, and the earlier result read by the later addition alone."""
        same = earlier.args[1] == later.args[1]
        return same and self.uses[earlier.outs[0]] == 1 and isinstance(earlier.args[2], Var) \
            and isinstance(later.args[2], Var) and isinstance(earlier.outs[0].type, T.Array) \
            and _sum_type(earlier.args[2], later.args[2]) is not None


def _scaled(v: Var, out: list):
    """(position, constant, array) when v = constant * array is made in this block."""
    for k in range(len(out) - 1, -1, -1):
        op = out[k]
        if isinstance(op, Apply) and op.outs == (v,):
            if op.prim == "operator.mul" and not op.kw and len(op.args) == 2:
                for c, x in (op.args, op.args[::-1]):
                    if isinstance(c, Const) and type(c.value) in (int, float) and isinstance(x, Var):
                        return k, c, x
            return None
    return None


def _sum_type(a, b):
    """The type of a + b when both are float arrays of one known shape (else None)."""
    ta, tb = a.type, b.type
    if isinstance(ta, T.Array) and isinstance(tb, T.Array) and ta.kind == tb.kind == "f" \
            and ta.shape is not None and ta.shape == tb.shape:
        return ta
    return None


def merge_scatters(fn: Function) -> Function:
    return dataclasses.replace(fn, body=_Merge(fn).block(fn.body))

