"""The adjoints of products for one operand, written as the products they are when the shapes
and the constant arguments are known.

An einsum's:

`srcad.einsum_vjp(spec, k, h, a, b, ...)` (runtime/products.py) works out at run time how the
cotangent h of `einsum(spec, a, b, ...)` reaches operand k: an einsum of h with the other
operands, then whatever NumPy's broadcasting or a repeated letter needs (a sum over a
broadcast axis, a scatter onto a diagonal). When every shape is known and none of that is
needed (operand k's letters are distinct, each is in the result or another operand, and no
axis is broadcast), it is that einsum and nothing else:

    einsum_vjp('ijk,mik->mij', 1, h, Ls, (n, k, d))  ->  einsum('mij,ijk->mik', h, Ls)

written as such, the generated code says what it computes, skips the run-time parsing, and
the passes after this one see a product (passes/reductions.py takes a sum of it over the
points as an einsum of the summed cotangent).

A tensordot's (np.tensordot, np.dot and np.inner of N-d arrays): `srcad.tensordot_adjoint(c,
x, shape, axes, which)` works out the contraction and the transpose from its constant
arguments at run time; with them known it is a tensordot and, where the axes come out in
another order, a transpose (which the numba target compiles: it has no run-time helper):

    tensordot_adjoint(c, b, (2, 3, 4), ((2, 0), (0, 1)), 0)
        ->  np.transpose(np.tensordot(c, b, axes=((1,), (2,))), (1, 2, 0))
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, atom_type, max_var_id


def parsed_spec(spec: str, count: int):
    """(input terms, output term) of an explicit or implicit einsum spec without '...'."""
    spec = spec.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    terms = ins.split(",")
    if "." in spec or len(terms) != count or not all(t.isalpha() for t in terms) or (
            arrow and not (out == "" or out.isalpha())):
        return None
    if not arrow:
        letters = "".join(terms)
        out = "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
    return terms, out


def _dims(terms, shapes) -> dict | None:
    """Each letter's length, when every operand's shape is known and no axis is broadcast."""
    dims: dict = {}
    for term, shape in zip(terms, shapes):
        if shape is None or len(shape) != len(term):
            return None
        for ch, d in zip(term, shape):
            if dims.setdefault(ch, d) != d:
                return None
    return dims


def adjoint_as_einsum(op: Apply) -> Apply | None:
    """The einsum `op` (an einsum_vjp) computes, or None when it needs more than one."""
    args = op.args
    if len(args) < 4 or op.kw or not isinstance(args[0], Const) or not isinstance(args[0].value, str) \
            or not isinstance(args[1], Const) or type(args[1].value) is not int:
        return None
    k, h = args[1].value, args[2]
    ops = list(args[3:])
    while ops and ops[-1] == Const(None):
        ops.pop()
    if not 0 <= k < len(ops) or not isinstance(ops[k], Const) or not isinstance(ops[k].value, tuple) \
            or any(o == Const(None) for o in ops):
        return None
    parsed = parsed_spec(args[0].value, len(ops))
    if parsed is None:
        return None
    terms, out = parsed
    target, others = terms[k], terms[:k] + terms[k + 1:]
    rest = ops[:k] + ops[k + 1:]
    shapes = [T.shape_of(atom_type(o)) for o in rest] + [ops[k].value, T.shape_of(atom_type(h))]
    dims = _dims(others + [target, out], shapes)
    if dims is None or len(set(target)) != len(target) or len(set(out)) != len(out) or \
            not all(ch in out or any(ch in t for t in others) for ch in target):
        return None
    spec = ",".join([out] + others) + "->" + target
    if T.shape_of(op.out.type) != tuple(dims[ch] for ch in target):
        return None  # (its type says less: the code after it was written for that)
    return Apply(op.outs, "numpy.einsum", (Const(spec), h, *rest), (), op.loc)


def _contraction(axes, nds: tuple):
    """(contracted axes of a, of b) as np.tensordot reads `axes` (an int, or a pair)."""
    if type(axes) is int:
        return list(range(nds[0] - axes, nds[0])), list(range(axes))
    if not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        return None
    parts = [[v] if type(v) is int else list(v) if isinstance(v, (tuple, list)) else None for v in axes]
    if any(p is None or not all(type(u) is int and -n <= u < n for u in p) for p, n in zip(parts, nds)):
        return None
    return [u % nds[0] for u in parts[0]], [u % nds[1] for u in parts[1]]


def adjoint_as_tensordot(op: Apply, fresh) -> list | None:
    """The tensordot (and transpose) `op` (a tensordot_adjoint) computes, or None."""
    if len(op.args) != 5 or op.kw or not all(isinstance(a, Const) for a in op.args[2:]):
        return None
    c, x = op.args[:2]
    shape, axes, which = (a.value for a in op.args[2:])
    sx = T.shape_of(atom_type(x)) if isinstance(atom_type(x), T.Array) else None
    if not isinstance(shape, tuple) or which not in (0, 1) or sx is None or T.shape_of(op.out.type) != shape:
        return None
    nds = (len(shape), len(sx)) if which == 0 else (len(sx), len(shape))
    got = _contraction(axes, nds)
    if got is None:
        return None
    ax_a, ax_b = got
    free_a = [d for d in range(nds[0]) if d not in ax_a]
    free_b = [d for d in range(nds[1]) if d not in ax_b]
    if which == 0:
        args, spec = (c, x), (tuple(range(len(free_a), len(free_a) + len(free_b))), tuple(free_b))
        order = free_a + [ax_a[ax_b.index(d)] for d in sorted(ax_b)]
    else:
        args, spec = (x, c), (tuple(free_a), tuple(range(len(free_a))))
        order = [ax_b[ax_a.index(d)] for d in sorted(ax_a)] + free_b
    perm = tuple(sorted(range(len(order)), key=order.__getitem__))
    if perm == tuple(range(len(order))):
        return [Apply(op.outs, "numpy.tensordot", args, (("axes", Const(spec)),), op.loc)]
    t = op.out.type
    r = fresh(T.Array(len(order), t.kind, tuple(shape[k] for k in order)))
    return [Apply((r,), "numpy.tensordot", args, (("axes", Const(spec)),), op.loc),
            Apply(op.outs, "numpy.transpose", (r, Const(perm)), (), op.loc)]


class _Writer:
    def __init__(self, fn: Function):
        self.next = max_var_id(fn) + 1

    def fresh(self, t: T.Type) -> Var:
        self.next += 1
        return Var(self.next - 1, "", t)

    def block(self, b: Block) -> Block:
        ops: list = []
        for op in b.ops:
            if not isinstance(op, Apply):
                ops.append(op.map(block=self.block))
            elif op.prim == "srcad.einsum_vjp":
                ops.append(adjoint_as_einsum(op) or op)
            elif op.prim == "srcad.tensordot_adjoint":
                ops.extend(adjoint_as_tensordot(op, self.fresh) or [op])
            else:
                ops.append(op)
        return Block(b.params, tuple(ops), b.yields)


def product_adjoints(fn: Function) -> Function:
    """fn with each einsum_vjp and tensordot_adjoint whose products are known written as them."""
    return dataclasses.replace(fn, body=_Writer(fn).block(fn.body))
