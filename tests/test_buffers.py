"""Buffer reuse (srcad/passes/buffers.py): elementwise results written into dying operands,
`del` of large temporaries, and the merged scatter-adds of passes/scatters.py.

The pass plans only large arrays; the soundness tests lower its threshold to one element so
that every small array is planned, and check each gradient against finite differences
(tests/oracle.py), that arguments are left unchanged, and, where the case is about a value
that must not be overwritten, that the code writes into nothing it may not."""

import types

import numpy as np
import pytest
from oracle import fd_grad

import srcad
from srcad.passes import buffers


@pytest.fixture
def every_array(monkeypatch):
    monkeypatch.setattr(buffers, "LARGE", 1)


def fresh(f):
    """A new function object with f's code: code built with the threshold lowered stays with
    it, not with f."""
    return types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)


def check(f, *args, argnum=0):
    f = fresh(f)
    before = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    g = srcad.grad(f, argnums=argnum)
    got = g(*args)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)  # arguments are the caller's
    np.testing.assert_allclose(got, fd_grad(f, args, argnum), rtol=1e-6, atol=1e-8)
    assert np.allclose(g(*args), got)  # a second call sees the same (nothing was left written)
    return srcad.source(g)


def chain(x):
    t = np.sin(x) * 2.0
    return np.sum(np.exp(t) + 1.0)


def argument_only(x):
    return np.sum(np.exp(x) * x)


def view_live_after(x):
    t = x * 2.0
    v = t[1:]
    u = np.exp(t)
    return np.sum(u) + np.sum(v * v)


def reshaped_live_after(x):
    t = x * 2.0
    r = t.reshape(2, 3)
    u = np.sin(t)
    return np.sum(u) + np.sum(r * r)


def transposed_live_after(a):
    t = a * 2.0
    tt = t.T
    u = np.cos(t)
    return np.sum(u @ tt)


def asarray_live_after(x):
    t = x * 2.0
    a = np.asarray(t)
    u = np.exp(t)
    return np.sum(u * a)


def in_a_list(x):
    t = x * 2.0
    items = [t]
    u = np.exp(t)
    return np.sum(u) + np.sum(items[0] ** 2)


def in_a_closure(x):
    t = x * 2.0
    get = lambda: t  # noqa: E731
    u = np.exp(t)
    return np.sum(u) + np.sum(get() ** 2)


def int_operand(x):
    t = x * 2.0
    u = t * np.arange(6)
    return np.sum(np.exp(u) * t)


def broadcast_grows(x, a):
    t = x * 2.0
    u = t + a
    return np.sum(np.sin(u)) + np.sum(t * t)


def loop_carried(x):
    t = x * 1.0
    for _ in range(3):
        t = np.sin(t) * 0.9 + x
    return np.sum(t * t)


def in_branches(x, k):
    t = np.exp(x)
    if k > 0:
        u = np.sin(t) * t
    else:
        u = np.cos(x) * 2.0
    return np.sum(u * t)


def accumulated(x):
    s = x * 0.0
    for i in range(3):
        s = s + np.sin(x * (i + 1))
    return np.sum(s * s)


X = np.array([0.3, -0.2, 0.5, 0.1, -0.4, 0.25])


@pytest.mark.parametrize("f", [chain, argument_only, view_live_after, reshaped_live_after, asarray_live_after,
                               in_a_list, in_a_closure, int_operand, loop_carried, accumulated])
def test_gradients_with_every_array_planned(every_array, f):
    check(f, X.copy())


def test_a_transpose_read_later_is_not_overwritten(every_array):
    check(transposed_live_after, X.reshape(2, 3).copy())


def test_broadcasting_that_grows_the_result(every_array):
    check(broadcast_grows, X.copy(), np.linspace(0.1, 0.6, 12).reshape(2, 6))


@pytest.mark.parametrize("k", [1, -1])
def test_branches(every_array, k):
    check(in_branches, X.copy(), k)


def test_no_write_into_an_argument_or_a_value_read_later(every_array):
    src = check(argument_only, X.copy())
    assert "out=x" not in src and "x *=" not in src and "x +=" not in src
    src = check(stored_then_exp, X.copy())
    assert "np.exp(t, out=t)" not in src, src


def stored_then_exp(x):
    t = x * 2.0
    v = t[1:]
    u = np.exp(t)
    return np.sum(u[1:] * v)


def test_the_value_returned_alongside_is_not_overwritten(every_array):
    def f(x):
        t = x * 2.0
        return np.sum(np.exp(t)), t
    value, aux = srcad.value_and_grad(f, has_aux=True)(X.copy())[0]
    np.testing.assert_array_equal(aux, X * 2.0)
    assert value == pytest.approx(np.sum(np.exp(X * 2.0)))


def test_vjp_residuals_are_not_overwritten(every_array):
    def f(x):
        return np.exp(np.sin(x) * 2.0) * x
    out, back = srcad.vjp(f, X.copy())
    u = np.linspace(-1.0, 1.0, 6)
    expected = u * (np.exp(np.sin(X) * 2.0) * (2.0 * np.cos(X) * X + 1.0))
    np.testing.assert_allclose(back(u)[0], expected, rtol=1e-12)
    np.testing.assert_allclose(back(u)[0], expected, rtol=1e-12)  # twice: residuals intact
    np.testing.assert_allclose(out, np.exp(np.sin(X) * 2.0) * X, rtol=1e-12)


def widening(x, w):
    return np.sum(np.exp(x * 2.0) * w)


def test_a_float32_operand_is_never_written_with_a_float64_result(every_array):
    """float32 and float64 arrays share srcad's types; writing a float64 product into a
    float32 temporary would round it. (The gradient itself is then cast once to its
    argument's dtype, float32: srcad/precision.py.)"""
    x32 = X.astype(np.float32)
    w = np.linspace(0.1, 1.7, 6)
    got = srcad.grad(fresh(widening))(x32, w)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (w * np.exp(x32 * 2.0) * 2.0).astype(np.float32))


def large_chain(x):
    t = np.sin(x) * 2.0
    return np.sum(np.exp(t) + 1.0)


def small_chain(x):
    t = np.sin(x) * 2.0
    return np.sum(np.exp(t) + 1.0)


def test_a_simple_elementwise_chain_reuses_buffers():
    """At a large size (the default threshold), generated code writes in place: one array
    for the whole gradient."""
    x = np.linspace(-1.0, 1.0, 100_000)
    g = srcad.grad(large_chain)
    np.testing.assert_allclose(g(x), 2.0 * np.cos(x) * np.exp(np.sin(x) * 2.0), rtol=1e-12)
    lines = [line.strip() for line in srcad.source(g).splitlines() if not line.strip().startswith("#")]
    assert lines[1:] == ["t = np.sin(x)", "t *= 2.0", "np.exp(t, out=t)", "t *= 2.0", "t *= np.cos(x)",
                         "return t"], lines


def test_small_arrays_stay_expressions():
    g = srcad.grad(small_chain)
    g(X.copy())
    src = srcad.source(g)
    assert "out=" not in src and "del " not in src, src


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_two_additions_into_one_slice_are_one():
    g = srcad.grad(rosenbrock)
    x = np.linspace(-1.5, 1.5, 7)
    np.testing.assert_allclose(g(x), fd_grad(rosenbrock, (x,)), rtol=1e-6)
    src = srcad.source(g)
    assert src.count("x_bar[:-1] +=") == 1 and src.count("x_bar[1:] +=") == 1, src


def test_large_rosenbrock_deletes_its_temporaries():
    x = np.linspace(-1.5, 1.5, 100_000)
    g = srcad.grad(rosenbrock)
    head = x[:-1]
    t = 200.0 * (x[1:] - head * head)
    expected = np.zeros_like(x)
    expected[1:] = t
    expected[:-1] -= 2.0 * (head * t + 1.0 - head)
    np.testing.assert_allclose(g(x), expected, rtol=1e-9, atol=1e-9)
    assert "del " in srcad.source(g)
