"""Checkpointed loops: reverse mode within a memory budget (`srcad.grad(f, memory_budget=...)`).

Reverse mode stores, per iteration of a loop, what its backward sweep reads (stacks). With a
memory budget, a loop of the generated gradient is split into segments of k iterations:

    forward sweep:   for each segment: store the loop's carried values (a checkpoint),
                     then run the segment without storing anything;
    backward sweep:  for each segment, last first: take its checkpoint, run the segment
                     forward again storing what its backward sweep reads, then run that.

Every iteration's forward runs twice (a recompute factor of 2), and memory holds the
checkpoints and one segment's stacks: k is chosen at run time, from the trip count and the
bytes stored per iteration and per checkpoint, as the longest segment that fits the budget
(runtime/segments.py; with a warning when even the best split does not fit: two levels of
checkpoints, not a binomial schedule). This pass rewrites the generated gradient after
optimisation: a top-level loop that pushes onto stacks (its forward sweep) and the loop that
pops them (its backward sweep). Loops that `break`, while loops, and loops nested in other
regions keep their stacks.
"""

from __future__ import annotations

import dataclasses
import math

from ..ir import types as T
from ..ir.nodes import UNDEF, Apply, Block, Const, For, Function, If, Var, While, iter_ops, max_var_id
from ..ir.rewrite import renumber, sub_atom, substitute_block, substitute_op
from ..rules import registry


@dataclasses.dataclass(frozen=True)
class Checkpointed:
    """One loop the pass checkpointed (for the generated header)."""

    line: int
    iter_bytes: int | None
    carry_bytes: int


class _Abort(Exception):
    pass


def checkpoint_loops(fn: Function, budget: int) -> tuple[Function, list[Checkpointed]]:
    """fn with every loop it can checkpoint split into recomputed segments (see above)."""
    done = []
    while True:
        pair = _next_pair(fn, budget)
        if pair is None:
            return fn, done
        fn, report = pair
        done.append(report)


def _next_pair(fn: Function, budget: int):
    """The first forward loop with stacks and the backward loop popping them, rewritten
    (a rewritten loop carries no stacks, so it never matches again); None when none is left."""
    ops = fn.body.ops
    uses = _use_counts(fn)
    for i, f in enumerate(ops):
        if not (isinstance(f, For) and not f.exits and not f.reverse and _recomputable(f.body)):
            continue
        for j in range(i + 1, len(ops)):
            b = ops[j]
            if isinstance(b, For) and b.reverse and not b.exits and (b.start, b.stop, b.step) == (
                    f.start, f.stop, f.step) and _stack_indices(f, b, uses):
                try:
                    return _Rewrite(fn, budget).run(i, j)
                except _Abort:
                    break
    return None


def _use_counts(fn: Function) -> dict:
    counts: dict = {}
    for op in iter_ops(fn.body):
        for a in op.operands():
            if isinstance(a, Var):
                counts[a] = counts.get(a, 0) + 1
    for blk in _blocks(fn.body):
        for a in blk.yields:
            if isinstance(a, Var):
                counts[a] = counts.get(a, 0) + 1
    return counts


def _blocks(block: Block):
    yield block
    for op in block.ops:
        if not isinstance(op, Apply):
            for b in op.blocks():
                yield from _blocks(b)


def _recomputable(block: Block) -> bool:
    """Does running `block` again give the same values and do nothing else? Not with random
    draws, prints, calls srcad does not see into, or writes into values from outside."""
    for op in iter_ops(block):
        if isinstance(op, Apply):
            rule = registry.lookup(op.prim)
            if rule is None or rule.impure or rule.opaque or rule.custom or op.prim == "srcad.call":
                return False
    return True


def _stack_indices(f: For, b: For, uses: dict) -> list:
    """The carries of the forward loop f that are stacks the backward loop b pops (each used
    once, as b's initial value)."""
    out = []
    for k, (p, o) in enumerate(zip(f.body.params[1:], f.outs)):
        if p.hint.startswith("_stack") and isinstance(p.type, T.List) and o in b.init and uses.get(o, 0) == 1:
            out.append(k)
    return out


def _strip_pushes(block: Block, stacks: set, subst: dict) -> Block:
    """block without its pushes onto `stacks` (and onto values carried from them); raises
    _Abort where a stack is read otherwise."""
    ops = []
    for op in block.ops:
        op = substitute_op(op, subst)
        if isinstance(op, Apply):
            if op.prim == "srcad.list_append" and op.args[0] in stacks:
                subst[op.outs[0]] = op.args[0]
                stacks.add(op.outs[0])
                continue
            if any(a in stacks for a in op.operands() if isinstance(a, Var)):
                raise _Abort
            ops.append(op)
        elif isinstance(op, If):
            then, orelse = (_strip_pushes(x, stacks, subst) for x in (op.then, op.orelse))
            for o, y1, y2 in zip(op.outs, then.yields, orelse.yields):
                if (y1 in stacks) != (y2 in stacks):
                    raise _Abort
                if y1 in stacks:
                    stacks.add(o)
            ops.append(dataclasses.replace(op, then=then, orelse=orelse))
        else:
            ops.append(_strip_loop(op, stacks, subst))
    return Block(block.params, tuple(ops), tuple(sub_atom(a, subst) for a in block.yields))


def _strip_loop(op, stacks: set, subst: dict):
    params = op.body.params[1:] if isinstance(op, For) else op.body.params
    for p, a, o in zip(params, op.init, op.outs):
        if a in stacks:
            stacks.update((p, o))
    if isinstance(op, While):
        stacks.update(cp for cp, a in zip(op.cond.params, op.init) if a in stacks)
        cond = _strip_pushes(op.cond, stacks, subst)
        if any(y in stacks for y in cond.yields):
            raise _Abort
        return dataclasses.replace(op, cond=cond, body=_strip_pushes(op.body, stacks, subst))
    return dataclasses.replace(op, body=_strip_pushes(op.body, stacks, subst))


def stored_bytes(t: T.Type) -> int | None:
    """Bytes a list holding a value of type t takes per value: its slot and a float, or an
    array of known shape (None otherwise). The saved-values report counts the same."""
    if t.is_scalar:
        return 8 + 24  # a list slot and a Python float object
    if isinstance(t, T.Array) and t.shape is not None:
        return 8 + 112 + 8 * math.prod(t.shape)  # slot, ndarray header, data
    return None


def _nbytes(t: T.Type) -> int | None:
    """stored_bytes, also of a tuple of such values (a checkpoint)."""
    if isinstance(t, T.Tuple):
        parts = [_nbytes(e) for e in t.elts]
        return None if None in parts else 8 + 56 + sum(parts)
    return stored_bytes(t)


class _Rewrite:
    def __init__(self, fn: Function, budget: int):
        self.fn, self.budget = fn, budget
        self.next_id = max_var_id(fn) + 1

    def var(self, hint: str, t: T.Type) -> Var:
        v = Var(self.next_id, hint, t)
        self.next_id += 1
        return v

    def apply(self, ops: list, prim: str, args, t: T.Type = T.INT, hint: str = "", loc=None) -> Var:
        v = self.var(hint, t)
        ops.append(Apply((v,), prim, tuple(args), (), loc))
        return v

    def clone(self, block: Block) -> Block:
        offset = self.next_id
        self.next_id += max_var_id(self.fn) + 1
        return renumber(block, offset)

    def run(self, i: int, j: int):
        fn, f, b = self.fn, self.fn.body.ops[i], self.fn.body.ops[j]
        uses = _use_counts(fn)
        stacks = _stack_indices(f, b, uses)
        kinds = self.classify(f, b, stacks, uses)
        carried = [k for k in range(len(f.init)) if k not in stacks]
        if any(f.init[k] == Const(UNDEF) for k in carried):
            raise _Abort  # (a variable the loop assigns before any checkpoint could hold it)
        pre, ff, seg = self.forward(f, stacks, carried)
        subst = {f.outs[k]: o for k, o in zip(carried, ff.outs)}
        bb = self.backward(f, b, stacks, carried, kinds, seg, ff.outs[-1], subst)
        cts = [m for m, k in enumerate(kinds) if k[0] == "ct"]
        subst.update({b.outs[m]: o for m, o in zip(cts, bb.outs)})
        ops = list(fn.body.ops[:i]) + pre + [ff] + [substitute_op(op, subst) for op in fn.body.ops[i + 1:j]]
        ops += [bb] + [substitute_op(op, subst) for op in fn.body.ops[j + 1:]]
        body = Block(fn.body.params, tuple(ops), tuple(sub_atom(a, subst) for a in fn.body.yields))
        report = Checkpointed(f.loc.line if f.loc else 0, seg["iter_bytes"], seg["carry_bytes"])
        return dataclasses.replace(fn, body=body), report

    @staticmethod
    def classify(f: For, b: For, stacks: list, uses: dict) -> list:
        """Per carry of b: ("stack", k) its initial value is f's stack k; ("chain", k) a value
        of the primal loop carried backwards (popped each iteration), starting from f's
        result k; ("ct", None) a cotangent, carried from segment to segment."""
        popped = {op.outs[1] for op in b.body.ops if isinstance(op, Apply) and op.prim == "srcad.list_pop"}
        out = []
        for m, a in enumerate(b.init):
            if a in f.outs and f.outs.index(a) in stacks:
                kind = ("stack", f.outs.index(a))
            elif b.body.yields[m] in popped:
                if a not in f.outs:
                    raise _Abort
                kind = ("chain", f.outs.index(a))
            else:
                kind = ("ct", None)
            if kind[0] != "ct" and uses.get(b.outs[m], 0):
                raise _Abort  # (a stack or primal value read after the backward loop)
            out.append(kind)
        return out

    def segments(self, f: For, stacks: list, carried: list) -> tuple[list, dict]:
        """The trip count, the segment length and the number of segments, computed before
        the forward loop."""
        ops: list = []
        per_iter = [self.pushed_bytes(f, k) for k in stacks]
        iter_bytes = None if None in per_iter else sum(per_iter)
        carry_bytes = _nbytes(T.Tuple(tuple(f.body.params[1 + k].type for k in carried)))
        if carry_bytes is None:
            iter_bytes = None
        n = self.apply(ops, "srcad.loop_trips", (f.start, f.stop, f.step), hint="_trips", loc=f.loc)
        k = self.apply(ops, "srcad.segment_length", (n, Const(self.budget), Const(iter_bytes),
                                                     Const(carry_bytes or 0)), hint="_seg_len", loc=f.loc)
        ns = self.apply(ops, "srcad.segment_count", (n, k), hint="_segs", loc=f.loc)
        return ops, dict(n=n, k=k, ns=ns, iter_bytes=iter_bytes, carry_bytes=carry_bytes or 0)

    @staticmethod
    def pushed_bytes(f: For, k: int) -> int | None:
        """Bytes pushed onto stack k per iteration: one push at the body's top level, or
        None (pushed inside a nested loop or branch, or of unknown size)."""
        p = f.body.params[1 + k]
        top = [op for op in f.body.ops if isinstance(op, Apply) and op.prim == "srcad.list_append"
               and op.args[0] == p]
        nested = any(p in op.operands() for op in f.body.ops if not isinstance(op, Apply))
        if len(top) != 1 or nested:
            return None
        return _nbytes(p.type.elt)

    def bounds(self, ops: list, seg: dict, f: For, s: Var) -> tuple[Var, Var]:
        lo = self.apply(ops, "srcad.segment_bound", (f.start, f.step, seg["k"], seg["n"], s), hint="_lo",
                        loc=f.loc)
        s1 = self.apply(ops, "operator.add", (s, Const(1)), loc=f.loc)
        hi = self.apply(ops, "srcad.segment_bound", (f.start, f.step, seg["k"], seg["n"], s1), hint="_hi",
                        loc=f.loc)
        return lo, hi

    def forward(self, f: For, stacks: list, carried: list):
        """The forward sweep: a checkpoint per segment, then the segment without pushes."""
        pre, seg = self.segments(f, stacks, carried)
        types = tuple(f.body.params[1 + k].type for k in carried)
        cp_type = T.List(T.Tuple(types))
        cp0 = self.apply(pre, "srcad.list", (), cp_type, "_checkpoints", f.loc)
        s = self.var("_seg", T.INT)
        params = tuple(self.var(f.body.params[1 + k].hint, t) for k, t in zip(carried, types))
        cpp = self.var("_checkpoints", cp_type)
        ops: list = []
        tup = self.apply(ops, "srcad.tuple", params, T.Tuple(types), loc=f.loc)
        cp1 = self.apply(ops, "srcad.list_append", (cpp, tup), cp_type, "_checkpoints", f.loc)
        lo, hi = self.bounds(ops, seg, f, s)
        body = _strip_pushes(f.body, {f.body.params[1 + k] for k in stacks}, {})
        by_k = dict(zip(carried, params))
        inner = For(tuple(self.var(o.hint, o.type) for o in f.outs), lo, hi, f.step,
                    tuple(by_k.get(k, a) for k, a in enumerate(f.init)), body, loc=f.loc)
        ops.append(inner)
        outs = tuple(self.var(f.outs[k].hint, f.outs[k].type) for k in carried)
        outs += (self.var("_checkpoints", cp_type),)
        ff = For(outs, Const(0), seg["ns"], Const(1), tuple(f.init[k] for k in carried) + (cp0,),
                 Block((s,) + params + (cpp,), tuple(ops), tuple(inner.outs[k] for k in carried) + (cp1,)),
                 loc=f.loc)
        return pre, ff, seg

    def backward(self, f: For, b: For, stacks: list, carried: list, kinds: list, seg: dict, cp_out: Var,
                 subst: dict) -> For:
        """The backward sweep: per segment, last first, its forward again (with pushes) from
        its checkpoint, then its backward loop."""
        cts = [m for m, kd in enumerate(kinds) if kd[0] == "ct"]
        s = self.var("_seg", T.INT)
        ctp = tuple(self.var(b.body.params[1 + m].hint, b.body.params[1 + m].type) for m in cts)
        cpp = self.var("_checkpoints", cp_out.type)
        ops: list = []
        cpp2, cs = self.var("_checkpoints", cp_out.type), self.var("", cp_out.type.elt)
        ops.append(Apply((cpp2, cs), "srcad.list_pop", (cpp,), (), b.loc))
        start = {k: self.apply(ops, "operator.getitem", (cs, Const(n)), f.body.params[1 + k].type,
                               f.body.params[1 + k].hint, b.loc) for n, k in enumerate(carried)}
        lo, hi = self.bounds(ops, seg, f, s)
        for k in stacks:
            p = f.body.params[1 + k]
            start[k] = self.apply(ops, "srcad.list", (), p.type, p.hint, b.loc)
        fwd = For(tuple(self.var(o.hint, o.type) for o in f.outs), lo, hi, f.step,
                  tuple(start[k] for k in range(len(f.init))), self.clone(f.body), loc=f.loc)
        ops.append(fwd)
        by_m = dict(zip(cts, ctp))
        init = tuple(fwd.outs[kd[1]] if kd[0] != "ct" else by_m[m] for m, kd in enumerate(kinds))
        bwd = For(tuple(self.var(o.hint, o.type) for o in b.outs), lo, hi, b.step, init,
                  substitute_block(b.body, subst), reverse=True, loc=b.loc)
        ops.append(bwd)
        outs = tuple(self.var(b.outs[m].hint, b.outs[m].type) for m in cts)
        outs += (self.var("_checkpoints", cp_out.type),)
        init = tuple(sub_atom(b.init[m], subst) for m in cts) + (cp_out,)
        return For(outs, Const(0), seg["ns"], Const(1), init,
                   Block((s,) + ctp + (cpp,), tuple(ops), tuple(bwd.outs[m] for m in cts) + (cpp2,)),
                   reverse=True, loc=b.loc)
