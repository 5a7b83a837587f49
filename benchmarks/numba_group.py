"""The numba target on the loop problems (issue 16): srcad.grad(f, target="numba") against
a hand-written numba gradient, srcad's CPython target, and jax.jit of a lax.scan rewrite of
the loop, both at steady state and with its compile time amortised over 100 calls.

First-call times are measured once per process on cold caches, after numba's own start-up:
srcad's numba modules go to a fresh temporary directory (SRCAD_NUMBA_DIR), so numba compiles
them (the two ODE rows share one generated function: the second row's first call finds it
compiled); JAX compiles a new jitted function. Each is the first call minus one
steady-state call.
"""

from __future__ import annotations

import math
import os
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
    """One row per loop problem: best times, first-call seconds and checks."""
    import numba
    os.environ["SRCAD_NUMBA_DIR"] = tempfile.mkdtemp(prefix="srcad-bench-numba-")
    numba.njit(lambda x: x + 1.0)(1.0)  # (numba's own start-up, once per process, counts for no one)
    jax_scan = _jax_scan() if peers.installed("jax") else (None, None)
    return [_row(label, case, size_label, hand_py, jax_scan, budget)
            for label, case, size_label, hand_py in PROBLEMS]


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
    got, first_srcad = _timed_first(lambda: g_nb(*args))
    hand_nb = numba.njit(cache=False, nogil=True)(hand_py)
    checks = {"srcad numba": got}
    checks["hand numba"], first_hand = _timed_first(lambda: hand_nb(*args))
    g_py = srcad.grad(case.forward, argnums=case.argnums)
    runs = {"hand": lambda: case.hand_grad(*args), "srcad": lambda: g_py(*args),
            "srcad numba": lambda: g_nb(*args), "hand numba": lambda: hand_nb(*args)}
    jax, make_jax = jax_scan
    first_jax = None
    if jax is not None:
        jit = make_jax("ode" if case is ode.CASE else "rnn")
        jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        checks["jax.jit scan"], first_jax = _timed_first(lambda: jax.block_until_ready(jit(*jargs)))
        runs["jax.jit scan"] = lambda: jax.block_until_ready(jit(*jargs))
    best = best_times(runs, budget) if budget is not None else best_times(runs)
    problems = {k: mismatch(case.unpack(v, np.asarray), expected) for k, v in checks.items()}
    return dict(label=label, best=best, problems=problems, compiled=g_nb.latest().function.compiled(),
                first_srcad=first_srcad - best["srcad numba"], first_hand=first_hand - best["hand numba"],
                first_jax=None if first_jax is None else first_jax - best["jax.jit scan"])


def _fresh(f):
    from .case import fresh
    return fresh(f)


def numba_table(rows) -> Table:
    table = Table(["case", "hand (NumPy) µs", "srcad µs", "hand numba µs", "srcad numba µs",
                   "srcad numba / hand numba", "jax.jit scan µs", "jax.jit scan + compile/100 µs",
                   "srcad numba / jit scan+compile", "srcad numba first call s", "jit scan first call s",
                   "srcad numba + compile/100 µs"])
    for r in rows:
        b = r["best"]
        jit = b.get("jax.jit scan")
        amortised = None if jit is None or r["first_jax"] is None else jit + r["first_jax"] / AMORTISED
        table.rows.append([
            r["label"], us(b["hand"]), us(b["srcad"]), us(b["hand numba"]),
            us(b["srcad numba"]) + ("" if r["compiled"] else " (fell back)"),
            ratio(b["srcad numba"] / b["hand numba"]),
            "-" if jit is None else us(jit), "-" if amortised is None else us(amortised),
            "-" if amortised is None else ratio(b["srcad numba"] / amortised),
            f"{r['first_srcad']:.2f}", "-" if r["first_jax"] is None else f"{r['first_jax']:.2f}",
            us(b["srcad numba"] + r["first_srcad"] / AMORTISED)])
        for k, p in r["problems"].items():
            if p:
                table.notes.append(f"! {r['label']} {k}: WRONG: {p}")
                table.problems += 1
    table.notes.append(f"jax.jit scan + compile/{AMORTISED}: steady-state time plus the first call's compile "
                       f"time spread over {AMORTISED} calls; first calls on cold caches (srcad: transform "
                       "and numba compile; the hand-written numba gradient compiles in "
                       + ", ".join(f"{r['first_hand']:.2f}" for r in rows) + " s)")
    return table
