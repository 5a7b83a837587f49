"""A multilayer perceptron written the way autograd's examples write it, differentiated as it is.

The parameters are a list of (W, b) layers; `predict` takes a `nonlinearity` argument and
defines its layer step as a nested function; the objective is a closure made by a factory
(`make_objective`) that sums a penalty with `map` and a lambda; a helper takes `*args`.
srcad reads all of it, inlines the nested functions and the lambda, specialises the code on
the nonlinearity given, and trains the network by gradient descent on a noisy sine.

The gradient is checked against central finite differences along random directions (an
independent oracle), for tanh and for a softplus lambda given as the nonlinearity.

    python examples/mlp_closures.py
"""

import numpy as np

import srcad


def init_params(sizes, rng, scale=0.5):
    return [(scale * rng.standard_normal((m, n)), scale * rng.standard_normal(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def concat_and_multiply(weights, *args):
    """[args..., 1] @ weights: a layer on several inputs at once (autograd's rnn.py)."""
    cat = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return cat @ weights


def predict(params, inputs, nonlinearity=np.tanh):
    def layer(h, W, b):  # a nested step function, reading `nonlinearity` when it runs
        return nonlinearity(h @ W + b)

    *hidden, (W_out, b_out) = params
    for W, b in hidden:
        inputs = layer(inputs, W, b)
    return concat_and_multiply(np.vstack([W_out, b_out]), inputs)


def make_objective(inputs, targets, nonlinearity=np.tanh, l2=1e-3):
    def objective(params):
        preds = predict(params, inputs, nonlinearity)
        penalty = sum(map(lambda layer: np.sum(layer[0] ** 2), params))
        return np.mean((preds - targets) ** 2) + l2 * penalty
    return objective


def finite_difference_check(objective, params, rng, eps=1e-6):
    """max relative error of srcad's gradient along random directions (central differences)."""
    grads = srcad.grad(objective)(params)
    worst = 0.0
    for _ in range(3):
        dirs = [(rng.standard_normal(W.shape), rng.standard_normal(b.shape)) for W, b in params]
        plus = [(W + eps * dW, b + eps * db) for (W, b), (dW, db) in zip(params, dirs)]
        minus = [(W - eps * dW, b - eps * db) for (W, b), (dW, db) in zip(params, dirs)]
        fd = (objective(plus) - objective(minus)) / (2 * eps)
        ad = sum(np.sum(gW * dW) + np.sum(gb * db) for (gW, gb), (dW, db) in zip(grads, dirs))
        worst = max(worst, abs(ad - fd) / max(1.0, abs(fd)))
    return worst


def main():
    rng = np.random.default_rng(0)
    inputs = np.linspace(-2.0, 2.0, 40)[:, None]
    targets = np.sin(2.0 * inputs) + 0.05 * rng.standard_normal(inputs.shape)
    params = init_params([1, 16, 16, 1], rng)

    errors = []
    for name, act in (("tanh", np.tanh), ("softplus lambda", lambda z: np.log1p(np.exp(z)))):
        err = finite_difference_check(make_objective(inputs, targets, act), params, rng)
        print(f"{name}: max relative |grad - finite differences| = {err:.1e}")
        errors.append(err)

    objective = make_objective(inputs, targets)
    step = srcad.value_and_grad(objective)
    for i in range(301):
        loss, grads = step(params)
        if i % 100 == 0:
            print(f"step {i:3d}  loss {loss:.4f}")
        params = [(W - 0.1 * gW, b - 0.1 * gb) for (W, b), (gW, gb) in zip(params, grads)]
    print(f"final loss {objective(params):.4f}")
    print(srcad.source(step).splitlines()[0])
    ok = max(errors) < 1e-6 and objective(params) < 0.1
    print("check: OK" if ok else "check: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
