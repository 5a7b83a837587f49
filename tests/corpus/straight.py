"""Straight-line code: operators, math functions, numpy elementwise and reductions."""

import math
from math import exp as mexp

import numpy as np
import numpy as onp  # an alias: resolution is by object, not by spelling


def poly(x):
    return 3.0 * x ** 3 - 2.0 * x + 1.0 / x


def mixed_ops(x, y):
    a = x * y + x / y - y ** 2.5
    b = -a + abs(x - y) + (+y)
    return a * b + x % 1.7


def math_chain(x):
    return math.sin(x) * math.cos(x) + math.exp(-x * x) + math.log1p(x * x) + math.atan2(x, 2.0)


def math_more(x, y):
    return (math.hypot(x, y) + math.pow(x, y) + math.sqrt(y) + math.tanh(x) + math.erf(x)
            + math.log(y, 3.0) + math.log10(y) + math.log2(y) + math.expm1(x) + math.sinh(x)
            + math.cosh(y) + math.asin(x / 4.0) + math.acos(x / 5.0) + math.atan(y) + math.fabs(x)
            + math.tan(x / 3.0))


def aliases(x):
    return onp.sum(onp.sin(x)) + mexp(0.5) * np.sum(x ** 2)


def augmented(x, y):
    z = x
    z += y
    z *= x
    z -= 1.0
    z /= y
    z **= 2
    return z


def tuple_assign(x, y):
    a, b = x * 2.0, y + 1.0
    a, b = b, a
    (c, d), e = (a * b, a - b), 3.0
    return c + d * e


def builtins_use(x, y):
    return max(x, y) * 2.0 + min(x, y) + float(x) * abs(y) + pow(x, 2)


def builtin_extrema(a, b, c):
    return max([a, b, c]) * min(a, b, c) + max(a, b) - min((a * b, c))


def numpy_elementwise(x):
    return np.sum(np.exp(x) + np.log(x) + np.sqrt(x) + np.tanh(x) * np.cos(x) + np.square(x)
                  + np.reciprocal(x) + np.arctan(x) + np.sinh(x / 3.0) + np.log1p(x) + np.power(x, 1.5))


def numpy_binary(x, y):
    return np.sum(np.maximum(x, y) + np.minimum(x, 0.3) * y + np.hypot(x, y) + np.arctan2(x, y)
                  + np.where(x > 0.5, x * y, -y) + np.clip(x, 0.2, 0.8) + np.logaddexp(x, y))


def reductions(x):
    return (np.sum(x, axis=1).dot(np.mean(x, axis=1, keepdims=True).ravel())
            + np.prod(x[0]) + np.max(x) + np.min(x, axis=1).sum() + x.mean() + x.sum(axis=1).max())


def broadcasting(x, b):
    y = x * b + b ** 2 - x / (1.0 + b)
    return np.sum(y * y)


def matrix_products(A, v):
    w = A @ v
    B = A.T @ A
    return np.sum(w * w) + np.sum(np.dot(B, v)) + v @ v + np.sum(A.dot(A.T)) + np.sum(np.outer(v, w))


def shapes(x):
    y = x.reshape(3, 2).T
    z = np.transpose(y) * np.reshape(x, (3, 2))
    return np.sum(z ** 2) + np.sum(np.ravel(y) * x)


def ints_untouched(x, n):
    k = n * 2 + 1
    return x ** k / k


def constant_output(x):
    return 3.0


def global_data(x):
    return x * SCALE + np.sum(WEIGHTS) * x


SCALE = 2.5
WEIGHTS = np.array([1.0, -2.0, 0.5])


def element_and_sum(x):
    return x[0] * 3.0 + np.sum(x)  # the sum's cotangent is a read-only broadcast


def neighbours(x):
    return np.sum(x[1:] * x[:-1]) - x[-1]


def dict_new_keys(x):
    d = {}
    d["a"] = x * x
    d["b"] = d["a"] * x + d["a"]
    return d["b"]


def copied_dict(x):
    d = {"a": x, "b": 2.0}
    e = d.copy()  # a new dict: writing into it leaves d as it was
    e["a"] = x * x
    return d["a"] * e["a"] + e["b"] * x


def divmod_parts(x):
    q, r = divmod(x, 0.4)
    return q * x + r * r


def repeated_fancy_writes(x):
    y = np.zeros(3)
    y[[0, 0, 2]] = x  # index 0 twice: the later write (x[1]) wins
    z = np.zeros(2)
    z[[1, 1]] += x[:2]  # buffered: adds once
    return np.sum(y * np.array([1.0, 10.0, 100.0])) + z[1] * x[2]


def arange_from(x):
    return np.sum(np.sin(np.arange(x, x + 2.5, 0.5)))


def int_weights(A):
    Q = A.copy()
    Q[:, 0] = Q[:, 0] * 2.0
    return np.sum(Q * np.arange(Q.size).reshape(Q.shape)) + np.sum(A * np.arange(A.size).reshape(A.shape))


rng = np.random.default_rng(1)
X = rng.uniform(0.2, 0.9, size=5)
Y = rng.uniform(0.2, 0.9, size=5)
M = rng.normal(size=(2, 3))

CASES = [
    (poly, (1.3,)),
    (mixed_ops, (0.7, 1.9)),
    (math_chain, (0.6,)),
    (math_more, (0.7, 1.3)),
    (aliases, (X,)),
    (augmented, (0.8, 1.4)),
    (tuple_assign, (0.5, 0.25)),
    (builtins_use, (0.3, 0.8)),
    (builtins_use, (0.8, 0.3)),
    (builtin_extrema, (0.3, 0.9, 0.5)),
    (builtin_extrema, (0.9, 0.2, 0.6)),
    (numpy_elementwise, (X,)),
    (numpy_binary, (X, Y)),
    (reductions, (M,)),
    (broadcasting, (rng.normal(size=(3, 4)), rng.uniform(0.5, 1.0, size=4))),
    (broadcasting, (rng.normal(size=(3, 4)), 0.7)),
    (matrix_products, (M, rng.normal(size=3))),
    (shapes, (rng.normal(size=6),)),
    (ints_untouched, (1.2, 2)),
    (constant_output, (1.2,)),
    (global_data, (0.4,)),
    (element_and_sum, (rng.normal(size=4),)),
    (neighbours, (rng.normal(size=5),)),
    (dict_new_keys, (0.9,)),
    (copied_dict, (0.9,)),
    (divmod_parts, (1.3,)),
    (repeated_fancy_writes, (rng.normal(size=3),)),
    (arange_from, (0.3,)),
    (int_weights, (rng.normal(size=(3, 2)),)),
]
