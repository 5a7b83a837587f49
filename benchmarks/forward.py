"""The "forward" group (issue 4): forward mode and second order, each against a reference.

- jvp of each core function; reference: the forward pass; checked against
  (f(x), hand_grad(x) . v).
- hvp of Rosenbrock n=1e3; reference: one srcad gradient; by `srcad.hvp(f, (x,), (v,))`
  when srcad has it, and by nesting `srcad.jvp(srcad.grad(f), (x,), (v,))`; checked against
  the hand-written Hessian product.
- The Jacobian of x -> tanh(A x) * x, 100 -> 100, by `srcad.jacfwd(f)` / `srcad.jacrev(f)`
  when srcad has them; reference: 100 srcad.jvp calls, one per basis vector; checked
  against the hand-written Jacobian.
Operations srcad does not have yet are listed as "not available", not failed. The peer is
jax.jit of the same operation, when JAX is installed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

import srcad

from . import peers
from .case import fresh, rebind
from .cases.rosenbrock import CASE as ROSENBROCK
from .cases.rosenbrock import rosenbrock, rosenbrock_grad, rosenbrock_hvp
from .measure import Cells, first_call_ms


@dataclass
class ForwardRow:
    case: str
    size: str
    op: str
    reference: str
    cells: dict = field(default_factory=dict)   # "srcad", "reference", "hand", "jax.jit" -> Cell
    first_ms: float | None = None


def _arrays(result) -> tuple:
    return tuple(np.asarray(r, dtype=float) for r in result)


def _last(result) -> tuple:
    """The Hessian product from hvp's or jvp(grad)'s result (which may carry a value first)."""
    return (np.asarray(result[-1] if isinstance(result, tuple) else result, dtype=float),)


def _jax():
    return peers.module("jax") if peers.installed("jax.jit") else None


def _finish(row, cells, budget, op_call, fn):
    """Time the row's cells together, then srcad's first call on a fresh copy of fn."""
    row.cells = cells.time(budget)
    row.first_ms = first_call_ms(row.cells, lambda: op_call(fresh(fn)))
    return row


def jvp_row(case, size, budget) -> ForwardRow:
    args = size.build()
    rng = np.random.default_rng(5)
    tangents = tuple(rng.normal(size=np.shape(a)) if i in case.wrt else None for i, a in enumerate(args))
    grads = case.unpack(case.hand_grad(*args))
    expected = (np.asarray(case.forward(*args)),
                np.asarray(sum(np.sum(g * tangents[i]) for g, i in zip(grads, case.wrt))))

    def op_call(fn):
        return functools.partial(srcad.jvp, fn, args, tangents)

    cells = Cells()
    cells.add("reference", lambda: functools.partial(case.forward, *args))
    cells.add("srcad", lambda: op_call(case.forward), _arrays, expected)
    jax = _jax()
    if jax is not None:
        def make():
            fwd = peers.forward_for(case, "jax", jax.numpy)

            def f_wrt(*params):
                full = list(args)
                for i, p in zip(case.wrt, params):
                    full[i] = p
                return fwd(*full)

            jitted = jax.jit(lambda p, t: jax.jvp(f_wrt, p, t))
            p = tuple(jax.numpy.asarray(args[i]) for i in case.wrt)
            t = tuple(jax.numpy.asarray(tangents[i]) for i in case.wrt)
            return lambda: jax.block_until_ready(jitted(p, t))
        cells.add("jax.jit", make, _arrays, expected)
    return _finish(ForwardRow(case.name, size.label, "jvp", "forward"), cells, budget, op_call, case.forward)


def hvp_rows(budget) -> list:
    rng = np.random.default_rng(6)
    x, v = rng.uniform(-2.0, 2.0, 1000), rng.normal(size=1000)
    expected = (rosenbrock_hvp(x, v),)
    ops = {"jvp(grad)": lambda fn: functools.partial(srcad.jvp, srcad.grad(fn), (x,), (v,))}
    if hasattr(srcad, "hvp"):
        ops["hvp"] = lambda fn: functools.partial(srcad.hvp, fn, (x,), (v,))
    rows = []
    for op, op_call in ops.items():
        cells = Cells()
        cells.add("reference", lambda: functools.partial(srcad.grad(rosenbrock), x),
                  lambda r: (np.asarray(r),), (rosenbrock_grad(x),))
        cells.add("hand", lambda: functools.partial(rosenbrock_hvp, x, v), _last, expected)
        cells.add("srcad", lambda op_call=op_call: op_call(rosenbrock), _last, expected)
        jax = _jax()
        if jax is not None:
            def make(jax=jax):
                f = peers.forward_for(ROSENBROCK, "jax", jax.numpy)
                jitted = jax.jit(lambda x, v: jax.jvp(jax.grad(f), (x,), (v,))[1])
                xj, vj = jax.numpy.asarray(x), jax.numpy.asarray(v)
                return lambda: jax.block_until_ready(jitted(xj, vj))
            cells.add("jax.jit", make, _last, expected)
        rows.append(_finish(ForwardRow("rosenbrock", "n=1e3", op, "grad"), cells, budget, op_call,
                            rosenbrock))
    return rows


def tanh_map(x, A):
    return np.tanh(A @ x) * x


def tanh_map_jacobian(x, A):
    t = np.tanh(A @ x)
    J = (x * (1.0 - t * t))[:, None] * A
    J[np.diag_indices_from(J)] += t
    return J


def jacobian_rows(budget) -> list:
    rng = np.random.default_rng(7)
    n = 100
    x, A = rng.normal(size=n), rng.normal(0.0, 1.0 / np.sqrt(n), (n, n))
    expected = (tanh_map_jacobian(x, A),)
    basis = np.eye(n)

    def jvps():
        return np.stack([srcad.jvp(tanh_map, (x, A), (e, None))[1] for e in basis], axis=1)

    rows = []
    for op in ("jacfwd", "jacrev"):
        if not hasattr(srcad, op):
            continue

        def op_call(fn, op=op):
            return functools.partial(getattr(srcad, op)(fn), x, A)

        cells = Cells()
        cells.add("reference", lambda: jvps, lambda r: (r,), expected)
        cells.add("hand", lambda: functools.partial(tanh_map_jacobian, x, A), lambda r: (r,), expected)
        cells.add("srcad", lambda: op_call(tanh_map), lambda r: (np.asarray(r),), expected)
        jax = _jax()
        if jax is not None:
            def make(jax=jax, op=op):
                jitted = jax.jit(getattr(jax, op)(rebind(tanh_map, np=jax.numpy)))
                xj, Aj = jax.numpy.asarray(x), jax.numpy.asarray(A)
                return lambda: jax.block_until_ready(jitted(xj, Aj))
            cells.add("jax.jit", make, lambda r: (np.asarray(r),), expected)
        rows.append(_finish(ForwardRow("tanh_map", "100->100", op, "100 jvps"), cells, budget, op_call,
                            tanh_map))
    return rows


def missing_ops() -> list:
    return [f"srcad.{op}" for op in ("hvp", "jacfwd", "jacrev") if not hasattr(srcad, op)]
