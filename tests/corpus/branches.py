"""if / elif / else, conditional expressions, early returns, boolean operators."""

import math

import numpy as np


def simple(x):
    if x > 0.0:
        y = math.sin(x)
    else:
        y = x * x
    return y * 2.0


def elif_chain(x):
    if x < -1.0:
        r = -x
    elif x < 0.0:
        r = x * x
    elif x < 1.0:
        r = math.exp(x)
    else:
        r = 3.0 * x
    return r + x


def one_sided(x, y):
    z = x * y
    if z > 0.5:
        z = z * z + y
    return z + x


def early_return(x):
    if x > 1.0:
        return x * x
    z = math.exp(x)
    return z + x


def nested(x, y):
    if x > 0.0:
        if y > 0.0:
            out = x * y
        else:
            out = x - y
    else:
        out = y * y if y > x else x * y * 3.0
    return out


def ifexp(x):
    return x * 2.0 if x > 0 else -x


def boolean_ops(x, y):
    if x > 0.0 and y > 0.0 or x < -5.0:
        return x * y
    if not (x > y):
        return x + y
    return x - y


def array_branch(x, flag):
    if flag:
        s = np.sum(np.sin(x))
    else:
        s = np.sum(x ** 3)
    return s * 2.0


def chained_compare(x):
    if 0.0 < x < 1.0:
        return x ** 3
    return x


def branch_on_int(x, n):
    y = x
    if n % 2 == 0:
        y = y * 2.0
    return y * y


def return_in_both(x):
    if x > 0.0:
        return math.sqrt(x)
    else:
        return -x * 3.0


def optional_arg(x, w=None):
    if w is None:
        w = 2.0
    return x * w


CASES = [
    (simple, (0.7,)), (simple, (-0.7,)),
    (elif_chain, (-1.5,)), (elif_chain, (-0.5,)), (elif_chain, (0.5,)), (elif_chain, (1.5,)),
    (one_sided, (0.9, 0.8)), (one_sided, (0.1, 0.2)),
    (early_return, (0.4,)), (early_return, (1.4,)),
    (nested, (0.5, 0.5)), (nested, (0.5, -0.5)), (nested, (-0.5, 0.5)), (nested, (-0.5, -0.7)),
    (ifexp, (0.3,)), (ifexp, (-0.3,)),
    (boolean_ops, (0.5, 0.7)), (boolean_ops, (-0.5, 0.7)), (boolean_ops, (0.7, -0.5)),
    (array_branch, (np.array([0.1, 0.5, 0.9]), True)), (array_branch, (np.array([0.1, 0.5]), False)),
    (chained_compare, (0.5,)), (chained_compare, (1.5,)),
    (branch_on_int, (0.5, 2)), (branch_on_int, (0.5, 3)),
    (return_in_both, (0.8,)), (return_in_both, (-0.8,)),
    (optional_arg, (0.8,)), (optional_arg, (0.8, 1.5)),
]
