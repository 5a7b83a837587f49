"""A max (or min) subtracted for numerical stability carries no derivative when no output
depends on it (passes/shifts.py): the gradient is exact (finite differences, hand-derived
softmax Jacobians, at ties too: these functions are smooth), the tie mask is gone from the
generated code where the function is invariant, and stays where it is not."""

import numpy as np
import pytest

import srcad
from tests.oracle import assert_tree_close, fd_grad_richardson


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True)))


def logsumexp_cols(x):  # m of shape (n,) broadcast against (k, n): constant along axis 0
    m = x.max(axis=0)
    return np.sum(m + np.log(np.exp(x - m).sum(axis=0)))


def logsumexp_rows_indexed(x):  # m (r,) given its axis back by indexing (GradBench's gmm)
    m = np.max(x, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(x - m[:, None]), axis=1)))


def logsumexp_cols_indexed(x):  # (k, r, c): m (r, c), x - m[None, ...]
    m = x.max(axis=0)
    return np.sum(m[None, ...] + np.log(np.sum(np.exp(x - m[None, ...]), axis=0, keepdims=True)))


def log_softmax_min(x):  # a min works as well as a max
    m = np.min(x, axis=-1, keepdims=True)
    z = x - m
    return np.sum(np.log(np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)) * np.arange(x.shape[-1]))


def softmax_dot(x, w):
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    return np.dot(p, w)


def softmax_mean_shift(x, w):  # scaled, negated and mean-reduced shifts
    m = np.max(x)
    z = 2.0 * (m - x)
    e = np.exp(-z / 2.0)
    return np.dot(e / np.mean(e), w) + np.mean(x - m) - np.mean(x) + m


def not_invariant_sum(x):  # sum(exp(x - m)) depends on m
    m = np.max(x)
    return np.sum(np.exp(x - m))


def not_invariant_axis(x):  # a sum over the axis along which m varies
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(x - m), axis=0)))


def not_invariant_outer(x):  # m (r, 1) plus a (r,) vector: an outer sum, not a shift
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(x - m), axis=1)))


def not_invariant_selected(x):  # m[0] selects one row's max: not a move of axes
    m = np.max(x, axis=1)
    return np.sum(np.log(np.sum(np.exp(x - m[:, None]), axis=1))) + m[0]


def not_invariant_product(x, w):  # m times an array is no shift
    m = np.max(x)
    return np.sum(w * (x - m))


def in_loop(x):
    m = np.max(x)
    total = 0.0
    for i in range(2):
        total = total + np.log(np.sum(np.exp(x - m))) + m * (i + 1) - m * (i + 1)
    return total


def returned_in_a_branch(x):  # fuzz 8500:1036: a branch's yield is a use of m (its output)
    m = np.max(x)
    if x[0] > -10.0:
        return m
    return np.sum(x)


def chosen_in_a_loop(x):  # a loop carrying m out as its value
    m = np.max(x)
    v = 0.0
    for _ in range(2):
        v = m
    return v


def rng_x(shape, ties=False):
    x = np.random.default_rng(3).normal(0.0, 2.0, shape)
    if ties:
        x.flat[1] = x.flat[3] = x.max() + 1.0
    return x


INVARIANT = [(logsumexp, (8,)), (logsumexp_rows, (3, 5)), (logsumexp_cols, (4, 6)),
             (logsumexp_rows_indexed, (4, 3)), (logsumexp_cols_indexed, (3, 2, 4)), (log_softmax_min, (3, 4))]
NOT = [(not_invariant_sum, (6,)), (not_invariant_axis, (3, 4)), (not_invariant_outer, (3, 4)),
       (not_invariant_selected, (3, 4)), (in_loop, (5,)), (returned_in_a_branch, (5,)),
       (chosen_in_a_loop, (4,))]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("f, shape", INVARIANT, ids=lambda v: getattr(v, "__name__", ""))
def test_invariant_gradient_and_no_tie_mask(f, shape, ties):
    x = rng_x(shape, ties)
    g = srcad.grad(f)
    assert_tree_close(g(x), fd_grad_richardson(f, (x,)), rtol=1e-6, atol=1e-8)
    assert "==" not in srcad.source(g), srcad.source(g)


@pytest.mark.parametrize("f, shape", NOT, ids=lambda v: getattr(v, "__name__", ""))
def test_not_invariant_keeps_the_adjoint_of_the_max(f, shape):
    x = rng_x(shape)
    g = srcad.grad(f)
    assert_tree_close(g(x), fd_grad_richardson(f, (x,)), rtol=1e-6, atol=1e-8)
    assert "==" in srcad.source(g), srcad.source(g)  # (the max's cotangent is spread over its ties)


@pytest.mark.parametrize("f", [softmax_dot, softmax_mean_shift, not_invariant_product])
def test_two_arguments(f):
    x, w = rng_x((7,)), rng_x((7,)) + 1.0
    g = srcad.grad(f, argnums=(0, 1))
    assert_tree_close(g(x, w), (fd_grad_richardson(f, (x, w), 0), fd_grad_richardson(f, (x, w), 1)),
                      rtol=1e-6, atol=1e-8)
    assert ("==" in srcad.source(g)) == (f is not_invariant_product)


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


@pytest.mark.parametrize("ties", [False, True])
def test_jacobians_and_hessian_hand_derived(ties):
    """d softmax / dx = diag(p) - p p^T; the Hessian of logsumexp is the same matrix."""
    x = rng_x((6,), ties)
    p = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    want = np.diag(p) - np.outer(p, p)
    assert_tree_close(srcad.jacrev(softmax)(x), want, rtol=1e-10, atol=1e-12)
    assert_tree_close(srcad.jacfwd(softmax)(x), want, rtol=1e-10, atol=1e-12)
    assert_tree_close(srcad.hessian(logsumexp)(x), want, rtol=1e-10, atol=1e-12)
    t = rng_x((6,)) + 0.5
    _, tangent = srcad.jvp(softmax, (x,), (t,))
    assert_tree_close(tangent, want @ t, rtol=1e-10, atol=1e-12)
    _, back = srcad.vjp(softmax, x)
    assert_tree_close(back(t)[0], want.T @ t, rtol=1e-10, atol=1e-12)


def test_value_is_unchanged_and_float32_kept():
    x = rng_x((5,)).astype(np.float32)
    value, grad = srcad.value_and_grad(logsumexp)(x)
    assert value == pytest.approx(float(logsumexp(x.astype(np.float64))), rel=1e-6)
    assert grad.dtype == np.float32
