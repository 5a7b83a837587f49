"""Minor page faults per call, each implementation in a fresh interpreter.

glibc's malloc adapts to what a process did before (its mmap threshold rises to the size of
the largest mapped block freed, and the heap is trimmed back to the kernel when more than
twice that is free at its top), so faults counted after other rows ran say more about those
rows than about this one. Each (case, size, implementation) therefore runs in new processes
(three: the median is reported, since where the kernel places the heap varies) with the
default allocator (no MALLOC_* variables) and a fixed hash seed, after srcad has
built and called the gradient once in both (so the heap is the same): a few warm-up calls, then
`getrusage(RUSAGE_SELF).ru_minflt` over N calls, divided by N. The same process also times
the calls (best of 5): the table's "fresh srcad/hand" is the ratio of those times, each in a
process whose heap no other row has shaped (not interleaved, so noisier than srcad/hand).

    python -m benchmarks.faults CASE SIZE_LABEL hand|srcad     # prints "faults seconds"
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


RUNS = 3  # fresh processes per implementation: the median is reported


def fresh_faults(case, size, impl: str) -> tuple:
    """(faults per call, seconds per call) of case's `impl` at `size`: the medians over RUNS
    new processes (where the kernel places the heap varies between processes, and with it
    how many of a call's pages are new, by up to one array's worth)."""
    runs = sorted(_fresh_run(case, size, impl) for _ in range(RUNS))
    seconds = sorted(s for _, s in runs)
    return runs[RUNS // 2][0], seconds[RUNS // 2]


def _fresh_run(case, size, impl: str) -> tuple:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env["PYTHONHASHSEED"] = "0"  # (the heap's layout after imports depends on hash order)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-m", "benchmarks.faults", case.name, size.label, impl],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True).stdout
    faults, seconds = out.split()[-2:]
    return float(faults), float(seconds)


def _main(name: str, label: str, impl: str) -> None:
    from benchmarks.cases import GROUPS
    from benchmarks.timing import Budget, best_times, faults_per_call

    case = next(c for cases in GROUPS.values() for c in cases if c.name == name)
    size = next(s for s in case.sizes if s.label == label)
    import srcad

    args = size.build()
    generated = functools.partial(srcad.grad(case.forward, argnums=case.argnums), *args)
    generated()  # (both processes transform and call it once: the same heap before measuring)
    run = generated if impl == "srcad" else functools.partial(case.hand_grad, *args)
    faults = faults_per_call(run)
    seconds = best_times({impl: run}, Budget(per_repeat=0.05, repeat=5))[impl]
    print(f"{faults:.2f} {seconds:.9f}")


if __name__ == "__main__":
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    _main(*sys.argv[1:4])
