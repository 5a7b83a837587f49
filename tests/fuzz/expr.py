"""Expressions of a requested static type (float, float array of an exact shape, int,
condition) over the names in scope. Every production is tagged with the feature it
exercises; productions whose feature has weight 0 are never chosen.

Numerics are kept tame by construction: logarithms and square roots take `e * e + c`,
divisions `1 + e * e`, exponentials a bounded argument (`exp(tanh(e))`), products of whole
arrays only of bounded factors; the program is also run once and rejected when its value
is not finite or large (program.py)."""

from __future__ import annotations

from .vartypes import FLOAT, A, Ty, broadcast_parts, size

FLOAT_UNARY = [  # (feature, template); {0} is used once unless the operand is a leaf
    ("math_calls", "math.sin({0})"), ("math_calls", "math.cos({0})"), ("math_calls", "math.tanh({0})"),
    ("math_calls", "math.atan({0})"), ("math_calls", "math.exp(math.tanh({0}))"),
    ("math_calls", "math.sqrt({0} * {0} + 1.0)"), ("math_calls", "math.log({0} * {0} + 0.5)"),
    ("math_calls", "math.log1p({0} * {0})"), ("math_calls", "math.erf({0})"),
    ("math_calls", "math.hypot({0}, 0.75)"), ("math_calls", "math.atan2({0}, 1.5)"),
    ("math_calls", "math.pow({0} * {0} + 1.0, 0.75)"), ("math_calls", "math.expm1(0.5 * math.sin({0}))"),
    ("np_ufuncs", "np.sin({0})"), ("np_ufuncs", "np.tanh({0})"), ("np_ufuncs", "np.exp(np.tanh({0}))"),
    ("np_ufuncs", "np.sqrt({0} * {0} + 1.0)"), ("np_ufuncs", "np.log1p({0} * {0})"),
    ("np_ufuncs", "np.arctan({0})"), ("np_ufuncs", "np.cosh(np.sin({0}))"), ("np_ufuncs", "np.square({0})"),
    (None, "(-{0})"), (None, "({0} ** 2)"), (None, "({0} * {0} * {0})"), (None, "({0} / (1.0 + {0} * {0}))"),
    (None, "(2.0 ** math.tanh({0}))"),
    ("nonsmooth", "abs({0})"), ("nonsmooth", "min({0}, 0.8)"), ("nonsmooth", "max({0}, -0.3)"),
]
ARRAY_UNARY = [
    ("np_ufuncs", "np.sin({0})"), ("np_ufuncs", "np.cos({0})"), ("np_ufuncs", "np.tanh({0})"),
    ("np_ufuncs", "np.exp(np.tanh({0}))"), ("np_ufuncs", "np.sqrt({0} * {0} + 1.0)"),
    ("np_ufuncs", "np.log({0} * {0} + 0.5)"), ("np_ufuncs", "np.log1p({0} * {0})"),
    ("np_ufuncs", "np.arctan({0})"), ("np_ufuncs", "np.square({0})"),
    (None, "(-{0})"), (None, "({0} ** 2)"), (None, "(1.0 / (1.0 + {0} * {0}))"), (None, "(0.5 * {0})"),
    ("nonsmooth", "np.abs({0})"), ("nonsmooth", "np.clip({0}, -0.9, 0.9)"),
    ("nonsmooth", "np.maximum({0}, 0.1)"), ("nonsmooth", "np.minimum({0}, -0.2)"),
]
BINARY = ["({0} + {1})", "({0} - {1})", "({0} * {1})", "({0} / (1.5 + {1} * {1}))", "(0.5 * {0} - {1})"]
CONSTS = ["0.5", "1.5", "-0.7", "2.0", "0.3", "-1.25", "0.1", "3.0"]
THRESHOLDS = ["0.0", "0.2", "-0.3", "0.5", "1.0", "-1.0"]


class Exprs:
    """Mixin of the generator (see program.Generator): needs self.rng, self.cfg,
    self.scope (name -> Var), self.helpers, self.used (features), self.names."""

    # -- choosing -------------------------------------------------------------
    def choose(self, options):
        """options: (feature or None, weight, thunk); thunks that return None are skipped."""
        live = [(f, w * (self.cfg.w(f) if f else 1.0), t) for f, w, t in options]
        live = [o for o in live if o[1] > 0]
        while live:
            total = sum(w for _, w, _ in live)
            r = self.rng.uniform(0, total)
            # f and t (the option picked) are read after the loop
            for k, (f, w, t) in enumerate(live):  # noqa: B007
                r -= w
                if r <= 0 or k == len(live) - 1:
                    break
            out = t()
            if out is not None:
                if f:
                    self.used.add(f)
                return out
            live.pop(k)
        return None

    def on(self, feature: str) -> bool:
        """A feature chosen with probability weight/(weight + 2)."""
        w = self.cfg.w(feature)
        if w > 0 and self.rng.random() < w / (w + 2.0):
            self.used.add(feature)
            return True
        return False

    def const(self) -> str:
        return self.rng.choice(CONSTS)

    # -- values already in scope ----------------------------------------------
    def leaves(self, ty: Ty) -> list[str]:
        """Code for every value of exactly type `ty` reachable from the scope: variables and
        elements of tuples, dicts and lists of known length."""
        out = []
        for v in self.scope.values():
            out += self._paths(v.name, v.ty, ty, 2)
        return out

    def _paths(self, code: str, have: Ty, want: Ty, depth: int) -> list[str]:
        if have == want:
            return [code]
        if depth == 0:
            return []
        out = []
        if have.kind == "tuple":
            for k, t in enumerate(have.items):
                out += self._paths(f"{code}[{k}]", t, want, depth - 1)
        elif have.kind == "dict":
            for k, t in have.items:
                out += self._paths(f"{code}[{k!r}]", t, want, depth - 1)
        elif have.kind == "pobj":
            for k, t in have.items:
                out += self._paths(f"{code}.{k}", t, want, depth - 1)
        elif have.kind == "mlist":
            n = len(have.items)
            for k, t in enumerate(have.items):
                idx = k - n if k == n - 1 and self.cfg.w("index_neg") else k
                out += self._paths(f"{code}[{idx}]", t, want, depth - 1)
        elif have.kind == "list" and have.n:
            for k in sorted({0, have.n - 1}):
                out += self._paths(f"{code}[{k}]", have.elem, want, depth - 1)
            if self.cfg.w("index_neg"):
                out += self._paths(f"{code}[-1]", have.elem, want, depth - 1)
        return out

    def arrays(self, pred=lambda s: True) -> list[tuple[str, tuple]]:
        found = []
        for shape in self.shapes_in_scope():
            if pred(shape):
                found += [(c, shape) for c in self.leaves(A(*shape))]
        return found

    def shapes_in_scope(self) -> set:
        shapes = set()

        def walk(t, depth=2):
            if t.kind == "arr":
                shapes.add(t.shape)
            elif depth and t.kind in ("tuple", "dict", "mlist", "pobj"):
                for i in t.items:
                    walk(i[1] if isinstance(i, tuple) else i, depth - 1)
            elif depth and t.kind == "list" and t.n:
                walk(t.elem, depth - 1)
        for v in self.scope.values():
            walk(v.ty)
        return shapes

    def ints(self) -> list[tuple[str, int, int]]:
        return [(v.name, v.ty.lo, v.ty.hi) for v in self.scope.values() if v.ty.kind == "int"]

    # -- ints ---------------------------------------------------------------------
    def index(self, n: int) -> str:
        """An int expression whose value is a valid index into an axis of length n."""
        opts = [(None, 1.0, lambda: str(self.rng.randrange(n)))]
        for name, lo, hi in self.ints():
            if lo >= 0:
                opts.append(("index_int", 2.0, lambda name=name: f"{name} % {n}" if n > 1 else "0"))
                if hi < n:
                    opts.append(("index_int", 2.0, lambda name=name: name))
                opts.append(("index_neg", 1.0, lambda name=name: f"-({name} % {n}) - 1" if n > 1 else "-1"))
        opts.append(("index_neg", 1.0, lambda: str(-1 - self.rng.randrange(n))))
        return self.choose(opts)

    def count(self) -> tuple[str, int, int]:
        """(code, lo, hi) of a small non-negative int: a loop's trip count."""
        opts = [(None, 1.0, lambda: (str(k := self.rng.randint(1, 4)), k, k))]
        for name, lo, hi in self.ints():
            if lo >= 0 and hi <= 5:
                opts.append(("arg_int", 2.0, lambda name=name, lo=lo, hi=hi: (name, lo, hi)))
                opts.append(("arg_int", 0.5, lambda name=name, lo=lo, hi=hi:
                             (f"min({name}, 3)", min(lo, 3), min(hi, 3))))
        for code, shape in self.arrays(lambda s: len(s) >= 1 and 1 <= s[0] <= 5):
            if "[" not in code:
                opts.append((None, 1.0, lambda c=code, s=shape: (self.rng.choice(
                    [f"len({c})", f"{c}.shape[0]"]), s[0], s[0])))
        return self.choose(opts)

    # -- conditions -------------------------------------------------------------
    def cond(self, d: int, data: bool = True) -> str:
        opts = []
        if data:
            opts.append(("if_data", 3.0, lambda: f"{self.fexpr(d)} > {self.rng.choice(THRESHOLDS)}"))
            opts.append(("if_data", 1.0, lambda: f"{self.fexpr(d)} < {self.fexpr(max(d - 1, 0))}"))
            opts.append(("chained_cmp", 0.7, lambda: f"{self.rng.choice(['-1.0', '-0.3', '0.0'])} < "
                         f"{self.fexpr(d)} < {self.rng.choice(['0.2', '0.5', '1.0'])}"))
            if d > 0:
                opts.append(("if_data", 0.5, lambda: f"not ({self.cond(d - 1, data)})"))
                opts.append(("if_data", 0.5, lambda: f"({self.cond(d - 1, data)}) "
                             f"{self.rng.choice(['and', 'or'])} ({self.cond(d - 1, data)})"))
        for name, lo, hi in self.ints():
            opts.append(("if_int", 1.0, lambda name=name: f"{name} % 2 == 0"))
            opts.append(("if_int", 1.0,
                         lambda name=name, lo=lo, hi=hi: f"{name} > {self.rng.randint(lo, max(lo, hi))}"))
        for v in self.scope.values():
            if v.ty.kind == "list":
                opts.append(("if_int", 0.5, lambda v=v: f"len({v.name}) > {self.rng.randint(0, 3)}"))
        return self.choose(opts) or "True"

    # -- floats -------------------------------------------------------------------
    def fexpr(self, d: int) -> str:
        if d <= 0:
            return self.fleaf()
        return self.choose([
            (None, 2.0, self.fleaf),
            (None, 3.0, lambda: self._unary(FLOAT_UNARY, d, self.fexpr, FLOAT)),
            (None, 3.0, lambda: self.rng.choice(BINARY).format(self.fexpr(d - 1), self.fleaf())),
            (None, 2.0, lambda: self.rng.choice(BINARY[:3]).format(self.fexpr(d - 1), self.fexpr(d - 1))),
            ("nonsmooth", 0.5, lambda: f"{self.rng.choice(['max', 'min'])}"
                                       f"({self.fexpr(d - 1)}, {self.fexpr(d - 1)})"),
            ("cond_expr", 1.0, lambda: f"({self.fexpr(d - 1)} if {self.cond(0)} else {self.fexpr(d - 1)})"),
            (None, 3.0, lambda: self.reduce_to_float(d)),
            ("helpers", 1.5, lambda: self.call_helper(FLOAT, d)),
            (None, self.extra_weight(), lambda: self.extra_expr(FLOAT, d)),
        ])

    def fleaf(self) -> str:
        opts = [(None, 0.5, self.const)]
        floats = self.leaves(FLOAT)
        if floats:
            opts.append((None, 4.0, lambda: self.rng.choice(floats)))
        zero_d = self.leaves(A())
        if zero_d:
            opts.append(("arg_0d", 1.0, lambda: self.rng.choice(zero_d)))
        ints = self.ints()
        if ints:
            opts.append((None, 0.3, lambda: f"(0.25 * {self.rng.choice(ints)[0]})"))
        arrays = self.arrays(lambda s: len(s) >= 1)
        if arrays:
            opts.append(("index_int", 1.5, lambda: self._element(*self.rng.choice(arrays))))
            opts.append(("reductions", 1.0, lambda: f"np.sum({self.rng.choice(arrays)[0]})"))
        return self.choose(opts)

    def _element(self, code: str, shape: tuple) -> str:
        idx = ", ".join(self.index(n) for n in shape)
        if len(shape) == 2 and self.rng.random() < 0.3:
            return f"{code}[{self.index(shape[0])}][{self.index(shape[1])}]"
        return f"{code}[{idx}]"

    def _unary(self, table, d, sub, ty):
        feature, form = self.rng.choice(table)
        if feature and not self.cfg.w(feature):
            return None
        if feature:
            self.used.add(feature)
        operand = sub(d - 1) if form.count("{0}") == 1 else self.leaf_of(ty)
        return form.format(operand)

    def leaf_of(self, ty: Ty) -> str:
        return self.fleaf() if ty.kind == "float" else self.aleaf(ty.shape)

    def reduce_to_float(self, d: int) -> str | None:
        shape = self.pick_shape(min_rank=1)
        a = self.aexpr(shape, d - 1)
        opts = [
            ("reductions", 3.0, lambda: self.rng.choice([f"np.sum({a})", f"np.mean({a})", f"{a}.sum()"])),
            ("reductions", 1.0, lambda: f"np.prod(np.cos({a}))" if size(shape) > 4 else f"np.prod({a})"),
            ("nonsmooth", 1.0, lambda: self.rng.choice([f"np.max({a})", f"np.min({a})", f"{a}.max()"])),
            ("reductions", 0.5, lambda: f"np.linalg.norm({a})"),
            ("reductions", 0.5, lambda: f"np.var({a})" if size(shape) > 1 else None),
            ("index_int", 2.0, lambda: self._element(f"({a})" if not a.isidentifier() else a, shape)),
            ("index_mask", 1.0, lambda: self._masked(a, shape)),
            ("matmul", 1.0, lambda: self._dot(shape, a, d)),
            ("einsum", 0.5, lambda: self._einsum_full(shape, a, d)),
        ]
        for v in self.scope.values():
            if v.ty.kind == "list" and v.ty.elem.kind == "float":
                opts.append(("sum_gen", 1.0,
                             lambda v=v: f"sum({self._gen_body('e', FLOAT)} for e in {v.name})"))
                opts.append((None, 1.0, lambda v=v: f"sum({v.name})"))
                opts.append(("reduce", 1.0, lambda v=v: self._reduced(v, d)))
            if v.ty.kind == "list" and v.ty.elem.kind == "arr":
                opts.append(("reduce", 0.5, lambda v=v: f"np.sum(functools.reduce(lambda a, b: a + b * b, "
                                                        f"{v.name}, np.zeros({v.ty.elem.shape!r})))"))
                opts.append(("stack", 1.0, lambda v=v: f"np.sum(np.stack({v.name}) ** 2)"
                             if v.ty.n != 0 else None))
                opts.append(("sum_gen", 0.7, lambda v=v: f"sum(np.sum({self._gen_body('e', v.ty.elem)}) "
                                                         f"for e in {v.name})"))
        return self.choose(opts)

    def _reduced(self, v, d: int) -> str:
        """functools.reduce, math.prod or a key=operator.itemgetter over the float list v."""
        start = self.fexpr(max(d - 1, 0))
        return self.rng.choice([
            f"functools.reduce(lambda a, b: a * 0.5 + np.sin(b), {v.name}, {start})",
            f"functools.reduce(lambda a, b: max(a, b), {v.name}, {start})",
            f"math.prod([e * 0.5 for e in {v.name}])",
            f"sorted([(e, -e) for e in {v.name}] + [({start}, 0.0)], key=operator.itemgetter(0))[0][1]",
        ])

    def _gen_body(self, var: str, ty: Ty) -> str:
        """A small expression of the comprehension variable (and the scope)."""
        form = self.rng.choice(["{v} * {v}", "np.sin({v})", "{v} * {o}", "({v} + {o}) ** 2",
                                "np.tanh({v} - {o})"])
        return form.format(v=var, o=self.fleaf())

    def _masked(self, a, shape):
        t = self.rng.choice(THRESHOLDS)
        if a.isidentifier():
            return f"np.sum({a}[{a} > {t}])"
        return f"np.sum(np.where({a} > {t}, {a}, 0.0))"

    def _dot(self, shape, a, d):
        b = self.aexpr(shape, d - 1)
        if len(shape) == 1:
            return self.rng.choice([f"np.dot({a}, {b})", f"({a} @ {b})", f"np.vdot({a}, {b})"])
        if len(shape) == 2 and shape[0] == shape[1]:
            return self.rng.choice([f"np.trace({a} @ {b})", f"np.trace({a})"])
        return f"np.vdot({a}, {b})"

    def _einsum_full(self, shape, a, d):
        letters = "ijk"[:len(shape)]
        b = self.aexpr(shape, d - 1)
        return f"np.einsum('{letters},{letters}->', {a}, {b})"

    # -- arrays -------------------------------------------------------------------
    def pick_shape(self, min_rank: int = 0) -> tuple:
        shapes = [s for s in self.shapes_in_scope() if len(s) >= min_rank]
        if shapes and self.rng.random() < 0.85:
            return self.rng.choice(sorted(shapes))
        return self.rng.choice([(2,), (3,), (4,), (2, 3), (3, 2), (1, 3), (3, 1)][:7 if min_rank < 2 else 7])

    def aleaf(self, shape: tuple) -> str:
        exact = self.leaves(A(*shape))
        opts = [(None, 5.0, lambda: self.rng.choice(exact) if exact else None),
                (None, 0.5, lambda: self._const_array(shape))]
        if shape:
            opts.append(("broadcast", 1.0, lambda: self._broadcast_leaf(shape)))
            opts.append(("index_slice", 1.5, lambda: self._view_of(shape)))
        opts.append((None, 0.7, lambda: f"np.full({shape!r}, {self.fleaf()})" if shape
                     else f"np.array({self.fleaf()})"))
        return self.choose(opts)

    def _const_array(self, shape):
        n = size(shape)
        base = f"np.linspace(-0.8, 0.9, {n})"
        return base if len(shape) == 1 else f"{base}.reshape({shape!r})"

    def _broadcast_leaf(self, shape):
        small = [s for s in broadcast_parts(shape) if s != shape]
        cands = [(c, s) for s in small for c in self.leaves(A(*s))]
        if not cands:
            return None
        code, _ = self.rng.choice(cands)
        return self.rng.choice([f"({code} + np.zeros({shape!r}))", f"({code} * np.ones({shape!r}))",
                                f"np.broadcast_to({code}, {shape!r})"])

    def _view_of(self, shape):
        """An existing array's row, column, slice or reversal that has `shape`."""
        opts = []
        for code, s in self.arrays(lambda s: len(s) == len(shape) + 1):
            if s[1:] == shape:
                opts.append(("index_int", lambda c=code, s=s: f"{c}[{self.index(s[0])}]"))
            if len(s) == 2 and s[:1] == shape[:1]:
                opts.append(("index_slice", lambda c=code, s=s: f"{c}[:, {self.index(s[1])}]"))
        for code, s in self.arrays(lambda s: len(s) == len(shape) and s[1:] == shape[1:]
                                   and s[0] >= shape[0]):
            extra = s[0] - shape[0]
            if extra == 0:
                opts.append(("index_slice", lambda c=code: f"{c}[::-1]"))
                opts.append(("index_fancy", lambda c=code, n=s[0]: f"{c}[{self._perm(n, shape[0])}]"))
            else:
                opts.append(("index_slice", lambda c=code, e=extra: self._slice(c, e, shape[0])))
                opts.append(("index_fancy", lambda c=code, n=s[0]: f"{c}[{self._perm(n, shape[0])}]"))
        opts = [(f, 1.0, t) for f, t in opts]
        return self.choose(opts)

    def _slice(self, code, extra, n):
        a = self.rng.randint(0, extra)
        form = self.rng.choice(["{c}[{a}:{b}]", "{c}[{a}:{a} + {n}]",
                                "{c}[-{m}:]" if a == extra else "{c}[:{b}]"])
        if "[:{b}]" in form:
            a = 0
        return form.format(c=code, a=a, b=a + n, n=n, m=n)

    def _perm(self, n, k):
        idx = [self.rng.randrange(n) for _ in range(k)]
        return self.rng.choice([str(idx), f"np.array({idx})"])

    def aexpr(self, shape: tuple, d: int) -> str:
        if d <= 0:
            return self.aleaf(shape)
        return self.choose([
            (None, 2.0, lambda: self.aleaf(shape)),
            (None, 3.0, lambda: self._unary(ARRAY_UNARY, d, lambda dd: self.aexpr(shape, dd), A(*shape))),
            (None, 3.0, lambda: self._abinary(shape, d)),
            ("reduce_axis", 1.0, lambda: self._reduce_axis(shape, d)),
            ("matmul", 1.0, lambda: self._matmul(shape, d)),
            ("einsum", 0.4, lambda: self._einsum(shape, d)),
            ("where", 1.0, lambda: f"np.where({self.aexpr(shape, d - 1)} > {self.rng.choice(THRESHOLDS)}, "
                               f"{self.aexpr(shape, d - 1)}, {self.operand(shape, d - 1)})"),
            ("stack", 1.0, lambda: self._stack(shape, d)),
            ("reshape", 1.0, lambda: self._reshape(shape, d)),
            ("cumsum", 1.0, lambda: f"np.cumsum({self.aexpr(shape, d - 1)}, "
                                    f"axis={self.rng.randrange(len(shape))})"
             if shape else None),
            ("cond_expr", 0.5, lambda: f"({self.aexpr(shape, d - 1)} if {self.cond(0)} "
                                       f"else {self.aexpr(shape, d - 1)})"),
            ("helpers", 1.0, lambda: self.call_helper(A(*shape), d)),
            ("copy", 0.3, lambda: f"{self.aleaf(shape)}.copy()"),
            (None, self.extra_weight(), lambda: self.extra_expr(A(*shape), d)),
        ])

    def operand(self, shape, d):
        """Something that broadcasts against `shape` without changing it."""
        s = self.rng.choice(broadcast_parts(shape)) if self.cfg.w("broadcast") else shape
        if s != shape:
            self.used.add("broadcast")
        if s == () and self.rng.random() < 0.6:
            return self.fexpr(d)
        return self.aexpr(s, d)

    def _abinary(self, shape, d):
        a = self.aexpr(shape, d - 1)
        b = self.operand(shape, d - 1) if self.cfg.w("broadcast") else self.aexpr(shape, d - 1)
        form = self.rng.choice(BINARY)
        if "{1} * {1}" in form:
            b = self.leaf_of(FLOAT)
        elif self.rng.random() < 0.5:
            a, b = b, a  # the full-shape operand on either side
        return form.format(a, b)

    def _reduce_axis(self, shape, d):
        k = self.rng.randint(0, len(shape))
        if len(shape) >= 3:
            return None
        if shape and shape[k if k < len(shape) else -1] == 1 and self.on("keepdims"):
            k = k if k < len(shape) and shape[k] == 1 else shape.index(1)
            big = shape[:k] + (self.rng.randint(2, 3),) + shape[k + 1:]
            fn = self.rng.choice(["np.sum", "np.mean"] + ["np.max"] * (self.cfg.w("nonsmooth") > 0))
            if fn == "np.max":
                self.used.add("nonsmooth")
            return f"{fn}({self.aexpr(big, d - 1)}, axis={k}, keepdims=True)"
        big = shape[:k] + (self.rng.randint(1, 3),) + shape[k:]
        b = self.aexpr(big, d - 1)
        forms = ["np.sum({b}, axis={k})", "np.mean({b}, axis={k})", "{b}.sum(axis={k})",
                 "np.prod(np.cos({b}), axis={k})"]
        if self.cfg.w("nonsmooth"):
            forms += ["np.max({b}, axis={k})", "np.min({b}, axis={k})"]
        fn = self.rng.choice(forms)
        if "max" in fn or "min" in fn:
            self.used.add("nonsmooth")
        wrapped = b if b.isidentifier() or b.endswith(")") else f"({b})"
        return fn.format(b=wrapped, k=self.rng.choice([k, k - len(big)]))

    def _matmul(self, shape, d):
        k = self.rng.randint(1, 3)
        if len(shape) == 2:
            m, n = shape
            if self.rng.random() < 0.3:
                return f"np.outer({self.aexpr((m,), d - 1)}, {self.aexpr((n,), d - 1)})"
            a, b = self.aexpr((m, k), d - 1), self.aexpr((k, n), d - 1)
            return self.rng.choice([f"({a} @ {b})", f"np.dot({a}, {b})", f"np.matmul({a}, {b})"])
        if len(shape) == 1:
            (m,) = shape
            if self.rng.random() < 0.5:
                return f"({self.aexpr((m, k), d - 1)} @ {self.aexpr((k,), d - 1)})"
            return f"np.dot({self.aexpr((k,), d - 1)}, {self.aexpr((k, m), d - 1)})"
        return None

    def _einsum(self, shape, d):
        k = self.rng.randint(1, 3)
        if len(shape) == 2:
            m, n = shape
            return self.rng.choice([
                f"np.einsum('ik,kj->ij', {self.aexpr((m, k), d - 1)}, {self.aexpr((k, n), d - 1)})",
                f"np.einsum('ji->ij', {self.aexpr((n, m), d - 1)})",
                f"np.einsum('ij,j->ij', {self.aexpr((m, n), d - 1)}, {self.aexpr((n,), d - 1)})"])
        if len(shape) == 1:
            (m,) = shape
            return self.rng.choice([f"np.einsum('ij,j->i', {self.aexpr((m, k), d - 1)}, "
                                    f"{self.aexpr((k,), d - 1)})",
                                    f"np.einsum('ij->i', {self.aexpr((m, k), d - 1)})"])
        return None

    def _stack(self, shape, d):
        if len(shape) == 1 and shape[0] <= 4 and self.rng.random() < 0.5:
            return f"np.array([{', '.join(self.fexpr(d - 1) for _ in range(shape[0]))}])"
        if not shape:
            return None
        k = self.rng.randrange(len(shape))
        if shape[k] <= 3 and self.rng.random() < 0.6:
            part = shape[:k] + shape[k + 1:]
            items = ", ".join(self.aexpr(part, d - 1) for _ in range(shape[k]))
            return f"np.stack([{items}], axis={k})" if k else f"np.stack([{items}])"
        if shape[0] >= 2:
            p = self.rng.randint(1, shape[0] - 1)
            return (f"np.concatenate([{self.aexpr((p,) + shape[1:], d - 1)}, "
                    f"{self.aexpr((shape[0] - p,) + shape[1:], d - 1)}])")
        return None

    def _reshape(self, shape, d):
        if len(shape) == 2 and self.rng.random() < 0.5:
            return f"{self._wrap(self.aexpr(shape[::-1], d - 1))}.T"
        n = size(shape)
        others = [s for s in [(n,), (1, n), (n, 1)] + [(a, n // a) for a in (2, 3) if n % a == 0]
                  if s != shape]
        src = self.rng.choice(others)
        b = self._wrap(self.aexpr(src, d - 1))
        if shape == (n,):
            return self.rng.choice([f"{b}.ravel()", f"{b}.reshape(-1)", f"{b}.reshape({n})"])
        return f"{b}.reshape({shape!r})"

    @staticmethod
    def _wrap(code: str) -> str:
        return code if code.isidentifier() or code.endswith(")") and code.startswith("np.") else f"({code})"

    # -- helpers ---------------------------------------------------------------
    def call_helper(self, ret: Ty, d: int) -> str | None:
        cands = [h for h in self.helpers if h.ret == ret]
        if not cands:
            return None
        h = self.rng.choice(cands)
        args, keywords = [], False
        for name, ty, default in h.params:
            if default is not None and self.rng.random() < 0.4:
                keywords = True  # left at its default: what follows goes by keyword
                continue
            value = self.fexpr(d - 1) if ty.kind == "float" else self.aexpr(ty.shape, d - 1)
            keywords = keywords or self.rng.random() < 0.25
            args.append(f"{name}={value}" if keywords else value)
        self.used.add("helpers")
        return f"{h.name}({', '.join(args)})"
