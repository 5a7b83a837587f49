"""A two-layer tanh MLP with a softmax cross-entropy loss (one-hot targets), batch 64,
input dim = hidden width, 10 classes; gradient w.r.t. W1, b1, W2, b2."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed

BATCH, CLASSES = 64, 10


def mlp_loss(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    zmax = np.max(z, axis=1, keepdims=True)
    logp = z - zmax - np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


def mlp_loss_grad(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    p = np.exp(z - np.max(z, axis=1, keepdims=True))
    p /= np.sum(p, axis=1, keepdims=True)
    dz = (p - Y) / X.shape[0]              # rows of Y are one-hot
    dh = (dz @ W2.T) * (1.0 - h * h)
    return X.T @ dh, np.sum(dh, axis=0), h.T @ dz, np.sum(dz, axis=0)


def mlp_loss_torch(W1, b1, W2, b2, X, Y):
    h = torch.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    zmax = torch.amax(z, dim=1, keepdim=True)
    logp = z - zmax - torch.log(torch.sum(torch.exp(z - zmax), dim=1, keepdim=True))
    return -torch.sum(Y * logp) / X.shape[0]


def inputs(width):
    def build():
        rng = np.random.default_rng(2)
        scale = 1.0 / np.sqrt(width)
        W1 = rng.normal(0.0, scale, (width, width))
        W2 = rng.normal(0.0, scale, (width, CLASSES))
        X = rng.normal(0.0, 1.0, (BATCH, width))
        Y = np.eye(CLASSES)[rng.integers(0, CLASSES, BATCH)]
        return W1, rng.normal(0.0, 0.1, width), W2, rng.normal(0.0, 0.1, CLASSES), X, Y
    return build


CASE = Case(
    name="mlp", forward=mlp_loss, hand_grad=mlp_loss_grad, argnums=(0, 1, 2, 3),
    sizes=(Size("width=32", inputs(32)), Size("width=512", inputs(512), quick=False)),
    peers={"autograd": SAME, "jax": SAME, "torch": mlp_loss_torch},
)
