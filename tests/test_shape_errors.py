"""Shapes NumPy refuses, when srcad knows them while transforming: a ShapeError (also a
ValueError, as NumPy's) at the user's line, in every transformation, and only when that
line runs (a branch that is not taken may hold one, as in Python)."""

import numpy as np
import pytest

import srcad


def product(w, v):
    return np.sum(w @ v)


def broadcast(w, v):
    return np.sum(w + v)


def reshaped(w, v):
    return np.sum(np.reshape(w, (4, 2))) + np.sum(v)


def in_a_branch_not_taken(w, v):
    if np.sum(w) > 100.0:
        return np.sum(w @ v)
    return np.sum(w) * np.sum(v)


W, V = np.ones(3) * 0.5, np.ones(2) * 0.25


@pytest.mark.parametrize("fn, line, words", [
    (product, 1, "matrix product: (3,) and (2,)"),
    (broadcast, 1, "could not be broadcast together with shapes (3,) (2,)"),
    (reshaped, 1, "size 3 (shape (3,)) into shape (4, 2)"),
])
@pytest.mark.parametrize("transform", [
    lambda fn: srcad.grad(fn)(W, V),
    lambda fn: srcad.jvp(fn, (W, V), (W, V)),
    lambda fn: srcad.hessian(fn)(W, V),
    lambda fn: srcad.value_and_grad(fn, argnums=1)(W, V),
])
def test_refused_shapes_raise_at_the_users_line(fn, line, words, transform):
    with pytest.raises(ValueError):  # (NumPy raises a ValueError for these too)
        fn(W, V)
    with pytest.raises(srcad.ShapeError) as err:
        transform(fn)
    diag = err.value.diagnostics[0]
    assert diag.file == __file__ and diag.line == fn.__code__.co_firstlineno + line
    assert words in diag.message
    assert isinstance(err.value, ValueError)


def test_a_branch_that_does_not_run_may_hold_refused_shapes():
    assert in_a_branch_not_taken(W, V) == pytest.approx(0.75)
    g = srcad.grad(in_a_branch_not_taken, argnums=(0, 1))(W, V)
    assert np.allclose(g[0], np.sum(V)) and np.allclose(g[1], np.sum(W))
