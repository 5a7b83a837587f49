"""Lowering `if` and loops: `for` over ranges and sequences (enumerate, zip, reversed, dict keys),
`while`, `break` / `continue` / `return` inside them, and comprehensions, into the SSA
builder's structured For and While regions. A mixin of FunctionLowerer (lower.py).

Jumps become flags: `break` sets a flag that ends the loop after this iteration, and the
statements after a possible jump run under `if not flag`.
"""

from __future__ import annotations

import contextlib

import gast

from ..errors import UnsupportedSyntaxError, where_text
from ..ir.kinds import user_class
from ..ir.nodes import Atom, Const, Var
from .closures import Frame
from .generators import GeneratorSpace
from .objects import local_object
from .resolve import Static, import_names, library_code

RET, RETVAL = "__ret", "__retval"
#: iterables whose value is the sequence iterated (a display of objects made inside runs per object)
_SEQUENCES = (gast.Name, gast.List, gast.Tuple, gast.ListComp)


def escapes(stmts) -> bool:
    """Does control always leave this statement list early (return/break/continue/raise)?"""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Break, gast.Continue, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return escapes(last.body) and escapes(last.orelse)
    return False


def jumps_of(node, loops: bool) -> set[str]:
    """Which early exits ('ret', 'brk', 'cont') may happen inside `node`."""
    found = set()
    if isinstance(node, gast.FunctionDef):
        return found  # (a def jumps nowhere: its returns are its own)
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Return):
            found.add("ret")
        elif isinstance(n, gast.Break) and loops:
            found.add("brk")
        elif isinstance(n, gast.Continue) and loops:
            found.add("cont")
        if isinstance(n, (gast.For, gast.While)) and n is not node:  # (its else's jumps are ours)
            found |= jumps_in(n.body, loops=False) | jumps_in(n.orelse, loops)
            continue
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not node:
            continue
        stack.extend(gast.iter_child_nodes(n))
    return found


def jumps_in(stmts, loops: bool) -> set[str]:
    out = set()
    for s in stmts:
        out |= jumps_of(s, loops)
    return out


def assigned_names(nodes) -> set[str]:
    """The names these statements assign (a nested def assigns its name; what a nested
    function assigns is its own)."""
    out, stack = set(), list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
        elif isinstance(n, gast.FunctionDef):
            out.add(n.name)
            continue
        elif isinstance(n, gast.Lambda):
            continue
        out.update(import_names(n))
        stack.extend(gast.iter_child_nodes(n))
    return out


class LoopLowering:
    def stmt_If(self, node, then_extra=(), else_extra=()) -> None:
        cond = self.value(node.test)
        then, orelse = list(node.body) + list(then_extra), list(node.orelse) + list(else_extra)
        names = assigned_names(then + orelse)
        twins = self.carry_objects(names)  # (objects a branch replaces: frontend/carried.py)
        self.b.begin_if(cond, self.loc(node))
        self.stmts(then)
        made = self.join_objects(twins, names, {})
        self.b.begin_else()
        self.stmts(orelse)
        self.join_objects(twins, names, made)
        self.b.end_if()

    def check_reiterable(self, value, node) -> None:
        """An iterable iterated again while an iteration of it runs: not an iterator (whose
        items Python's iterations would share), checked when the code runs."""
        where = Const(where_text(self.loc(node), "?"))
        self.emit("srcad.check_reiterable", (value, where), node=node, nouts=0)

    def stmt_For(self, node) -> None:
        if isinstance(node.iter, gast.Name) and node.iter.id in self.ctx.iterating:  # (for b in it
            self.check_reiterable(self.value(node.iter), node)  # inside for a in it)
        self.ctx.iterating.append(node.iter.id if isinstance(node.iter, gast.Name) else None)
        try:
            self.for_loop(node)
        finally:
            self.ctx.iterating.pop()

    def for_loop(self, node) -> None:
        jumps = jumps_in(node.body, loops=True) | ({"ret"} if jumps_in(node.body, False) else set())
        names = assigned_names([node.target] + node.body)
        carried = self.carry_objects(names)  # (the loop's reads of them are the twins: carried.py)
        with self.loop_writing({self.key(n) for n in names} - {key for key, *_ in carried}), \
                self.loop_else(node, jumps):
            self.iterate(node.iter, node.target, lambda: self.stmts(node.body), node, jumps, carried=carried)

    def stmt_While(self, node) -> None:
        jumps, names = jumps_in(node.body, loops=True), assigned_names(node.body)
        jumps |= {"ret"} if node.orelse and jumps_in(node.body, False) else set()
        carried = self.carry_objects(names)
        with self.loop_writing({self.key(n) for n in names} - {key for key, *_ in carried}), \
                self.loop_else(node, jumps):
            self.b.begin_while(loc=self.loc(node))
            cond = self.value(node.test)
            self.b.begin_while_body(cond)
            exit_flag = self.loop_body(lambda: self.stmts(node.body), jumps, node, carried)
            self.b.end_while(exit_flag=exit_flag)

    def stmt_Break(self, node) -> None:
        brk = self.loops[-1][0]
        self.write_key(brk, Const(True))
        if brk in self.ctx.else_flags:  # (the loop has an `else`, which a break skips)
            self.write_key(self.ctx.else_flags[brk], Const(True))

    def stmt_Continue(self, node) -> None:
        self.write_key(self.loops[-1][1], Const(True))

    @contextlib.contextmanager
    def loop_else(self, node, jumps: set):
        """A loop's `else:` runs after it when no `break` (and no `return`) left it: a flag
        set by its breaks (stmt_Break), then `if not flag: else body` after the loop."""
        if not node.orelse:
            yield
            return
        brk, broke = self.flag(f"brk{len(self.loops)}"), self.flag(f"else{next(self.ctx.counter)}")
        self.write_key(broke, Const(False))
        self.ctx.else_flags[brk] = broke
        try:
            yield
        finally:
            self.ctx.else_flags.pop(brk, None)
        left = self.b.read(broke)
        if "ret" in jumps:
            left = self.emit("operator.or_", (left, self.b.read(self.flag(RET))), node=node)
        self.b.begin_if(self.emit("operator.not_", (left,), node=node), self.loc(node))
        self.stmts(node.orelse)
        self.b.begin_else()
        self.b.end_if()

    @contextlib.contextmanager
    def loop_writing(self, keys: set):
        """While a loop is lowered: the variables its body assigns (frontend/closures.py
        reads any other variable holding a known function as that function)."""
        self.ctx.loop_writes.append(keys)
        try:
            yield
        finally:
            self.ctx.loop_writes.pop()

    def loop_body(self, lower, jumps: set[str], node, carried=()):
        """Lower a loop body with fresh break/continue flags; return its exit flag or None
        (`carried`: objects carried by the loop, carried.py)."""
        depth = len(self.loops)
        brk, cont = self.flag(f"brk{depth}"), self.flag(f"cont{depth}")
        self.loops.append((brk, cont))
        self.write_key(brk, Const(False))
        self.write_key(cont, Const(False))
        lower()
        self.rejoin_objects(carried, self.loc(node))
        self.loops.pop()
        exit_flag = None
        if "brk" in jumps:
            exit_flag = self.b.read(brk)
        if "ret" in jumps:
            ret = self.b.read(self.flag(RET))
            exit_flag = ret if exit_flag is None else self.emit("operator.or_", (exit_flag, ret), node=node)
        self.b.kill(brk)
        self.b.kill(cont)
        return exit_flag

    def iterate(self, iter_node, target, lower_body, node, jumps=frozenset(), space=None,
                on_item=None, carried=()) -> None:
        """`for target in iter_node: lower_body()` as a loop over a range (`space`: the
        iteration space of iter_node, when it is already evaluated; `on_item(value)`, when
        given, takes each item instead of `target`: a `yield from`)."""
        if isinstance(space, (Var, Const)) or space is None and isinstance(iter_node, _SEQUENCES):
            seq = space if space is not None else self.iterated_value(iter_node)  # (space: a comprehension's)
            if self.iterate_objects(seq, target, lower_body, jumps, carried):
                return
            n, element = self.sequence_of(seq, node)
            space = (Const(0), n, Const(1), element, False)
        space = space or self.iteration_space(iter_node, node)
        if isinstance(space, GeneratorSpace):
            self.iterate_generator(space, target, lower_body, node, jumps, on_item)
            return
        start, stop, step, element, reverse = space
        index_hint = target.id if isinstance(target, gast.Name) and element is None else "_k"
        index, _ = self.b.begin_for(start, stop, step, index_hint=index_hint, reverse=reverse,
                                    loc=self.loc(node))

        def body():
            item = index if element is None else element(index)
            if on_item is not None:
                on_item(item)
            else:
                self.assign(target, item)
            lower_body()

        exit_flag = self.loop_body(body, set(jumps), node, carried)
        self.b.end_for(exit_flag=exit_flag)

    def iterate_objects(self, seq: Atom, target, lower_body, jumps, carried) -> bool:
        """`for layer in [Dense(W1), Dense(W2)]` (or a name bound to such a display): a list or
        tuple of objects made in the function, iterated without break or return, runs its body
        once per object, the target being that object (the generated code cannot hold them:
        frontend/objects.py). Returns whether it did."""
        items = self.ctx.displays.get(seq) if isinstance(seq, Var) else None
        targets = {self.key(t.id) for t in gast.walk(target) if isinstance(t, gast.Name)} if target else set()
        if not items or {"brk", "ret"} & set(jumps) or not all(local_object(a) for a in items):
            return False
        if any(key not in targets for key, *_ in carried):  # (the target is bound to each object)
            return False
        depth = len(self.loops)
        brk, cont = self.flag(f"brk{depth}"), self.flag(f"cont{depth}")
        for item in items:
            self.loops.append((brk, cont))
            self.write_key(brk, Const(False))
            self.write_key(cont, Const(False))
            self.assign(target, item)
            lower_body()
            self.loops.pop()
        self.b.kill(brk)
        self.b.kill(cont)
        return True

    def first_space(self, node):
        """A comprehension's first iterable, evaluated in the enclosing scope ([x * 2 for x in
        x]): a sequence given by name or display as its value (iterate: a display of objects
        runs once per object), else its iteration space."""
        it = node.generators[0].iter
        return self.iterated_value(it) if isinstance(it, _SEQUENCES) else self.iteration_space(it, node)

    def objects_comprehension(self, node, scope: dict) -> Atom | None:
        """`[Dense(W) for W in Ws]`, making objects of the user's classes, over items known while
        lowering (a display, `range` of literals: at most 32): a display, the element lowered once
        per item (an object made in the function is its attributes' variables, one object per
        place in the code: a loop would make one object; iterate_objects runs over the display)."""
        gen = node.generators[0]
        func = getattr(node.elt, "func", None) if isinstance(node, gast.ListComp) else None
        if len(node.generators) != 1 or gen.ifs or not isinstance(func, gast.Name) or func.id in scope:
            return None
        cls = self._static_callee(node.elt)
        if not (isinstance(cls, type) and user_class(cls)) or library_code(cls):
            return None
        items = self.known_items(gen.iter)
        if items is None:
            return None
        values = []
        with self.comprehension_scope(scope):
            for item in items:
                self.assign(gen.target, item)
                values.append(self.value(node.elt))
        return self.remember_list(self.emit("srcad.list", values, node=node), values)

    def known_items(self, it) -> list | None:
        """The items of an iterable known while lowering (a display, or `range` of literals up
        to 32 items), else None (nothing is emitted then)."""
        if self._static_callee(it) is range and not it.keywords and all(
                isinstance(a, gast.Constant) and type(a.value) is int for a in it.args):
            r = range(*[a.value for a in it.args])
            return [Const(k) for k in r] if len(r) <= 32 else None
        if isinstance(it, (gast.Name, gast.List, gast.Tuple)):
            seq = self.value(it)
            items = self.ctx.displays.get(seq) if isinstance(seq, Var) else self.elements_of(seq)
            return list(items) if items is not None and len(items) <= 32 else None
        return None

    def iteration_space(self, it, node):
        """(start, stop, step, element, reverse): element(index) gives the loop target; for a
        call of a generator function, a GeneratorSpace (generators.py)."""
        generator = self.generator_space(it)
        if generator is not None:
            return generator
        fn = self._static_callee(it)
        reverse = False
        if fn is reversed and len(it.args) == 1 and self._static_callee(it.args[0]) is range:
            it, fn, reverse = it.args[0], range, True
        if fn is range and not it.keywords:
            args = [self.value(a) for a in it.args]
            if len(args) == 1:
                return Const(0), args[0], Const(1), None, reverse
            return args[0], args[1], (args[2] if len(args) > 2 else Const(1)), None, reverse
        n, element = self.sequence(it)
        return Const(0), n, Const(1), element, False

    def _static_callee(self, node):
        if not isinstance(node, gast.Call):
            return None
        if isinstance(node.func, gast.Attribute) and not isinstance(self.expr(node.func.value), Static):
            return None
        s = self.static_of(self.expr(node.func))
        return s.obj if s is not None else None

    def sequence(self, node):
        """(length, element(index)) for something iterated: enumerate/zip/reversed nest."""
        fn = self._static_callee(node)
        if fn is enumerate and len(node.args) == 1 and [k.arg for k in node.keywords] == ["start"]:
            node = gast.Call(func=node.func, args=node.args + [node.keywords[0].value], keywords=[])
        if fn in (enumerate, zip, reversed) and node.keywords:
            raise self.error(UnsupportedSyntaxError, node, f"keyword arguments to {fn.__name__}() in a "
                             "for loop are not supported", "pass them positionally")
        if fn is enumerate:
            n, inner = self.sequence(node.args[0])
            offset = self.value(node.args[1]) if len(node.args) > 1 else Const(0)

            def element(i):
                k = i if offset == Const(0) else self.emit("operator.add", (i, offset), node=node)
                return self.emit("srcad.tuple", (k, inner(i)), node=node)
            return n, element
        if fn is zip:
            names = [a.id for a in node.args if isinstance(a, gast.Name)]
            checked = set()
            for a in node.args:  # (zip(it, it): one check per name given twice)
                if isinstance(a, gast.Name) and names.count(a.id) > 1 and a.id not in checked:
                    checked.add(a.id)
                    self.check_reiterable(self.value(a), node)
            parts = [p for a in node.args for p in (
                [self.sequence_of(v, node) for v in self._starred(a)] if isinstance(a, gast.Starred)
                else [self.sequence(a)])]
            n = parts[0][0]
            for m, _ in parts[1:]:
                n = self.emit("builtins.min", (n, m), node=node)
            return n, lambda i: self.emit("srcad.tuple", [el(i) for _, el in parts], node=node)
        if fn is reversed and len(node.args) == 1:
            n, inner = self.sequence(node.args[0])
            last = self.emit("operator.sub", (n, Const(1)), node=node)
            return n, lambda i: inner(self.emit("operator.sub", (last, i), node=node))
        return self.sequence_of(self.iterated_value(node), node)

    def iterated_value(self, node) -> Atom:
        """The value of an iterable. A list display iterated where it is written (`for k in
        ["p", "q"]`, `{k: ... for k in ["p", "q"]}`, `zip(keys, [a, b])`) is the tuple of its
        items: no name can see or change that list, and its length (its items, when literals)
        is then known while transforming."""
        if isinstance(node, gast.List) and not any(isinstance(e, gast.Starred) for e in node.elts):
            return self.expr_Tuple(node)
        return self.value(node)

    def sequence_of(self, value: Atom, node):
        """(length, element(index)) for iterating a value (a dict: its keys)."""
        seq = self.emit("srcad.iter", (value,), node=node)
        n = self.emit("builtins.len", (seq,), node=node)
        return n, lambda i: self.emit("operator.getitem", (seq, i), node=node)

    def comprehension(self, node) -> Atom:
        scope = {}
        for gen in node.generators:
            for t in gast.walk(gen.target):
                if isinstance(t, gast.Name):
                    scope[t.id] = ("comp", next(self.ctx.counter), t.id)
                    self.b.var_hints[scope[t.id]] = t.id
        made = self.objects_comprehension(node, scope)
        if made is not None:
            return made
        keyed = isinstance(node, gast.DictComp)  # ({k: v for ...}: a dict, its keys set in order)
        acc = ("comp", next(self.ctx.counter), "_dict" if keyed else "_list")
        self.b.var_hints[acc] = acc[2]
        self.write_key(acc, self.emit("srcad.dict" if keyed else "srcad.list", (), node=node))
        first = self.first_space(node)
        items = []

        def level(gens):
            if not gens:
                if keyed:  # (a key not known while transforming is refused: srcad tracks keys)
                    key = self.value(node.key)  # (srcad's own dict, invisible until complete: as below)
                    new = self.emit("srcad.setitem", (self.b.read(acc), key, self.value(node.value)),
                                    node=node)
                else:  # (srcad's own list, invisible until complete: not a user mutation to check)
                    items.append(self.value(node.elt))
                    new = self.emit("srcad.list_append", (self.b.read(acc), items[-1]), node=node)
                self.write_key(acc, new)
                return
            gen = gens[0]

            def body():
                for cond in gen.ifs:
                    c = self.value(cond)
                    self.b.begin_if(c, self.loc(cond))
                level_rest = gens[1:]
                level(level_rest)
                for _ in gen.ifs:
                    self.b.begin_else()
                    self.b.end_if()
            self.iterate(gen.iter, gen.target, body, node,
                         space=first if gen is node.generators[0] else None)
        with self.comprehension_scope(scope), self.loop_writing(set(scope.values()) | {acc}):
            level(list(node.generators))
        result = self.b.read(acc)
        if items:
            self.remember_every(result, items[0])
        self.b.kill(acc)
        return result

    @contextlib.contextmanager
    def comprehension_scope(self, scope: dict):
        """A comprehension's own variables (`scope`: name -> key) while its body is lowered;
        closed (for nested functions that read them) and dropped after."""
        self.renames.append(scope)
        frame = Frame(scope.__getitem__, frozenset(scope))
        self.comp_frames.append(frame)
        yield
        self.renames.pop()
        self.comp_frames.pop()
        frame.close(self.b)
        for k in scope.values():
            self.b.kill(k)
