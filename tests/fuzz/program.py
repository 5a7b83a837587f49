"""A whole random program: arguments, module-level helpers, the function `f`, written as a
real module (srcad reads source from files) that describes itself:

    def f(x, n, p): ...            the function under test
    def make_args(): return (...)  the point
    DIFF = (0, 2)                  argnums to differentiate (an int or a tuple)

`generate(seed, cfg)` is deterministic: the same seed and configuration give the same text.
A candidate is run once and rejected (and the next attempt generated) when its value is not
finite or large, or when it raises without using a feature meant to raise."""

from __future__ import annotations

import importlib.util
import math
import os
import random
import sys
from dataclasses import dataclass

import numpy as np

from .config import Config
from .expr import Exprs
from .funcs import Funcs
from .mixed import MLIST, Mixed
from .nested import Nested
from .objects import Objects, ObjValue
from .shifted import Shifted
from .stmt import Ctx, Stmts
from .vartypes import FLOAT, INT, LIST, TUPLE, A, Ty, Var, is_float_like, size

RAISING = {"raise", "assert", "dead_raise", "unbound_read"}
IMPORTS = ["collections", "dataclasses", "functools", "math", "operator"]


@dataclass(frozen=True)
class Helper:
    name: str
    params: tuple   # (name, Ty, default code or None)
    ret: Ty


@dataclass
class Program:
    seed: str
    source: str
    features: list
    attempts: int = 1


class Generator(Exprs, Stmts, Funcs, Objects, Mixed, Shifted, Nested):
    def __init__(self, rng: random.Random, cfg: Config):
        self.rng, self.cfg = rng, cfg
        self.scope: dict = {}
        self.helpers: list = []
        self.applies: list = []    # higher-order helpers apply0(fn, v, w)
        self.classes: list = []    # objects.ClassInfo of the "method" classes
        self.pclasses: list = []   # (name, kind D/N/R, static field) of pytree argument classes
        self.used: set = set()
        self.counter: dict = {}
        self.iterating: set = set()  # lists some loop iterates over
        self.nt_helpers: list = []   # helpers transformed inside f (fuzz/nested.py)
        self.writers: list = []      # (name, shape) of helpers writing into their parameter (funcs.py)

    # -- arguments -----------------------------------------------------------------
    def rand_value(self, ty: Ty):
        if ty.kind == "float":
            return round(self.rng.uniform(-1.5, 1.5), 4)
        if ty.kind == "arr":
            return np.array([round(self.rng.uniform(-1.5, 1.5), 4)
                             for _ in range(size(ty.shape))]).reshape(ty.shape)
        if ty.kind == "int":
            return ty.lo
        if ty.kind == "tuple":
            return tuple(self.rand_value(t) for t in ty.items)
        if ty.kind == "list":
            return [self.rand_value(ty.elem) for _ in range(ty.n)]
        if ty.kind == "mlist":
            return [self.rand_value(t) for t in ty.items]
        if ty.kind == "pobj":
            return ObjValue(ty.cls, {k: self.rand_value(t) for k, t in ty.items})
        return {k: self.rand_value(t) for k, t in ty.items}

    def arg_type(self, budget: int) -> Ty:
        n, m = self.rng.randint(1, 4), self.rng.randint(1, 3)
        shapes = [(n,), (n,), (m, n), (1, n), (n, 1), (m, n)]
        shape = self.rng.choice([s for s in shapes if size(s) <= budget] or [(1,)])
        return self.choose([
            (None, 2.0, lambda: FLOAT),
            (None, 3.0, lambda: A(*shape)),
            ("arg_0d", 1.0, lambda: A()),
            ("arg_tuple", 1.0, lambda: TUPLE(FLOAT, A(shape[-1]))),
            ("arg_list", 1.0, lambda: LIST(self.rng.choice([FLOAT, A(shape[-1])]), self.rng.randint(1, 3))),
            ("arg_dict", 1.0, lambda: Ty("dict", items=(("w", A(*shape)), ("b", FLOAT)))),
            ("pytree_obj", 1.0, lambda: self.pobj_type(shape)),
            ("mixed_list", 1.0, lambda: MLIST(*self.mixed_items(shape))),
        ])

    def params(self) -> list[tuple[str, Ty]]:
        out, budget = [], self.cfg.max_entries
        names = iter("xyzwuvq")
        for _ in range(self.rng.randint(1, 3)):
            ty = self.arg_type(max(budget // 2, 1))
            budget -= entries(ty)
            out.append((next(names), ty))
        if self.on("arg_int"):
            for name in ["n", "k"][:self.rng.randint(1, 2)]:
                v = self.rng.choice([0, 1, 2, 2, 3, 3, 4])
                out.insert(self.rng.randint(0, len(out)), (name, INT(v, v)))
        return out

    # -- helpers and f -------------------------------------------------------------
    def helper(self, k: int, shapes: list) -> list[str]:
        params = []
        for name in ["a", "b"][:self.rng.randint(1, 2)]:
            ty = FLOAT if self.rng.random() < 0.5 else A(*self.rng.choice(shapes))
            params.append((name, ty, None))
        if self.rng.random() < 0.6:
            params.append(("scale", FLOAT, self.rng.choice(["0.5", "1.5", "-1.0"])))
        ret = FLOAT if self.rng.random() < 0.6 else self.rng.choice([t for _, t, _ in params])
        if self.applies and self.rng.random() < 0.5:
            ret = params[0][1]  # (a function of its first parameter: given to apply0, maybe by a partial)
        return self.helper_def(f"h{k}", params, ret)

    def helper_def(self, name: str, params: list, ret: Ty) -> list[str]:
        """`def name(params): body` returning a `ret`, and the helper known to callers."""
        self.scope = {n: Var(n, t, arg=True) for n, t, _ in params}
        head = ", ".join(n if d is None else f"{n}={d}" for n, _, d in params)
        body = self.block(Ctx(depth=1, ret=ret), self.rng.randint(1, 3), "    ")
        lines = [f"def {name}({head}):"] + body
        if not self._leaves(body):
            lines.append(f"    return {self.sink(ret)}")
        self.helpers.append(Helper(name, tuple(params), ret))
        return lines

    def out_type(self) -> Ty:
        shapes = sorted(s for s in self.shapes_in_scope() if s)
        shape = self.rng.choice(shapes) if shapes else (2,)
        return self.choose([(None, 6.0, lambda: FLOAT), ("out_array", 1.0, lambda: A(*shape)),
                            ("out_pytree", 1.0, lambda: self.rng.choice([
                                TUPLE(FLOAT, A(*shape)),
                                Ty("dict", items=(("u", A(*shape)), ("s", FLOAT)))]))])

    def module(self) -> str:
        params = self.params()
        values = {n: self.rand_value(t) for n, t in params}
        shapes = sorted({t.shape for _, t in params if t.kind == "arr"}) or [(2,)]
        chunks = self.pobj_classes()
        if self.on("func_arg"):
            chunks += self.apply_helpers()
        if self.on("method"):
            for k in range(self.rng.randint(1, 2)):
                chunks.append("\n".join(self.method_class(k, shapes)))
        if self.on("helpers") or self.applies and self.rng.random() < 0.5:
            self.used.add("helpers")
            for k in range(self.rng.randint(1, 2)):
                chunks.append("\n".join(self.helper(k, shapes)))
        if self.writers_on():
            for k in range(self.rng.randint(1, 2)):
                chunks.append("\n".join(self.writer_helper(k, shapes)))
        nested = self.nested_on()
        if nested:
            chunks += self.nested_helpers(shapes)
        self.scope = {n: Var(n, t, arg=True) for n, t in params}
        ret = self.out_type()
        body = []
        for feature in ("closure", "lambda"):  # at the top of f's body: reading its parameters
            if self.on(feature):
                body += self.s_function("    ", feature)
        if nested:  # (then: transformations of helpers inside f, their results used)
            body += self.nested_statements("    ")
        body += self.block(Ctx(depth=self.cfg.max_depth, ret=ret), self.rng.randint(2, self.cfg.max_stmts),
                           "    ")
        if not self._leaves(body):
            body.append(f"    return {self.sink(ret)}")
        diff = [i for i, (_, t) in enumerate(params) if is_float_like(t)]
        if len(diff) > 1 and self.rng.random() < 0.25:
            diff = self.rng.choice(diff)  # a single int argnums: a result that is not a tuple
        else:
            diff = tuple(diff)
        chunks.append("\n".join(self.signature(params) + body))
        args = ", ".join(value_code(values[n]) for n, _ in params)
        chunks.append(f"def make_args():\n    return ({args}{',' if len(params) == 1 else ''})")
        chunks.append(f"DIFF = {diff!r}")
        self.record_args(params)
        text = "\n\n\n".join(chunks) + "\n"
        return header(text) + "\n\n" + text

    def signature(self, params) -> list:
        """`def f(x, n, p):`, or with *args (transformed per call shape: srcad/arity.py)
        `def f(x, *va_rest):` and `n, p = va_rest` first in the body."""
        names = [n for n, _ in params]
        if not (len(names) > 1 and self.on("variadic_entry")):
            return [f"def f({', '.join(names)}):"]
        k = self.rng.randrange(len(names))
        rest = names[k:]
        return [f"def f({', '.join(names[:k] + ['*va_rest'])}):",
                f"    {', '.join(rest)}{',' if len(rest) == 1 else ''} = va_rest"]

    def record_args(self, params):
        for _, t in params:
            if t.kind == "int":
                self.used.add("arg_int")
            if t.kind == "arr" and t.shape == ():
                self.used.add("arg_0d")
            if t.kind in ("tuple", "list", "dict"):
                self.used.add("arg_" + t.kind)
            if t.kind == "pobj":
                self.used.add("pytree_obj")
            if t.kind == "mlist":
                self.used.add("mixed_list")


def header(text: str) -> str:
    """The imports a program's text uses (math and numpy always)."""
    mods = [m for m in IMPORTS if m == "math" or f"{m}." in text]
    lines = [f"import {m}" for m in mods] + ["import numpy as np"]
    if "srcad." in text:
        lines.append("import srcad")
    return "\n".join(lines) + "\n"


def entries(ty: Ty) -> int:
    if ty.kind == "float":
        return 1
    if ty.kind == "arr":
        return size(ty.shape)
    if ty.kind in ("tuple", "mlist"):
        return sum(entries(t) for t in ty.items)
    if ty.kind == "list":
        return entries(ty.elem) * (ty.n or 0)
    if ty.kind in ("dict", "pobj"):
        return sum(entries(t) for _, t in ty.items)
    return 0


def value_code(v) -> str:
    if isinstance(v, ObjValue):
        return f"{v.cls}(" + ", ".join(f"{k}={value_code(e)}" for k, e in v.fields.items()) + ")"
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r})"
    if isinstance(v, tuple):
        return "(" + ", ".join(value_code(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(value_code(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {value_code(e)}" for k, e in v.items()) + "}"
    return repr(v)


# -- loading and validating ----------------------------------------------------------
_loaded = [0]


def load(source: str, workdir: str, stem: str = "prog"):
    """Write `source` to a new file (never reused: linecache and srcad key on paths) and
    import it as a fresh module."""
    _loaded[0] += 1
    name = f"fz_{stem}_{os.getpid()}_{_loaded[0]}"
    path = os.path.join(workdir, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    return import_path(path, name)


def import_path(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def leaves(tree) -> list:
    if isinstance(tree, dict):
        return [x for k in tree for x in leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for e in tree for x in leaves(e)]
    return [tree]


def tame(out, scalar: bool) -> bool:
    if scalar and (isinstance(out, (dict, list, tuple)) or np.ndim(out) != 0):
        return False
    try:
        vals = [np.asarray(v, dtype=float) for v in leaves(out)]
    except (TypeError, ValueError):
        return False
    return all(np.all(np.isfinite(v)) and np.all(np.abs(v) < 1e4) for v in vals)


def generate(seed: str, cfg: Config, workdir: str, max_attempts: int = 40) -> Program:
    """The program for `seed`: the first attempt that parses, runs and stays tame."""
    last = None
    for attempt in range(max_attempts):
        gen = Generator(random.Random(f"{seed}/{attempt}"), cfg)
        try:
            text = gen.module()
            compile(text, "<fuzz>", "exec")
        except Exception as e:  # a generator bug: try the next attempt, but say so
            last = f"generator: {type(e).__name__}: {e}"
            continue
        text = f"# srcad fuzz program {seed} (attempt {attempt})\n" + text
        try:
            mod = load(text, workdir, "gen")
            out = mod.f(*mod.make_args())
        except Exception:
            if gen.used & RAISING:
                return Program(seed, text, sorted(gen.used), attempt + 1)
            continue
        if tame(out, scalar=not gen.used & {"out_array", "out_pytree"}) or (
                gen.used & {"out_array", "out_pytree"} and tame(out, False)):
            return Program(seed, text, sorted(gen.used), attempt + 1)
    raise RuntimeError(f"no valid program for seed {seed} in {max_attempts} attempts ({last})")


def uses_math(text: str) -> bool:
    return "math." in text and math is not None
