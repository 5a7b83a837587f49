"""The adjoint of an einsum for one operand, as an einsum, when the shapes are known.

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
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, atom_type


def _parsed(spec: str, count: int):
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
    parsed = _parsed(args[0].value, len(ops))
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


def _block(b: Block) -> Block:
    ops = []
    for op in b.ops:
        if isinstance(op, Apply):
            if op.prim == "srcad.einsum_vjp":
                op = adjoint_as_einsum(op) or op
            ops.append(op)
        else:
            ops.append(op.map(block=_block))
    return Block(b.params, tuple(ops), b.yields)


def einsum_adjoints(fn: Function) -> Function:
    """fn with each einsum_vjp that is one einsum written as it."""
    return dataclasses.replace(fn, body=_block(fn.body))
