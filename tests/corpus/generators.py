"""Generators consumed where they are called (issue 13, item 3): by for loops, comprehensions
and list/tuple/sum/max; the generator and the loop take turns, as in Python."""

import numpy as np


def unpack_layers(params):
    for i in range(0, len(params), 2):
        yield params[i], params[i + 1]


def layered_net(params, x):
    h = x
    for W, b in unpack_layers(params):
        h = np.tanh(W @ h + b)
    return np.sum(h * h)


def _ramp(x, n):
    for k in range(n):
        yield x * k
    yield from [x, 2.0 * x]


def consumed_whole(x):
    total = sum(_ramp(x, 3)) + max(_ramp(x * x, 2)) + len(list(_ramp(x, 2)))
    return total + sum([v * v for v in _ramp(x, 2)]) + tuple(_ramp(x, 1))[1]


def takes_turns(x):
    s = 0.0

    def partial_sums():
        for i in range(3):
            yield s + i * x  # reads s when it resumes: the loop below has changed it

    for v in partial_sums():
        s = s + v
    return s


def skips_some(x):
    t = 0.0
    for v in _ramp(x, 4):
        if v > 1.0:
            continue
        t = t + v * v
    return t


def _windows(xs, width):
    for i in range(len(xs) - width + 1):
        yield xs[i:i + width]


def sliding_windows(x):
    return sum(np.prod(w) for w in _windows(x, 2))


_P = [np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.1, 0.0]),
      np.array([[0.2, 0.4], [-0.3, 0.1]]), np.array([0.0, 0.2])]

CASES = [
    (layered_net, (_P, np.array([0.3, -0.5]))),
    (consumed_whole, (0.7,)),
    (takes_turns, (0.6,)),
    (skips_some, (0.7,)),
    (sliding_windows, (np.array([0.5, -0.3, 0.8, 0.2]),)),
]
