"""The RNN of rnn.py written as autograd's examples write it (issue 13): a nested step
function closing over the weights and over a nonlinearity held in a variable. srcad
inlines the step and calls np.tanh's rule, so its gradient should cost what rnn.py's does."""

import numpy as np

from ..case import Case, Size
from ..peers import SAME
from .rnn import inputs, rnn_loss_grad

torch = None  # bound to the torch module by peers.py when PyTorch is installed


def rnn_nested_loss(W, U, h0, xs):
    nonlinearity = np.tanh

    def update(h, x):
        return nonlinearity(W @ h + U @ x)

    h = h0
    for t in range(xs.shape[0]):
        h = update(h, xs[t])
    return np.sum(h * h)


def rnn_nested_loss_torch(W, U, h0, xs):
    def update(h, x):
        return torch.tanh(W @ h + U @ x)

    h = h0
    for t in range(xs.shape[0]):
        h = update(h, xs[t])
    return torch.sum(h * h)


CASE = Case(
    name="rnn_nested", forward=rnn_nested_loss, hand_grad=rnn_loss_grad, argnums=(0, 1),
    sizes=(Size("T=50,b=1", inputs(1)), Size("T=50,b=32", inputs(32), quick=False)),
    peers={"autograd": SAME, "jax": SAME, "torch": rnn_nested_loss_torch},
    memory=True,
)
