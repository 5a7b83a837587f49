# ruff: noqa: B023  (closures over loop variables are what these tests are about)
"""Functions given as arguments and made anew on every call (`g(x, lambda z: z * k)` in a
loop, a closure factory, `functools.partial(f, c=...)`) share the generated code of the first
one made from the same code: their captured numbers and arrays, and a partial's bound numbers
and arrays, are read from the argument when the code runs. Code is never shared when what it
bakes in differs (captured functions, int and str arguments of a partial, defaults), when the
function is held in a container or an object, or when the code holds the function itself.
Derivatives against finite differences; builds counted through the dispatcher."""

import functools

import numpy as np
import pytest
import scipy.optimize

import srcad
from srcad import dispatch
from tests.oracle import fd_grad_richardson as fd


def apply(x, f):
    return np.sum(f(x) ** 2)


def apply_twice(x, f):
    return np.sum(np.sin(f(f(x))))


def apply_in_container(x, fs):
    return np.sum(fs[0](x) * fs[1](x))


def apply_root(x, f):
    return x * scipy.optimize.brentq(f, -10.0, 10.0)  # (f itself goes to a library call)


def scale(z, c, n=2):
    return z * c ** n


def make(c):
    return lambda z: np.tanh(z * c)


def make_counted(c):
    """make's lambda, for the build count below alone. Code that holds a function marks its
    code object for the rest of the process (srcad.ir.kinds.BAKED_CODES); the hessian in
    test_forward_mode_and_hessian_read_the_cells_too holds make(c), and after it every make(c)
    builds anew: the count must not depend on the order the tests run in."""
    return lambda z: np.tanh(z * c)


def compose(h, c):
    return lambda z: h(z) * c


@pytest.fixture
def builds(monkeypatch):
    count = [0]
    real = dispatch.build

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatch, "build", counting)
    return count


X = np.array([0.3, -0.7, 1.1])


def check(g, f, *args):
    assert g(*args) == pytest.approx(fd(f, args), rel=1e-7, abs=1e-10)


def test_a_lambda_made_on_every_call_builds_once(builds):
    g = srcad.grad(apply)
    for k in range(5):
        check(g, apply, X, lambda z: z * (k + 0.5))
    assert builds[0] == 1


def test_closures_from_a_factory_read_their_own_cells(builds):
    g = srcad.grad(apply_twice)
    for c in (0.5, -1.5, 2.0):
        check(g, apply_twice, X, make_counted(c))
        check(g, apply_twice, X, make_counted(np.array([c, 1.0, 2.0])))  # (an array cell: another key)
    assert builds[0] == 1  # (captured values are read when the code runs, of any type)


def test_partials_share_when_their_literals_agree(builds):
    g = srcad.grad(apply)
    for c in (2.0, 3.0, -0.5):
        check(g, apply, X, functools.partial(scale, c=c))
    assert builds[0] == 1
    check(g, apply, X, functools.partial(scale, c=2.0, n=3))  # (n, an int, is baked in)
    check(g, apply, X, functools.partial(scale, c=np.array([1.0, 2.0, 3.0])))
    assert builds[0] == 3


def test_captured_functions_differ():
    g = srcad.grad(apply)
    check(g, apply, X, compose(np.sin, 2.0))
    check(g, apply, X, compose(np.cos, 2.0))  # (the same code, another captured function)
    check(g, apply, X, compose(np.cos, 3.0))


def test_functions_in_containers_are_compared_by_identity():
    g = srcad.grad(apply_in_container)
    check(g, apply_in_container, X, (make(1.0), make(3.0)))
    check(g, apply_in_container, X, (make(5.0), make(-7.0)))


def test_a_function_the_code_holds_is_not_shared():
    g = srcad.grad(apply_root)
    x = 0.7
    for c in (1.0, 2.0, 3.0):
        f = lambda z: z - c  # noqa: E731
        assert g(x, f) == pytest.approx(c, rel=1e-9)  # d/dx (x * root) = root = c


def shifted(z, c):
    return z - c


def test_a_partial_the_code_holds_is_not_shared():
    g = srcad.grad(apply_root)
    for c in (1.0, 2.0, 3.0):
        assert g(0.7, functools.partial(shifted, c=c)) == pytest.approx(c, rel=1e-9)


def test_forward_mode_and_hessian_read_the_cells_too():
    v = np.array([1.0, -2.0, 0.5])
    for c in (0.5, 2.0):
        f = make(c)
        _, t = srcad.jvp(apply_twice, (X, f), (v, None))
        assert t == pytest.approx(float(fd(apply_twice, (X, f)) @ v), rel=1e-7)
        H = srcad.hessian(apply)(X, f)
        fd_H = np.array([fd(lambda y: float(fd(apply, (y, f)) @ e), (X,)) for e in np.eye(3)])
        assert H == pytest.approx(fd_H, rel=1e-4, abs=1e-6)
