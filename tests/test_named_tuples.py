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


class Reversed(NamedTuple):
    x: float
    v: float

    def __iter__(self):  # (its own protocol: not the tuple of its fields)
        return iter((self.v, self.x))


class Scaled(NamedTuple):
    x: float
    v: float

    @property
    def doubled(self):
        return 2.0 * self.x


class WithSuper(Scaled):  # (a subclass: super() in a NamedTuple's own body cannot be made)
    def size(self):
        return super().__len__() * self.x


def made_reversed(x):
    a, b = Reversed(x[0], x[1])
    return 2.0 * a + b ** 3


def unpacked_argument(s):
    a, b = s
    return 2.0 * a + b ** 3


def with_property(x):
    return Scaled(x[0], x[1]).doubled * x[1]


def with_super(x):
    return WithSuper(x[0], x[1]).size()


def test_a_named_tuple_class_with_its_own_protocol_is_refused():
    """A named tuple class that overrides the tuple protocol (__iter__) is not the tuple of its
    fields: made in the function or given as the differentiated argument, srcad refuses it (it
    unpacked it as its fields: 1.35 where Python gives 1.4; the adversarial pass)."""
    x = np.array([0.3, 0.5])
    with pytest.raises(srcad.SrcadError, match="test_named_tuples.py"):
        srcad.grad(made_reversed)(x)
    with pytest.raises(srcad.TypeSupportError, match="argument s"):
        srcad.grad(unpacked_argument)(Reversed(0.3, 0.7))


def test_methods_and_properties_of_plain_named_tuples():
    """Other methods and properties are the class's own (by hand: d/dx 2 x0 x1 = (2 x1, 2 x0));
    super() in them is refused at its line (it crashed the generated code)."""
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(srcad.grad(with_property)(x), [1.0, 0.6], rtol=1e-14)
    with pytest.raises(srcad.UnsupportedSyntaxError, match="super"):
        srcad.grad(with_super)(x)


def largest_pair(x):
    ss = [Pair(x[1], x[0]), Pair(x[0], x[2])]
    m = max(ss)  # (compared item by item)
    return m.b * m.a


def test_max_of_tuples_is_refused():
    """max() of tuples compares them item by item; its adjoint took them as numbers and
    crashed (a broadcast error in the generated code; the adversarial pass)."""
    with pytest.raises(srcad.TypeSupportError, match="test_named_tuples.py"):
        srcad.grad(largest_pair)(np.array([0.3, 0.55, 0.9]))
