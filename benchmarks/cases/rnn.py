"""A vanilla RNN, h <- tanh(W h + U x[t]) over T=50 steps, hidden 64, input 32, with h of
shape (64, batch); loss sum(h_T ** 2); gradient w.r.t. W and U."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed

STEPS, HIDDEN, INPUT = 50, 64, 32


def rnn_loss(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_loss_grad(W, U, h0, xs):
    T = xs.shape[0]
    H = np.empty((T + 1,) + h0.shape)       # all hidden states, H[0] = h0
    H[0] = h0
    for t in range(T):
        np.tanh(W @ H[t] + U @ xs[t], out=H[t + 1])
    A = np.empty_like(H[1:])                 # cotangents of the pre-activations
    h_bar = 2.0 * H[T]
    WT = W.T
    for t in range(T - 1, -1, -1):
        a = h_bar * (1.0 - H[t + 1] * H[t + 1])
        A[t] = a
        h_bar = WT @ a
    # sum over steps and batch of the outer products, as one contraction each
    W_bar = np.tensordot(A, H[:-1], axes=([0, 2], [0, 2]))
    U_bar = np.tensordot(A, xs, axes=([0, 2], [0, 2]))
    return W_bar, U_bar


def rnn_loss_torch(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(W @ h + U @ xs[t])
    return torch.sum(h * h)


def inputs(batch):
    def build():
        rng = np.random.default_rng(3)
        W = rng.normal(0.0, 1.0 / np.sqrt(HIDDEN), (HIDDEN, HIDDEN))
        U = rng.normal(0.0, 1.0 / np.sqrt(INPUT), (HIDDEN, INPUT))
        h0 = rng.normal(0.0, 0.5, (HIDDEN, batch))
        xs = rng.normal(0.0, 1.0, (STEPS, INPUT, batch))
        return W, U, h0, xs
    return build


CASE = Case(
    name="rnn", forward=rnn_loss, hand_grad=rnn_loss_grad, argnums=(0, 1),
    sizes=(Size("T=50,b=1", inputs(1)), Size("T=50,b=32", inputs(32), quick=False)),
    peers={"autograd": SAME, "jax": SAME, "torch": rnn_loss_torch}, memory=True,
)
