"""srcad.checkpoint: the same derivatives as without it (against finite differences), in
both modes and at second order, with less stored per loop iteration."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad_richardson, fd_jvp, fd_second_directional

import srcad


def step(w, x):
    h = np.tanh(w @ x)
    return np.exp(-h * h) * h + 0.5 * x


remat_step = srcad.checkpoint(step)


def unrolled(w, x):
    for _ in range(6):
        x = remat_step(w, x)
    return np.sum(x ** 2)


def plain(w, x):
    for _ in range(6):
        x = step(w, x)
    return np.sum(x ** 2)


W = np.array([[0.3, -0.2, 0.1], [0.1, 0.4, -0.3], [0.2, 0.0, 0.5]])
X = np.array([0.5, -1.0, 0.25])


def test_checkpointed_gradients_against_finite_differences():
    for argnum in (0, 1):
        assert_tree_close(srcad.grad(unrolled, argnums=argnum)(W, X),
                          fd_grad_richardson(plain, (W, X), argnum=argnum), rtol=1e-7)
    tangents = (np.ones_like(W), np.array([1.0, -2.0, 0.5]))
    want = fd_jvp(plain, (W, X), tangents)
    assert srcad.jvp(unrolled, (W, X), tangents)[1] == pytest.approx(want, rel=1e-5)


def test_second_order_through_a_checkpoint():
    h = srcad.hessian(unrolled, argnums=1)(W, X)
    zero = np.zeros_like(W)
    fd = np.array([[fd_second_directional(plain, (W, X), (zero, u), (zero, v)) for v in np.eye(3)]
                   for u in np.eye(3)])
    assert_tree_close(h, fd, rtol=1e-5, atol=1e-7)


def test_a_checkpoint_stores_less_per_iteration():
    with_remat = sum(s.nbytes or 0 for s in srcad.saved_values(unrolled, W, X))
    without = sum(s.nbytes or 0 for s in srcad.saved_values(plain, W, X))
    assert with_remat < without


def test_what_checkpoint_refuses():
    with pytest.raises(srcad.ArgumentError, match="positional parameters"):
        srcad.checkpoint(lambda x, scale=2.0: x * scale)
    with pytest.raises(srcad.ArgumentError, match="expects a function"):
        srcad.checkpoint(3)


def variadic_block(*args):
    h = args[0]
    for w in args[1:]:
        h = np.tanh(w * h)
    return h


CHECKPOINTED_BLOCK = srcad.checkpoint(variadic_block)


def loss_through_variadic_checkpoints(x, a, b):
    return np.sum(CHECKPOINTED_BLOCK(x, a, b) ** 2) + np.sum(CHECKPOINTED_BLOCK(x, a))


def test_a_variadic_function_is_checkpointed_per_call_shape():
    """checkpoint(f) of f(*args): one checkpoint per number of arguments (srcad/arity.py)."""
    args = (np.array([0.3, -0.7]), 0.8, -1.3)
    got = srcad.grad(loss_through_variadic_checkpoints, argnums=(0, 1, 2))(*args)
    for i in range(3):
        np.testing.assert_allclose(got[i], fd_grad_richardson(loss_through_variadic_checkpoints, args, i),
                                   rtol=1e-7, atol=1e-10)
