"""srcad.grad(f, memory_budget=...): loops of the generated gradient store a checkpoint per
segment and recompute each segment in the backward sweep (passes/checkpointing.py).

Every gradient is checked against finite differences with Richardson extrapolation; the
tests also check that the loop was checkpointed (the generated source), that the memory the
backward sweep holds stays within the budget (tracemalloc), and what is not checkpointed."""

import tracemalloc
import warnings

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad
from srcad.errors import ArgumentError


def scalar_loop(x, n):
    s = x
    for _ in range(n):
        s = np.sin(s) * x + 0.1 * s
    return s


def strided(x, n):
    s, t = x, 1.0
    for i in range(n, 0, -3):
        s, t = np.cos(s) * t + 0.01 * i, t * 0.9 + 0.1 * s
    return s * t


def arrays(w, x, n):
    h = x
    for _ in range(n):
        h = np.tanh(w @ h) + 0.5 * h
    return np.sum(h * h)


def branching(x, n):
    s = x
    for i in range(n):
        if i % 3 == 0:
            s = s * np.cos(s)
        else:
            s = np.sqrt(s * s + 1.0)
    return s


def nested(x, n):
    s = x
    for _ in range(n):
        for _ in range(3):
            s = np.sin(s) + 0.2 * x
    return s


def two_loops(x, n):
    s = x
    for _ in range(n):
        s = np.sin(s) * x
    t = s
    for _ in range(n):
        t = t * t * 0.5 + s
    return t


def leaves_early(x, n):
    s = x
    for _ in range(n):
        s = np.sin(s) * x
        if s < 0.0:
            break
    return s


W = np.random.RandomState(3).randn(4, 4) * 0.3
CASES = [(scalar_loop, (0.5, 37), 0), (strided, (0.3, 50), 0), (arrays, (W, np.ones(4) * 0.2, 23), 0),
         (arrays, (W, np.ones(4) * 0.2, 23), 1), (branching, (0.7, 40), 0), (nested, (0.4, 20), 0),
         (two_loops, (0.6, 15), 0)]


@pytest.mark.parametrize("f, args, argnum", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("budget", [400, 10**9])
def test_checkpointed_gradient_matches_finite_differences(f, args, argnum, budget):
    g = srcad.grad(f, argnums=argnum, memory_budget=budget)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (budget=400 may be too small: warned)
        got = g(*args)
    assert np.allclose(got, fd_grad_richardson(f, args, argnum), rtol=1e-6, atol=1e-8)
    text = srcad.source(g, *args)
    assert "_checkpoints.append(" in text and "recompute factor 2" in text


@pytest.mark.parametrize("n", [0, 1, 2, 5, 64])
def test_trip_counts_that_do_not_divide_into_segments(n):
    g = srcad.grad(scalar_loop, memory_budget=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = g(0.5, n)
    assert got == pytest.approx(fd_grad_richardson(scalar_loop, (0.5, n), 0), rel=1e-7, abs=1e-10)


def test_value_and_grad_with_a_budget():
    value, grad = srcad.value_and_grad(scalar_loop, memory_budget=10_000)(0.5, 30)
    assert value == scalar_loop(0.5, 30)
    assert grad == pytest.approx(fd_grad_richardson(scalar_loop, (0.5, 30), 0), rel=1e-7)


def test_the_backward_sweep_stays_within_the_budget():
    n, budget = 20_000, 64_000
    plain, checkpointed = srcad.grad(scalar_loop), srcad.grad(scalar_loop, memory_budget=budget)
    peaks = []
    for g in (plain, checkpointed):
        g(0.5, 10)
        tracemalloc.start()
        g(0.5, n)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[0] > 20 * budget  # (64 B per iteration stored without a budget)
    assert peaks[1] < budget


def test_a_budget_too_small_warns_and_still_gives_the_gradient():
    g = srcad.grad(scalar_loop, memory_budget=1)
    with pytest.warns(RuntimeWarning, match="memory_budget=1 bytes is too small"):
        got = g(0.5, 100)
    assert got == pytest.approx(fd_grad_richardson(scalar_loop, (0.5, 100), 0), rel=1e-7)


def test_a_loop_that_breaks_keeps_its_stacks():
    g = srcad.grad(leaves_early, memory_budget=1000)
    assert g(0.5, 20) == pytest.approx(fd_grad_richardson(leaves_early, (0.5, 20), 0), rel=1e-7)
    text = srcad.source(g, 0.5, 20)
    assert "no loop to checkpoint" in text and "_checkpoints" not in text


@pytest.mark.parametrize("bad", [0, -5, 1.5, "1MB"])
def test_memory_budget_must_be_a_positive_int(bad):
    with pytest.raises(ArgumentError, match="memory_budget must be a positive int"):
        srcad.grad(scalar_loop, memory_budget=bad)


def noisy(x, n):
    rs = np.random.RandomState(0)
    s = x
    for _ in range(n):
        s = np.sin(s) * x + 0.1 * rs.normal()
    return s


def test_a_loop_that_draws_random_numbers_is_not_recomputed():
    g = srcad.grad(noisy, memory_budget=200)
    assert g(0.5, 30) == pytest.approx(fd_grad_richardson(noisy, (0.5, 30), 0), rel=1e-7)
    assert "_checkpoints" not in srcad.source(g, 0.5, 30)


def first_assigned_in_inner_loop(x):
    s = 0.0
    for i in range(40):
        for j in range(x.shape[0]):
            w = x[j] * (j + 1) + 0.01 * i      # w is unassigned when the outer loop starts
        s = np.sin(s) + w * x[0]
    return s


def test_a_loop_carrying_a_variable_it_assigns_first_inside():
    """A checkpoint cannot hold a variable the loop has not assigned yet (fuzz 16101:179):
    that loop keeps its stacks, and the gradient is still exact."""
    x = np.array([0.3, -0.7, 0.5])
    g = srcad.grad(first_assigned_in_inner_loop, memory_budget=64)(x)
    assert np.allclose(g, fd_grad_richardson(first_assigned_in_inner_loop, (x,)), rtol=1e-6, atol=1e-9)
