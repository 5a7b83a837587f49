"""Loops whose variables are first assigned inside the body (unbound before the loop) and
read after it: reverse mode stores them per iteration, and must still raise
UnboundLocalError exactly where the function does (a loop that ran zero times)."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad

import srcad


def mlp(params, inputs):
    for W, b in params:
        outputs = inputs @ W + b
        inputs = np.tanh(outputs)
    return np.sum(outputs)


def read_only_if(x, layers, flag):
    for W in layers:
        z = x @ W
        x = np.tanh(z)
    if flag:
        return np.sum(z * z)
    return np.sum(x)


rng = np.random.default_rng(5)
X = rng.normal(size=(2, 3))
LAYERS = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]


def _all_transforms(fn, args, argnum):
    tangents = [None] * len(args)
    tangents[argnum] = np.ones_like(args[argnum])
    yield lambda: srcad.grad(fn, argnums=argnum)(*args)
    yield lambda: srcad.value_and_grad(fn, argnums=argnum)(*args)
    yield lambda: srcad.vjp(fn, *args)[1](1.0)
    yield lambda: srcad.jvp(fn, args, tangents)
    yield lambda: srcad.hessian(fn, argnums=argnum)(*args)


def test_zero_iterations_raise_like_the_function():
    with pytest.raises(UnboundLocalError):
        mlp([], X)
    for run in _all_transforms(mlp, ([], X), 1):
        with pytest.raises(UnboundLocalError):
            run()


def test_a_read_that_does_not_happen_does_not_raise():
    # no layers and flag False: the function returns sum(x), whose gradient is all ones
    assert read_only_if(X, [], False) == pytest.approx(np.sum(X))
    np.testing.assert_allclose(srcad.grad(read_only_if)(X, [], False), np.ones_like(X))
    np.testing.assert_allclose(srcad.vjp(read_only_if, X, [], False)[1](1.0)[0], np.ones_like(X))
    with pytest.raises(UnboundLocalError):
        srcad.grad(read_only_if)(X, [], True)
    # with layers, d/dx sum(z * z) for z = x @ W1 ... against a hand-derived chain rule
    W1, W2 = LAYERS
    z1 = X @ W1
    h1 = np.tanh(z1)
    z2 = h1 @ W2
    expected = ((2 * z2) @ W2.T * (1 - h1 ** 2)) @ W1.T
    np.testing.assert_allclose(srcad.grad(read_only_if)(X, LAYERS, True), expected, rtol=1e-10)


def test_mlp_vjp_matches_finite_differences():
    params = [(LAYERS[0], rng.normal(size=4)), (LAYERS[1], rng.normal(size=2))]
    out, pullback = srcad.vjp(mlp, params, X)
    assert out == pytest.approx(mlp(params, X), rel=1e-12)
    ct_params, ct_inputs = pullback(2.0)
    for got, argnum in ((ct_params, 0), (ct_inputs, 1)):
        assert_tree_close(got, _scaled(fd_grad(mlp, (params, X), argnum), 2.0), rtol=1e-5, atol=1e-6)


def _scaled(tree, k):
    if isinstance(tree, (list, tuple)):
        return type(tree)(_scaled(t, k) for t in tree)
    return np.asarray(tree) * k


def reduction_of_a_float_read_in_a_loop(x, y):
    # F4:1328: the cotangent of a float seeded as a read-only 0-d array, added to in place
    d = {"b": 0.5}
    a = np.max(x)
    for i in range(y.shape[0]):  # noqa: B007 (srcad input, as the fuzzer wrote it)
        d["a"] = a
    return np.sum(a) + d["b"]


def test_cotangent_of_a_float_added_to_in_a_loop():
    gx, gy = srcad.grad(reduction_of_a_float_read_in_a_loop, argnums=(0, 1))(np.array(0.5), np.array([0.5]))
    assert float(gx) == 1.0 and np.array_equal(gy, [0.0])  # (hand-derived)
