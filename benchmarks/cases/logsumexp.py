"""Numerically stable logsumexp of a vector."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_grad(x):
    # the max's two contributions cancel: the gradient is the softmax of x
    e = np.exp(x - np.max(x))
    e /= np.sum(e)
    return e


def logsumexp_torch(x):
    m = torch.max(x)
    return m + torch.log(torch.sum(torch.exp(x - m)))


def inputs(n):
    return lambda: (np.random.default_rng(1).normal(0.0, 3.0, n),)


CASE = Case(
    name="logsumexp", forward=logsumexp, hand_grad=logsumexp_grad,
    sizes=(Size("n=1e3", inputs(1000)), Size("n=1e5", inputs(100_000), quick=False)),
    peers={"autograd": SAME, "jax": SAME, "torch": logsumexp_torch}, faults=True,
)
