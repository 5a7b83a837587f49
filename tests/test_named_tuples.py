"""Named tuples made inside the function (typing.NamedTuple, collections.namedtuple), as JAX
programs write their states and parameters: `s = State(x, v)` in a loop, `p._replace(w=...)`,
methods, defaults, unpacking, returned as results (frontend/objects.py named_tuple, the
structural srcad.named_tuple). They were values srcad knew nothing about (NoRuleError at the
first field read). Oracle: central differences with Richardson extrapolation."""

import collections
from typing import NamedTuple

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


class State(NamedTuple):
    x: np.ndarray
    v: np.ndarray
    t: float = 0.0

    def energy(self):
        return 0.5 * np.sum(self.v ** 2) + 0.5 * np.sum(self.x ** 2)


def step(s, dt):
    return State(s.x + dt * s.v, s.v - dt * s.x, s.t + dt)


def simulate(x0):
    s = State(x0, np.zeros_like(x0))
    for _ in range(10):
        s = step(s, 0.1)
    return np.sum(s.x ** 2) + s.energy() * s.t


Pair = collections.namedtuple("Pair", "a b", defaults=[2.0])


def pairs(x):
    p = Pair(x[0] * x[1])
    q = p._replace(b=p.a + x[2])
    return q.a * q.b + len(q) + (1.0 if isinstance(q, Pair) else 0.0)


def unpacked(x0):
    s = State(x0, x0 ** 2)
    a, b, c = s
    return np.sum(a * b) + c + s[1][0]


def carried_argument(p):
    for _ in range(3):
        p = p._replace(a=p.a * 0.9 + p.b)
    return p.a ** 2 * p.b


def returns_state(x0):
    return step(State(x0 * 2.0, np.sin(x0)), 0.5)


X = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("f", [simulate, pairs, unpacked], ids=lambda f: f.__name__)
def test_gradients_and_second_order(f):
    g = srcad.grad(f)(X)
    np.testing.assert_allclose(g, fd_grad_richardson(f, (X,)), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(srcad.jacfwd(f)(X), g, rtol=1e-10, atol=1e-12)
    grad = srcad.grad(f)
    rows = [fd_grad_richardson(lambda x, i=i: grad(x)[i], (X,)) for i in range(X.size)]
    np.testing.assert_allclose(srcad.hessian(f)(X), np.array(rows), rtol=1e-6, atol=1e-8)
    batch = np.stack([X, 2.0 * X])
    np.testing.assert_allclose(srcad.vmap(grad)(batch)[1], fd_grad_richardson(f, (2.0 * X,)), rtol=1e-7)


def test_a_named_tuple_argument_replaced_in_a_loop():
    p = Pair(0.5, 0.2)
    got = srcad.grad(carried_argument)(p)
    assert isinstance(got, Pair)
    for k, field in enumerate(p._fields):
        def along(v, k=k):
            return carried_argument(p._replace(**{p._fields[k]: v}))
        assert getattr(got, field) == pytest.approx(fd_grad_richardson(along, (p[k],)), rel=1e-8)


def test_a_named_tuple_result_has_its_class():
    jac_fwd, jac_rev = srcad.jacfwd(returns_state)(X), srcad.jacrev(returns_state)(X)
    assert type(jac_fwd) is State and type(jac_rev) is State
    for k in range(2):  # (x and v: Jacobians against differences of each output column)
        cols = [fd_grad_richardson(lambda x, k=k, i=i: returns_state(x)[k][i], (X,)) for i in range(X.size)]
        np.testing.assert_allclose(jac_fwd[k], np.array(cols), rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(jac_rev[k], np.array(cols), rtol=1e-7, atol=1e-10)


def test_bad_field_names_are_an_error_at_the_line():
    def bad(x):
        return Pair(x, 1.0)._replace(c=2.0).a

    with pytest.raises(srcad.SrcadError, match="test_named_tuples.py"):
        srcad.grad(bad)(0.5)
