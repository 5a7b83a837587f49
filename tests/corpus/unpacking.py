"""*args, **kwargs and star-unpacking of values whose length is known while transforming
(issue 13, item 2), as people write them."""

import numpy as np


def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def varargs_helper(W, x):
    a = x[None, :]
    return np.sum(np.tanh(concat_and_multiply(W, a, a * a)))


def _weighted(a, b, c=1.0):
    return a * b + c


def _scaled(x, **kw):
    return x * kw["scale"] + kw["shift"]


def star_of_tuples(x):
    args = (x, 2.0)
    opts = {"c": x * x}
    return _weighted(*args) + _weighted(*args, **opts) + _scaled(x, scale=3.0, shift=x)


def _all_of(*xs, **named):
    total = 0.0
    for v in xs:
        total = total + v * v
    return total + named["w"] * len(xs)


def varargs_loop(x):
    return _all_of(x, 2.0 * x, np.sin(x), w=x) + _all_of(w=1.0)


def shapes_unpacked(x):
    z = np.zeros((*x.shape, 2))
    n = np.ones(x.shape[::-1]).reshape(*x.shape)
    return np.sum(x * n) + np.sum(z) + np.sum(np.ones((*x.shape[:1], 1)) * x)


def noise_of_its_shape(x):
    rs = np.random.RandomState(0)
    return np.sum(x * rs.randn(*x.shape)) + np.sum(np.ones((*x.shape[1:], 2)))


def _area(a, b):
    return a * b


def shape_into_parameters(x):
    return _area(*x.shape) * np.sum(x * x)


def lists_unpacked(x):
    xs = [x, x * 2.0]
    ys = [*xs, 3.0]
    return _area(*xs) + sum(ys) + sum([*ys, *xs])


def zipped_pairs(x):
    pairs = ((x, 2.0), (3.0, x * x))
    firsts, seconds = zip(*pairs)
    return firsts[0] * seconds[1] + firsts[1] * seconds[0]


def zip_star_loop(x):
    cols = ([x, 2.0 * x], [np.sin(x), 1.0])
    s = 0.0
    for a, b in zip(*cols):
        s = s + a * b
    return s


def _split(params, sizes):
    out, start = [], 0
    for n in sizes:
        out.append(params[start:start + n])
        start = start + n
    return out


def unpack_params(params):
    W, b = _split(params, (4, 2))
    return np.sum(np.tanh(W.reshape(2, 2) @ b))


CASES = [
    (varargs_helper, (np.array([[0.1], [0.2], [0.3], [0.4], [0.5]]), np.array([0.5, -1.0]))),
    (star_of_tuples, (0.7,)),
    (varargs_loop, (0.6,)),
    (shapes_unpacked, (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),)),
    (noise_of_its_shape, (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),)),
    (shape_into_parameters, (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),)),
    (lists_unpacked, (0.7,)),
    (zipped_pairs, (0.8,)),
    (zip_star_loop, (0.5,)),
    (unpack_params, (np.array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6]),)),
]
