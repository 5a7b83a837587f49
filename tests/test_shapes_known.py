"""Shapes known while transforming make the generated code specific (issue 16): an array made
from a list of floats, the join of a list of arrays, and the cotangents split like them.
Each case checks the gradient against finite differences (tests/oracle.py) and reads the
generated source for what the known shapes removed."""

import types

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_grad_richardson

import srcad


def pair_norm(a, b):
    p = np.array([a, b])
    return p @ p


def nested(a, b):
    m = np.array([[a, b], [b * a, 2.0]])
    return np.sum(m @ m)


def ode_step(x, s):
    y = np.zeros_like(x)
    h = 1.0 / s
    for _ in range(s):
        k1 = np.concatenate([x[:1], x[1:] * y[:-1]])
        k2 = np.concatenate([x[:1], x[1:] * (y + h * k1)[:-1]])
        y = y + h / 2 * (k1 + k2)
    return np.sum(y * y)


def stacked(a, b):
    m = np.stack([a, 2.0 * b, a * b], axis=1)
    h = np.hstack([a, b * b])
    return np.sum(m @ m.T) + np.sum(np.sin(h))


def columns(a, b):
    j = np.concatenate([a, np.tanh(b)], axis=1)
    return np.sum(j * j)


def _check(f, args, argnum=0):
    g = srcad.grad(f, argnum)
    assert_tree_close(g(*args), fd_grad_richardson(f, args, argnum), rtol=1e-6, atol=1e-8)
    return srcad.source(g)


def test_array_of_floats_has_a_known_shape():
    src = _check(pair_norm, (0.3, -1.2))
    assert "_unbroadcast" not in src and "_array_adjoint" not in src and "ndim" not in src
    assert "a_bar = p_bar[0]" in src


def test_array_of_nested_lists_of_floats():
    src = _check(nested, (0.7, 1.3))
    src1 = _check(nested, (0.7, 1.3), 1)
    for s in (src, src1):
        assert "_array_adjoint" not in s and "_unbroadcast" not in s


def test_concatenate_in_a_loop_stores_no_lists_and_splits_by_slices():
    x = np.random.RandomState(0).rand(6)
    src = _check(ode_step, (x, 5))
    assert "_split_like" not in src and "_unbroadcast" not in src and "_array_adjoint" not in src
    assert "list[" not in src.split("_stack")[0]  # (no list saved per iteration: the report)
    assert "[0:1]" in src and "[1:6]" in src


def test_stack_and_hstack_of_known_shapes():
    rng = np.random.RandomState(1)
    a, b = rng.rand(4), rng.rand(4)
    for argnum in (0, 1):
        src = _check(stacked, (a, b), argnum)
        assert "_unbroadcast" not in src


def test_concatenate_along_a_later_axis():
    rng = np.random.RandomState(2)
    a, b = rng.rand(3, 2), rng.rand(3, 4)
    src = _check(columns, (a, b), 1)
    assert "_split_like" not in src and "[:, 2:6]" in src


@pytest.mark.parametrize("n", [1, 3])
def test_a_list_appended_to_keeps_no_stale_shapes(n):
    def f(a, b):
        xs = [a, b]
        for _ in range(n):
            xs.append(a * b[:2])
        return np.sum(np.concatenate(xs) ** 2)

    rng = np.random.RandomState(3)
    _check(f, (rng.rand(2), rng.rand(3)))
    _check(f, (rng.rand(2), rng.rand(3)), 1)


# -- module-level int constants fold into shapes; rebinding one builds new code ------------

HIDDEN = 3


def rnn_global(W, xs):
    h = np.zeros(HIDDEN)
    for x in xs:
        h = np.tanh(W @ h + x[:HIDDEN])
    return np.sum(h * h)


def rnn_global_b(W, xs):  # (the same, with code of its own: transforms of one code share code)
    h = np.zeros(HIDDEN)
    for x in xs:
        h = np.tanh(W @ h + x[:HIDDEN])
    return np.sum(h * h)


def rnn_global_c(W, xs):
    h = np.zeros(HIDDEN)
    for x in xs:
        h = np.tanh(W @ h + x[:HIDDEN])
    return np.sum(h * h)


def _rnn_args(n, rng):
    return 0.5 * rng.rand(n, n), rng.rand(4, 6)


def test_a_global_int_folds_into_shapes():
    src = _check(rnn_global, _rnn_args(3, np.random.RandomState(4)))
    assert ".HIDDEN" not in src and "np.zeros(3)" in src
    assert "_unbroadcast" not in src
    assert src.count(".append(") == 1  # (only h per step: no temporary kept for its shape)


def test_a_rebound_global_never_reuses_stale_code(monkeypatch):
    g = srcad.grad(rnn_global)
    rng = np.random.RandomState(5)
    for n in (3, 5, 3, 2):
        monkeypatch.setitem(globals(), "HIDDEN", n)
        args = _rnn_args(n, rng)
        assert_tree_close(g(*args), fd_grad_richardson(rnn_global, args, 0), rtol=1e-6, atol=1e-8)
        assert f"np.zeros({n})" in srcad.source(g)


def test_a_global_taking_many_values_falls_back_to_reading_it(monkeypatch):
    monkeypatch.setattr(srcad.config, "shape_variants", 2)
    g = srcad.grad(rnn_global_b)
    rng = np.random.RandomState(6)
    for n in (2, 3, 4, 5, 6):
        monkeypatch.setitem(globals(), "HIDDEN", n)
        args = _rnn_args(n, rng)
        assert_tree_close(g(*args), fd_grad_richardson(rnn_global_b, args, 0), rtol=1e-6, atol=1e-8)
    assert "HIDDEN" in srcad.source(g)  # (rank-only code: the global read when it runs)


def test_a_rebound_global_with_the_persistent_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(srcad.config, "cache_dir", str(tmp_path))
    rng = np.random.RandomState(7)
    for n in (3, 4, 3):
        monkeypatch.setitem(globals(), "HIDDEN", n)
        g = srcad.grad(types.FunctionType(rnn_global_c.__code__, globals()))  # (cached code when there)
        args = _rnn_args(n, rng)
        assert_tree_close(g(*args), fd_grad_richardson(rnn_global_c, args, 0), rtol=1e-6, atol=1e-8)
        assert f"np.zeros({n})" in srcad.source(g)


def test_one_array_reshaped_in_place_gets_the_code_of_its_new_shape():
    # (a call with one array is keyed by its shape and dtype kind at every call, not by the
    # array object: the same array given again after `x.shape = ...` builds new code)
    def f(x):
        return np.sum(np.sin(x[0]) * x[-1])
    g = srcad.grad(f)
    x = np.linspace(0.1, 1.2, 12)
    for shape in [(12,), (3, 4), (12,), (2, 6)]:
        x.shape = shape
        want = np.zeros_like(x)
        want[0] += np.cos(x[0]) * x[-1]
        want[-1] += np.sin(x[0])
        np.testing.assert_allclose(g(x), want, rtol=1e-12)
        np.testing.assert_allclose(g(x), fd_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g(x.astype(np.float32)), want, rtol=1e-5)
