"""Lists of objects of several classes (`layers = [Dense(8), Tanh(), Dense(2)]`), given to the
function or held by an object: srcad knows each item's class, unrolls the loop over them and
resolves each item's method while transforming (ir/types.py List.items). Checked against
finite differences in reverse and forward mode and at second order; a list of another length
or of other classes builds new code."""

import numpy as np
import pytest

import srcad
from tests.oracle import fd_grad_richardson as fd


class Dense:
    def __init__(self, n_in, n_out, seed):
        rs = np.random.RandomState(seed)
        self.W = rs.randn(n_in, n_out) / np.sqrt(n_in)

    def forward(self, x):
        return x @ self.W


class Tanh:
    def forward(self, x):
        return np.tanh(x)


class Flatten:
    def forward(self, x):
        return x.reshape((x.shape[0], -1))


class Scale:
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return self.k * x


def run(x, layers):
    h = x
    for layer in layers:
        h = layer.forward(h)
    return np.sum(h ** 2)


def run_indexed(x, layers):
    h = x
    for i in range(len(layers)):
        h = layers[i].forward(h)
    return np.sum(np.sin(h)) + len(layers[1:])


X = np.random.RandomState(0).randn(3, 2, 2)


def layers_a():
    return [Flatten(), Dense(4, 5, 1), Tanh(), Dense(5, 2, 2)]


@pytest.mark.parametrize("f", [run, run_indexed])
def test_reverse_forward_and_hessian(f):
    layers = layers_a()
    g = srcad.grad(f)(X, layers)
    assert g == pytest.approx(fd(f, (X, layers)), rel=1e-7, abs=1e-10)
    v = np.random.RandomState(1).randn(*X.shape)
    _, t = srcad.jvp(f, (X, layers), (v, None))
    assert t == pytest.approx(float(np.sum(g * v)), rel=1e-9)
    hvp = srcad.hvp(lambda x: f(x, layers), (X,), (v,))
    # the Hessian-vector product against central differences of finite-difference gradients
    def directional(x):
        return float(np.sum(fd(f, (x, layers)) * v))
    u = np.random.RandomState(2).randn(*X.shape)
    eps = 1e-4
    fd_uHv = (directional(X + eps * u) - directional(X - eps * u)) / (2 * eps)
    assert float(np.sum(hvp * u)) == pytest.approx(fd_uHv, rel=1e-4, abs=1e-6)


def test_another_list_builds_new_code():
    g = srcad.grad(run)
    first = layers_a()
    assert g(X, first) == pytest.approx(fd(run, (X, first)), rel=1e-7, abs=1e-10)
    other = [Flatten(), Scale(0.5), Tanh(), Scale(3.0), Dense(4, 1, 3)]
    assert g(X, other) == pytest.approx(fd(run, (X, other)), rel=1e-7, abs=1e-10)
    shorter = [Flatten(), Tanh()]
    assert g(X, shorter) == pytest.approx(fd(run, (X, shorter)), rel=1e-7, abs=1e-10)


class Model:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x


def test_a_list_held_by_an_object():
    m = Model(layers_a())
    f = lambda x, m: np.sum(np.cos(m(x)))  # noqa: E731
    assert srcad.grad(f)(X, m) == pytest.approx(fd(f, (X, m)), rel=1e-7, abs=1e-10)


XS = np.random.RandomState(5).randn(5, 2)


def dropout_layer(params, seed):
    h = np.tanh(XS @ params[0] + params[1])
    return np.sum(h * (np.random.RandomState(seed).rand(*h.shape) > 0.5))


def sum_over_blocks(params):
    total = 0.0
    for p in params:
        total = total + np.sum(np.sin(p.reshape(p.shape[:1] + (-1,))) ** 2)
    return total


def test_a_list_of_arrays_of_several_shapes_keeps_each_shape():
    """[W, b]: each item's shape is known (h.shape, p.shape[:1] + (-1,)), a loop over it
    unrolled; another list of other shapes builds new code."""
    W, b = np.random.RandomState(1).randn(2, 4), np.random.RandomState(2).randn(4)
    g = srcad.grad(dropout_layer)([W, b], 1)
    want = fd(dropout_layer, ([W, b], 1))
    for got, ref in zip(g, want):
        assert got == pytest.approx(ref, rel=1e-7, abs=1e-10)
    for ps in ([np.ones((2, 3)) * 0.3, np.linspace(0, 1, 4), np.ones((1, 2, 2))],
               [np.ones((3, 1)) * 0.2, np.ones(2)]):
        got, want = srcad.grad(sum_over_blocks)(ps), fd(sum_over_blocks, (ps,))
        for a, w in zip(got, want):
            assert a == pytest.approx(w, rel=1e-7, abs=1e-10)
        t = [np.ones_like(p) for p in ps]
        _, jt = srcad.jvp(sum_over_blocks, (ps,), (t,))
        assert jt == pytest.approx(sum(float(np.sum(w)) for w in want), rel=1e-7)
