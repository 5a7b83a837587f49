"""Objects: module-level classes whose methods read `self.w` ("method": a global instance,
an instance built in f from a differentiated value, a method that updates `self.w` before it
is read again, an object given to a helper), and differentiated arguments that are objects
("pytree_obj": a dataclass, a named tuple, or a class registered with
`srcad.register_pytree`), read by attribute, by a method and by a helper they are given to.

The harness flattens object arguments by their fields (tests/fuzz/trees.py): dataclass
fields, named tuple items, and for registered classes the attribute names the class lists in
`__fz_fields__` (the same children its flatten function gives srcad)."""

from __future__ import annotations

from dataclasses import dataclass

from .vartypes import FLOAT, A, Ty, Var


@dataclass(frozen=True)
class ClassInfo:
    name: str
    w: Ty          # self.w
    param: Ty      # m(self, a): a
    ret: Ty        # what m returns
    glob: str      # the module-level instance
    use: str       # use(o, v): a helper the object is given to


@dataclass
class ObjValue:
    """An argument value that is a pytree object: rendered as `Cls(w=..., b=...)`."""
    cls: str
    fields: dict


METHOD_FORMS = ["({0} + {1} * {2})", "({0} * {2} - {1})", "(np.tanh({2}) * {1} + {0})"]


class Objects:
    """Mixin of the generator (see program.Generator)."""

    # -- "method": classes with a global instance ------------------------------------
    def method_class(self, k: int, shapes: list) -> list[str]:
        name = f"K{k}"
        w = FLOAT if self.rng.random() < 0.5 else A(*self.rng.choice(shapes))
        param = FLOAT if self.rng.random() < 0.5 else A(*self.rng.choice(shapes))
        ret = FLOAT if self.rng.random() < 0.5 else param
        self.scope = {"self.w": Var("self.w", w), "a": Var("a", param, arg=True)}
        body = self.value_d(ret, 1)
        code = self.rng.choice(METHOD_FORMS).format(body, self.term_of("a", param, ret),
                                                    self.term_of("self.w", w, ret))
        const = self.const() if w.kind == "float" else self._const_array(w.shape)
        info = ClassInfo(name, w, param, ret, f"KG{k}", f"use_k{k}")
        self.classes.append(info)
        return [f"class {name}:", "    def __init__(self, w):", "        self.w = w", "",
                "    def m(self, a):", f"        return {code}", "",
                "    def upd(self, a):", "        self.w = self.w * 0.5 + a", "        return self.w",
                "", "", f"{info.glob} = {name}({const})", "", "",
                f"def {info.use}(o, v):", "    return 1.5 * o.m(v) - 0.5 * o.m(0.5 * v)"]

    def call_method(self, ty: Ty, d: int) -> str | None:
        opts = []
        for c in self.classes:
            if c.ret != ty:
                continue
            objs = [c.glob] + [v.name for v in self.scope.values()
                               if v.ty.kind == "obj" and v.ty.cls == c.name]
            for o in objs:
                opts.append((None, 2.0, lambda c=c, o=o: f"{o}.m({self.value_d(c.param, d - 1)})"))
                opts.append((None, 1.0, lambda c=c, o=o: f"{c.use}({o}, {self.value_d(c.param, d - 1)})"))
        out = self.choose(opts)
        if out is not None:
            self.used.add("method")
        return out

    def s_object(self, ind: str) -> list[str] | None:
        """`o0 = K0(e)` in f (an object holding a differentiated value), a method call, and
        maybe `o0.upd(e)` (which writes self.w) and another call reading the new self.w."""
        if not self.classes:
            return None
        c = self.rng.choice(self.classes)
        o = self.new_name("o")
        lines = [f"{ind}{o} = {c.name}({self.value_d(c.w, 1)})"]
        self.bind(o, Ty("obj", cls=c.name))
        calls = [("m", c.param, c.ret)]
        if self.rng.random() < 0.4:
            calls += [("upd", c.w, c.w), ("m", c.param, c.ret)]
        for method, param, ret in calls:
            res = self._result_name(ret)
            lines.append(f"{ind}{res} = {o}.{method}({self.value_d(param, 1)})")
            self.bind(res, ret)
        # (srcad makes the object while transforming, its attributes variables: frontend/objects.py)
        write = self.rng.random()
        if write < 0.25:  # an attribute written directly, then read by the method
            lines.append(f"{ind}{o}.w = {self.value_d(c.w, 1)}")
        elif write < 0.45:  # written on one path only: the method reads either value
            lines += [f"{ind}if {self.cond(1)}:", f"{ind}    {o}.w = {o}.w * 0.5 + {self.value_d(c.w, 1)}"]
        if write < 0.45:
            res = self._result_name(c.ret)
            lines.append(f"{ind}{res} = {o}.m({self.value_d(c.param, 1)})")
            self.bind(res, c.ret)
        return lines

    def s_object_choice(self, ind: str) -> list[str] | None:
        """Objects made in f chosen by a conditional expression (`o = K0(e) if c else K0(e2)`,
        joined as an if statement's: frontend/carried.py) or iterated in a display (`for o in
        [K0(e), K0(e2)]`, the body run once per object: frontend/loops.py), a method called
        and sometimes `o.upd(e)` writing through the loop's name."""
        if not self.classes:
            return None
        c = self.rng.choice(self.classes)
        o, res, acc = self.new_name("o"), self._result_name(c.ret), self.new_name("v")
        made = [f"{c.name}({self.value_d(c.w, 1)})" for _ in range(2)]
        if self.rng.random() < 0.5:
            lines = [f"{ind}{o} = {made[0]} if {self.cond(1)} else {made[1]}"]
            if self.rng.random() < 0.4:
                lines.append(f"{ind}{o}.upd({self.value_d(c.w, 1)})")
            lines.append(f"{ind}{res} = {o}.m({self.value_d(c.param, 1)})")
            self.bind(o, Ty("obj", cls=c.name))
            self.bind(res, c.ret)
            self.used.add("object_choice")
            return lines
        zero = "0.0" if c.ret.kind == "float" else f"np.zeros({c.ret.shape!r})"
        lines = [f"{ind}{acc} = {zero}", f"{ind}for {o} in [{', '.join(made)}]:"]
        if self.rng.random() < 0.4:
            lines.append(f"{ind}    {o}.upd({self.value_d(c.w, 1)})")
        lines.append(f"{ind}    {acc} = {acc} + {o}.m({self.value_d(c.param, 1)})")
        self.bind(acc, c.ret)
        self.used.add("object_loop")
        return lines

    def s_carried_object(self, ind: str) -> list[str] | None:
        """`o0 = K0(e)` before a loop whose body replaces it: `o0 = K0(o0.w * c + e)` (a state a
        loop steps: frontend/carried.py), sometimes after `o0.upd(e)`, under a condition (the loop
        carries the object itself: refused) or with another name on it first (refused too)."""
        if not self.classes:
            return None
        c = self.rng.choice(self.classes)
        o, i = self.new_name("o"), self.new_name("i")
        lines = [f"{ind}{o} = {c.name}({self.value_d(c.w, 1)})"]
        self.bind(o, Ty("obj", cls=c.name))
        form = self.rng.random()
        if form < 0.1:
            lines.append(f"{ind}{self.new_name('alias')} = {o}")
        lines.append(f"{ind}for {i} in range({self.rng.randint(1, 3)}):")
        if form > 0.55:
            lines.append(f"{ind}    {o}.upd({self.value_d(c.w, 1)})")
        new = f"{o} = {c.name}({o}.w * {self.rng.choice(['0.5', '-0.75', '1.25'])} + {self.value_d(c.w, 1)})"
        lines += self.maybe_guarded(ind + "    ", new, 0.1 <= form < 0.2)
        res = self._result_name(c.ret)
        lines.append(f"{ind}{res} = {o}.m({self.value_d(c.param, 1)})")
        self.bind(res, c.ret)
        self.used.add("carried_obj")
        return lines

    def s_pobj_new(self, ind: str) -> list[str] | None:
        """`p1 = D0(w, b)` in f: a dataclass, named tuple or registered class made inside from
        differentiated values, like an argument of its class in scope (its methods, `use_D0`)."""
        made = [v for v in self.scope.values() if v.ty.kind == "pobj"]
        if not made:
            return None
        ty = self.rng.choice(made).ty
        (_, w), (_, b) = ty.items
        name = self.new_name("p")
        line = f"{ind}{name} = {ty.cls}({self.value_d(w, 1)}, {self.value_d(b, 1)})"
        self.bind(name, ty)
        self.used.add("pytree_obj")
        return [line]

    # -- "pytree_obj": object arguments ------------------------------------------------
    def pobj_type(self, shape: tuple) -> Ty:
        kind = self.rng.choice("DNR")
        name = f"{kind}{len(self.pclasses)}"
        self.pclasses.append((name, kind, self.rng.random() < 0.5))
        return Ty("pobj", items=(("w", A(*shape)), ("b", FLOAT)), cls=name)

    def pobj_classes(self) -> list[str]:
        chunks = []
        method = ["    def m(self, a):", "        return np.tanh(self.w) * a + self.b"]
        for name, kind, static in self.pclasses:
            if kind == "D":
                lines = ["@dataclasses.dataclass", f"class {name}:", "    w: np.ndarray", "    b: float"]
                if static:
                    lines.append('    tag: str = dataclasses.field(default="s", metadata={"static": True})')
                lines += [""] + method
            elif kind == "N":
                lines = [f'{name} = collections.namedtuple("{name}", ["w", "b"])']
            else:
                lines = [f"class {name}:", '    __fz_fields__ = ("w", "b")', "",
                         "    def __init__(self, w, b):", "        self.w, self.b = w, b", ""] + method
                lines += ["", "", f"srcad.register_pytree({name}, lambda r: ((r.w, r.b), None),",
                          f"                      lambda aux, children: {name}(*children))"]
            lines += ["", "", f"def use_{name}(p, v):", "    return np.sum(np.sin(p.w) * v) + p.b * v"]
            chunks.append("\n".join(lines))
        return chunks

    def call_pobj(self, ty: Ty, d: int) -> str | None:
        kinds = {name: kind for name, kind, _ in self.pclasses}
        opts = []
        for v in self.scope.values():
            if v.ty.kind != "pobj":
                continue
            if ty == FLOAT:
                opts.append((None, 1.0, lambda v=v: f"use_{v.ty.cls}({v.name}, {self.fexpr(d - 1)})"))
            elif ty == v.ty.items[0][1] and kinds.get(v.ty.cls) != "N":
                opts.append((None, 1.0, lambda v=v: f"{v.name}.m({self.fexpr(d - 1)})"))
        out = self.choose(opts)
        if out is not None:
            self.used.add("pytree_obj")
        return out
