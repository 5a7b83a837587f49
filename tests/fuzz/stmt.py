"""Statements and blocks: assignments, in-place writes into arrays the function owns, lists,
tuples, dicts, if/elif/else, for and while loops with break/continue/early return.

Scoping follows what Python guarantees: a name defined in only one branch of an `if`, or in
a loop body, is not used after it; a list whose length a branch or a loop may change gets
an unknown length. Arguments are never written into (only arrays the function made:
np.zeros, .copy(), np.array([...]) are `owned`), so a program never changes its caller's
values and finite differences see a pure function."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .vartypes import FLOAT, INT, LIST, TUPLE, A, Ty, Var, size


@dataclass(frozen=True)
class Ctx:
    depth: int              # how many more nested if/for/while
    loop: bool = False      # break/continue allowed
    ret: Ty | None = None   # the function's return type (early return)
    trips: int = 1          # product of enclosing loops' trip counts


class Stmts:
    """Mixin of the generator (see program.Generator)."""

    def new_name(self, prefix: str) -> str:
        self.counter[prefix] = self.counter.get(prefix, -1) + 1
        return f"{prefix}{self.counter[prefix]}"

    def bind(self, name: str, ty: Ty, owned: bool = False):
        self.scope[name] = Var(name, ty, owned)

    def block(self, ctx: Ctx, n: int, indent: str) -> list[str]:
        lines = []
        for _ in range(n):
            lines += self.statement(ctx, indent)
            if lines and lines[-1].startswith(tuple(indent + w
                                                    for w in ("return", "break", "continue", "raise"))):
                break  # the rest of the block would be dead code
        return lines or [indent + "pass"]

    def statement(self, ctx: Ctx, ind: str) -> list[str]:
        deep = ctx.depth > 0 and ctx.trips <= 8
        out = self.choose([
            (None, 3.0, lambda: self.s_new_float(ind)),
            (None, 2.0, lambda: self.s_new_array(ind)),
            ("item_write", 1.5, lambda: self.s_owned_array(ind)),
            (None, 2.5, lambda: self.s_update(ind, ctx)),
            ("item_write", 2.0, lambda: self.s_item_write(ind)),
            ("double_buffer", 1.0, lambda: self.s_double_buffer(ind)),
            ("if_data", 1.5, lambda: self.s_if(ind, ctx) if ctx.depth > 0 else None),
            ("for_range", 2.0, lambda: self.s_for(ind, ctx) if deep else None),
            ("while", 1.0, lambda: self.s_while(ind, ctx) if deep else None),
            ("list_append", 1.5, lambda: self.s_list(ind, ctx)),
            ("tuple", 1.0, lambda: self.s_tuple(ind, ctx)),
            ("dict", 1.0, lambda: self.s_dict(ind)),
            ("assert", 1.0, lambda: [f"{ind}assert {self.cond(1)}, 'fuzz: assertion'"]),
            ("raise", 1.0, lambda: [f"{ind}if {self.cond(1)}:",
                                    f"{ind}    raise ValueError('fuzz: raised')"]),
            ("dead_raise", 1.0, lambda: [f"{ind}{self.new_name('_dead')} = "
                                         f"math.{self.rng.choice(['log', 'sqrt'])}"
                                         f"(-1.0 - {self.fleaf()} ** 2)"]),
            ("break", 1.0, lambda: self.s_exit(ind, ctx, "break") if ctx.loop else None),
            ("continue", 1.0, lambda: self.s_exit(ind, ctx, "continue") if ctx.loop else None),
            ("early_return", 0.7, lambda: self.s_return(ind, ctx) if ctx.ret is not None else None),
            ("unbound_read", 0.7, lambda: self.s_unbound_read(ind)),
            ("closure", 1.0, lambda: self.s_function(ind, "closure")),
            ("lambda", 1.0, lambda: self.s_function(ind, "lambda")),
            ("method", 0.25, lambda: self.s_object(ind)),  # (K0(e) built in f: frontend/objects.py)
            ("method", 0.15, lambda: self.s_carried_object(ind)),  # (a loop replacing it: carried.py)
            ("method", 0.15, lambda: self.s_object_choice(ind)),  # (a choice, a loop over a display)
            ("pytree_obj", 0.5, lambda: self.s_pobj_new(ind)),
            ("mixed_list", 1.5, lambda: self.s_mixed(ind, ctx)),
            ("shift", 1.0, lambda: self.s_shift(ind)),
            ("helper_write", 1.5 if self.writers else 0.0, lambda: self.s_call_writer(ind)),
        ])
        return out or self.s_new_float(ind)

    # -- assignments -------------------------------------------------------------
    def s_new_float(self, ind):
        code = self.fexpr(2)
        name = self.new_name("v")
        self.bind(name, FLOAT)
        return [f"{ind}{name} = {code}"]

    def s_new_array(self, ind):
        shape = self.pick_shape()
        code = self.aexpr(shape, 2)
        name = self.new_name("a")
        self.bind(name, A(*shape))
        return [f"{ind}{name} = {code}"]

    def s_owned_array(self, ind):
        shape = self.pick_shape(min_rank=1)
        sources = self.leaves(A(*shape))
        opts = [(None, 2.0, lambda: f"np.zeros({self._shape_code(shape)})"),
                (None, 1.0, lambda: f"np.ones({shape!r}) * {self.fleaf()}"),
                ("copy", 2.0, lambda: f"{self.rng.choice(sources)}.copy()" if sources else None),
                ("copy", 1.0, lambda: f"np.array({self.rng.choice(sources)})" if sources else None),
                (None, 1.0, lambda: f"np.zeros_like({self.rng.choice(sources)})" if sources else None),
                ("stack", 1.0, lambda: f"np.array([{', '.join(self.fexpr(1) for _ in range(shape[0]))}])"
                 if len(shape) == 1 and shape[0] <= 4 else None)]
        code = self.choose(opts)
        name = self.new_name("y")
        self.bind(name, A(*shape), owned=True)
        return [f"{ind}{name} = {code}"]

    def s_double_buffer(self, ind):
        """Arrays a loop writes into while they trade places (analysis/swaps.py):
        `b0[...] = f(a0); a0, b0 = b0, a0`; sometimes rotating three, swapping under a
        condition, or with another name on one buffer read after the loop (refused)."""
        shape = self.pick_shape(min_rank=1)
        sources = self.leaves(A(*shape))
        if not sources:
            return None
        names = [self.new_name("y") for _ in range(self.rng.choice([2, 2, 3]))]
        i, form = self.new_name("i"), self.rng.random()
        lines = [f"{ind}{names[0]} = {self.rng.choice(sources)}.copy()"]
        lines += [f"{ind}{n} = np.zeros({shape!r})" for n in names[1:]]
        alias = self.new_name("alias") if form < 0.15 else None
        if alias:
            lines.append(f"{ind}{alias} = {names[-1]}")
        lines.append(f"{ind}for {i} in range({self.rng.randint(1, 3)}):")
        target = f"{names[1]}[1:]" if shape[0] > 1 and self.rng.random() < 0.5 else f"{names[1]}[...]"
        part = target[len(names[1]):]
        src = f"{names[0]}{part if part != '[...]' else ''}"
        lines.append(f"{ind}    {target} = np.tanh({src}) * {self.fexpr(1)} + {src}")
        rotated = f"{', '.join(names)} = {', '.join(names[1:] + names[:1])}"
        lines += self.maybe_guarded(ind + "    ", rotated, 0.15 <= form < 0.3)
        for n in names:
            self.bind(n, A(*shape))
        if alias:
            self.bind(alias, A(*shape))
        return lines

    def maybe_guarded(self, ind: str, line: str, guard: bool) -> list[str]:
        """`line` at indentation `ind`, under `if <condition>:` when `guard`."""
        return [f"{ind}if {self.cond(1)}:", f"{ind}    {line}"] if guard else [f"{ind}{line}"]

    def _shape_code(self, shape):
        """The shape as a literal, or from an argument of that shape or an int argument."""
        for v in self.scope.values():
            if v.arg and v.ty.kind == "arr" and v.ty.shape == shape and self.rng.random() < 0.4:
                return f"{v.name}.shape" if len(shape) > 1 else f"len({v.name})"
        return repr(shape[0]) if len(shape) == 1 and self.rng.random() < 0.5 else repr(shape)

    def s_update(self, ind, ctx):
        floats = [v for v in self.scope.values() if v.ty.kind == "float"]
        arrays = [v for v in self.scope.values() if v.ty.kind == "arr"]
        opts = []
        for v in floats:
            opts.append(("aug_assign", 1.0,
                         lambda v=v: f"{v.name} {self.rng.choice(['+=', '-='])} {self.fexpr(1)}"))
            opts.append(("aug_assign", 0.5, lambda v=v: f"{v.name} *= "
                         f"{self.rng.choice(['0.5', 'math.tanh(' + self.fleaf() + ')'])}"))
            opts.append((None, 1.0, lambda v=v: f"{v.name} = 0.5 * {v.name} + {self.fexpr(1)}"))
            opts.append((None, 0.5, lambda v=v: f"{v.name} = math.sin({v.name}) * {self.fexpr(1)}"))
            if ctx.trips > 1 or not ctx.loop:
                opts.append(("loop_fresh" if ctx.loop else None, 1.0,
                             lambda v=v: f"{v.name} = {self.fexpr(2)}"))
        for v in arrays:
            s = v.ty.shape
            if v.owned:
                opts.append(("aug_assign", 1.0, lambda v=v, s=s: f"{v.name} {self.rng.choice(['+=', '-='])} "
                             f"{self.operand(s, 1)}"))
                opts.append(("aug_assign", 0.5, lambda v=v, s=s: f"{v.name} *= "
                             f"{self.rng.choice(['0.5', 'np.tanh(' + self.aleaf(s) + ')'])}"))
            else:
                opts.append((None, 1.0, lambda v=v, s=s: f"{v.name} = 0.5 * {v.name} + {self.operand(s, 1)}"))
                if ctx.trips > 1 or not ctx.loop:
                    opts.append(("loop_fresh" if ctx.loop else None, 0.7,
                                 lambda v=v, s=s: f"{v.name} = {self.aexpr(s, 2)}"))
        code = self.choose(opts)
        return [ind + code] if code else None

    def s_item_write(self, ind):
        owned = [v for v in self.scope.values() if v.owned and v.ty.kind == "arr" and v.ty.shape]
        if not owned:
            return None
        v = self.rng.choice(owned)
        s = v.ty.shape
        op = self.rng.choice(["=", "+=", "=", "-=", "*="]) if self.cfg.w("aug_assign") else "="
        opts = [("item_write", 3.0,
                 lambda: f"{v.name}[{', '.join(self.index(n) for n in s)}] {op} {self.fexpr(2)}")]
        if len(s) == 2:
            opts.append(("slice_write", 1.0,
                         lambda: f"{v.name}[{self.index(s[0])}] {op} {self.operand((s[1],), 1)}"))
            opts.append(("slice_write", 1.0,
                         lambda: f"{v.name}[:, {self.index(s[1])}] {op} {self.operand((s[0],), 1)}"))
        if s[0] >= 2:
            def sl():
                a = self.rng.randint(0, s[0] - 1)
                b = self.rng.randint(a + 1, s[0])
                return f"{v.name}[{a}:{b}] {op} {self.operand((b - a,) + s[1:], 1)}"
            opts.append(("slice_write", 2.0, sl))
            opts.append(("index_fancy", 0.5,
                         lambda: f"{v.name}[{sorted(set(self.rng.randrange(s[0]) for _ in range(2)))}] "
                                 f"{op} {self.fexpr(1)}"))
        opts.append(("index_mask", 0.5,
                     lambda: f"{v.name}[{v.name} > {self.rng.choice(['0.0', '0.5'])}] {op} {self.fexpr(1)}"))
        code = self.choose(opts)
        return [ind + code] if code else None

    # -- control flow ------------------------------------------------------------
    def _branch(self, ctx, ind, n):
        saved = dict(self.scope)
        body = self.block(ctx, n, ind + "    ")
        after = self.scope
        self.scope = saved
        return body, after

    def _merge(self, before: dict, branches: list[dict]) -> dict:
        """Names defined with one type in every branch; list lengths that differ unknown."""
        out = {}
        for name, v in branches[0].items():
            others = [b.get(name) for b in branches[1:]]
            if any(o is None or o.ty.kind != v.ty.kind or o.ty.shape != v.ty.shape or
                   (o.ty.kind != "list" and o.ty != v.ty) for o in others):
                if name in before:
                    out[name] = before[name]
                continue
            ty = v.ty
            if ty.kind == "list" and any(o.ty != ty for o in others):
                ty = replace(ty, n=None)
            out[name] = Var(name, ty, v.owned and all(o.owned for o in others), v.arg)
        return out

    def s_if(self, ind, ctx):
        data = self.cfg.w("if_data") > 0 and (not self.ints() or self.rng.random() < 0.6)
        if not data and self.cfg.w("if_int"):
            self.used.add("if_int")
        head = f"{ind}if {self.cond(1, data)}:"
        inner = replace(ctx, depth=ctx.depth - 1)
        before = dict(self.scope)
        lines, scopes = [head], []
        body, sc = self._branch(inner, ind, self.rng.randint(1, 3))
        lines += body
        scopes.append(sc if not self._leaves(body) else None)
        for _ in range(self.rng.choice([0, 0, 1])):
            lines.append(f"{ind}elif {self.cond(1, data)}:")
            body, sc = self._branch(inner, ind, self.rng.randint(1, 2))
            lines += body
            scopes.append(sc if not self._leaves(body) else None)
        if self.rng.random() < 0.7:
            lines.append(f"{ind}else:")
            body, sc = self._branch(inner, ind, self.rng.randint(1, 3))
            lines += body
            scopes.append(sc if not self._leaves(body) else None)
        else:
            scopes.append(before)
        live = [s for s in scopes if s is not None] or [before]
        self.scope = self._merge(before, live)
        return lines

    @staticmethod
    def _leaves(body):
        """A branch that always leaves (its last statement returns, breaks or raises, not one
        nested in an `if` or a loop of the branch)."""
        indent = body[0][:len(body[0]) - len(body[0].lstrip())]
        return body[-1].startswith(tuple(indent + w for w in ("return", "break", "continue", "raise")))

    def _loop_body(self, ind, ctx, bound_vars, trips):
        before = dict(self.scope)
        for name, ty in bound_vars:
            self.scope[name] = Var(name, ty)
        inner = replace(ctx, depth=ctx.depth - 1, loop=True, trips=ctx.trips * max(trips, 1))
        body = self.loop_function(ind + "    ", bound_vars)
        body += self.block(inner, self.rng.randint(1, 4), ind + "    ")
        after = self.scope
        self.scope = self._merge(before, [before, {k: v for k, v in after.items() if k in before}])
        return body

    def s_for(self, ind, ctx):
        header, bound, trips = self.choose(self._loop_heads())
        return [f"{ind}for {header}:"] + self._loop_body(ind, ctx, bound, trips)

    def _loop_heads(self):
        opts = []

        def rng_head(kind):
            code, lo, hi = self.count()
            i = self.new_name("i")
            if kind == "plain":
                return f"{i} in range({code})", [(i, INT(0, max(hi - 1, 0)))], hi
            if kind == "start":
                return f"{i} in range(1, {code})", [(i, INT(1, max(hi - 1, 1)))], hi
            if kind == "step":
                return f"{i} in range({code} - 1, -1, -1)", [(i, INT(0, max(hi - 1, 0)))], hi
            self.used.add("reversed")
            return f"{i} in reversed(range({code}))", [(i, INT(0, max(hi - 1, 0)))], hi
        opts += [("for_range", 3.0, lambda: rng_head("plain")), ("for_range", 1.0, lambda: rng_head("start")),
                 ("for_range", 0.5, lambda: rng_head("step")), ("reversed", 1.0, lambda: rng_head("rev"))]
        arrays = self.arrays(lambda s: len(s) >= 1 and s[0] <= 5)
        lists = [v for v in self.scope.values() if v.ty.kind == "list" and v.ty.elem.kind in ("float", "arr")]

        def elem_ty(shape):
            return FLOAT if len(shape) == 1 else A(*shape[1:])

        def over_array():
            code, shape = self.rng.choice(arrays)
            r = self.new_name("r")
            return f"{r} in {code}", [(r, elem_ty(shape))], shape[0]

        def over_list():
            v = self.rng.choice(lists)
            self.iterating.add(v.name)  # not grown while iterated over (it would never end)
            e = self.new_name("e")
            return f"{e} in {v.name}", [(e, v.ty.elem)], v.ty.n or 5

        def enum():
            i, e = self.new_name("i"), self.new_name("e")
            if lists and self.rng.random() < 0.5:
                v = self.rng.choice(lists)
                self.iterating.add(v.name)
                n = v.ty.n
                return (f"{i}, {e} in enumerate({v.name})", [(i, INT(0, n - 1 if n else 9)), (e, v.ty.elem)],
                        n or 5)
            code, shape = self.rng.choice(arrays)
            if self.on("enumerate_start"):
                return (f"{i}, {e} in enumerate({code}, start=1)",
                        [(i, INT(1, shape[0])), (e, elem_ty(shape))], shape[0])
            return (f"{i}, {e} in enumerate({code})", [(i, INT(0, shape[0] - 1)), (e, elem_ty(shape))],
                    shape[0])

        def zipped():
            (c1, s1), (c2, s2) = self.rng.choice(arrays), self.rng.choice(arrays)
            e1, e2 = self.new_name("e"), self.new_name("e")
            return f"{e1}, {e2} in zip({c1}, {c2})", [(e1, elem_ty(s1)), (e2, elem_ty(s2))], min(s1[0], s2[0])

        if arrays:
            opts += [("for_array", 2.0, over_array), ("zip", 1.0, zipped)]
        if lists:
            opts.append(("for_list", 2.0, over_list))
        if arrays or lists:
            opts.append(("enumerate", 1.0, enum))
        dicts = [v for v in self.scope.values()
                 if v.ty.kind == "dict" and len({t for _, t in v.ty.items}) == 1]
        if dicts:
            def over_dict():
                v = self.rng.choice(dicts)
                k, e = self.new_name("k"), self.new_name("e")
                ty = v.ty.items[0][1]
                return self.rng.choice([(f"{k} in {v.name}", [], len(v.ty.items)),
                                        (f"{e} in {v.name}.values()", [(e, ty)], len(v.ty.items)),
                                        (f"{k}, {e} in {v.name}.items()", [(e, ty)], len(v.ty.items))])
            opts.append(("dict_iter", 1.0, over_dict))
        return opts

    def s_while(self, ind, ctx):
        k = self.new_name("k")
        code, lo, hi = self.count()
        cond = f"{k} < {code}"
        if self.cfg.w("if_data") and self.rng.random() < 0.5:
            cond += f" and {self.cond(0)}"
        lines = [f"{ind}{k} = 0", f"{ind}while {cond}:", f"{ind}    {k} += 1"]
        self.scope[k] = Var(k, INT(0, hi))
        body = self._loop_body(ind, ctx, [], hi)
        return lines + body

    def s_unbound_read(self, ind):
        """A variable assigned on some paths only (one branch, a loop that may run zero
        times), then read, maybe without using the value: f raises UnboundLocalError where
        no path assigned it, and its derivatives must too."""
        name = self.new_name("w")
        if self.rng.random() < 0.5:
            lines = [f"{ind}if {self.cond(1)}:", f"{ind}    {name} = {self.fexpr(1)}"]
        else:
            code, lo, hi = self.count()
            i = self.new_name("i")
            self.scope[i] = Var(i, INT(0, max(hi - 1, 0)))
            lines = [f"{ind}for {i} in range({code}):", f"{ind}    {name} = {self.fexpr(1)} * {i}"]
            del self.scope[i]
        if self.rng.random() < 0.3:
            return lines + [f"{ind}{self.new_name('_w')} = {name}"]  # (the value unused)
        v = self.new_name("v")
        use = f"0.5 * {name} + {self.fexpr(1)}"
        self.bind(v, FLOAT)
        return lines + [f"{ind}{v} = {use}"]

    def s_exit(self, ind, ctx, word):
        return [f"{ind}if {self.cond(1)}:", f"{ind}    {word}"]

    def s_return(self, ind, ctx):
        return [f"{ind}if {self.cond(1)}:", f"{ind}    return {self.sink(ctx.ret)}"]

    # -- containers --------------------------------------------------------------
    def s_list(self, ind, ctx):
        lists = [v for v in self.scope.values()
                 if v.ty.kind == "list" and v.owned and v.name not in self.iterating]
        opts = [("list_append", 2.0, lambda: self._new_list(ind))]
        for v in lists:
            elem = v.ty.elem
            grow = None if ctx.loop else (v.ty.n + 1 if v.ty.n is not None else None)
            opts.append(("list_append", 3.0, lambda v=v, e=elem, g=grow: self._grow(
                v, g, ind, f"{v.name}.append({self.value(e)})")))
            opts.append(("list_extend", 1.0, lambda v=v, e=elem: self._grow(
                v, None if ctx.loop or v.ty.n is None else v.ty.n + 2, ind,
                f"{v.name}.extend([{self.value(e)}, {self.value(e)}])")))
            opts.append(("list_concat", 1.0, lambda v=v, e=elem, g=grow: self._grow(
                v, g, ind, f"{v.name} = {v.name} + [{self.value(e)}]")))
            if v.ty.n and v.ty.n >= 2 and not ctx.loop:
                def starred(v=v):
                    first, rest = self.new_name("u"), self.new_name("xs")
                    self.bind(first, v.ty.elem)
                    self.bind(rest, LIST(v.ty.elem, v.ty.n - 1), owned=True)
                    return [f"{ind}{first}, *{rest} = {v.name}"]
                opts.append(("starred", 1.0, starred))

                def sliced(v=v):
                    name, a = self.new_name("xs"), self.rng.randint(0, v.ty.n - 1)
                    self.bind(name, LIST(v.ty.elem, v.ty.n - a), owned=True)
                    return [f"{ind}{name} = {v.name}[{a}:]"]
                opts.append(("list_ops", 1.0, sliced))
            if v.ty.n and not ctx.loop:
                def repeated(v=v):
                    name = self.new_name("xs")
                    self.bind(name, LIST(v.ty.elem, 2 * v.ty.n), owned=True)
                    return [f"{ind}{name} = {v.name} * 2"]
                opts.append(("list_ops", 0.5, repeated))

                def insert(v=v, e=elem):
                    k = self.rng.randint(0, v.ty.n)
                    code = f"{ind}{v.name}.insert({k}, {self.value(e)})"
                    self.scope[v.name] = Var(v.name, LIST(v.ty.elem, v.ty.n + 1), True)
                    return [code]
                opts.append(("list_ops", 1.0, insert))

                def pop_at(v=v):
                    name, k = self.new_name("p"), self.rng.randrange(v.ty.n)
                    self.scope[v.name] = Var(v.name, LIST(v.ty.elem, v.ty.n - 1), True)
                    self.bind(name, v.ty.elem)
                    return [f"{ind}{name} = {v.name}.pop({k})"]
                opts.append(("list_ops", 1.0, pop_at))
            if v.ty.n and not ctx.loop:
                def pop(v=v):
                    name = self.new_name("p")
                    self.scope[v.name] = Var(v.name, LIST(v.ty.elem, v.ty.n - 1), True)
                    self.bind(name, v.ty.elem)
                    return [f"{ind}{name} = {v.name}.pop()"]
                opts.append(("list_pop", 1.0, pop))
                opts.append(("item_write", 1.0,
                             lambda v=v, e=elem: [f"{ind}{v.name}[{self.index(v.ty.n)}] = {self.value(e)}"]))
        return self.choose(opts)

    def _grow(self, v, n, ind, code):
        self.scope[v.name] = Var(v.name, LIST(v.ty.elem, n), True)
        return [ind + code]

    def value(self, ty: Ty) -> str:
        return self.fexpr(1) if ty.kind == "float" else self.aexpr(ty.shape, 1)

    def _new_list(self, ind):
        elem = FLOAT if self.rng.random() < 0.6 else A(*self.pick_shape(min_rank=1))
        name = self.new_name("xs")
        sources = [v for v in self.scope.values() if v.ty.kind == "list" and v.ty.elem == elem]
        arrays = self.arrays(lambda s: len(s) == 1 and s[0] <= 5) if elem == FLOAT else []
        k = self.rng.randint(0, 3)
        opts = [(None, 2.0, lambda: ("[" + ", ".join(self.value(elem) for _ in range(k)) + "]", k))]
        if sources:
            def comp():
                src = self.rng.choice(sources)
                return (f"[{self._gen_body('e', elem) if elem == FLOAT else 'np.tanh(e)'} "
                        f"for e in {src.name}]", src.ty.n)
            opts.append(("list_comp", 2.0, comp))
        if arrays:
            def comp_arr():
                code, s = self.rng.choice(arrays)
                return f"[{self._gen_body('e', FLOAT)} for e in {code}]", s[0]
            opts.append(("list_comp", 1.0, comp_arr))
        code, n = self.choose(opts)
        self.bind(name, LIST(elem, n), owned=True)
        return [f"{ind}{name} = {code}"]

    def s_tuple(self, ind, ctx):
        floats = [v for v in self.scope.values() if v.ty.kind == "float" and not v.arg]
        tuples = [v for v in self.scope.values() if v.ty.kind == "tuple" and len(v.ty.items) <= 4]
        opts = []

        def pack():
            tys = [FLOAT if self.rng.random() < 0.6 else A(*self.pick_shape())
                   for _ in range(self.rng.randint(2, 3))]
            name = self.new_name("t")
            code = "(" + ", ".join(self.value(t) for t in tys) + ")"
            self.bind(name, TUPLE(*tys))
            return [f"{ind}{name} = {code}"]
        opts.append(("tuple", 2.0, pack))
        if tuples:
            def unpack():
                t = self.rng.choice(tuples)
                names = [self.new_name("u") for _ in t.ty.items]
                for n, ty in zip(names, t.ty.items):
                    self.bind(n, ty)
                return [f"{ind}{', '.join(names)} = {t.name}"]
            opts.append(("tuple", 2.0, unpack))

            def concat():
                t = self.rng.choice(tuples)
                name = self.new_name("t")
                self.bind(name, TUPLE(*t.ty.items, FLOAT))
                return [f"{ind}{name} = {t.name} + ({self.fexpr(1)},)"]
            opts.append(("tuple_concat", 1.0, concat))
        if len(floats) >= 2:
            def swap():
                a, b = self.rng.sample(floats, 2)
                return [f"{ind}{a.name}, {b.name} = {b.name}, {a.name}"]
            opts.append(("tuple", 1.0, swap))

        def multi():
            a, b = self.new_name("v"), self.new_name("v")
            code = f"{ind}{a}, {b} = {self.fexpr(1)}, {self.fexpr(1)}"
            self.bind(a, FLOAT), self.bind(b, FLOAT)
            return [code]
        opts.append(("tuple", 1.0, multi))

        def grown():  # (t += (v,) in a loop: unrolled)
            name, n, i = self.new_name("t"), self.rng.randint(1, 3), self.new_name("i")
            lines = [f"{ind}{name} = ()", f"{ind}for {i} in range({n}):",
                     f"{ind}    {name} += ({self.fexpr(1)} * ({i} + 1.0),)"]
            self.bind(name, TUPLE(*([FLOAT] * n)))
            return lines
        opts.append(("tuple_concat", 0.7, grown))

        def pair_concat():
            name = self.new_name("t")
            code = f"{ind}{name} = ({self.fexpr(1)},) + ({self.fexpr(1)},)"
            self.bind(name, TUPLE(FLOAT, FLOAT))
            return [code]
        opts.append(("tuple_concat", 1.0, pair_concat))
        return self.choose(opts)

    def s_dict(self, ind):
        dicts = [v for v in self.scope.values() if v.ty.kind == "dict" and not v.arg]
        opts = []

        def new():
            keys = self.rng.sample(["a", "b", "c", "w"], self.rng.randint(1, 3))
            same = self.rng.random() < 0.5
            shape = self.pick_shape()
            tys = [FLOAT if same or self.rng.random() < 0.5 else A(*shape) for _ in keys]
            name = self.new_name("d")
            code = "{" + ", ".join(f"{k!r}: {self.value(t)}" for k, t in zip(keys, tys)) + "}"
            self.bind(name, Ty("dict", items=tuple(zip(keys, tys))))
            return [f"{ind}{name} = {code}"]
        opts.append(("dict", 2.0, new))
        for v in dicts:
            def write(v=v):
                key, ty = self.rng.choice(v.ty.items)
                return [f"{ind}{v.name}[{key!r}] = {self.value(ty)}"]

            def add(v=v):
                key = self.rng.choice([k for k in ["a", "b", "c", "w", "z"] if k not in dict(v.ty.items)]
                                      or ["a"])
                if key in dict(v.ty.items):
                    return None
                self.scope[v.name] = Var(v.name, Ty("dict", items=v.ty.items + ((key, FLOAT),)))
                return [f"{ind}{v.name}[{key!r}] = {self.fexpr(1)}"]
            opts += [("dict", 1.0, write), ("dict", 0.5, add),
                     ("dict_comp", 2.0, lambda v=v: self.s_dict_comp(ind, v)),
                     ("dict_comp", 1.0, lambda v=v: self.s_dict_get(ind, v))]
        return self.choose(opts)

    def s_dict_comp(self, ind, v):
        """A dict comprehension over a dict's keys or items (unrolled key by key), maybe
        filtered by a constant key."""
        name, drop = self.new_name("d"), self.rng.choice([None, v.ty.items[0][0]])
        items = tuple((k, t) for k, t in v.ty.items if k != drop)
        cond = f" if k != {drop!r}" if drop is not None else ""
        body = self.rng.choice([f"{v.name}[k] * {self.fexpr(1)}", f"np.tanh({v.name}[k]) + {self.fexpr(1)}"])
        if self.rng.random() < 0.5:
            code = f"{{k: {body} for k in {v.name}{cond}}}"
        else:
            code = f"{{k: np.sin(e) * {self.fexpr(1)} for k, e in {v.name}.items(){cond}}}"
        self.bind(name, Ty("dict", items=items))
        return [f"{ind}{name} = {code}"]

    def s_dict_get(self, ind, v):
        key = self.rng.choice([k for k, _ in v.ty.items] + ["z"])
        ty = dict(v.ty.items).get(key, FLOAT)
        name = self.new_name("g")
        self.bind(name, ty)
        default = self.fexpr(1) if ty.kind == "float" else self.value(ty)
        return [f"{ind}{name} = {v.name}.get({key!r}, {default})"]

    # -- outputs -----------------------------------------------------------------
    def sink(self, ty: Ty) -> str:
        """An expression of type `ty` that gathers several values in scope, so that most of
        what the function computed reaches its output."""
        if ty.kind == "float":
            terms = [self.reduce(v)
                     for v in self.rng.sample(list(self.scope.values()), min(4, len(self.scope)))]
            terms = [t for t in terms if t] or [self.fexpr(1)]
            scale = self.rng.choice(["", "0.5 * "])
            return " + ".join(scale + t for t in terms)
        if ty.kind == "arr":
            return self.aexpr(ty.shape, 2)
        if ty.kind == "tuple":
            return "(" + ", ".join(self.sink(t) for t in ty.items) + ")"
        return "{" + ", ".join(f"{k!r}: {self.sink(t)}" for k, t in ty.items) + "}"

    def reduce(self, v: Var) -> str | None:
        t, n = v.ty, v.name
        if t.kind == "float":
            return n
        if t.kind == "arr":
            return self.rng.choice([f"np.sum({n})", f"np.mean({n} * {n})", f"np.sum(np.sin({n}))"])
        if t.kind == "list" and t.elem.kind == "float":
            return f"sum({n})"
        if t.kind == "list" and t.elem.kind == "arr":
            return f"sum(np.sum(e) for e in {n})"
        if t.kind in ("tuple", "mlist"):
            parts = [self._reduce_code(f"{n}[{k}]", it) for k, it in enumerate(t.items)]
            return " + ".join(p for p in parts if p) or None
        if t.kind in ("dict", "pobj"):
            parts = [self._reduce_code(f"{n}.{k}" if t.kind == "pobj" else f"{n}[{k!r}]", it)
                     for k, it in t.items]
            return " + ".join(p for p in parts if p) or None
        return None

    def _reduce_code(self, code: str, t: Ty) -> str | None:
        if t.kind == "float":
            return code
        if t.kind == "arr":
            return f"np.sum({code})"
        return None

    def unused_size(self, shape) -> int:
        return size(shape)
