# ruff: noqa: B023  (closures over loop variables are what these tests are about)
"""Lambdas, closures and partials made anew on every call share generated code with the first
one made from the same code: what they capture is read when the code runs (never baked in),
and code is never shared across captured functions that differ."""

import functools

import numpy as np
import pytest

import srcad
from srcad import sharing
from tests.oracle import assert_tree_close, fd_grad


def cost(c, pts):
    return np.sum((pts - c) ** 2) + np.sum(np.sin(c) * pts[0])


def square(v):
    return v * v


def cube(v):
    return v * v * v


def objective(pts):
    """A closure factory: each closure has a cell of its own."""
    return lambda c: cost(c, pts)


def test_lambdas_in_a_loop_read_their_own_captured_data():
    rng = np.random.default_rng(0)
    c = np.array([0.3, -0.2])
    grads, made = [], []
    for k in range(4):
        pts = rng.normal(size=(5, 2)) * (k + 1)
        made.append(objective(pts))  # (all alive: cells of earlier closures keep their data)
        g = srcad.grad(made[-1])
        assert (g._twin is None) == (k == 0)  # the first one builds, the others borrow its code
        got = g(c)
        assert_tree_close(got, fd_grad(lambda c: cost(c, pts), (c,)), rtol=1e-6, atol=1e-8)
        grads.append(got)
    assert not np.allclose(grads[0], grads[1])


def rows_cost(c, pts):
    total = 0.0
    for i in range(pts.shape[0]):  # (a trip count the specialisation knows)
        total = total + np.sum((pts[i] - c) ** 2)
    return total


def test_shapes_of_captured_data_are_part_of_the_key():
    c = np.array([0.1, 0.5])
    for n in (3, 7, 3, 5):
        pts = np.arange(2.0 * n).reshape(n, 2) / n
        closure = (lambda p: (lambda c: rows_cost(c, p)))(pts)
        got = srcad.grad(closure)(c)
        assert_tree_close(got, fd_grad(lambda c: rows_cost(c, pts), (c,)), rtol=1e-6, atol=1e-8)


def test_captured_functions_that_differ_do_not_share():
    x = 0.7
    for fn, want in ((square, 2 * x), (cube, 3 * x * x), (square, 2 * x)):
        got = srcad.grad(lambda v: fn(v) + 0.0)(x)
        assert got == pytest.approx(want, rel=1e-12)


def test_a_captured_value_rebound_after_the_lambda_is_read_at_call_time():
    x = np.array([1.0, 2.0])
    outs = []
    for k in (1.0, 2.0):
        scale = k
        f = lambda v: np.sum(scale * v * v)  # noqa: E731
        scale = 3.0 * k  # rebound after f is made: f sees the new value
        outs.append(srcad.grad(f)(x))
        assert_tree_close(outs[-1], 2 * scale * x, rtol=1e-12)


def test_partials_made_anew_share_code_and_read_their_bound_values():
    rng = np.random.default_rng(1)
    c = np.array([0.2, 0.4])
    for k in range(3):
        pts = rng.normal(size=(4, 2))
        g = srcad.grad(functools.partial(cost, pts=pts))
        got = g(c)
        assert_tree_close(got, fd_grad(lambda c: cost(c, pts), (c,)), rtol=1e-6, atol=1e-8)
        if k:
            assert g._twin is not None


def test_shared_code_in_forward_mode_and_vjp():
    c = np.array([0.3, 0.1])
    v = np.array([1.0, -2.0])
    for k in range(3):
        pts = np.full((3 + k, 2), 0.5 * (k + 1))
        f = objective(pts)
        _, tangent = srcad.jvp(f, (c,), (v,))
        assert tangent == pytest.approx(float(fd_grad(f, (c,)) @ v), rel=1e-6)
        out, back = srcad.vjp(f, c)
        assert_tree_close(back(1.0)[0], fd_grad(f, (c,)), rtol=1e-6, atol=1e-8)


def test_second_order_of_fresh_lambdas():
    x = 0.4
    for a in (1.0, 2.0, 3.0):
        h = srcad.grad(srcad.grad(lambda v: a * np.sin(v) * v))(x)
        assert h == pytest.approx(a * (2 * np.cos(x) - x * np.sin(x)), rel=1e-10)


def test_the_share_key_holds_static_captures_by_identity():
    f1 = (lambda: (lambda v: square(v)))()
    key, statics = sharing.share_key(f1, None)
    assert key[0] is f1.__code__ and statics == ()
    g = lambda v: fn(v)  # noqa: E731
    fn = square
    assert sharing.share_key(g, None)[1] == (square,)


def test_transforms_with_other_options_never_share():
    """jacrev's vjp for one argument and for another, of two functions made from the same
    code: the cotangents are for different arguments (a twin must match the options too)."""
    def make():
        return lambda x, w: np.sum(x * w * w)

    x, w = np.array([0.5, -1.0]), np.array([1.5, 2.0])
    j0 = srcad.jacrev(make(), argnums=0)(x, w)
    j1 = srcad.jacrev(make(), argnums=1)(x, w)
    assert_tree_close(j0, fd_grad(make(), (x, w), 0), rtol=1e-6, atol=1e-8)
    assert_tree_close(j1, fd_grad(make(), (x, w), 1), rtol=1e-6, atol=1e-8)
