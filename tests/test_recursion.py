"""Recursion resolved while transforming (issue 13, item 5): a recursive function whose depth
the specialisation fixes — a type check choosing the branch (`isinstance(data, list)`, on
nested lists of arrays), a constant int argument, a tuple or array whose known length
shrinks — is inlined as deep as it goes. Recursion whose depth depends on values known only
when the code runs stays a RecursionNotSupportedError naming the cycle.

Derivatives are checked against finite differences (oracle.py) in reverse and forward mode
and at second order."""

import numpy as np
import pytest
from oracle import fd_grad, fd_jvp

import srcad

RNG = np.random.default_rng(5)


def tree_sum(data, w):
    """A sum over nested lists (of lists of arrays...): the branch is chosen by the type of
    `data`, one level less deep at each call."""
    if isinstance(data, list):
        total = 0.0
        for item in data:
            total = total + tree_sum(item, w)
        return total
    return np.sum(np.tanh(w * data))


def power(x, n):
    """x ** n by halving: n is a constant where it is called."""
    if n == 0:
        return 1.0
    half = power(x, n // 2)
    return half * half * (x if n % 2 else 1.0)


def power_seven(x):
    return power(x, 7) + power(np.sin(x), 3)


def first_plus_rest(xs):
    """Recursion on a tuple's known length."""
    if len(xs) == 1:
        return xs[0] ** 2
    return xs[0] * first_plus_rest(xs[1:])


def chain_of_pairs(p):
    return first_plus_rest((p[0], p[1], p[0] * p[1], np.cos(p[1])))


def even(n, x):
    return x if n == 0 else odd(n - 1, x * 1.5)


def odd(n, x):
    return np.sin(x) if n == 0 else even(n - 1, x * x)


def mutual(x):
    return even(5, x) + odd(4, x)


NESTED = [[[RNG.normal(size=3)], [RNG.normal(size=2), RNG.normal(size=4)]], [[RNG.normal(size=1)]]]
CASES = [
    ("isinstance on nested lists", lambda w: tree_sum(NESTED, w), 0.7),
    ("constant int argument", power_seven, 0.8),
    ("tuple of known length", chain_of_pairs, np.array([0.4, -1.3])),
    ("mutual recursion on constants", mutual, 0.3),
]
H = 1e-4


@pytest.mark.parametrize("name,f,x", CASES, ids=[c[0] for c in CASES])
def test_recursion_of_known_depth_in_every_mode(name, f, x):
    np.testing.assert_allclose(srcad.grad(f)(x), fd_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    v = RNG.normal(size=np.shape(x)) if np.ndim(x) else 0.6
    u = RNG.normal(size=np.shape(x)) if np.ndim(x) else -0.9
    np.testing.assert_allclose(srcad.jvp(f, (x,), (v,))[1], fd_jvp(f, (x,), (v,)), rtol=1e-5, atol=1e-7)

    def moved(du, dv):
        return float(f(x + H * du * u + H * dv * v))

    want = (moved(1, 1) - moved(1, -1) - moved(-1, 1) + moved(-1, -1)) / (4 * H * H)
    n = int(np.size(x))
    hess = np.reshape(srcad.hessian(f)(x), (n, n))
    np.testing.assert_allclose(np.ravel(u) @ hess @ np.ravel(v), want, rtol=1e-4, atol=1e-5)
    if n == 1:
        np.testing.assert_allclose(srcad.grad(srcad.grad(f))(x) * u * v, want, rtol=1e-4, atol=1e-5)


def test_the_recursion_is_unrolled_in_the_generated_code():
    source = srcad.source(srcad.grad(power_seven), 0.8)
    assert "power" not in source.split("\n", 3)[-1]  # (no call: inlined, as deep as n says)


def countdown(x, n):
    if n == 0:
        return x
    return countdown(x * 2.0, n - 1)


def fib(n, x):
    return x if n < 2 else fib(n - 1, x) + fib(n - 2, x) * x


def fib_of_argument(x, n):
    return fib(n, x)


def grows(x, n):
    return grows(x, n + 1)


@pytest.mark.parametrize("fn,args,cycle", [
    (countdown, (1.0, 3), "countdown -> countdown"),
    (fib_of_argument, (1.0, 5), "fib -> fib"),
])
def test_recursion_whose_depth_is_known_only_when_the_code_runs_is_refused(fn, args, cycle):
    with pytest.raises(srcad.RecursionNotSupportedError) as err:
        srcad.grad(fn)(*args)
    assert cycle in str(err.value)
    assert err.value.filename == __file__
    assert "known only when the code runs" in str(err.value)


def test_recursion_that_does_not_end_while_transforming_is_refused():
    with pytest.raises(srcad.RecursionNotSupportedError) as err:
        srcad.grad(lambda x: grows(x, 0))(1.0)
    assert "grows -> grows" in str(err.value)


def test_exponential_unrolling_is_refused():
    with pytest.raises(srcad.RecursionNotSupportedError) as err:
        srcad.grad(lambda x: fib(40, x))(1.0)
    assert "fib" in str(err.value)


def tuple_tree_sum(t, w):
    """A sum over nested tuples of different shapes: the loop over a tuple's items of
    different kinds is unrolled, so the type check knows each item."""
    if isinstance(t, tuple):
        return sum(tuple_tree_sum(item, w) for item in t)
    return np.sum(np.sin(w * t))


TUPLE_TREE = (RNG.normal(size=2), (RNG.normal(size=3), (RNG.normal(size=1),)), RNG.normal(size=(2, 2)))


def test_recursion_over_nested_tuples_of_different_kinds():
    def f(w):
        return tuple_tree_sum(TUPLE_TREE, w)

    w = 0.4
    np.testing.assert_allclose(srcad.grad(f)(w), fd_grad(f, (w,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(srcad.jvp(f, (w,), (1.0,))[1], fd_jvp(f, (w,), (1.0,)), rtol=1e-5, atol=1e-7)
    want = (f(w + H) - 2 * f(w) + f(w - H)) / H ** 2
    np.testing.assert_allclose(srcad.grad(srcad.grad(f))(w), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcad.hessian(f)(w), want, rtol=1e-4, atol=1e-5)
