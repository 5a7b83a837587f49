"""A classifier built from layer objects, the way deep-learning code is written without a
framework: each layer is an object with `build(input_size, offset)` and `forward(x, W_vect)`
that takes its weights from its slice of one flat parameter vector, and a `Sequential` model
object, given to the loss as an argument, runs them in turn (layers of several classes in
one list: srcad resolves each one's method while transforming)."""

import numpy as np
from scipy.special import logsumexp

import srcad


class Dense:
    def __init__(self, size):
        self.size = size

    def build(self, input_size, offset):
        self.shape = (input_size, self.size)
        self.w_slice = slice(offset, offset + input_size * self.size)
        self.b_slice = slice(self.w_slice.stop, self.w_slice.stop + self.size)
        return self.b_slice.stop, self.size

    def forward(self, x, W_vect):
        W = W_vect[self.w_slice].reshape(self.shape)
        return np.dot(x, W) + W_vect[self.b_slice]


class Tanh:
    def build(self, input_size, offset):
        return offset, input_size

    def forward(self, x, W_vect):
        return np.tanh(x)


class Softplus:
    def build(self, input_size, offset):
        return offset, input_size

    def forward(self, x, W_vect):
        return np.logaddexp(0.0, x)


class LogSoftmax:
    def build(self, input_size, offset):
        return offset, input_size

    def forward(self, x, W_vect):
        return x - logsumexp(x, axis=1, keepdims=True)


class Sequential:
    def __init__(self, input_size, layers, l2=0.01):
        self.layers = layers
        self.l2 = l2
        size, offset = input_size, 0
        for layer in layers:
            offset, size = layer.build(size, offset)
        self.num_weights = offset

    def __call__(self, W_vect, X):
        h = X
        for layer in self.layers:
            h = layer.forward(h, W_vect)
        return h

    def init_weights(self, scale, seed=0):
        return scale * np.random.RandomState(seed).randn(self.num_weights)


def loss(W_vect, model, X, T):
    log_prior = -model.l2 * np.dot(W_vect, W_vect)
    log_lik = np.sum(model(W_vect, X) * T)
    return -(log_prior + log_lik) / X.shape[0]


def accuracy(W_vect, model, X, T):
    return np.mean(np.argmax(model(W_vect, X), axis=1) == np.argmax(T, axis=1))


def make_problem(n=60, d=4, classes=3, seed=0):
    rs = np.random.RandomState(seed)
    centres = 2.0 * rs.randn(classes, d)
    labels = rs.randint(classes, size=n)
    X = centres[labels] + rs.randn(n, d)
    return X, np.eye(classes)[labels]


def build_model(d=4, classes=3):
    return Sequential(d, [Dense(16), Tanh(), Dense(16), Softplus(), Dense(classes), LogSoftmax()])


def main(steps=50, learning_rate=0.1):
    X, T = make_problem()
    model = build_model()
    W = model.init_weights(0.3)
    loss_grad = srcad.grad(loss)
    for _ in range(steps):
        W = W - learning_rate * loss_grad(W, model, X, T)
    return W, model, X, T


if __name__ == "__main__":
    W, model, X, T = main()
    print(f"loss {loss(W, model, X, T):.4f}, training accuracy {accuracy(W, model, X, T):.2f}")
