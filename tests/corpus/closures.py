"""Nested functions, closures, lambdas and functions as values (issue 13, item 1), written
the way people write them. Every case is differentiated by the corpus tests in reverse and
forward mode and to second order, against finite differences."""

import functools
import operator

import numpy as np


def late_binding(x):
    a = 1.0
    g = lambda t: a * t  # noqa: E731
    a = x * x  # g reads a when it is called: g(x) = x ** 3
    return g(x)


def defined_in_loop(x):
    s = 0.0
    for i in range(3):
        h = lambda: x * i + s  # noqa: E731, B023 (reads i and s of this iteration)
        s = s + h()
    return s


def called_in_loop(x):
    g = lambda t: np.sin(t) * x  # noqa: E731
    s = 0.0
    for _ in range(4):
        s = s + g(s + 1.0)
    return s


def _twice(f, y):
    return f(y) + f(y * 2.0)


def passed_to_helper(x):
    def cube(t):
        return t * t * x
    return _twice(cube, x) + _twice(lambda t: t / (1.0 + x * x), 3.0)


def _make_scale(c):
    def scale(t):
        return c * t + np.tanh(c)
    return scale


def closure_factory(x):
    s = _make_scale(x * 2.0)  # s reads c after _make_scale returned: its value then
    return s(x) + s(1.0)


def nested_twice(x):
    def outer(a):
        def inner(b):
            return a * b * x
        return inner(a + 1.0) + inner(x)
    return outer(x)


def default_binds_early(x):
    a = x
    g = lambda t, k=a: t * k  # noqa: E731 (k is x, the value when g was made)
    a = 2.0
    return g(x) + a


def forward_reference(x):
    def p(t):
        return q(t) * 2.0  # q is defined after p, and before p is called
    def q(t):
        return np.sin(t) * x
    return p(x)


def lambda_called_in_comprehension(x):
    return sum([(lambda: i * x * x)() for i in range(4)])


def comprehension_variable_shadows(x):
    i = 10.0
    g = lambda: i * x  # noqa: E731 (the function's i, not the comprehension's)
    return sum([g() + i for i in range(3)])


def stored_in_a_variable(x):
    f = np.cos
    g = f
    h = lambda t: g(t) * t  # noqa: E731
    k = h
    return k(x) + f(x)


def char_rnn_step(params, inputs):
    """The shape of autograd's rnn.py: nested step functions over a loop of inputs."""
    def update_rnn(inp, hiddens):
        return np.tanh(np.dot(np.concatenate((inp, hiddens)), params["change"]))

    def hiddens_to_output(hiddens):
        out = np.dot(hiddens, params["predict"])
        return out - np.log(np.sum(np.exp(out)))

    hiddens = params["init"]
    loglik = 0.0
    for t in range(inputs.shape[0]):
        hiddens = update_rnn(inputs[t], hiddens)
        loglik = loglik + np.sum(hiddens_to_output(hiddens) * inputs[t])
    return loglik


def elbo_with_inner_bound(mean, log_std):
    """A mixture bound defined inside an ELBO (autograd's variational examples)."""
    samples = mean + np.exp(log_std) * np.array([-1.0, 0.5, 1.5])

    def log_density(z):
        return -0.5 * z * z - 0.1 * z ** 4

    def mixture_lower_bound(zs):
        return np.mean(log_density(zs)) + np.sum(log_std)

    return mixture_lower_bound(samples)


def activation(x, act):
    return np.sum(act(x) * x)


def _relu(z):
    return np.maximum(z, 0.0)


def mlp(x, layers, nonlinearity=np.tanh):
    for W, b in layers:
        x = nonlinearity(W @ x + b)
    return np.sum(x)


def mapped(x):
    return sum(map(lambda t: t * t, [x, 2.0 * x, np.sin(x)])) + sum(map(_relu, [x, -x]))


def partial_inside(x):
    p = functools.partial(np.power, x)
    q = functools.partial(lambda a, b, c: a * b + c, x, c=x * x)
    return p(3.0) + q(2.0)


def sorted_by_key(x):
    pts = [(3, x), (1, x * x), (2, np.sin(x))]
    s = sorted(pts, key=lambda p: p[0])
    return s[0][1] + 2.0 * s[1][1] + 3.0 * s[2][1]


def extremes_by_key(x):
    pts = [x, 2.0 * x, -3.0 * x]
    return max(pts, key=abs) + 10.0 * min(pts, key=lambda v: v * v)


def maybe_bound_later(x, flag):
    g = lambda: y * x  # noqa: E731 (y is assigned on both paths before g is called)
    if flag:
        y = x
    else:
        y = 2.0
    return g()


def late_binding_pitfall(x):
    fs = [lambda: i * x for i in range(3)]  # noqa: B023 (every lambda reads i when called: 2)
    return fs[0]() + 2.0 * fs[1]() + sum([f() for f in fs])


def kept_in_containers(x):
    fs = [lambda t: t * x, lambda t: np.sin(t) + x]
    ops = {"act": np.tanh, "square": lambda z: z * z}
    first, second = fs
    return fs[0](x) + fs[-1](2.0) + ops["act"](x) + ops["square"](second(x)) + first(1.0)


def _apply_all(fs, y):
    return [f(y) for f in fs]


def list_given_to_helper(x):
    scale = lambda t: t * x  # noqa: E731
    return sum(_apply_all([scale, scale], x * x))


def called_in_inner_loops(x, y):
    # a nested function made in a loop's body, called in loops inside that body (fuzz 8400:127:
    # it was refused as a value carried around the inner loops)
    total = 0.0
    for i in range(3):
        w = y[i % 2] * (i + 1.0)

        def step(a):
            return np.tanh(a * w) + 0.1 * i * a  # noqa: B023 (called in this iteration)

        k = 0
        while k < 2 and total < 50.0:
            total = total + np.sum(step(x * (k + 1.0)))
            k += 1
        for j in range(2):
            total = total + np.sum(step(x[::-1]) * j)
    return total


_W = np.array([[0.5, -0.2], [0.3, 0.8]])
_LAYERS = [(_W, np.array([0.1, -0.1])), (_W.T, np.array([0.0, 0.2]))]

def by_itemgetter(x):
    rows = sorted([(x[1], x[0] * 2.0), (x[0], x[2] ** 2), (x[2], x[1])], key=operator.itemgetter(0))
    first, last = operator.itemgetter(0, -1)(rows)
    return first[1] * last[0] + sum(map(operator.itemgetter(1), rows)) + max(rows, key=_SECOND)[0]


_SECOND = operator.itemgetter(1)


def reduced(x):
    mats = [np.eye(2) * x[0], np.array([[1.0, x[1]], [0.0, 1.0]]), np.diag(x[:2])]
    product = functools.reduce(np.matmul, mats)  # (no initial value: from mats[0])
    scale = functools.reduce(lambda acc, v: acc * 0.5 + np.sin(v), [x[i] for i in range(3)], x[2])
    squares = functools.reduce(lambda a, b: a * 0.5 + b, (v * v for v in x), 1.0)  # (a generator: once)
    return np.sum(product) * scale + functools.reduce(lambda a, b: a + b, [x[1]]) + squares


CASES = [
    (late_binding, (0.7,)),
    (defined_in_loop, (0.6,)),
    (called_in_loop, (0.3,)),
    (passed_to_helper, (0.9,)),
    (closure_factory, (0.4,)),
    (nested_twice, (0.8,)),
    (default_binds_early, (0.7,)),
    (forward_reference, (0.5,)),
    (lambda_called_in_comprehension, (0.6,)),
    (comprehension_variable_shadows, (0.7,)),
    (stored_in_a_variable, (0.3,)),
    (char_rnn_step, ({"change": np.array([[0.1, -0.2], [0.3, 0.2], [-0.1, 0.4], [0.2, 0.1]]),
                      "predict": np.array([[0.5, -0.3], [0.2, 0.4]]), "init": np.array([0.1, -0.1])},
                     np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]))),
    (elbo_with_inner_bound, (0.3, -0.5)),
    (activation, (np.array([0.3, -0.4]), np.tanh)),
    (activation, (np.array([0.3, -0.4]), _relu)),
    (activation, (np.array([0.3, -0.4]), lambda z: z * np.exp(z))),
    (mlp, (np.array([0.5, -0.3]), _LAYERS)),
    (mlp, (np.array([0.5, -0.3]), _LAYERS, np.sin)),
    (mapped, (0.4,)),
    (partial_inside, (0.8,)),
    (sorted_by_key, (0.6,)),
    (extremes_by_key, (0.7,)),
    (maybe_bound_later, (0.6, True)),
    (late_binding_pitfall, (0.7,)),
    (kept_in_containers, (0.4,)),
    (list_given_to_helper, (0.9,)),
    (called_in_inner_loops, (np.array([0.3, -0.6, 0.2]), np.array([0.8, -1.1]))),
    (reduced, (np.array([0.3, 0.7, -0.4]),)),
    (by_itemgetter, (np.array([0.3, 0.7, -0.4]),)),
]
