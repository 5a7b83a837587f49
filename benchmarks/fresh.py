"""The "fresh" group (issue 13): a gradient of a function object made anew on every call — a
lambda closing over data, a closure from a factory, a functools.partial — as solver loops
and JAX-style code write them, against the same gradient made once and reused; and such a
function given as an argument to a gradient made once (`g(c, lambda z: cost(z, pts))`).

After the first call, srcad shares the generated code of function objects made from the
same code (srcad/sharing.py): the per-call cost should be the reused gradient's plus a few
dictionary lookups, not a new transformation.
"""

from __future__ import annotations

import functools
import time

import numpy as np

import srcad

from .report import Table
from .timing import best_times


def cost(c, pts):
    return np.sum((pts - c) ** 2)


def _factory(pts):
    return lambda c: cost(c, pts)


def _apply(c, f):
    return f(c)


def fresh_rows() -> list:
    pts, c = np.random.default_rng(0).normal(size=(50, 2)), np.zeros(2)
    reused = srcad.grad(cost)

    def with_lambda():
        return srcad.grad(lambda c: cost(c, pts))(c)

    def with_factory():
        return srcad.grad(_factory(pts))(c)

    def with_partial():
        return srcad.grad(functools.partial(cost, pts=pts))(c)

    through = srcad.grad(_apply)

    def lambda_argument():
        return through(c, lambda z: cost(z, pts))

    def partial_argument():
        return through(c, functools.partial(cost, pts=pts))

    t0 = time.perf_counter()
    with_lambda()  # the first call builds
    first = time.perf_counter() - t0
    steps = {"lambda": with_lambda, "closure factory": with_factory, "functools.partial": with_partial,
             "lambda given as an argument": lambda_argument, "partial given as an argument": partial_argument}
    best = best_times({"reused": lambda: reused(c, pts), **steps})
    return [(name, best[name], best["reused"], first) for name in steps]


def fresh_table(rows) -> Table:
    table = Table(["made anew every call", "per call µs", "reused gradient µs", "ratio", "first call ms"])
    for name, t, base, first in rows:
        table.rows.append([name, f"{t * 1e6:,.0f}", f"{base * 1e6:,.0f}", f"{t / base:.1f}",
                           f"{first * 1e3:.1f}"])
    return table
