"""Functions as values: nested `def`s (closures) and lambdas that read f's parameters, its
earlier locals or a loop's variables when they run, and module-level higher-order helpers
(`apply0(fn, v, w)`) given a helper, a `functools.partial` of one, a closure, a lambda or a
NumPy ufunc.

A function value in scope is a Var of kind "fn" whose type holds its parameter and return
types (`Ty("fn", items=(param, ret), cls=feature)`): calls to it are expressions of its return
type. Function bodies read only floats, arrays, ints, tuples, dicts and object arguments of
the enclosing scope (not lists, whose length may change before the call)."""

from __future__ import annotations

import random

from .expr import BINARY
from .vartypes import FLOAT, A, Ty, Var

# features whose calls are expressions (mixed lists are read through `leaves`)
CALL_FEATURES = ("closure", "lambda", "func_arg", "method", "pytree_obj")
UFUNCS = ["np.tanh", "np.sin", "np.arctan", "np.cos"]
APPLY_BODIES = [  # fn: T -> T, v: T, w: float; returns T
    ["    return fn(v) * w + v"],
    ["    return fn(w * fn(v)) - 0.5 * v"],
    ["    t = fn(v)", "    return t * t * w + fn(0.5 * v)"],
]
CAPTURED = ("float", "arr", "int", "tuple", "dict", "pobj")


def FN(param: Ty, ret: Ty, feature: str) -> Ty:
    return Ty("fn", items=(param, ret), cls=feature)


class Funcs:
    """Mixin of the generator (see program.Generator)."""

    def value_d(self, ty: Ty, d: int) -> str:
        return self.fexpr(d) if ty.kind == "float" else self.aexpr(ty.shape, d)

    def extra_weight(self) -> float:
        return 1.5 * max(self.cfg.w(f) for f in CALL_FEATURES)

    def extra_expr(self, ty: Ty, d: int) -> str | None:
        """A call of a function value, an apply helper, an object's method or a helper taking
        an object, of type `ty`."""
        return self.choose([(None, 1.0, lambda: self.call_local(ty, d)),
                            ("func_arg", 1.0, lambda: self.call_apply(ty, d)),
                            ("method", 1.0, lambda: self.call_method(ty, d)),
                            ("pytree_obj", 1.0, lambda: self.call_pobj(ty, d))])

    # -- bodies --------------------------------------------------------------------
    def fn_body(self, param: Ty, ret: Ty, d: int, extra: tuple | None = None) -> str:
        """An expression of type `ret` of the parameter `a` (of type `param`) and of what
        the enclosing scope holds; `extra` (name, type) is a variable it must read."""
        saved = self.scope
        self.scope = {n: v for n, v in saved.items() if v.ty.kind in CAPTURED and n != "a"}
        self.scope["a"] = Var("a", param, arg=True)
        try:
            body = self.value_d(ret, d)
            form = self.rng.choice(BINARY)
            term = self.term_of("a", param, ret)
            code = form.format(body, term) if self.rng.random() < 0.5 else form.format(term, body)
            if extra is not None:
                code = f"({code} + {self.term_of(extra[0], extra[1], ret)})"
        finally:
            self.scope = saved
        return code

    @staticmethod
    def term_of(name: str, ty: Ty, ret: Ty) -> str:
        """`name` (of type ty) as something that combines elementwise with a `ret` without
        changing its shape."""
        if ty.kind == "int":
            return f"(0.25 * {name})"
        if ty.kind == "arr" and ty != ret:
            return f"np.sum({name})"
        return name

    def fn_types(self) -> tuple[Ty, Ty]:
        param = FLOAT if self.rng.random() < 0.5 else A(*self.pick_shape())
        return param, (FLOAT if self.rng.random() < 0.5 else param)

    def _result_name(self, ty: Ty) -> str:
        return self.new_name("v" if ty.kind == "float" else "a")

    # -- statements ----------------------------------------------------------------
    def s_function(self, ind: str, feature: str, extra: tuple | None = None) -> list[str]:
        """`def c0(a): return e` or `c0 = lambda a: e`, then a call of it."""
        param, ret = self.fn_types()
        name = self.new_name("c")
        body = self.fn_body(param, ret, 2, extra)
        if feature == "closure":
            lines = [f"{ind}def {name}(a):", f"{ind}    return {body}"]
        else:
            lines = [f"{ind}{name} = lambda a: {body}"]
        self.used.add(feature)
        self.bind(name, FN(param, ret, feature))
        res = self._result_name(ret)
        lines.append(f"{ind}{res} = {name}({self.value_d(param, 1)})")
        self.bind(res, ret)
        return lines

    def loop_function(self, ind: str, bound: list) -> list[str]:
        """A closure (or lambda) made in a loop body that reads the loop's variable."""
        if not bound:
            return []
        for feature in ("closure", "lambda"):
            if self.on(feature):
                return self.s_function(ind, feature, extra=self.rng.choice(bound))
        return []

    # -- calls -----------------------------------------------------------------------
    def call_local(self, ty: Ty, d: int) -> str | None:
        cands = [v for v in self.scope.values() if v.ty.kind == "fn" and v.ty.items[1] == ty]
        if not cands:
            return None
        v = self.rng.choice(cands)
        self.used.add(v.ty.cls)
        return f"{v.name}({self.value_d(v.ty.items[0], d - 1)})"

    def call_apply(self, ty: Ty, d: int) -> str | None:
        if not self.applies:
            return None
        fn = self.choose([
            ("func_arg", 1.0, lambda: self.rng.choice(UFUNCS)),
            ("func_arg", 3.0, lambda: self.helper_as_fn(ty, d)),
            (None, 1.5, lambda: self.local_as_fn(ty)),
            ("lambda", 1.5, lambda: f"lambda a: {self.fn_body(ty, ty, d - 1)}"),
        ])
        self.used.add("func_arg")
        return f"{self.rng.choice(self.applies)}({fn}, {self.value_d(ty, d - 1)}, {self.fexpr(d - 1)})"

    def local_as_fn(self, ty: Ty) -> str | None:
        cands = [v for v in self.scope.values() if v.ty.kind == "fn" and v.ty.items == (ty, ty)]
        if not cands:
            return None
        v = self.rng.choice(cands)
        self.used.add(v.ty.cls)
        return v.name

    def helper_as_fn(self, ty: Ty, d: int) -> str | None:
        """A module-level helper of one parameter of type ty returning ty: itself, or a
        functools.partial binding its other parameters by keyword."""
        cands = [h for h in self.helpers if h.ret == ty and h.params[0][1] == ty]
        if not cands:
            return None
        h = self.rng.choice(cands)
        bound = []
        for name, pty, default in h.params[1:]:
            if default is None:
                bound.append(f"{name}={self.value_d(pty, d - 1)}")
            elif self.rng.random() < 0.5:
                bound.append(f"{name}={self.rng.choice(['0.5', '2.0', '-1.5'])}")
        return f"functools.partial({h.name}, {', '.join(bound)})" if bound else h.name

    # -- module level --------------------------------------------------------------
    def apply_helpers(self) -> list[str]:
        chunks = []
        for k, body in enumerate(self.rng.sample(APPLY_BODIES, self.rng.randint(1, 2))):
            chunks.append("\n".join([f"def apply{k}(fn, v, w):"] + body))
            self.applies.append(f"apply{k}")
        return chunks

    # -- helpers that write into their parameter ("helper_write") ------------------
    def writers_on(self) -> bool:
        """Whether this program has writer helpers: decided by a generator of its own, seeded
        by the program's, so that programs without them are those made before the feature."""
        w = self.cfg.w("helper_write")
        if w > 0 and random.Random(hash(self.rng.getstate()[1])).random() < w / (w + 2.0):
            self.used.add("helper_write")
            return True
        return False

    def writer_helper(self, k: int, shapes: list) -> list[str]:
        """`def w0(u, a):` writing into u (items, slices, `u *= a`) and returning nothing (or
        sometimes u), as boundary conditions are applied: the caller's array changes."""
        shape = self.rng.choice([s for s in shapes if s] or [(2,)])
        self.scope = {"u": Var("u", A(*shape), owned=True), "a": Var("a", FLOAT, arg=True)}
        lines = [f"def w{k}(u, a):"]
        for _ in range(self.rng.randint(1, 3)):
            lines += self.s_item_write("    ") or []
        if len(lines) == 1 or self.rng.random() < 0.4:
            lines.append(f"    u {self.rng.choice(['*=', '+=', '-='])} {self.fexpr(1)}")
        if self.rng.random() < 0.3:  # (only some calls change u)
            lines[1:] = ["    if a > 0.0:"] + ["    " + s for s in lines[1:]]
        if self.rng.random() < 0.2:
            lines.append("    return u")
        self.writers.append((f"w{k}", shape))
        return lines

    def s_call_writer(self, ind: str) -> list[str] | None:
        """`w0(y, e)` on an array f owns of the helper's shape (made first if there is none)."""
        calls = [(w, v) for w, shape in self.writers for v in self.scope.values()
                 if v.owned and v.ty.kind == "arr" and v.ty.shape == shape]
        lines = []
        if not calls or self.rng.random() < 0.3:
            w, shape = self.rng.choice(self.writers)
            sources = self.leaves(A(*shape))
            made = f"{self.rng.choice(sources)} * 1.0" if sources and self.rng.random() < 0.7 \
                else f"np.ones({shape!r}) * {self.fexpr(1)}"
            name = self.new_name("y")
            lines.append(f"{ind}{name} = {made}")
            self.bind(name, A(*shape), owned=True)
            calls = [(w, self.scope[name])]
        w, v = self.rng.choice(calls)
        if self.rng.random() < 0.35:  # (a view of a bigger array: its rows or a slice change)
            return lines + self._call_writer_on_view(ind, w, v.ty.shape)
        return lines + [f"{ind}{w}({v.name}, {self.fexpr(1)})"]

    def _call_writer_on_view(self, ind: str, w: str, shape: tuple) -> list[str]:
        """`z = ...` of a bigger shape, then `w0(z[1:4], e)` or `w0(z[1], e)`: the helper
        changes z through the view (apply_bc(u[1:-1]))."""
        row = self.rng.random() < 0.5
        big = ((2,) + shape) if row else ((shape[0] + 2,) + shape[1:])
        sources = self.leaves(A(*big))
        made = f"{self.rng.choice(sources)} * 1.0" if sources and self.rng.random() < 0.5 \
            else f"np.ones({big!r}) * {self.fexpr(1)}"
        name = self.new_name("z")
        view = f"{name}[1]" if row else f"{name}[1:{shape[0] + 1}]"
        lines = [f"{ind}{name} = {made}", f"{ind}{w}({view}, {self.fexpr(1)})"]
        self.bind(name, A(*big), owned=True)
        return lines
