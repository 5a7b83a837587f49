"""Rebuild operations with some values replaced by others (used by passes and the builder)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from .nodes import Atom, Block, Op, Var, iter_blocks


def sub_atom(a: Atom, subst: Mapping[Var, Atom]) -> Atom:
    """Follow `subst` from `a` until reaching a value that is not replaced."""
    seen = 0
    while isinstance(a, Var) and a in subst:
        a = subst[a]
        seen += 1
        assert seen < 10_000, "cyclic substitution"
    return a


def substitute_block(block: Block, subst: Mapping[Var, Atom]) -> Block:
    return Block(
        block.params,
        substitute_ops(block.ops, subst),
        tuple(sub_atom(a, subst) for a in block.yields),
    )


def substitute_ops(ops: tuple[Op, ...] | list[Op], subst: Mapping[Var, Atom]) -> tuple[Op, ...]:
    if not subst:
        return tuple(ops)
    return tuple(substitute_op(op, subst) for op in ops)


def substitute_op(op: Op, subst: Mapping[Var, Atom]) -> Op:
    return op.map(lambda a: sub_atom(a, subst), lambda b: substitute_block(b, subst))


def renumber(block: Block, offset: int) -> Block:
    """`block` with the id of every value defined in it moved up by `offset` (a callee's
    body, or a loop body copied once per iteration, given fresh ids in a function whose ids
    are all below `offset`); the values it reads from outside stay as they are."""
    defined = {v.id for b in iter_blocks(block) for v in b.params}
    defined |= {v.id for b in iter_blocks(block) for op in b.ops for v in op.outs}

    def var(v: Var) -> Var:
        return Var(v.id + offset, v.hint, v.type) if v.id in defined else v

    def atom(a: Atom) -> Atom:
        return var(a) if isinstance(a, Var) else a

    def blk(b: Block) -> Block:
        return Block(tuple(var(p) for p in b.params),
                     tuple(replace(op.map(atom, blk), outs=tuple(var(o) for o in op.outs)) for op in b.ops),
                     tuple(atom(a) for a in b.yields))

    return blk(block)
