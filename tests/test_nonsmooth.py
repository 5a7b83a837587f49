"""Derivatives at the points where the chosen semantics matter (zeros, masked branches),
against hand-derived values, in both modes."""

import math

import numpy as np
import pytest

import srcad


def masked_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def masked_log_times(x, y):
    return np.sum(np.where(x > 0, np.log(x) * y, x))


def masked_chain(x):
    r = np.where(x > 0.0, 1.0 / x, 0.0)
    return np.sum(np.exp(-r) * 2.0)


def test_where_unselected_branch_gives_zero_not_nan():
    x = np.array([4.0, -1.0, 0.0])
    with np.errstate(all="ignore"):
        g = srcad.grad(masked_sqrt)(x)
        _, jv = srcad.jvp(masked_sqrt, (x,), (np.array([1.0, 1.0, 1.0]),))
    assert np.array_equal(g, [0.25, 0.0, 0.0])
    assert jv == pytest.approx(0.25)


def test_where_mask_reaches_every_operand():
    x, y = np.array([2.0, -3.0]), np.array([5.0, 7.0])
    with np.errstate(all="ignore"):
        gx, gy = srcad.grad(masked_log_times, argnums=(0, 1))(x, y)
    assert np.allclose(gx, [5.0 / 2.0, 1.0]) and np.allclose(gy, [np.log(2.0), 0.0])


def test_where_mask_through_a_chain_of_elementwise_adjoints():
    x = np.array([0.5, 0.0, -2.0])
    with np.errstate(all="ignore"):
        g = srcad.grad(masked_chain)(x)
    # d/dx 2 exp(-1/x) = 2 exp(-1/x) / x^2 where x > 0, else 0
    assert np.allclose(g, [2 * np.exp(-2.0) / 0.25, 0.0, 0.0])


def prod_all(x):
    return np.prod(x)


def prod_rows(x):
    return np.sum(np.prod(x, axis=1) ** 2)


def test_prod_at_zeros_is_the_product_of_the_others():
    x = np.array([2.0, 0.0, 3.0])
    assert np.array_equal(srcad.grad(prod_all)(x), [0.0, 6.0, 0.0])
    assert srcad.jvp(prod_all, (x,), (np.array([0.0, 1.0, 0.0]),))[1] == 6.0
    assert np.array_equal(srcad.grad(prod_all)(np.zeros(3)), np.zeros(3))


def test_prod_along_an_axis_with_zeros():
    x = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]])
    p = np.prod(x, axis=1)
    others = np.array([[0.0, 2.0, 0.0], [20.0, 15.0, 12.0]])
    assert np.allclose(srcad.grad(prod_rows)(x), 2 * p[:, None] * others)
    t = np.ones_like(x)
    assert srcad.jvp(prod_rows, (x,), (t,))[1] == pytest.approx(np.sum(2 * p[:, None] * others))


def power(x, y):
    return x ** y + np.power(x, y) + math.pow(x, y)


def test_power_at_a_zero_base():
    # d/dy x^y = x^y log x -> 0 as x -> 0 (y > 0); d/dx x^y = y x^(y-1) = 0 at x = 0 for y = 2
    with np.errstate(all="ignore"):
        gx, gy = srcad.grad(power, argnums=(0, 1))(0.0, 2.0)
    assert gx == 0.0 and gy == 0.0
    gy = srcad.grad(power, argnums=1)(2.0, 3.0)
    assert gy == pytest.approx(3 * 8.0 * math.log(2.0))


def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def cumprod_rows(x):
    return np.sum(np.cumprod(x, axis=1) * np.array([1.0, 2.0, 3.0]))


def test_cumprod_at_zeros_hand_derived():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    # sum(cumprod) = x0 + x0 x1 + x0 x1 x2 + ...: d/dx0 = 1 + x1 + ... = 1, d/dx1 = x0 + x0 x2 = 8
    assert np.allclose(srcad.grad(cumprod_sum)(x), [1.0, 8.0, 0.0, 0.0, 0.0])
    for k, want in enumerate([1.0, 8.0, 0.0, 0.0, 0.0]):
        assert srcad.jvp(cumprod_sum, (x,), (np.eye(5)[k],))[1] == pytest.approx(want)
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]])
    # row [a, b, c] -> a + 2ab + 3abc; row 1 (a=1, b=0, c=2): d/da = 1, d/db = 2a + 3ac = 8, d/dc = 0
    # row 2 (a=0, b=3, c=4): d/da = 1 + 2b + 3bc = 43, d/db = d/dc = 0
    assert np.allclose(srcad.grad(cumprod_rows)(X), [[1.0, 8.0, 0.0], [43.0, 0.0, 0.0]])


# np.max's adjoint shares its cotangent among the maxima (np.where of the mask and the
# cotangent divided by the count at the reduced shape)

def max_plus_squares(x):
    return 3.0 * np.max(x) + np.sum(x * x)


def lse(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def spread_then_more(x, w):
    m = np.max(x)
    y = np.exp(x - m) * w      # x_bar from this path is used again below
    return np.sum(y) + m * np.sum(x) + np.min(x)


def test_max_cotangent_shared_among_ties_in_place():
    x = np.array([1.0, 4.0, -2.0, 4.0, 4.0, 0.5])
    g = srcad.grad(max_plus_squares)(x)
    assert np.allclose(g, 2.0 * x + np.where(x == 4.0, 1.0, 0.0))   # 3 / 3 ties each


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_logsumexp_gradient_is_softmax(n):
    x = np.random.default_rng(n).normal(0.0, 3.0, n)
    g = srcad.grad(lse)(x)
    e = np.exp(x - x.max())
    assert np.allclose(g, e / e.sum(), rtol=1e-12, atol=1e-15)


def test_spread_into_a_cotangent_used_again():
    from tests.oracle import assert_tree_close, fd_grad_richardson
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    gx, gw = srcad.grad(spread_then_more, argnums=(0, 1))(x, w)
    assert_tree_close(gx, fd_grad_richardson(spread_then_more, (x, w), 0), rtol=1e-6)
    assert_tree_close(gw, fd_grad_richardson(spread_then_more, (x, w), 1), rtol=1e-6)
    x2 = x.copy()
    x2[0, 0] = x2[2, 3] = x.max() + 1.0     # two maxima: each gets half of the max's cotangent
    gx2 = srcad.grad(spread_then_more)(x2, w)
    m = x2.max()
    ties = (x2 == m)
    expect = np.exp(x2 - m) * w + m + (-np.sum(np.exp(x2 - m) * w) + np.sum(x2)) * ties / 2.0
    expect[x2 == x2.min()] += 1.0
    assert np.allclose(gx2, expect)
