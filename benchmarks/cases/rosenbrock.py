"""Rosenbrock, vectorised: the classic small-to-large NumPy objective."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad(x):
    head = x[:-1]
    t = 200.0 * (x[1:] - head * head)
    g = np.empty_like(x)
    g[0] = 0.0
    g[1:] = t
    g[:-1] -= 2.0 * (head * t + 1.0 - head)
    return g


def rosenbrock_hvp(x, v):
    """The Hessian (tridiagonal) times v."""
    head = x[:-1]
    diag = np.empty_like(x)
    diag[:-1] = 1200.0 * head * head - 400.0 * x[1:] + 2.0
    diag[-1] = 0.0
    diag[1:] += 200.0
    hv = diag * v
    hv[:-1] -= 400.0 * head * v[1:]
    hv[1:] -= 400.0 * head * v[:-1]
    return hv


def rosenbrock_torch(x):
    return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def inputs(n):
    return lambda: (np.random.default_rng(0).uniform(-2.0, 2.0, n),)


CASE = Case(
    name="rosenbrock", forward=rosenbrock, hand_grad=rosenbrock_grad,
    sizes=(Size("n=10", inputs(10)), Size("n=1e3", inputs(1000)),
           Size("n=1e5", inputs(100_000), quick=False),
           Size("n=1e6", inputs(1_000_000), quick=False, peer_limit=("jax",))),
    peers={"autograd": SAME, "jax": SAME, "torch": rosenbrock_torch}, faults=True,
)
