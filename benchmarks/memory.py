"""The "budget" group (issue 15): the gradient of a long scalar loop with
`srcad.grad(f, memory_budget=...)` (checkpointed segments, each recomputed in the backward
sweep) against the plain gradient (every iteration's values stored) and the forward pass:
time, and the peak memory the call allocates (tracemalloc, in a separate run)."""

from __future__ import annotations

import tracemalloc

import numpy as np

import srcad

from .report import Table
from .timing import best_times

STEPS = 10**6
BUDGET = 1_000_000


def scalar_loop(x, n):
    s = x
    for _ in range(n):
        s = np.sin(s) * x + 0.1 * s
    return s


def _peak(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def budget_rows(steps: int = STEPS) -> list:
    plain, checkpointed = srcad.grad(scalar_loop), srcad.grad(scalar_loop, memory_budget=BUDGET)
    runs = {"forward": lambda: scalar_loop(0.5, steps), "plain": lambda: plain(0.5, steps),
            "budget": lambda: checkpointed(0.5, steps)}
    best = best_times(runs)
    agrees = plain(0.5, 1000) == checkpointed(0.5, 1000)
    peaks = {k: _peak(runs[k]) for k in ("plain", "budget")}
    return [(f"{steps:,} steps", "grad (stores every step)", best["plain"], best["forward"], peaks["plain"],
             True),
            (f"{steps:,} steps", f"grad, memory_budget={BUDGET:,} B", best["budget"], best["forward"],
             peaks["budget"], agrees)]


def budget_table(rows) -> Table:
    table = Table(["case", "size", "gradient ms", "forward ms", "gradient / forward", "peak MB"])
    for size, how, ours, fwd, peak, agrees in rows:
        table.rows.append([how, size, f"{ours * 1e3:,.0f}", f"{fwd * 1e3:,.0f}", f"{ours / fwd:.2f}",
                           f"{peak / 1e6:.2f}"])
        if not agrees:
            table.notes.append(f"{how}: the checkpointed gradient differs from the plain one")
            table.problems += 1
    return table
