"""Variants of the spec rows: each primitive again at the shapes and keyword arguments where
rules tend to break (0-d arrays and Python floats, length-1 axes, broadcasting against more
or fewer dimensions, Python lists where NumPy accepts an array, negative axes, keepdims,
ddof...), generated from what each row in tests/rule_specs*.py declares:

    row("numpy.std", "np.std(x$kw)", x=normal(3, 4), ew=..., alts={"kw": ["", ", axis=-1", ...]},
        shapes=({"x": (1, 4)}, {"x": "0d"}))

- `alts`: alternatives for each `$placeholder` of the expression (all combinations);
- `ew`: arguments NumPy broadcasts elementwise. Each in turn becomes a Python float, a 0-d
  array, an array with a length-1 leading axis, one more leading axis, one more trailing
  axis (for broadcasting), and a Python list (numpy and scipy functions); all of them
  become floats together;
- `listable`: more arguments that may be Python lists (or tuples) of floats;
- `shapes`: explicit shape assignments, a shape or "0d", "list", "tuple" per argument.

Every combination is kept only where NumPy itself accepts the call and returns finite
values (a variant NumPy rejects is not a test of srcad). tests/test_rule_variants.py
checks each against independent oracles.

A deterministic sample runs in the suite; `SRCAD_SPEC_VARIANTS=all` (or a percentage)
runs more, for a longer campaign.
"""

from __future__ import annotations

import itertools
import math
import os
import string
import warnings
import zlib
from dataclasses import dataclass

import numpy as np
from rule_specs import ROWS, Row, Sampler

try:
    import scipy.special
except ImportError:
    scipy = None


@dataclass(frozen=True)
class Variant:
    row: Row
    expr: str
    args: dict  # name -> sampler
    tag: str  # which shapes changed ("" for none)

    @property
    def id(self) -> str:
        return f"{self.row.rule}:{self.expr}" + (f"|{self.tag}" if self.tag else "")

    def sample(self) -> dict:
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        return {name: s(rng) for name, s in self.args.items()}


def _reshape(s: Sampler, how) -> Sampler:
    if how in ("0d", "list", "tuple"):
        return s.reshaped(()).boxed("0d") if how == "0d" else s.boxed(how)
    return s.reshaped(how)


def _listable(row: Row) -> tuple:
    auto = row.ew if row.rule.startswith(("numpy.", "scipy.")) else ()
    return tuple(dict.fromkeys(auto + row.listable))


def shape_variants(row: Row) -> list[tuple[str, dict]]:
    """(tag, {arg: sampler}) for the row's shape variants, the base row's shapes first."""
    out: list[tuple[str, dict]] = [("", {})]
    ew = [n for n in row.ew if isinstance(row.args.get(n), Sampler)]
    for n in ew:
        s = row.args[n]
        out += [(f"{n}:float", {n: s.reshaped(())}), (f"{n}:0d", {n: s.reshaped(()).boxed("0d")})]
        if s.shape:
            out += [(f"{n}:len1", {n: s.reshaped((1,) + s.shape[1:])}),
                    (f"{n}:lead", {n: s.reshaped((2,) + s.shape)}),
                    (f"{n}:trail", {n: s.reshaped(s.shape + (1,))})]
    if len(ew) > 1:
        out.append(("all:float", {n: row.args[n].reshaped(()) for n in ew}))
    for n in _listable(row):
        s = row.args.get(n)
        if isinstance(s, Sampler) and (s.shape or s.box):
            out.append((f"{n}:list", {n: s.boxed("list")}))
    for shapes in row.shapes:
        tag = ",".join(f"{n}:{'x'.join(map(str, h)) if isinstance(h, tuple) else h}"
                       for n, h in shapes.items())
        out.append((tag, {n: _reshape(row.args[n], h) for n, h in shapes.items()}))
    return out


def expr_variants(row: Row) -> list[str]:
    """The row's expression with every combination of its placeholders' alternatives."""
    if not row.template:
        return [row.expr]
    keys = list(row.alts)
    combos = itertools.product(*(row.alts[k] for k in keys))
    return [string.Template(row.template).substitute(dict(zip(keys, c))) for c in combos]


def all_variants(row: Row) -> list[Variant]:
    out = []
    for expr in expr_variants(row):
        for tag, changed in shape_variants(row):
            if expr == row.expr and not tag:
                continue  # the base row itself (tests/test_rule_specs.py)
            out.append(Variant(row, expr, {**row.args, **changed}, tag))
    return out


_NS = {"np": np, "math": math, "scipy": scipy}


def accepted(v: Variant) -> bool:
    """NumPy accepts the call and its result is finite (and differentiable data are floats)."""
    ns = dict(_NS)
    if "srcad.runtime" in v.row.imports:
        import srcad.runtime as rt
        ns["rt"] = rt
    args = v.sample()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = eval(v.expr, ns, args)
        if v.row.reduce:
            out = eval(v.row.reduce, ns, {"out": out, **args})
        values = np.asarray(out, dtype=float)
    except Exception:
        return False
    return bool(np.all(np.isfinite(values)))


def _percent() -> float:
    setting = os.environ.get("SRCAD_SPEC_VARIANTS", "")
    if setting == "all":
        return 100.0
    return float(setting) if setting else DEFAULT_PERCENT


DEFAULT_PERCENT = 25.0  # of the variants NumPy accepts (SRCAD_SPEC_VARIANTS=all: every one)


def _kept(v: Variant, percent: float) -> bool:
    return percent >= 100.0 or zlib.crc32(v.id.encode()) % 10000 < percent * 100


def selected() -> list[Variant]:
    """The variants the suite runs: accepted by NumPy, deterministically sampled."""
    percent = _percent()
    seen, out = set(), []
    for row in ROWS:
        for v in all_variants(row):
            if v.id in seen or not _kept(v, percent):
                continue
            seen.add(v.id)
            if accepted(v):
                out.append(v)
    return out
