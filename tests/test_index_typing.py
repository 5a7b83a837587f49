"""Elements of local int arrays used as indices (the adversarial pass of stop 38): an index
whose rank srcad did not know (an element of `np.argsort(x)`, `np.array([2, 0])`,
`np.asarray(labels)`: typed Num, "a float or a float array") did not count as taking an axis,
so `E[tok]` kept E's rank: the adjoint of `E[tok] @ W` was a dot product spread over W
(silently wrong), a rank test folded the wrong way, np.dot crashed. Now such an index gives a
result of unknown rank (checked when the code runs), and the common sources of int arrays are
typed as such: np.array / np.asarray of nested lists of ints, np.argsort (the rank of its
argument), np.argmax (an int without axis), sums of int and bool arrays (ints),
np.where(c) (index arrays, as np.nonzero). Oracle: central differences with Richardson
extrapolation, and jacfwd."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad

E = np.array([[0.1, -0.3, 0.8], [0.5, 0.2, -0.4], [-0.7, 0.9, 0.3]])
X = np.array([[0.3, -0.7, 1.2], [-0.45, 0.8, 0.1]])


def embedded_rnn(W):
    tokens = np.array([2, 0])
    h = np.zeros(3)
    for tok in tokens:
        h = np.tanh(E[tok] @ W + h)
    return np.sum(h ** 2)


def nearest_row(W):
    order = np.argsort(X[:, 0])
    row = X[order[0]]
    return np.sum((row @ W) ** 2)


def scale(v):
    return 5.0 * v if np.ndim(v) == 0 else np.sum(v)


def smallest_scaled(x):
    return scale(x[np.argsort(x)[0]])


def labelled_dot(x):
    lab = np.asarray([2, 0, 1])
    return np.sum(np.dot(x[lab[0]], np.eye(3)))


def largest(x):
    order = np.argsort(x)
    return x[order[-1]] + np.dot(x[order[-2:]], x[order[-2:]])


def positive_part(x):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2) / len(idx) + np.sum(x ** 2) * np.ndim(idx)


def counted(x):
    rows = np.unique(np.array([2, 0, 2]))
    n = np.sum(x > 0)
    m = np.array([1, 2]).max()
    r = np.array([[1, 0], [2, 1]]).reshape(4)
    return x[rows[1]] ** 2 + x[n] * x[m] + x[r[2]] + x[np.argmax(x)] ** 3


def nonsquare(W):
    order = np.argsort(X[:, 0])
    return np.sum(np.tanh(X[order[0]] @ W))


W0 = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.7]])
x0 = np.array([0.3, -0.7, 1.2, 0.45])
CASES = [(embedded_rnn, W0), (nearest_row, W0), (nonsquare, W0[:, :2]), (smallest_scaled, x0),
         (labelled_dot, x0[:3]), (largest, x0), (positive_part, x0), (counted, x0)]


@pytest.mark.parametrize("f,x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_value_and_forward_mode(f, x):
    value, g = srcad.value_and_grad(f)(x)
    assert np.isclose(value, f(x), rtol=1e-13)
    expected = fd_grad_richardson(f, (x,))
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(srcad.jacfwd(f)(x), expected, rtol=1e-6, atol=1e-9)
