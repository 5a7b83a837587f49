"""A multi-layer perceptron classifier trained by maximum a posteriori, in the style of
autograd's neural_net example: the parameters are a list of (weights, biases) tuples, the
predictor loops over them, and the data set is made up on the spot (three noisy spirals)."""

import numpy as np
from scipy.special import logsumexp

import srcad


def init_random_params(scale, layer_sizes, seed=0):
    """A list of (weight matrix, bias vector) tuples, one per layer."""
    rs = np.random.RandomState(seed)
    return [(scale * rs.randn(m, n), scale * rs.randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def neural_net_predict(params, inputs, nonlinearity=np.tanh):
    """Class log-probabilities: hidden layers through `nonlinearity`, a linear last layer,
    then normalised."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = nonlinearity(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)


def log_posterior(params, inputs, targets, L2_reg):
    log_prior = -L2_reg * l2_norm(params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def accuracy(params, inputs, targets):
    target_class = np.argmax(targets, axis=1)
    predicted_class = np.argmax(neural_net_predict(params, inputs), axis=1)
    return np.mean(predicted_class == target_class)


def make_spirals(num_per_class=30, num_classes=3, noise=0.2, seed=1):
    """Points on num_classes interleaved spiral arms, with one-hot labels."""
    rs = np.random.RandomState(seed)
    inputs, labels = [], []
    for k in range(num_classes):
        radius = np.linspace(0.1, 1.0, num_per_class)
        angle = np.linspace(k * 4.0, (k + 1) * 4.0, num_per_class) + noise * rs.randn(num_per_class)
        inputs.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        labels.append(np.full(num_per_class, k))
    labels = np.concatenate(labels)
    return np.concatenate(inputs), np.eye(num_classes)[labels]


def main(steps=30, batch_size=30, step_size=0.01):
    layer_sizes = [2, 16, 16, 3]
    L2_reg = 0.01
    train_inputs, train_targets = make_spirals()
    perm = np.random.RandomState(2).permutation(len(train_inputs))
    train_inputs, train_targets = train_inputs[perm], train_targets[perm]
    init_params = init_random_params(0.3, layer_sizes)
    num_batches = int(np.ceil(len(train_inputs) / batch_size))

    def batch_indices(iter):
        idx = iter % num_batches
        return slice(idx * batch_size, (idx + 1) * batch_size)

    def objective(params, iter):
        idx = batch_indices(iter)
        return -log_posterior(params, train_inputs[idx], train_targets[idx], L2_reg)

    objective_grad = srcad.grad(objective)
    params = init_params
    velocity = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params]
    for i in range(steps):
        g = objective_grad(params, i)
        velocity = [(0.9 * vW - gW, 0.9 * vb - gb) for (vW, vb), (gW, gb) in zip(velocity, g)]
        params = [(W + step_size * vW, b + step_size * vb) for (W, b), (vW, vb) in zip(params, velocity)]
        if i % 10 == 0:
            print(f"{i:4d} train accuracy {accuracy(params, train_inputs, train_targets):.3f}")
    return init_params, params, (train_inputs, train_targets)


if __name__ == "__main__":
    init_params, params, (inputs, targets) = main(steps=300)
    print(f"accuracy {accuracy(init_params, inputs, targets):.3f} -> {accuracy(params, inputs, targets):.3f}")
