"""Gaussian-process regression: the kernel's hyperparameters fitted by maximising the marginal
likelihood, written with scipy.stats.multivariate_normal.logpdf and differentiated by srcad.

40 noisy samples (fixed seed) of sin(3 x) on [-2, 2]; a squared-exponential kernel with log
length scale, log signal scale and log noise scale theta. The objective is the negative log
marginal likelihood -log N(y; 0, K(theta)) plus a weak log-normal prior on the length scale
(scipy.stats.lognorm.logpdf); scipy.optimize.minimize(method="L-BFGS-B") gets its gradient
from srcad.grad. Prints the fitted hyperparameters and the predictive mean at a few points,
and checks srcad's gradient against central finite differences and the fitted marginal
likelihood against scipy's own value.

    python examples/gp_stats.py
"""

import numpy as np
import scipy.optimize
import scipy.stats

import srcad


def kernel(theta, a, b):
    """Squared-exponential covariance between the points a and b (1-d arrays)."""
    length, signal = np.exp(theta[0]), np.exp(theta[1])
    d = a[:, None] - b[None, :]
    return signal * signal * np.exp(-0.5 * d * d / (length * length))


def objective(theta, x, y):
    """The negative log marginal likelihood, and a prior on the length scale."""
    noise = np.exp(theta[2])
    cov = kernel(theta, x, x) + (noise * noise + 1e-8) * np.eye(len(x))
    log_lik = scipy.stats.multivariate_normal.logpdf(y, np.zeros(len(x)), cov)
    log_prior = scipy.stats.lognorm.logpdf(np.exp(theta[0]), 1.0, scale=0.5)
    return -(log_lik + log_prior)


def predict(theta, x, y, xs):
    noise = np.exp(theta[2])
    cov = kernel(theta, x, x) + (noise * noise + 1e-8) * np.eye(len(x))
    return kernel(theta, xs, x) @ np.linalg.solve(cov, y)


def central_difference(f, theta, eps=1e-5):
    out = np.zeros_like(theta)
    for i in range(len(theta)):
        e = np.zeros_like(theta)
        e[i] = eps
        out[i] = (f(theta + e) - f(theta - e)) / (2 * eps)
    return out


def main():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(-2.0, 2.0, size=40))
    y = np.sin(3.0 * x) + 0.1 * rng.normal(size=40)
    grad = srcad.grad(objective)

    theta0 = np.array([0.0, 0.0, -1.0])
    fd = central_difference(lambda th: objective(th, x, y), theta0)
    worst = np.max(np.abs(grad(theta0, x, y) - fd) / (np.abs(fd) + 1e-8))
    print(f"max relative |grad - finite differences| at theta0: {worst:.1e}")

    result = scipy.optimize.minimize(objective, theta0, args=(x, y), jac=grad, method="L-BFGS-B")
    theta = result.x
    length, signal, noise = np.exp(theta)
    print(f"L-BFGS-B: {result.nit} iterations, -log p = {result.fun:.4f}")
    print(f"length scale {length:.3f}, signal scale {signal:.3f}, noise scale {noise:.3f}")
    xs = np.array([-1.5, 0.0, 1.5])
    for xi, mi in zip(xs, predict(theta, x, y, xs)):
        print(f"predictive mean at {xi:+.1f}: {mi:+.3f} (sin(3x) = {np.sin(3 * xi):+.3f})")

    # independent checks: finite differences, and scipy's own densities at the optimum
    assert worst < 1e-6, worst
    cov = kernel(theta, x, x) + (noise * noise + 1e-8) * np.eye(len(x))
    want = -(scipy.stats.multivariate_normal(np.zeros(len(x)), cov).logpdf(y)
             + scipy.stats.lognorm(1.0, scale=0.5).logpdf(length))
    assert abs(result.fun - want) < 1e-8 * abs(want), (result.fun, want)
    assert np.linalg.norm(grad(theta, x, y)) < 1e-3
    assert 0.05 < noise < 0.2, noise
    print("check: OK")


if __name__ == "__main__":
    main()
