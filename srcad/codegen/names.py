"""Out of SSA: give every value a Python name, and decide which updates happen in place.

1. Aliasing: values that may share a buffer (a view and its base, a list and what was
   appended to it, the two sides of a phi) form alias classes. A class is *owned* when no
   member came from outside the function (arguments, globals, opaque calls).
2. In place: `y2 = setitem(y1, i, v)` (and list append/pop, scatter-add, `x += y` on arrays)
   is emitted as `y1[i] = v` when y1's class is owned and nothing in it is still live
   afterwards; otherwise generated code copies first (`y2 = y1.copy()`). Under the same
   conditions `acc2 = acc + x`, with acc already of the result's shape, becomes `acc += x`
   (cotangent accumulation without a new array per step).
3. Coalescing: a loop's parameter, result, initial value and yield, and an `if`'s result and
   the values its branches yield, share one name unless their live ranges overlap (then a
   copy is emitted) — this turns phis back into ordinary reassignment.
   A value a `srcad.bound` check reads that may be unassigned gets a name of its own, shared
   only with values whose definition means it is assigned (analysis/unassigned.py), so that
   Python raises UnboundLocalError exactly where the user's code does.
4. Names: user names are kept (`x`, then `x_1`, `x_2` for versions that are live at the same
   time), cotangents are `x_bar`, temporaries `_t0, _t1, ...`, all in program order, so the
   same input always gives the same names.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field

from ..analysis.aliases import Aliases, update_base
from ..analysis.fresh import before_late_stores, late_stores, loop_bodies, positions
from ..analysis.liveness import Liveness
from ..analysis.unassigned import unassigned_values
from ..ir import types as T
from ..ir.nodes import Apply, For, Function, If, Var, While, iter_blocks, iter_ops
from ..passes.buffers import reuses
from ..rules import registry

_UPDATES_INPLACE_TYPES = (T.Array, T.List, T.Unknown, T.Num, T.Dict)


class _UnionFind:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
        return ra


@dataclass
class Naming:
    names: dict = field(default_factory=dict)
    inplace: set = field(default_factory=set)  # id(op) of updates done in place
    accumulate: dict = field(default_factory=dict)  # id(op) of `a + b` emitted as `a += b` -> a's index




def accumulation_base(op: Apply):
    """`acc + x` (or - *) where acc already has the result's exact shape and a float dtype,
    so that `acc += x` computes the same array: the index of acc, or None."""
    if not registry.lookup(op.prim).ring or len(op.args) != 2 or op.kw or len(op.outs) != 1:
        return None
    out = op.outs[0].type
    if not (isinstance(out, T.Array) and out.shape is not None and out.kind == "f"):
        return None
    for k in ((0,) if op.prim == "operator.sub" else (0, 1)):
        a = op.args[k]
        # `x_bar = x_bar + c` only: temporaries stay nested expressions, names keep their meaning
        named = isinstance(a, Var) and a.hint and not a.hint.startswith("_") and a.hint == op.outs[0].hint
        if named and isinstance(a.type, T.Array) and a.type.shape == out.shape \
                and a.type.kind == "f":
            return k
    return None


class _Group:
    """Values that get one name: the members, and everything live where one is defined (two
    groups interfere when a member of one is live where a member of the other is defined).
    Kept as sets so that merging and checking stay fast for thousands of values."""

    def __init__(self, members, live: Liveness):
        self.members = list(members)
        self.set = set(self.members)
        self.live: set = set()
        for m in self.members:
            self.live.update(live.live_at_def.get(m, ()))
        self.user_names = _user_names(self.members)

    def interferes(self, other: _Group) -> bool:
        return not self.live.isdisjoint(other.set) or not other.live.isdisjoint(self.set)

    def absorb(self, other: _Group) -> _Group:
        big, small = (self, other) if len(self.set) >= len(other.set) else (other, self)
        big.members = self.members + other.members  # (program order within each part)
        big.set |= small.set
        big.live |= small.live
        big.user_names |= small.user_names
        return big


class _Namer:
    def __init__(self, fn: Function, live: Liveness, reserved: set):
        self.fn, self.live = fn, live
        self.reserved = set(reserved) | set(keyword.kwlist)
        self.alias = Aliases(fn, fresh=True)  # (lists and dicts a loop body builds anew)
        # a list a loop body fills and then stores (`_stack.append(xs)`, a list built by a
        # comprehension in a loop): the fills are not visible through the container
        self.late = late_stores(loop_bodies(fn))
        self.relaxed = Aliases(fn, skip=frozenset(id(s) for s, *_ in self.late), fresh=True) \
            if self.late else self.alias
        self.pos = positions(fn.body) if self.late else {}
        self.cls = _UnionFind()
        self.groups: dict = {}
        self.unassigned, self.assigning = unassigned_values(fn.body)
        self.exclusive: set = set()  # names of the groups of self.unassigned

    # in place

    def decide_inplace(self, naming: Naming) -> None:
        self._decide_updates(naming)
        for op in iter_ops(self.fn.body):  # then results written into a dying operand (passes/
            if reuses(op) is not None:  # buffers.py): one name when the names allow (an update
                self.merge(reuses(op), op.outs[0], force=False)  # in place matters more)

    def _decide_updates(self, naming: Naming) -> None:
        for op in iter_ops(self.fn.body):
            if not isinstance(op, Apply) or reuses(op) is not None:
                continue
            k = update_base(op)
            accumulate = k is None
            if accumulate:
                k = accumulation_base(op)
            if k is None or not isinstance(op.args[k], Var):
                continue
            base = op.args[k]
            if not isinstance(base.type, _UPDATES_INPLACE_TYPES) or not self.alias.owned(base):
                continue
            after = self.live.live_after[id(op)]
            seen_by = self.relaxed if self.late and before_late_stores(op, base, self.late, self.relaxed,
                                                                       self.pos) else self.alias
            group = seen_by.observers(base)
            if any(m in after and m not in op.outs for m in group):
                continue
            if self.merge(base, op.outs[0], force=False):
                naming.inplace.add(id(op))
                if accumulate:
                    naming.accumulate[id(op)] = k

    # name classes

    def _group(self, v: Var) -> _Group:
        root = self.cls.find(v)
        got = self.groups.get(root)
        if got is None:
            got = self.groups[root] = _Group([v], self.live)
        return got

    def merge(self, a, b, force: bool) -> bool:
        if not (isinstance(a, Var) and isinstance(b, Var)):
            return False
        ra, rb = self.cls.find(a), self.cls.find(b)
        if ra == rb:
            return True
        ga, gb = self._group(a), self._group(b)
        if not force and ga.user_names and gb.user_names and not ga.user_names & gb.user_names:
            return False  # keep the user's names: `s = x` stays a copy rather than renaming s
        if not force and ga.interferes(gb):
            return False
        if not force and self.unassigned and (ga.set & self.unassigned or gb.set & self.unassigned) \
                and not (ga.set <= self.assigning and gb.set <= self.assigning):
            return False  # (a value defined before would assign the name of one that may be unassigned)
        root = self.cls.union(a, b)
        self.groups.pop(rb if root == ra else ra, None)
        self.groups[root] = ga.absorb(gb)
        return True

    def coalesce_loops(self) -> None:
        """A loop's parameter, result (and condition parameter) are one variable."""
        for op in iter_ops(self.fn.body):
            if isinstance(op, (For, While)):
                params = op.body.params[1:] if isinstance(op, For) else op.body.params
                for i, o in enumerate(op.outs):
                    self.merge(params[i], o, force=True)
                    if isinstance(op, While):
                        self.merge(params[i], op.cond.params[i], force=True)

    def coalesce(self) -> None:
        for op in iter_ops(self.fn.body):
            if isinstance(op, If):
                for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                    self.merge(o, a, force=False)
                    self.merge(o, b, force=False)
            elif isinstance(op, (For, While)):
                params = op.body.params[1:] if isinstance(op, For) else op.body.params
                for i, p in enumerate(params):
                    self.merge(p, op.body.yields[i], force=False)
                    self.merge(p, op.init[i], force=False)

    def assign(self, naming: Naming) -> None:
        order = []
        seen = set()
        for b in iter_blocks(self.fn.body):
            for v in b.params:
                order.append(v)
            for op in b.ops:
                order.extend(op.outs)
        taken: dict[str, _Group] = {}  # the values already named so, as one group
        temps = 0
        fixed, used = {}, set()
        for p in self.fn.body.params:  # parameters keep their names, made distinct
            name, k = _clean(p.hint) or "arg", 1
            base = name
            while name in used or name in self.reserved:
                name, k = f"{base}_{k}", k + 1
            used.add(name)
            fixed[p] = name
        for p in self.fn.body.params:
            self._take(taken, fixed[p], self._group(p))
        for v in order:
            root = self.cls.find(v)
            if root in seen:
                continue
            seen.add(root)
            group = self._group(v)
            members = group.members
            param = next((m for m in members if m in fixed), None)
            if param is not None:
                for m in members:
                    naming.names[m] = fixed[param]
                continue
            hints = [m.hint for m in members if m.hint and not _TEMP.match(m.hint)]
            hint = _clean(next((h for h in hints if not h.startswith("_")), hints[0] if hints else ""))
            if self.unassigned and group.set & self.unassigned:
                name = self._own_name(hint or "_t", taken)
            elif not hint:
                name = f"_t{temps}"
                temps += 1
                while name in self.reserved or name in taken:
                    name = f"_t{temps}"
                    temps += 1
            else:
                name = self._free_name(hint, group, taken)
            self._take(taken, name, group)
            for m in members:
                naming.names[m] = name

    @staticmethod
    def _take(taken: dict, name: str, group: _Group) -> None:
        if name in taken:
            have = taken[name]
            have.set |= group.set
            have.live |= group.live
        else:
            taken[name] = _Group([], Liveness())
            _Namer._take(taken, name, group)

    def _own_name(self, hint: str, taken) -> str:
        """A name no other group has or will have."""
        k = 0
        while True:
            name = hint if k == 0 else f"{hint}_{k}"
            k += 1
            if name not in self.reserved and name not in taken:
                self.exclusive.add(name)
                return name

    def _free_name(self, hint: str, group: _Group, taken) -> str:
        k = 0
        while True:
            name = hint if k == 0 else f"{hint}_{k}"
            k += 1
            if name in self.reserved or name in self.exclusive:
                continue
            if name not in taken or not group.interferes(taken[name]):
                return name


_TEMP = re.compile(r"^_t\d+$")  # temporaries of generated code being transformed again


def _user_names(members) -> set:
    return {m.hint for m in members if m.hint and not m.hint.startswith("_")}


def _clean(hint: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
    if out and out[0].isdigit():
        out = "_" + out
    return out


def assign_names(fn: Function, live: Liveness, reserved: set) -> Naming:
    namer = _Namer(fn, live, reserved)
    naming = Naming()
    namer.coalesce_loops()
    namer.decide_inplace(naming)
    namer.coalesce()
    namer.assign(naming)
    return naming
