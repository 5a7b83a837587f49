"""An MLP written with layer objects, differentiated as it is written.

Two ways people write it, both trained for a few steps on a toy regression (fixed seed):

1. `Dense` layers are objects with `__call__(self, x, W, b)`: the layer knows its activation,
   the weights are passed in as a list of (W, b) pairs, and `Model.loss(params, x, y)` loops
   over its layers. srcad differentiates with respect to `params`; the model is an argument
   that is not differentiated.
2. The parameters are dataclasses (`Layer` with fields W and b and a static activation), and
   the gradient comes back as a list of `Layer`s.

The script prints the loss as training goes, part of the generated gradient, and checks
both gradients, a Hessian-vector product and a forward-mode derivative against central
finite differences.

    python examples/layer_objects.py
"""

import dataclasses

import numpy as np

import srcad


def identity(z):
    return z


class Dense:
    """A layer: it knows its activation; the weights are passed in."""

    def __init__(self, activation=np.tanh):
        self.activation = activation

    def __call__(self, x, W, b):
        return self.activation(x @ W + b)


class Model:
    def __init__(self, layers, l2):
        self.layers = layers
        self.l2 = l2

    def predict(self, params, x):
        h = x
        for layer, (W, b) in zip(self.layers, params):
            h = layer(h, W, b)
        return h

    def loss(self, params, x, y):
        err = self.predict(params, x)[:, 0] - y
        penalty = sum(np.sum(W * W) for W, _ in params)
        return np.mean(err ** 2) + self.l2 * penalty


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    activation: str = dataclasses.field(default="tanh", metadata={"static": True})

    def __call__(self, x):
        z = x @ self.W + self.b
        return np.tanh(z) if self.activation == "tanh" else z


def loss_of_layers(layers, x, y):
    h = x
    for layer in layers:
        h = layer(h)
    return np.mean((h[:, 0] - y) ** 2)


# -- an independent oracle: central differences over every weight --------------------------

def flat(params):
    return np.concatenate([np.ravel(a) for pair in params for a in pair])


def unflat(v, like):
    out, k = [], 0
    for W, b in like:
        W2 = v[k:k + W.size].reshape(W.shape)
        k += W.size
        b2 = v[k:k + b.size].reshape(b.shape)
        k += b.size
        out.append((W2, b2))
    return out


def central_differences(f, v, eps=1e-6):
    out = np.zeros_like(v)
    for i in range(v.size):
        e = np.zeros_like(v)
        e[i] = eps
        out[i] = (f(v + e) - f(v - e)) / (2 * eps)
    return out


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, size=(64, 2))
    y = np.sin(2.0 * x[:, 0]) * x[:, 1]
    model = Model([Dense(), Dense(), Dense(identity)], l2=1e-3)
    sizes = [(2, 8), (8, 8), (8, 1)]
    params = [(rng.normal(size=s) / np.sqrt(s[0]), np.zeros(s[1])) for s in sizes]

    # 1. layer objects, weights passed in
    loss_and_grad = srcad.value_and_grad(lambda p, m, x, y: m.loss(p, x, y))
    for step in range(201):
        loss, grads = loss_and_grad(params, model, x, y)
        params = [(W - 0.1 * dW, b - 0.1 * db) for (W, b), (dW, db) in zip(params, grads)]
        if step % 50 == 0:
            print(f"step {step:3d}  loss {loss:.5f}")
    source = srcad.source(loss_and_grad, params, model, x, y)
    print("\n".join(source.splitlines()[:14]))

    def f(v):
        return model.loss(unflat(v, params), x, y)

    v0 = flat(params)
    _, grads = loss_and_grad(params, model, x, y)
    ok = np.allclose(flat(grads), central_differences(f, v0), rtol=1e-5, atol=1e-8)
    u = unflat(rng.normal(size=v0.size), params)
    hv = srcad.hvp(model.loss, (params, x, y), (u, None, None))  # (a bound method: fine too)
    grad_loss = srcad.grad(model.loss)
    fd_hv = (flat(grad_loss(unflat(v0 + 1e-5 * flat(u), params), x, y))
             - flat(grad_loss(unflat(v0 - 1e-5 * flat(u), params), x, y))) / 2e-5
    ok &= np.allclose(flat(hv), fd_hv, rtol=1e-4, atol=1e-7)

    # 2. the parameters as dataclasses: the gradient is a list of Layers
    layers = [Layer(W, b, "tanh" if k < 2 else "linear") for k, (W, b) in enumerate(params)]
    g = srcad.grad(loss_of_layers)(layers, x, y)
    print("gradient of the dataclass parameters:", [type(layer).__name__ for layer in g],
          [layer.activation for layer in g])

    def f2(v):
        pairs = unflat(v, params)
        return loss_of_layers([dataclasses.replace(a, W=W, b=b) for a, (W, b) in zip(layers, pairs)], x, y)

    ok &= np.allclose(flat([(layer.W, layer.b) for layer in g]), central_differences(f2, v0),
                      rtol=1e-5, atol=1e-8)
    t = [dataclasses.replace(layer, W=dW, b=db) for layer, (dW, db) in zip(layers, u)]
    _, tangent = srcad.jvp(loss_of_layers, (layers, x, y), (t, None, None))
    ok &= np.isclose(tangent, (f2(v0 + 1e-6 * flat(u)) - f2(v0 - 1e-6 * flat(u))) / 2e-6, rtol=1e-5)
    print("check:", "OK" if ok else "FAILED")


if __name__ == "__main__":
    main()
