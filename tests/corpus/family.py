"""Functions for the transformation family: non-scalar outputs, pytrees, custom rules."""

import math

import numpy as np

import srcad


def vector_map(x):
    return np.tanh(x) * x[0] + np.sin(x[::-1])


def two_outputs(x, y):
    return x * y, np.sum(x ** 2) + y


def matrix_out(x):
    return np.outer(x, np.exp(x))


def loop_map(x, n):
    h = x
    for _ in range(n):
        h = np.tanh(h * 1.3 + 0.1)
    return h


def mlp_params(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    return np.sum((params["W2"] @ h) ** 2)


def layers(ws, x):
    for W, b in ws:
        x = np.tanh(W @ x + b)
    return np.sum(x * x)


def nested_tuple(p):
    a, (b, c) = p
    return a * b + c ** 2 * math.sin(a)


def scalar_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s * x + math.sin(s + x)
    return s


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@srcad.custom_vjp
def clipped_log(x):
    return math.log(max(x, 1e-8))


def _clipped_log_fwd(x):
    return clipped_log(x), max(x, 1e-8)


def _clipped_log_bwd(xc, g):
    return (g / xc,)


clipped_log.defvjp(_clipped_log_fwd, _clipped_log_bwd)


@srcad.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1.0 + np.exp(-x))


def uses_clipped_log(x):
    s = 0.0
    for i in range(3):
        s = s + clipped_log(x * (i + 1.0))
    return s * x


def uses_softplus(x):
    return np.sum(softplus(x) * x)


def scaled_sin(x, flag):
    return np.sin(x) * (2.0 if flag else 1.0)


def uses_scaled_sin(x, flag):
    return np.sum(scaled_sin(x, flag) * x)


def jac_mix(x, A):
    y = np.tanh(A @ x) * x[0]
    z = np.sum(np.outer(y, x) ** 2, axis=1) + y[::-1] * np.mean(x)
    w = (A.T @ z).reshape(2, -1).T.ravel()
    return np.concatenate([w, np.cumsum(x)]) * np.sum(x, keepdims=True)


def jac_loop(x, n):
    h = x
    for k in range(n):
        h = np.sin(h) * h[k % 3] + h.sum()
    return h


def scaled_vector(p):
    return p["a"] * np.sin(p["v"])


def value_and_norm(x):
    return np.sin(x), np.sum(x ** 2)


def dict_iteration(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    l2 = sum(np.sum(w ** 2) for w in params.values())
    s = 0.0
    for k, v in params.items():
        s = s + np.sum(v) * (2.0 if k == "W" else 1.0)
    for k in params:
        s = s + np.mean(params[k] ** 2)
    return np.sum(h ** 2) + 0.1 * l2 + s
