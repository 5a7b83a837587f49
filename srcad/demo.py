"""`python -m srcad demo`: differentiate a built-in example and check it."""

import inspect
import math

import numpy as np

from . import api


def loss(w, x, y):
    """Mean squared error of a tiny model with a branch and a loop."""
    total = 0.0
    for i in range(len(x)):
        pred = w[0] * math.tanh(w[1] * x[i]) + w[2]
        err = pred - y[i]
        if abs(err) < 1.0:
            total = total + err * err
        else:
            total = total + 2.0 * abs(err) - 1.0  # Huber-like: linear for large errors
    return total / len(x)


def _central_difference(f, w, *rest, eps=1e-6):
    g = np.zeros_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = eps
        g[i] = (f(w + e, *rest) - f(w - e, *rest)) / (2 * eps)
    return g


def main() -> int:
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=20)
    y = 1.5 * np.tanh(0.8 * x) + 0.1 + 0.3 * rng.normal(size=20)
    w = np.array([1.0, 0.5, 0.0])
    g = api.grad(loss)
    grad = g(w, x, y)
    print("The function:\n")
    print(inspect.getsource(loss))
    print("Its gradient, as srcad generated it:\n")
    print(api.source(g))
    ref = _central_difference(loss, w, x, y)
    err = float(np.max(np.abs(grad - ref)))
    print(f"gradient            {grad}")
    print(f"finite differences  {ref}")
    print(f"max difference      {err:.2e}")
    ok = err < 1e-6
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1
