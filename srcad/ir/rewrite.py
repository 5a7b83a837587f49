"""Rebuild operations with some values replaced by others (used by passes and the builder)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .nodes import Apply, Atom, Block, For, If, Op, Var, While


def map_blocks(op: Op, f) -> Op:
    """`op` with `f` applied to each block it owns (an Apply is returned as is)."""
    if isinstance(op, If):
        return dataclasses.replace(op, then=f(op.then), orelse=f(op.orelse))
    if isinstance(op, For):
        return dataclasses.replace(op, body=f(op.body))
    if isinstance(op, While):
        return dataclasses.replace(op, cond=f(op.cond), body=f(op.body))
    return op


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
    s = lambda a: sub_atom(a, subst)  # noqa: E731
    if isinstance(op, Apply):
        return dataclasses.replace(
            op, args=tuple(map(s, op.args)), kw=tuple((k, s(a)) for k, a in op.kw)
        )
    if isinstance(op, If):
        return dataclasses.replace(
            op,
            cond=s(op.cond),
            then=substitute_block(op.then, subst),
            orelse=substitute_block(op.orelse, subst),
        )
    if isinstance(op, For):
        return dataclasses.replace(
            op,
            start=s(op.start),
            stop=s(op.stop),
            step=s(op.step),
            init=tuple(map(s, op.init)),
            body=substitute_block(op.body, subst),
        )
    if isinstance(op, While):
        return dataclasses.replace(
            op,
            init=tuple(map(s, op.init)),
            cond=substitute_block(op.cond, subst),
            body=substitute_block(op.body, subst),
        )
    raise TypeError(op)
