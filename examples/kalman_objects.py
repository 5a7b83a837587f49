"""Fitting the noise levels of a Kalman filter written as a class, made inside the loss.

The filter is an ordinary object: `__init__` stores the noise variances and the state, and
`update` changes its attributes at every observation. srcad differentiates through it as if
its attributes were local variables (the object never reaches the generated code: see
docs/guide.md, "Objects made inside the function"). The gradient of the negative
log-likelihood with respect to the log-variances is checked against central finite
differences, then scipy's L-BFGS-B fits them on data simulated with known noise levels.

    python examples/kalman_objects.py
"""

import math

import numpy as np
from scipy.optimize import minimize

import srcad


class LocalLevelFilter:
    """y_t = level_t + noise (variance r); level_t = level_{t-1} + drift (variance q)."""

    def __init__(self, q, r, mean=0.0, var=10.0):
        self.q, self.r = q, r
        self.mean, self.var = mean, var
        self.loglik = 0.0

    def update(self, y):
        var_pred = self.var + self.q
        s = var_pred + self.r  # the variance of the prediction of y
        gain = var_pred / s
        resid = y - self.mean
        self.loglik += -0.5 * (math.log(2.0 * math.pi * s) + resid * resid / s)
        self.mean += gain * resid
        self.var = (1.0 - gain) * var_pred


def neg_loglik(log_qr, ys):
    kf = LocalLevelFilter(math.exp(log_qr[0]), math.exp(log_qr[1]))
    for y in ys:
        kf.update(y)
    return -kf.loglik


def central_difference(f, x, eps=1e-5):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2.0 * eps)
    return out


def main():
    rng = np.random.default_rng(4)
    q_true, r_true, n = 0.05, 0.5, 400
    level = np.cumsum(rng.normal(0.0, math.sqrt(q_true), n))
    ys = list(level + rng.normal(0.0, math.sqrt(r_true), n))

    value_and_grad = srcad.value_and_grad(neg_loglik)
    x0 = np.array([0.0, 0.0])
    _, g0 = value_and_grad(x0, ys)
    fd = central_difference(lambda x: neg_loglik(x, ys), x0)
    worst = float(np.max(np.abs(g0 - fd) / (np.abs(fd) + 1e-8)))
    print(f"max relative |grad - finite differences| at the start: {worst:.1e}")

    res = minimize(lambda x: value_and_grad(x, ys), x0, jac=True, method="L-BFGS-B")
    q, r = np.exp(res.x)
    print(f"L-BFGS-B: {res.nit} iterations, negative log-likelihood {res.fun:.3f}")
    print(f"drift variance q: fitted {q:.3f} (simulated with {q_true})")
    print(f"noise variance r: fitted {r:.3f} (simulated with {r_true})")

    # independent checks: finite differences, and a stationary point found by scipy alone
    assert worst < 1e-6, worst
    g_fit = central_difference(lambda x: neg_loglik(x, ys), res.x)
    assert np.max(np.abs(g_fit)) < 1e-3, g_fit
    assert abs(math.log(r / r_true)) < 0.5 and abs(math.log(q / q_true)) < 1.5, (q, r)
    print("check: OK")


if __name__ == "__main__":
    main()
