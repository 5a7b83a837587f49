"""The numba target on the loop problems (issue 16): srcad.grad(f, target="numba") against
a hand-written numba gradient, srcad's CPython target, and jax.jit of a lax.scan rewrite of
the loop, both at steady state and with its compile time amortised over 100 calls.

First calls are each measured in a fresh interpreter, after the compiler's own start-up
(numba's, JAX's), minus one steady-state call: cold (srcad's numba modules in an empty
SRCAD_NUMBA_DIR, so numba compiles them; JAX without a persistent cache) and in a new process
with warm caches (numba's machine code on disk, which srcad asks for with cache=True; JAX's
persistent compilation cache, filled by a process before).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import srcad

from . import peers
from .cases import ode, rnn
from .measure import mismatch
from .report import Table, ratio, us
from .timing import best_times

AMORTISED = 100  # calls over which a first call's compile time is spread
FIRST_RUNS = 3  # fresh processes per first-call measurement (the least is reported)


# -- hand-written numba gradients --------------------------------------------------------------------


def ode_grad_numba_py(k, y0, c, n):
    """benchmarks/cases/ode.py's hand-written gradient, with arrays for the stored states."""
    dt = 10.0 / n
    half = 0.5 * dt
    ys = np.empty(n)
    yms = np.empty(n)
    y = y0
    for i in range(n):
        t = i * dt
        ym = y + half * (-k * y + math.sin(t) * math.exp(-c * t))
        tm = t + half
        ys[i] = y
        yms[i] = ym
        y = y + dt * (-k * ym + math.sin(tm) * math.exp(-c * tm))
    a = 1.0 - dt * k * (1.0 - half * k)
    b = dt * k * half
    y_bar, k_bar = 1.0, 0.0
    for i in range(n - 1, -1, -1):
        k_bar += y_bar * (b * ys[i] - dt * yms[i])
        y_bar *= a
    return k_bar, y_bar


def rnn_grad_numba_py(W, U, h0, xs):
    """The batch-1 RNN's gradient as scalar loops (h0 of shape (H, 1), xs of (T, I, 1))."""
    T, H, In = xs.shape[0], W.shape[0], U.shape[1]
    hs = np.empty((T + 1, H))
    hs[0] = h0[:, 0]
    for t in range(T):
        for r in range(H):
            s = 0.0
            for j in range(H):
                s += W[r, j] * hs[t, j]
            for j in range(In):
                s += U[r, j] * xs[t, j, 0]
            hs[t + 1, r] = math.tanh(s)
    W_bar = np.zeros((H, H))
    U_bar = np.zeros((H, In))
    h_bar = 2.0 * hs[T].copy()
    a = np.empty(H)
    for t in range(T - 1, -1, -1):
        for r in range(H):
            a[r] = h_bar[r] * (1.0 - hs[t + 1, r] * hs[t + 1, r])
        for r in range(H):
            for j in range(H):
                W_bar[r, j] += a[r] * hs[t, j]
            for j in range(In):
                U_bar[r, j] += a[r] * xs[t, j, 0]
        for j in range(H):
            s = 0.0
            for r in range(H):
                s += W[r, j] * a[r]
            h_bar[j] = s
    return W_bar, U_bar


# -- jax.jit of lax.scan rewrites ----------------------------------------------------------------


def _jax_scan():
    jax = peers.module("jax")
    jnp, lax = jax.numpy, jax.lax

    def ode_scan(k, y0, c, n):
        dt = 10.0 / n

        def step(y, i):
            t = i * dt
            ym = y + 0.5 * dt * (-k * y + jnp.sin(t) * jnp.exp(-c * t))
            tm = t + 0.5 * dt
            return y + dt * (-k * ym + jnp.sin(tm) * jnp.exp(-c * tm)), None
        y, _ = lax.scan(step, y0, jnp.arange(n, dtype=jnp.float64))
        return y

    def rnn_scan(W, U, h0, xs):
        def step(h, x):
            return jnp.tanh(W @ h + U @ x), None
        h, _ = lax.scan(step, h0, xs)
        return jnp.sum(h * h)

    def make(name):
        if name == "ode":
            return jax.jit(jax.grad(ode_scan, argnums=(0, 1)), static_argnums=3)
        return jax.jit(jax.grad(rnn_scan, argnums=(0, 1)))
    return jax, make


PROBLEMS = (  # (label, case, size label, hand-written numba gradient)
    ("ode_rk2 steps=100", ode.CASE, "steps=100", ode_grad_numba_py),
    ("ode_rk2 steps=1e4", ode.CASE, "steps=1e4", ode_grad_numba_py),
    ("rnn T=50,b=1", rnn.CASE, "T=50,b=1", rnn_grad_numba_py),
)


def numba_rows(budget=None) -> list:
    """One row per loop problem: best times, first-call seconds and checks. Every first call is
    measured in a fresh interpreter (a compiler's first use in a process warms it for the
    next function: measured one after another in one process, the later one looks cheaper)."""
    import numba
    os.environ["SRCAD_NUMBA_DIR"] = tempfile.mkdtemp(prefix="srcad-bench-numba-")  # (this process's)
    jax_cache = tempfile.mkdtemp(prefix="srcad-bench-jax-")
    firsts = {label: _first_calls(label, jax_cache) for label, *_ in PROBLEMS}
    numba.njit(lambda x: x + 1.0)(1.0)
    jax_scan = _jax_scan() if peers.installed("jax") else (None, None)
    return [dict(_row(label, case, size_label, hand_py, jax_scan, budget), **firsts[label])
            for label, case, size_label, hand_py in PROBLEMS]


def _first_calls(label: str, jax_cache: str) -> dict:
    """Cold: srcad (an empty numba cache: transform and compile), the hand-written numba
    gradient, jax.jit (no persistent cache). New process with warm caches: srcad (numba's
    machine code on disk, cache=True), jax.jit (its persistent compilation cache, filled by
    the process before). Each the least of FIRST_RUNS fresh processes (a first call on this
    machine moves by half from one process to the next)."""
    dirs = [tempfile.mkdtemp(prefix="srcad-bench-numba-") for _ in range(FIRST_RUNS)]  # (empty)
    out = {"first_srcad": _least(_probe("srcad", label, numba_dir=d) for d in dirs),
           "first_hand": _least(_probe("hand", label) for _ in dirs),
           "new_srcad": _least(_probe("srcad", label, numba_dir=d) for d in dirs)}  # (now filled)
    if peers.installed("jax"):
        out["first_jax"] = _least(_probe("jax", label) for _ in dirs)
        _probe("jax", label, jax_cache)
        out["new_jax"] = _least(_probe("jax", label, jax_cache) for _ in dirs)
    return out


def _least(times):
    got = [t for t in times if t is not None]
    return min(got) if got else None


_PROBE = """
import json, sys
sys.path.insert(0, {root!r})
from benchmarks import numba_group
print(json.dumps(numba_group.first_call_here({which!r}, {label!r}, {cache!r})))
"""


def _probe(which: str, label: str, jax_cache: str | None = None,
           numba_dir: str | None = None) -> float | None:
    """The first call of `which` in a fresh interpreter, minus a steady-state call (imports
    and each compiler's own start-up excluded)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, **({"SRCAD_NUMBA_DIR": numba_dir} if numba_dir else {}))
    run = subprocess.run([sys.executable, "-c", _PROBE.format(root=root, which=which, label=label,
                                                              cache=jax_cache)],
                         capture_output=True, text=True, cwd=root, env=env)
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def first_call_here(which: str, label: str, jax_cache: str | None) -> float:
    """(In the probe's process) the first call's time minus a steady-state call's."""
    _, case, size_label, hand_py = next(p for p in PROBLEMS if p[0] == label)
    args = next(s for s in case.sizes if s.label == size_label).build()
    if which in ("srcad", "hand"):
        import numba
        numba.njit(lambda x: x + 1.0)(1.0)  # (numba's own start-up)
        f = srcad.grad(_fresh(case.forward), argnums=case.argnums, target="numba") if which == "srcad" \
            else numba.njit(cache=False, nogil=True)(hand_py)
        call = lambda: f(*args)  # noqa: E731
    else:
        jax, make = _jax_scan()
        jax.block_until_ready(jax.jit(lambda x: x + 1.0)(1.0))  # (JAX's own start-up)
        if jax_cache is not None:
            jax.config.update("jax_compilation_cache_dir", jax_cache)
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        jit = make("ode" if case is ode.CASE else "rnn")
        jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        call = lambda: jax.block_until_ready(jit(*jargs))  # noqa: E731
    _, first = _timed_first(call)
    _, steady = _timed_first(call)
    return first - steady


def _timed_first(call):
    start = time.perf_counter()
    out = call()
    return out, time.perf_counter() - start


def _row(label, case, size_label, hand_py, jax_scan, budget) -> dict:
    import numba
    size = next(s for s in case.sizes if s.label == size_label)
    args = size.build()
    expected = case.unpack(case.hand_grad(*args))
    g_nb = srcad.grad(_fresh(case.forward), argnums=case.argnums, target="numba")
    checks = {"srcad numba": g_nb(*args)}
    hand_nb = numba.njit(cache=False, nogil=True)(hand_py)
    checks["hand numba"] = hand_nb(*args)
    g_py = srcad.grad(case.forward, argnums=case.argnums)
    runs = {"hand": lambda: case.hand_grad(*args), "srcad": lambda: g_py(*args),
            "srcad numba": lambda: g_nb(*args), "hand numba": lambda: hand_nb(*args)}
    jax, make_jax = jax_scan
    if jax is not None:
        jit = make_jax("ode" if case is ode.CASE else "rnn")
        jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        checks["jax.jit scan"] = jax.block_until_ready(jit(*jargs))
        runs["jax.jit scan"] = lambda: jax.block_until_ready(jit(*jargs))
    best = best_times(runs, budget) if budget is not None else best_times(runs)
    problems = {k: mismatch(case.unpack(v, np.asarray), expected) for k, v in checks.items()}
    return dict(label=label, best=best, problems=problems, compiled=g_nb.latest().function.compiled())


def _fresh(f):
    from .case import fresh
    return fresh(f)


def _amortised(steady, first):
    return None if steady is None or first is None else steady + first / AMORTISED


def _first_cells(steady_srcad, steady_jit, srcad_first, jit_first) -> list:
    """srcad numba and jax.jit with their first calls spread over AMORTISED calls, and the ratio."""
    ours, theirs = _amortised(steady_srcad, srcad_first), _amortised(steady_jit, jit_first)
    return ["-" if ours is None else us(ours), "-" if theirs is None else us(theirs),
            "-" if ours is None or theirs is None else ratio(ours / theirs)]


def _s(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def numba_table(rows) -> Table:
    table = Table(["case", "hand (NumPy) µs", "srcad µs", "hand numba µs", "srcad numba µs",
                   "srcad numba / hand numba", "jax.jit scan µs",
                   "cold first call s: srcad numba", "hand numba", "jit scan",
                   "cold: srcad numba + first/100 µs", "jit scan + first/100 µs", "ratio",
                   "new process first call s: srcad numba", "jit scan",
                   "new process: srcad numba + first/100 µs", "jit scan + first/100 µs", "ratio"])
    for r in rows:
        b = r["best"]
        jit = b.get("jax.jit scan")
        table.rows.append([
            r["label"], us(b["hand"]), us(b["srcad"]), us(b["hand numba"]),
            us(b["srcad numba"]) + ("" if r["compiled"] else " (fell back)"),
            ratio(b["srcad numba"] / b["hand numba"]), "-" if jit is None else us(jit),
            _s(r["first_srcad"]), _s(r["first_hand"]), _s(r.get("first_jax"))]
            + _first_cells(b["srcad numba"], jit, r["first_srcad"], r.get("first_jax"))
            + [_s(r["new_srcad"]), _s(r.get("new_jax"))]
            + _first_cells(b["srcad numba"], jit, r["new_srcad"], r.get("new_jax")))
        for k, p in r["problems"].items():
            if p:
                table.notes.append(f"! {r['label']} {k}: WRONG: {p}")
                table.problems += 1
    table.notes.append(
        f"first calls, each in a fresh interpreter (imports and each compiler's start-up excluded), "
        f"minus a steady-state call, the least of {FIRST_RUNS} processes; + first/{AMORTISED}: the "
        f"steady-state time with the first call spread over {AMORTISED} calls; ratio: srcad numba's "
        "over jax.jit's. cold: empty caches (srcad: transform and numba compile; jax.jit: trace and "
        "XLA compile). new process: warm caches (srcad: numba's machine code on disk, cache=True; "
        "jax.jit: its persistent compilation cache, filled by a process before)")
    return table
