"""A softmax followed by a dot product with a weight vector: a few full-size temporaries per
call, so at large n the gradient's cost is as much memory traffic (and page faults, when the
allocator gives memory back to the kernel between calls) as arithmetic."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed


def softmax_dot(x, w):
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    return np.dot(p, w)


def softmax_dot_grad(x, w):
    # d/dx (p . w) = p * (w - p . w), p = softmax(x); the max's contribution cancels.
    # Two full-size arrays, both written in place: p, then the gradient.
    p = x - np.max(x)
    np.exp(p, out=p)
    p /= np.sum(p)
    g = w - np.dot(p, w)
    g *= p
    return g


def softmax_dot_torch(x, w):
    e = torch.exp(x - torch.max(x))
    p = e / torch.sum(e)
    return torch.dot(p, w)


def inputs(n):
    def build():
        rng = np.random.default_rng(2)
        return rng.normal(0.0, 3.0, n), rng.normal(0.0, 1.0, n)
    return build


CASE = Case(
    name="softmax_dot", forward=softmax_dot, hand_grad=softmax_dot_grad,
    sizes=(Size("n=1e3", inputs(1000)), Size("n=1e5", inputs(100_000), quick=False),
           Size("n=1e6", inputs(1_000_000), quick=False, peer_limit=("jax",))),
    peers={"autograd": SAME, "jax": SAME, "torch": softmax_dot_torch}, faults=True,
)
