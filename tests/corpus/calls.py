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


# helpers that build a new list, dict or array and return it, used as a loop's state (an
# LSTM's step): the object is fresh on every call, so filling it in is safe
def predict(state, x):
    out = []
    out.append(state[0] * x)
    out.append(state[1] + x)
    return out


def list_state(x):
    state = [1.0, 2.0]
    for i in range(3):
        state = predict(state, x)
    return state[0] + state[1]


def list_state_in_while(x):
    state = [1.0, 2.0]
    k = 0
    while k < 3:
        state = predict(state, x)
        k += 1
    return state[0] * state[1]


def predict_dict(state, x):
    out = {}
    out["h"] = math.tanh(state["h"] * x + state["c"])
    out["c"] = state["c"] * 0.5 + x
    return out


def dict_state(x):
    state = {"h": 0.1, "c": 0.2}
    for i in range(3):
        state = predict_dict(state, x)
    return state["h"] * state["c"]


def first_part(s, x):
    r = []
    r.append(s * x)
    return r


def predict_nested(state, x):
    out = first_part(state[0], x)
    out.append(state[1] + x)
    return out


def nested_helpers_state(x):
    state = [1.0, 2.0]
    for i in range(3):
        state = predict_nested(state, x)
    return state[0] + state[1] ** 2


def lstm_cell(h, c, x, W):
    gates = []
    for k in range(4):
        gates.append(np.tanh(W[k] * x + h))
    c2 = gates[0] * c + gates[1] * gates[2]
    return [gates[3] * np.tanh(c2), c2]


def lstm(W, xs):
    state = [np.zeros(2), np.zeros(2)]
    for t in range(xs.shape[0]):
        state = lstm_cell(state[0], state[1], xs[t], W)
    return np.sum(state[0] * state[1])


def filled_array(state, x):
    out = np.zeros(3)
    out[0] = state[0] * x[0]
    out[1:] = state[1:] + x[1:]
    return out


def array_state(x):
    state = np.ones(3)
    for i in range(3):
        state = filled_array(state, x)
    return np.sum(state * state)


CASES = [
    (two_calls, (0.3, 0.5)),
    (calls_keyword_only, (0.7,)),
    (returns_tuple, (0.4, 1.1)),
    (other_module, (0.6,)),
    (deep, (0.2,)),
    (call_in_loop, (0.8,)),
    (nested_comprehension, (0.7,)),
    (operator_calls_and_list_copies, (0.7,)),
    (list_state, (0.7,)),
    (list_state_in_while, (0.7,)),
    (dict_state, (0.7,)),
    (nested_helpers_state, (0.7,)),
    (lstm, (np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.6], [0.2, 0.2]]),
            np.array([[0.5, -1.0], [0.3, 0.2], [-0.7, 0.4]]))),
    (array_state, (np.array([0.6, -0.3, 0.2]),)),
]
