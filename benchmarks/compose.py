"""The "compose" group (issue 15): per-example gradients by vmap(grad(loss)) against the
gradient of the whole batch's loss, a 100 -> 100 Jacobian by jacrev against 100 separate
vjps, and the gradient of a function taking a gradient step inside (srcad.grad called inside
a differentiated function) against the hand-written one; with JAX's (jitted and eager) when
JAX is installed."""

from __future__ import annotations

import numpy as np

import srcad

from . import peers
from .report import Table
from .timing import best_times

D_IN, HIDDEN, BATCH = 8, 16, 32


def mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = np.tanh(x @ w1 + b1)
    return (h @ w2 - y) ** 2


def batch_loss(params, xs, ys):
    w1, b1, w2 = params
    h = np.tanh(xs @ w1 + b1)
    return np.sum((h @ w2 - ys) ** 2)


def field(x):
    return np.tanh(x) * np.roll(x, 1) + 0.1 * np.sin(x).cumsum()


STEP = 0.01


def quartic(x):
    return 0.5 * np.sum(x ** 4) + np.sum(np.sin(x))


def after_a_step(x):  # (a gradient step inside the differentiated function: MAML's inner step)
    return quartic(x - STEP * srcad.grad(quartic)(x))


def after_a_step_grad(x):
    """By hand: (I - STEP H(x)) grad(y) at y = x - STEP grad(x), H diagonal."""
    g = 2.0 * x ** 3 + np.cos(x)
    y = x - STEP * g
    return (1.0 - STEP * (6.0 * x ** 2 - np.sin(x))) * (2.0 * y ** 3 + np.cos(y))


def _problem():
    rs = np.random.RandomState(0)
    params = (0.3 * rs.randn(D_IN, HIDDEN), 0.1 * rs.randn(HIDDEN), 0.3 * rs.randn(HIDDEN))
    return params, rs.randn(BATCH, D_IN), rs.randn(BATCH), rs.randn(100)


def _jax_runs(params, xs, ys, x) -> dict:
    jax = peers.module("jax")
    if jax is None:
        return {}
    jnp = jax.numpy

    def jloss(p, x1, y1):
        w1, b1, w2 = p
        return (jnp.tanh(x1 @ w1 + b1) @ w2 - y1) ** 2

    def jfield(v):
        return jnp.tanh(v) * jnp.roll(v, 1) + 0.1 * jnp.cumsum(jnp.sin(v))
    per_ex = jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))
    jp = tuple(jnp.asarray(a) for a in params)
    jxs, jys, jx = jnp.asarray(xs), jnp.asarray(ys), jnp.asarray(x)
    jit_per_ex, jit_jac = jax.jit(per_ex), jax.jit(jax.jacrev(jfield))
    jit_per_ex(jp, jxs, jys)[0].block_until_ready()
    jit_jac(jx).block_until_ready()
    return {"jax vmap(grad) jit": lambda: jit_per_ex(jp, jxs, jys)[0].block_until_ready(),
            "jax vmap(grad) eager": lambda: per_ex(jp, jxs, jys)[0].block_until_ready(),
            "jax jacrev jit": lambda: jit_jac(jx).block_until_ready(),
            "jax jacrev eager": lambda: jax.jacrev(jfield)(jx).block_until_ready(),
            **_jax_step(jax, jx)}


def _jax_step(jax, jx) -> dict:
    jnp = jax.numpy

    def jquartic(v):
        return 0.5 * jnp.sum(v ** 4) + jnp.sum(jnp.sin(v))

    meta = jax.grad(lambda v: jquartic(v - STEP * jax.grad(jquartic)(v)))
    jit_meta = jax.jit(meta)
    jit_meta(jx).block_until_ready()
    return {"jax step jit": lambda: jit_meta(jx).block_until_ready(),
            "jax step eager": lambda: meta(jx).block_until_ready()}


def compose_rows() -> list:
    params, xs, ys, x = _problem()
    per_example = srcad.vmap(srcad.grad(mlp_loss), in_axes=(None, 0, 0))
    whole = srcad.grad(batch_loss)
    jac = srcad.jacrev(field)
    _, vjp_fn = srcad.vjp(field, x)
    basis = np.eye(100)
    step = srcad.grad(after_a_step)
    runs = {"vmap(grad)": lambda: per_example(params, xs, ys), "batch grad": lambda: whole(params, xs, ys),
            "jacrev": lambda: jac(x), "100 vjps": lambda: [vjp_fn(e) for e in basis],
            "step": lambda: step(x), "step hand": lambda: after_a_step_grad(x)}
    for run in runs.values():  # (the first call builds the code: best_times would time single calls)
        run()
    best = best_times({**runs, **_jax_runs(params, xs, ys, x)})
    stacked = per_example(params, xs, ys)
    agrees = all(np.allclose(sum(s[k] for s in _rows(stacked)), whole(params, xs, ys)[k]) for k in range(3))
    return [("per-example gradients", f"MLP {D_IN}-{HIDDEN}-1, batch {BATCH}", best["vmap(grad)"],
             best["batch grad"], best.get("jax vmap(grad) jit"), best.get("jax vmap(grad) eager"), agrees),
            ("jacrev", "100 -> 100", best["jacrev"], best["100 vjps"], best.get("jax jacrev jit"),
             best.get("jax jacrev eager"), np.allclose(jac(x), np.stack([vjp_fn(e)[0] for e in basis]))),
            ("grad of a gradient step", "n=100", best["step"], best["step hand"], best.get("jax step jit"),
             best.get("jax step eager"), np.allclose(step(x), after_a_step_grad(x)))]


def _rows(stacked):
    """Per-example gradients (a tuple of stacked arrays) as one tuple per example."""
    return [tuple(a[b] for a in stacked) for b in range(BATCH)]


def compose_table(rows) -> Table:
    table = Table(["case", "size", "srcad µs", "reference", "reference µs", "srcad / reference",
                   "jax jit µs", "jax eager µs"])
    refs = {"per-example gradients": "one gradient of the batch's loss", "jacrev": "100 separate vjps",
            "grad of a gradient step": "hand-written"}
    for name, size, ours, ref, jit, eager, agrees in rows:
        peers_ = [f"{jit * 1e6:,.0f}" if jit else "-", f"{eager * 1e6:,.0f}" if eager else "-"]
        table.rows.append([name, size, f"{ours * 1e6:,.0f}", refs[name], f"{ref * 1e6:,.0f}",
                           f"{ours / ref:.2f}", *peers_])
        if not agrees:
            table.notes.append(f"{name}: srcad's result differs from the reference")
            table.problems += 1
    return table
