"""Loops over tuples whose items differ in kind, unrolled while specialising: a mixin of
Specializer (specialize.py).

A loop body is specialised once, for the join of the types its variables take, so
`for item in (W, (a, b))` would see `item` as a value of unknown type, and neither a type
check on it (`isinstance(item, tuple)`: the recursions of transforms/recursion.py) nor a
method of it could be resolved. When a loop with a trip count known while transforming
reads the items of such a tuple by its index, each iteration is specialised on its own:

    for %i in range(0, 2, 1):                 %a = operator.getitem(%t, 0)   (an array)
        %item = operator.getitem(%t, %i)  ->  ...
        ...                                   %b = operator.getitem(%t, 1)   (a tuple)
                                              ...
"""

from __future__ import annotations

import dataclasses

from ..errors import TypeSupportError, diagnostic
from ..ir import types as T
from ..ir.nodes import Apply, Const, For, Function, atom_type, iter_ops, max_var_id
from ..ir.rewrite import renumber

#: the most iterations a loop is unrolled into
MAX_UNROLL = 32


class UnrollOps:
    """Needs `atom`, `op`, `env` and `next_id` of Specializer."""

    def unroll_loop(self, op: For, forced: bool = False):
        """The operations of `op` run iteration by iteration, or None when it stays a loop
        (`forced`: unrolled whatever it indexes, as a loop setting a dict's keys is)."""
        bounds = [self.atom(a) for a in (op.start, op.stop, op.step)]
        if op.exits or not all(isinstance(b, Const) and type(b.value) is int for b in bounds):
            return None
        start, stop, step = (b.value for b in bounds)
        if step == 0:
            return None
        indices = list(range(start, stop, step))
        if op.reverse:
            indices.reverse()
        if not 0 < len(indices) <= MAX_UNROLL:
            return None
        indexed = self._indexed(op)
        seqs = [self.atom(v) for v in indexed]
        keys = any(_keys(seq) or seq in self.items_of for seq in seqs)  # (`for k in ("w", "b"): p[k]`)
        if not (keys or forced) and not any(_mixed(atom_type(seq)) for seq in seqs):
            return None
        values = [self.atom(a) for a in op.init]
        ops: list = []
        size = max_var_id(Function("", (), op.body)) + 1
        # `for k, v in d.items()` with d carried: v is d[k] as d is at that iteration
        carried = {self.items_of[s]: values.index(self.items_of[s]) for s in seqs
                   if s in self.items_of and self.items_of[s] in values}
        for i in indices:
            body = renumber(op.body, self.next_id)
            self.next_id += size
            for p, v in zip(body.params, [Const(i)] + values):
                self.env[p] = v
            self.current_dicts.update({d: values[j] for d, j in carried.items()})
            for inner in body.ops:
                ops.extend(self.op(inner))
            values = [self.atom(y) for y in body.yields[: len(values)]]
        for d in carried:
            self.current_dicts.pop(d, None)
        _no_keys_added(ops, [self.dicts_iterated[v] for v in indexed if v in self.dicts_iterated]
                       + [self.items_of[s] for s in seqs if s in self.items_of])
        for out, v in zip(op.outs, values):
            self.env[out] = v
        return ops

    def peel_loop(self, op: For, loop: For):
        """The operations of `op` with its first iteration run on its own, when the loop
        (`loop`: op specialised) loses a type its first iteration would give, or None. A body
        is specialised once, for the join of what its variables hold, so

            conv = 0.0
            for i in range(3):
                conv = conv + np.einsum("ncyx,cf->nfyx", x[..., i], w[i])

        makes `conv` a float or an array of unknown rank, and `conv.shape` unknown; run once
        first, the loop starts from a 4-d array of a known shape and keeps it."""
        bounds = [self.atom(a) for a in (op.start, op.stop, op.step)]
        if op.exits or op.reverse or not all(isinstance(b, Const) and type(b.value) is int for b in bounds):
            return None
        start, stop, step = (b.value for b in bounds)
        if step == 0 or len(range(start, stop, step)) < 2:
            return None
        init = [self.atom(a) for a in op.init]
        if not any(_widened(atom_type(a), atom_type(o)) for a, o in zip(init, loop.outs)):
            return None
        body = renumber(op.body, self.next_id)
        self.next_id += max_var_id(Function("", (), op.body)) + 1
        for p, v in zip(body.params, [Const(start)] + init):
            self.env[p] = v
        ops: list = []
        for inner in body.ops:
            ops.extend(self.op(inner))
        values = tuple(self.atom(y) for y in body.yields[: len(init)])
        return ops + [self.loop_for(dataclasses.replace(op, start=Const(start + step), init=values))]

    def _indexed(self, op: For) -> list:
        """The sequences the body indexes by the loop's index (as the loop names them)."""
        index = op.body.params[0]
        return [inner.args[0] for inner in iter_ops(op.body) if isinstance(inner, Apply)
                and inner.prim == "operator.getitem" and inner.args[1] == index]


def _mixed(t: T.Type) -> bool:
    """Is t a tuple whose items' types join into one that loses what they are (a value of
    unknown type, objects of several classes, functions), or a list typed item by item (layers
    of several classes, functions)?"""
    if isinstance(t, T.List) and t.items is not None:
        return True
    if isinstance(t, T.Tuple) and len(set(t.elts)) > 1:
        joined = T.BOTTOM
        for e in t.elts:
            joined = T.join(joined, e)
        return isinstance(joined, (T.Unknown, T.Object, T.Function)) or (
            isinstance(joined, T.Opaque) and joined.what == "function")  # (functions: `for f in fs`)
    return False


def _keys(seq) -> bool:
    """Is seq a constant tuple or list of dict keys (strings among them)?"""
    return isinstance(seq, Const) and isinstance(seq.value, (tuple, list)) and any(
        isinstance(k, str) for k in seq.value)


def _no_keys_added(ops: list, iterated: list) -> None:
    """A loop over a dict's keys (`iterated`: the dicts) that adds keys to that dict raises
    RuntimeError in Python; srcad, which iterates the keys as they were, refuses it. (Other
    dicts may gain keys: `new[k] = ...` in `for k in p`.)"""
    versions = set(iterated)
    for op in ops:
        if isinstance(op, Apply) and op.prim == "operator.setitem" and op.args[0] in versions:
            if len(op.args) == 5 and op.args[4] == Const(True):
                raise TypeSupportError("a dict given new keys in a loop over its keys", [diagnostic(
                    op.loc, "a dict given new keys in a loop over its keys (Python raises RuntimeError)",
                    "collect the new entries in another dict, and merge it after")])
            versions.update(op.outs)


def _widened(before: T.Type, after: T.Type) -> bool:
    """A number the loop turns into a value whose rank its type no longer says."""
    return isinstance(before, (T.Float, T.Int, T.Bool)) and isinstance(after, (T.Num, T.Unknown))
