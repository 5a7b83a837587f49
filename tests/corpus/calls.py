"""Calls to other user functions: defaults, keywords, nested calls, tuples returned."""

import math
import operator

import numpy as np

from . import helpers


def helper(a, b=2.0):
    return a * b + math.tanh(a)


def two_calls(x, y):
    return helper(x) + helper(y, b=x)


def keyword_only(x, *, scale=3.0):
    return scale * x * x


def calls_keyword_only(x):
    return keyword_only(x, scale=0.5) + keyword_only(x)


def pair(x, y):
    return x + y, x * y


def returns_tuple(x, y):
    s, p = pair(x, y)
    return s * p


def other_module(x):
    return helpers.softplus(x) + helpers.scaled_norm(np.array([x, 2.0 * x]))


def deep(x):
    return helper(helper(helper(x)))


def call_in_loop(x):
    s = 0.0
    for k in range(3):
        s = s + helper(x, b=k * 0.5)
    return s


def nested_comprehension(x):
    grid = [[x * i + j for j in range(2)] for i in range(3)]
    return grid[1][0] * grid[2][1] + sum(row[1] for row in grid)


def operator_calls_and_list_copies(x):
    ys = list((x, x * x))
    ys.append(operator.mul(ys[0], 3.0))
    return operator.add(ys[1], operator.truediv(ys[2], x + 2.0)) + np.sum([v * v for v in ys])


CASES = [
    (two_calls, (0.3, 0.5)),
    (calls_keyword_only, (0.7,)),
    (returns_tuple, (0.4, 1.1)),
    (other_module, (0.6,)),
    (deep, (0.2,)),
    (call_in_loop, (0.8,)),
    (nested_comprehension, (0.7,)),
    (operator_calls_and_list_copies, (0.7,)),
]
