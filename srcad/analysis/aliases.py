"""Which values may be the same object, which objects hold others, and which belong to the
function.

Two relations are tracked:

- *alias* (the same object or buffer): an update's input and result, a view and its base
  (`x[1:]`, `x.T`, `x.reshape(...)`), the values a phi joins;
- *contains* (a container refers to an element): a list, tuple or dict and its items,
  including what was appended, and what indexing a list returns. The elements of one
  container are one abstract object: what `pop()` returns may be what was appended.

An object is *owned* when it does not come from outside the function (arguments, globals,
closure cells, opaque calls, default values) and is not held by such an object. Writing into
an owned object in place is invisible to the caller; the other references that can see the
write are its aliases and the containers that hold it (its *observers*).
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Const, Ext, For, Function, If, Var, While, atom_type, iter_blocks, iter_ops
from ..rules import registry

_SCALAR = (T.Int, T.Bool, T.Str, T.NoneT, T.Float)
_CONTAINERS = (T.List, T.Tuple, T.Dict)


def update_base(op: Apply):
    """The index of the argument an operation writes into, or None."""
    rule = registry.lookup(op.prim)
    if rule is None:
        return None
    if rule.updates is not None:
        return rule.updates
    if rule.inplace and op.args and isinstance(op.args[0], Var) and isinstance(
            op.args[0].type, (T.Array, T.Num, T.Unknown)):
        return 0  # x += y on an array (or on a value that may be one)
    return None


def _ref(a) -> bool:
    """Can this value be (or hold) a mutable object?"""
    return isinstance(a, Var) and not isinstance(a.type, _SCALAR)


class Aliases:
    """`user=True` is the relation the safety check applies to the user's code: an array,
    list or dict a loop body creates afresh on every iteration and carries to the next is a
    new object each time, so writing into it in the body never writes into the loop's
    initial value or the previous iteration's object. The
    optimiser and codegen keep a coarser relation (carried values join their initial value;
    codegen asks `fresh=True` for lists and dicts only) and also never write into read-only
    broadcasts (srcad's own cotangent helpers)."""

    def __init__(self, fn: Function, user: bool = False, skip: frozenset = frozenset(),
                 fresh: bool | None = None, swapped: dict | None = None, made_inside_owned: bool = False):
        self.user, self.skip = user, skip  # skip: ids of stores whose element edge is left out
        # (made_inside_owned: a container holding an object made inside the function is not taken
        # for one from outside; the mutation check asks, to name the real reason of a refusal)
        self.made_inside_owned = made_inside_owned
        fresh = user if fresh is None else fresh  # objects a loop body makes anew are not its init
        self.parent: dict = {}
        self.members: dict = {}  # a root of parent -> the values of its class (where more than it)
        # (user=True) the same relation without the joins of ifs, which are kept as directed
        # edges instead: an if's result may be either branch's object, but the two branches'
        # objects are not one (observers)
        self.apart: dict = {}
        self.joins: list = []  # (an if's result, a value one branch yields)
        self._objects_of: dict | None = None  # (_objects, once)
        self.foreign_vars: set = set()
        self.edges: list = []  # (container, element) pairs of Vars
        self.read_from: set = set()  # containers that elements are taken out of
        self.copies: list = []  # (container, container whose items it holds too)
        self.tuples: dict = {}  # tuple -> its items, where a srcad.tuple made it
        self.links: list = []  # (a, b): b is a's object if a is (for ownership)
        for p in fn.body.params:
            self.foreign_vars.add(p)
        carried = []
        for op in iter_ops(fn.body):
            if isinstance(op, Apply):
                self._apply(op)
            elif isinstance(op, If):
                for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                    self.union(o, a, join=True)
                    self.union(o, b, join=True)
            else:
                carried += self._loop(op, (swapped or {}).get(id(op), ()))
        made: dict = {}  # id(loop) -> the values its body defines (once per loop)
        for op, o, y in reversed(carried):  # inner loops first
            if not (fresh and self._made_by(op, y, made, user)):
                self.union(o, y)
        self._finish()

    def _loop(self, op, swapped) -> list:
        """Join a loop's carried values with its initial values; returns (loop, out, yield)
        for the rest. `swapped`: the positions of arrays that trade places (analysis/swaps.py),
        which are never one object: each carried value may be any of their initial objects
        (joins, as an if's result), and they are kept apart from each other."""
        params = op.body.params[1:] if isinstance(op, For) else op.body.params
        heads = [params] + ([op.cond.params] if isinstance(op, While) else [])
        out = []
        for i, o in enumerate(op.outs):
            if i in swapped:
                for j in swapped:
                    for v in [o] + [h[i] for h in heads]:
                        self.union(v, op.init[j], join=True)
                continue
            for other in [h[i] for h in heads] + [op.init[i]]:
                self.union(o, other)
            out.append((op, o, op.body.yields[i]))
        return out

    def _made_by(self, loop, y, made: dict, arrays: bool = True) -> bool:
        """Is y's object made by the loop body, anew on each iteration (an array, or a list
        or dict built in the body, as a helper that returns a new list does)?"""
        kinds = (T.Array, T.List, T.Dict) if arrays else (T.List, T.Dict)
        if not isinstance(y, Var) or not isinstance(y.type, kinds):
            return False
        if id(loop) not in made:
            defined = {o for inner in iter_ops(loop.body) for o in getattr(inner, "outs", ())}
            # and the parameters of inner loops
            defined |= {p for b in iter_blocks(loop.body) if b is not loop.body for p in b.params}
            made[id(loop)] = defined
        made = made[id(loop)]
        group = self.members.get(self.find(y), [y])
        return all(v in made and v not in self.foreign_vars for v in group)

    # building

    def find(self, x):
        return _find(self.parent, x)

    def union(self, a, b, join: bool = False) -> None:
        """a and b may be the same object; `join`: a is an if's result and b what a branch
        yields (a comes from b, but b does not come from the other branch's value)."""
        if isinstance(b, Const):
            if isinstance(b.value, Ext):
                self.foreign_vars.add(a)
            return
        self.links.append((b, a) if join else (a, b))
        if not join:
            self.links.append((b, a))
        if self.user and not join:
            ra, rb = _find(self.apart, a), _find(self.apart, b)
            if ra != rb:
                self.apart[rb] = ra
        elif self.user:
            self.joins.append((a, b))
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
            self.members.setdefault(ra, [ra]).extend(self.members.pop(rb, [rb]))

    def contain(self, container, element) -> None:
        if _ref(element):
            self.edges.append((container, element))
        elif isinstance(element, Const) and isinstance(element.value, Ext) and not (
                self.made_inside_owned and getattr(element.value.obj, "made_inside", False)):
            self.foreign_vars.add(container)

    def _apply(self, op: Apply) -> None:
        if not op.outs:
            return
        rule = registry.lookup(op.prim)
        if rule is None or rule.opaque or op.prim in ("srcad.global", "srcad.cell"):
            self.foreign_vars.update(op.outs)  # an object from outside
            return
        base = update_base(op)
        if base is not None:
            for o in op.outs[:1]:
                self.union(o, op.args[base])
            container = atom_type(op.args[base])  # (a Const base too: a 0-d array folded)
            if rule.stores is not None and not isinstance(container, T.Array) and id(op) not in self.skip:
                for a in op.args[base + 1:]:
                    self.contain(op.outs[0], a)
            for o in op.outs[1:]:
                self.contain(op.outs[0], o)  # list.pop: the element came from the list
                self.read_from.add(op.outs[0])
            return
        if rule.structural:
            for a in op.args:
                self.contain(op.outs[0], a)
            if op.prim == "srcad.tuple":
                self.tuples[op.outs[0]] = op.args
            return
        if rule.copies:  # a new container holding the items of (some of) its arguments: xs + ys,
            for k in rule.copies:  # list(xs), d.copy() (a list of an array's rows holds views of it)
                if k < len(op.args) and _ref(op.args[k]):
                    src = op.args[k]
                    if not isinstance(src.type, _CONTAINERS):
                        self.contain(op.outs[0], src)  # (rows of an array; or unknown)
                    self.copies.append((op.outs[0], src))
                elif k < len(op.args) and isinstance(op.args[k], Const) and isinstance(op.args[k].value, Ext):
                    self.foreign_vars.add(op.outs[0])
            return
        if op.prim == "srcad.sum_adjoint" and isinstance(op.outs[0].type, T.List):
            self.contain(op.outs[0], op.args[0])  # a new list [g, g, ...]
            return
        self._item_or_view(op, rule)

    def _item_or_view(self, op: Apply, rule) -> None:
        """An item taken out of a container, or a result that may share its first argument's
        buffer (a view, when the rule says its result is not fresh)."""
        # a view (fresh=False) is of the rule's first parameter: `expand_reduced(1.0, x)` is a
        # read-only broadcast of a scalar, not a view of x
        first = registry.bind(rule, op.args, op.kw).get(rule.params[0]) if rule.params else (
            op.args[0] if op.args else None)
        if all(isinstance(o.type, _SCALAR) for o in op.outs):
            return
        key = op.args[1] if op.prim == "operator.getitem" and len(op.args) == 2 else None
        if first in self.tuples and isinstance(key, Const) and type(key.value) is int \
                and -len(self.tuples[first]) <= key.value < len(self.tuples[first]):
            self.union(op.outs[0], self.tuples[first][key.value])  # (t[0] of t = (a, b) is a)
            return
        if isinstance(first, Var) and op.prim == "operator.getitem" and isinstance(
                first.type, _CONTAINERS + (T.Unknown,)):
            self.contain(first, op.outs[0])  # an element of a list/tuple/dict
            self.read_from.add(first)
            if not isinstance(first.type, T.Unknown):
                return
        if rule.view_of is not None:
            src = registry.view_source(rule, op.args, op.kw)
            for s in src if isinstance(src, tuple) else (src,) if src is not None else ():
                self.union(op.outs[0], s)  # (a Const from outside makes it foreign)
            return
        if not rule.fresh:
            if _ref(first):
                for o in op.outs:
                    if isinstance(o.type, (T.List, T.Tuple)):  # a list of views of it (unstack_like):
                        self.contain(o, first)  # its items, read out, alias it (fuzz 14700:1051)
                        continue
                    self.union(o, first)  # a view of its first argument
                if rule.readonly and not self.user:
                    self.foreign_vars.update(op.outs)  # never written in place
            else:
                self.foreign_vars.update(op.outs)  # e.g. a read-only broadcast of a scalar

    def _finish(self) -> None:
        # one abstract element per container that elements are taken out of: what goes into a
        # list and what comes out of it (append, then pop or index) may be the same object
        changed = True
        while changed:
            changed = self._copy_items()
            first_element: dict = {}
            read = {self.find(c) for c in self.read_from}
            for c, e in self.edges:
                rc = self.find(c)
                if rc not in read:
                    continue
                if rc in first_element:
                    if self.find(e) != self.find(first_element[rc]):
                        self.union(first_element[rc], e)
                        changed = True
                else:
                    first_element[rc] = e
        self.groups: dict = {}
        for v in list(self.parent):
            self.groups.setdefault(self.find(v), []).append(v)
        self.holds: dict = {}  # root -> roots of elements
        self.held_by: dict = {}
        for c, e in self.edges:
            rc, re_ = self.find(c), self.find(e)
            self.holds.setdefault(rc, set()).add(re_)
            self.held_by.setdefault(re_, set()).add(rc)
        self.foreign = self._foreign()

    def _foreign(self) -> set:
        """Values that may be objects from outside the function, or held by one: along
        aliases, into the results of ifs (not back into the other branch's value), into
        what a foreign container holds, and into the items of copies of foreign containers."""
        after: dict = {}
        for a, b in self.links:
            after.setdefault(a, []).append(b)
        for c, e in self.edges:
            after.setdefault(c, []).append(e)
        for out, src in self.copies:
            after.setdefault(src, []).extend(e for c, e in self.edges if c is out or c == out)
        foreign: set = set()
        stack = list(self.foreign_vars)
        while stack:
            v = stack.pop()
            if v in foreign:
                continue
            foreign.add(v)
            stack.extend(after.get(v, ()))
        return foreign

    def _copy_items(self) -> bool:
        """Give each shallow copy the items of what it copies (a fixed point: copies of
        copies). Returns whether an item was added."""
        added = False
        have = {(self.find(c), self.find(e)) for c, e in self.edges}
        for out, src in self.copies:
            root, ro = self.find(src), self.find(out)
            for c, e in list(self.edges):
                if self.find(c) == root and (ro, self.find(e)) not in have:
                    self.edges.append((out, e))
                    have.add((ro, self.find(e)))
                    added = True
        return added

    # queries

    def owned(self, v: Var) -> bool:
        return v not in self.foreign

    def group(self, v: Var) -> list:
        return self.groups.get(self.find(v), [v])

    def observers(self, v: Var) -> list:
        """Every value through which a write into `v`'s object can be seen (user=True: of the
        values an `if` joins, an observer of each, not of each other)."""
        if self.user:
            return self._observers_apart(v)
        roots, stack = set(), [self.find(v)]
        while stack:
            r = stack.pop()
            if r in roots:
                continue
            roots.add(r)
            stack.extend(self.held_by.get(r, ()))
        return [m for r in roots for m in self.groups.get(r, [r])]

    def _observers_apart(self, v: Var) -> list:
        objects = self._objects()
        targets = objects.get(_find(self.apart, v), {_find(self.apart, v)})
        members = [m for m in self.parent
                   if objects.get(_find(self.apart, m), {_find(self.apart, m)}) & targets]
        members = members or [v]
        roots, stack = set(), [self.find(m) for m in members]
        while stack:  # (the containers holding one of them: through the full relation)
            r = stack.pop()
            if r not in roots:
                roots.add(r)
                stack.extend(self.held_by.get(r, ()))
        mine = {self.find(m) for m in members}
        return members + [m for r in roots - mine for m in self.groups.get(r, [r])]

    def _objects(self) -> dict:
        """(user=True) for each class of `apart`: the classes whose object it may be (itself,
        and through an if's result, each branch's), to a fixed point."""
        if self._objects_of is None:
            out: dict = {}
            for o, a in self.joins:
                out.setdefault(_find(self.apart, o), {_find(self.apart, o)}).add(_find(self.apart, a))
            changed = True
            while changed:
                changed = False
                for objs in out.values():
                    more = set().union(*(out.get(x, ()) for x in objs)) - objs
                    if more:
                        objs |= more
                        changed = True
            self._objects_of = out
        return self._objects_of


def _find(parent: dict, x):
    parent.setdefault(x, x)
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
