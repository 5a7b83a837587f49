"""Simplifications of adjoint code around numbers spread over arrays (passes/uniform.py) and
np.where on numbers (a conditional expression): gradients against finite differences, and
the generated code shows the cheaper form."""

import math

import numpy as np
import pytest
import scipy.stats as stats

import srcad
from tests.oracle import assert_tree_close, fd_grad_richardson


def scaled_squares(x, s):
    valid = np.where(s > 0, 1.0, np.nan)       # a number on numbers: `1.0 if s > 0 else nan`
    return np.sum(valid * x * x) + np.sum(np.where(True, s, 0.0) * x)


def norm_loglik(mu, log_sigma, y):
    return np.sum(stats.norm.logpdf(y, mu, np.exp(log_sigma)))


def t_prior(eta):
    return np.sum(stats.t.logpdf(eta, 4.0))


def spread_sum(x, s):
    b = np.broadcast_to(s, x.shape)
    return np.sum(b) * np.sum(x) + np.sum(b * x)


def _code(src: str) -> str:
    """The generated statements, without the comments that quote the user's lines."""
    return "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))


@pytest.mark.parametrize("n", [1, 5, 400])
def test_where_on_numbers_and_constant_where(n):
    x = np.random.default_rng(n).normal(size=n)
    for s in (0.7, 2.0):
        gx, gs = srcad.grad(scaled_squares, argnums=(0, 1))(x, s)
        assert_tree_close(gx, fd_grad_richardson(scaled_squares, (x, s), 0), rtol=1e-6)
        assert gs == pytest.approx(fd_grad_richardson(scaled_squares, (x, s), 1), rel=1e-6)
    src = _code(srcad.source(srcad.grad(scaled_squares, argnums=(0, 1)), x, 0.7))
    assert "1.0 if " in src and "else math.nan" in src and "np.where(True" not in src


def test_where_on_numbers_keeps_nan_for_invalid_values():
    x = np.ones(3)
    gx = srcad.grad(scaled_squares)(x, -1.0)
    assert np.all(np.isnan(gx))


@pytest.mark.parametrize("n", [3, 1000])
def test_normal_loglik_gradient_has_no_spread_temporaries(n):
    y = np.random.default_rng(n).normal(0.3, 1.2, n)
    g = srcad.grad(norm_loglik, argnums=(0, 1))
    gm, gl = g(0.2, 0.1, y)
    assert gm == pytest.approx(fd_grad_richardson(norm_loglik, (0.2, 0.1, y), 0), rel=1e-6)
    assert gl == pytest.approx(fd_grad_richardson(norm_loglik, (0.2, 0.1, y), 1), rel=1e-6)
    sigma = math.exp(0.1)      # hand-derived: d/dmu = sum(y - mu) / s^2, d/dlog s = sum(z^2 - 1)
    z = (y - 0.2) / sigma
    assert gm == pytest.approx(np.sum(z) / sigma, rel=1e-10)
    assert gl == pytest.approx(np.sum(z * z - 1.0), rel=1e-10)
    src = _code(srcad.source(g, 0.2, 0.1, y))
    assert "_broadcast_to(1.0" not in src and "np.where(" not in src


def test_t_prior_folds_its_constant_tests():
    eta = np.random.default_rng(0).normal(size=6)
    g = srcad.grad(t_prior)
    assert_tree_close(g(eta), fd_grad_richardson(t_prior, (eta,)), rtol=1e-6)
    assert_tree_close(g(eta), -5.0 * eta / (4.0 + eta * eta), rtol=1e-12)
    assert "isinf" not in _code(srcad.source(g, eta))


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_sum_of_a_broadcast_number(shape):
    x = np.random.default_rng(1).normal(size=shape)
    gx, gs = srcad.grad(spread_sum, argnums=(0, 1))(x, 1.5)
    assert_tree_close(gx, fd_grad_richardson(spread_sum, (x, 1.5), 0), rtol=1e-6)
    assert gs == pytest.approx(fd_grad_richardson(spread_sum, (x, 1.5), 1), rel=1e-6)
    size = x.size          # hand-derived: d/dx = s * size + s, d/ds = size * sum(x) + sum(x)
    assert_tree_close(gx, np.full(shape, 1.5 * size + 1.5), rtol=1e-12)
    assert gs == pytest.approx((size + 1) * np.sum(x), rel=1e-12)


def softmax_dot(x, w):
    e = np.exp(x - np.max(x))
    return np.dot(e / np.sum(e), w)


def weighted(x, w):
    return np.sum(np.sin(x)) * np.sum(x * w)


@pytest.mark.parametrize("n", [2, 50])
def test_scalar_factors_leave_sums(n):
    rng = np.random.default_rng(n)
    x, w = rng.normal(size=n), rng.normal(size=n)
    for f in (softmax_dot, weighted):
        gx, gw = srcad.grad(f, argnums=(0, 1))(x, w)
        assert_tree_close(gx, fd_grad_richardson(f, (x, w), 0), rtol=1e-6)
        assert_tree_close(gw, fd_grad_richardson(f, (x, w), 1), rtol=1e-6)
    src = _code(srcad.source(srcad.grad(softmax_dot), x, w))
    # c * sum(w * e), not sum(c * (w * e)); and the sum of a product of two vectors is their dot
    assert "(w * e)).sum()" not in src and "np.dot(w, e)" in src
