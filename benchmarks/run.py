"""Run the srcad benchmarks: one table per group, derivative time against the forward pass,
a hand-written gradient and the installed peers (autograd, JAX, PyTorch), in one run.

    python benchmarks/run.py [--quick] [--only NAME] [--markdown OUT] [--plot PNG]

--only NAME keeps one group (core, loops, numba, stats, gradbench, adjoint, compose, budget, forward,
startup, fresh, gallery) or one case
(rosenbrock, gmm, ...).
--markdown OUT writes each group's table between <!-- bench:GROUP --> markers in OUT
(docs/performance.md keeps the latest full run). Timings are best of 5 repeats of ~0.1 s
(--quick: best of 3 of ~0.02 s, small sizes only, no eager JAX), every library on one
thread. See docs/performance.md for the columns.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# One thread per library, set before NumPy, PyTorch or JAX load: on 2 cores their thread
# pools spin against each other (the width-512 MLP forward measured 7x slower with them on).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

from benchmarks import (  # noqa: E402
    adjoint,
    compose,
    forward,
    fresh,
    gallery,
    memory,
    numba_group,
    peers,
    plot,
    report,
    startup,
)
from benchmarks.cases import GROUPS  # noqa: E402
from benchmarks.measure import measure  # noqa: E402
from benchmarks.timing import FULL, QUICK  # noqa: E402

QUICK_SKIP = ("jax",)  # eager JAX compiles every primitive on first use: seconds per row


def _sizes(case, quick: bool):
    return [s for s in case.sizes if s.quick or not quick]


def _progress(message: str, start: float) -> None:
    print(f"  [{time.perf_counter() - start:6.1f} s] {message}", file=sys.stderr, flush=True)


def gradient_group(group: str, only, budget, quick: bool, start: float) -> list:
    rows = []
    for case in GROUPS[group]:
        if only in (None, group, case.name):
            for size in _sizes(case, quick):
                _progress(f"{group}: {case.name} {size.label}", start)
                rows.append(measure(case, size, budget, QUICK_SKIP if quick else ()))
    return rows


def forward_group(only, budget, quick: bool, start: float) -> list:
    rows = []
    for case in GROUPS["core"]:
        if only in (None, "forward", case.name):
            for size in _sizes(case, quick):
                _progress(f"forward: jvp {case.name} {size.label}", start)
                rows.append(forward.jvp_row(case, size, budget))
    if only in (None, "forward", "rosenbrock"):
        _progress("forward: hvp rosenbrock n=1e3", start)
        rows += forward.hvp_rows(budget)
    if only in (None, "forward", "tanh_map"):
        _progress("forward: jacobian tanh_map 100->100", start)
        rows += forward.jacobian_rows(budget)
    return rows


def _numba_installed() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        print("numba is not installed: the numba group is skipped (pip install '.[numba]')")
        return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short timings (~30 s)")
    parser.add_argument("--only", metavar="NAME", help="one group or one case")
    parser.add_argument("--markdown", metavar="OUT", help="write the tables into this Markdown file")
    parser.add_argument("--plot", metavar="PNG", help="draw the gradient tables (needs matplotlib)")
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else FULL
    start = time.perf_counter()
    info = report.machine_info()   # before the run: the srcad revision that gets imported
    print(info)
    missing = [label for label in peers.LABELS if not peers.installed(label)]
    if missing:
        print("not installed (columns skipped): " + ", ".join(missing))
    sections, gradient_rows = {}, []
    for group in ("core", "loops", "numba", "stats", "gradbench", "adjoint", "compose", "budget", "forward",
                  "startup", "fresh", "gallery"):
        if group == "numba":
            if args.only not in (None, "numba") or not _numba_installed():
                continue
            _progress("numba: the numba target, hand-written numba, jax.jit of lax.scan", start)
            table = numba_group.numba_table(numba_group.numba_rows(budget))
        elif group == "budget":
            if args.only not in (None, "budget"):
                continue
            _progress("budget: a long loop's gradient within a memory budget", start)
            table = memory.budget_table(memory.budget_rows())
        elif group == "compose":
            if args.only not in (None, "compose"):
                continue
            _progress("compose: per-example gradients by vmap, jacrev", start)
            table = compose.compose_table(compose.compose_rows())
        elif group == "adjoint":
            if args.only not in (None, "adjoint"):
                continue
            _progress("adjoint: an ODE fit's gradient through odeint", start)
            table = adjoint.adjoint_table(adjoint.adjoint_rows())
        elif group == "gallery":
            if args.only not in (None, "gallery"):
                continue
            _progress("gallery: programs as their authors write them", start)
            table = gallery.gallery_table(gallery.gallery_rows())
        elif group == "fresh":
            if args.only not in (None, "fresh"):
                continue
            _progress("fresh: gradients of function objects made anew on every call", start)
            table = fresh.fresh_table(fresh.fresh_rows())
        elif group == "startup":
            if args.only not in (None, "startup"):
                continue
            _progress("startup: first calls in fresh interpreters", start)
            table = startup.startup_table(startup.startup_rows())
        elif group == "forward":
            rows = forward_group(args.only, budget, args.quick, start)
            table = report.forward_table(rows, forward.missing_ops()) if rows else None
        else:
            rows = gradient_group(group, args.only, budget, args.quick, start)
            gradient_rows += rows
            table = report.gradient_table(rows) if rows else None
        if table is not None:
            print(f"\n== {report.TITLES[group]} ==\n{report.render_text(table)}", flush=True)
            sections[group] = table
    problems = sum(t.problems for t in sections.values())
    if problems:
        print(f"\n!! {problems} problem(s): wrong or failing derivatives, listed under the tables (! lines)")
    if args.markdown:
        command = "python benchmarks/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
        report.write_markdown(args.markdown, sections, info, command.strip())
        print(f"\nwrote {args.markdown}")
    if args.plot and gradient_rows:
        drawn = plot.plot_ratios(gradient_rows, args.plot,
                                 "Gradient time relative to a hand-written gradient")
        print(f"\nwrote {args.plot}" if drawn
              else "\nno plot: matplotlib is not installed (pip install '.[plot]')")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
