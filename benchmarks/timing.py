"""Timing and memory measurement: timeit-style best-of-N, transformation time, tracemalloc peak.

`best_times` follows timeit: garbage collection off while timing, the number of calls per
repeat chosen so one repeat lasts about `Budget.per_repeat` seconds (after one discarded
warm-up repeat), and the best (minimum) per-call time over `Budget.repeat` repeats reported.
The repeats of the implementations in one table row are interleaved (forward, hand, srcad,
peers, forward, hand, ...) so that a slow phase of a shared machine hits them alike and the
ratios stay meaningful. Calls slower than a repeat run once per repeat, and only as many
repeats as fit in `Budget.per_measurement` seconds (at least one).
"""

from __future__ import annotations

import gc
import resource
import time
import tracemalloc
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    per_repeat: float = 0.1       # seconds of calls per repeat
    repeat: int = 5               # best of this many repeats
    per_measurement: float = 2.0  # cap for slow calls


FULL = Budget()
QUICK = Budget(per_repeat=0.02, repeat=3, per_measurement=0.5)


def _loop(run, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        run()
    return time.perf_counter() - start


def best_times(runs: dict, budget: Budget = FULL) -> dict:
    """Best seconds per call of each zero-argument callable in `runs` (name -> callable)."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        plans = {}
        for name, run in runs.items():
            once = _loop(run, 1)
            number = max(1, int(budget.per_repeat / max(once, 1e-9)))
            if number > 1:
                _loop(run, number)
                plans[name] = (run, number, budget.repeat, [])
            else:
                repeat = max(1, min(budget.repeat, int(budget.per_measurement / once)))
                plans[name] = (run, 1, repeat, [once])
        for _ in range(budget.repeat):
            for run, number, repeat, times in plans.values():
                if len(times) < repeat:
                    times.append(_loop(run, number) / number)
        return {name: min(plan[3]) for name, plan in plans.items()}
    finally:
        if enabled:
            gc.enable()


def first_call_time(run_fresh) -> float:
    """Seconds of one call of `run_fresh` (a call that transforms a fresh function)."""
    start = time.perf_counter()
    run_fresh()
    return time.perf_counter() - start


def peak_memory(run) -> int:
    """Bytes of the tracemalloc peak above the starting point, during one call of `run`."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def faults_per_call(run, seconds: float = 0.05, warmup: int = 3) -> float:
    """Minor page faults per call of `run` (getrusage's ru_minflt over N calls / N, after a
    few warm-up calls; garbage collector off): how often the allocator hands memory back to
    the kernel and takes it again, which is what many large temporaries cost."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(warmup):
            run()
        number = max(5, int(seconds / max(_loop(run, 1), 1e-9)))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        _loop(run, number)
        return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / number
    finally:
        if enabled:
            gc.enable()
