"""`else:` on `for` and `while` loops: it runs when no `break` (and no `return`) left the loop,
also after zero iterations (frontend/loops.py loop_else). It was refused. Oracle: central
differences with Richardson extrapolation, and the function's own value, at points that take
each path."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


def search(x):
    s = 0.0
    for v in x:
        if v > 2.0:
            s += v * 10.0
            break
        s += v ** 2
    else:
        s = s * 3.0
    return s


def product_until(x):
    i, s = 0, x[0]
    while i < len(x):
        s = s * x[i]
        if s > 5.0:
            break
        i += 1
    else:
        s = -s
    return s


def nested(x):
    s = 0.0
    for a in x:
        for b in x:
            if b > a:
                break
            s += a * b
        else:
            s += a
    return s


def returns_inside(x):
    for v in x:
        if v > 1.0:
            return v * 2.0
    else:
        return np.sum(x) * 5.0


def empty(x, n):
    s = x[0]
    for _ in range(n):
        break
    else:
        s = s * 4.0
    return s


POINTS = [np.array([0.5, 1.5, 0.7]), np.array([0.5, 2.5, 0.7]), np.array([3.0, 0.6, 1.2])]


def test_the_else_of_a_loop_that_runs_no_iteration():
    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(srcad.grad(empty)(x, 0), [4.0, 0.0])  # (by hand: 4 x0)
    np.testing.assert_allclose(srcad.grad(empty)(x, 3), [1.0, 0.0])


def else_breaks_the_outer_loop(x):
    s = 0.0
    for a in x:
        for b in x:
            if b > a * 2.5:
                break
        else:
            s += a * 10.0
            break  # (the outer loop's: what follows in its body is skipped)
        s += a ** 2
    return s


def else_returns(x):
    s = 0.0
    for a in x:
        for b in x:
            if b > 2.0:
                break
        else:
            return s + a * 7.0  # (the function's return, from inside the outer loop)
        s += a ** 2
    return s


def else_continues(x):
    s = 0.0
    for a in x:
        for b in x:
            if b > a:
                break
        else:
            s += a
            continue
        s += a ** 3
    return s


@pytest.mark.parametrize("x", POINTS, ids=["no-break", "break", "first"])
@pytest.mark.parametrize("f", [search, product_until, nested, returns_inside, else_breaks_the_outer_loop,
                               else_returns, else_continues], ids=lambda f: f.__name__)
def test_gradient_and_value(f, x):
    """The last three: a break, continue or return in a nested loop's `else:` leaves the
    enclosing loop (or the function): the statements after the nested loop were not skipped (a
    return there gave 0 where Python gives 3.5)."""
    value, g = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    np.testing.assert_allclose(g, fd_grad_richardson(f, (x,)), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(srcad.jacfwd(f)(x), g, rtol=1e-12)
