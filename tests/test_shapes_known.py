"""Shapes known while transforming make the generated code specific (issue 16): an array made
from a list of floats, the join of a list of arrays, and the cotangents split like them.
Each case checks the gradient against finite differences (tests/oracle.py) and reads the
generated source for what the known shapes removed."""

import numpy as np
import pytest

import srcad

from oracle import assert_tree_close, fd_grad_richardson


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
