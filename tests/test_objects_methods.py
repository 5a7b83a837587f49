"""Methods of the user's classes that srcad inlines, when the class or the object changes,
and methods named like a list's or a dict's writes (`opt.update`, `buffer.append`).

- Replacing a method on the class (`Model.act = other`) after a first call builds the code
  again: the old code inlined the old method (it was silently reused before).
- A function stored on the instance (`m.act = f`) hides the class's method, as in Python.
- `opt.update(x, g)`, `buf.append(v)`, `cache.pop(k)` on an object of the user's class call
  its method (the object unchanged); on a local list or dict they are writes, and on a
  global list a clear refusal.

Every derivative is checked against finite differences (Richardson extrapolation)."""

import numpy as np
import pytest

import srcad
from tests.oracle import fd_grad_richardson as fd


class Model:
    def __init__(self, a):
        self.a = a

    def act(self, x):
        return np.sin(self.a * x)


class Base:
    def act(self, x):
        return np.sin(x)


class Child(Base):
    pass


class Opt:
    def __init__(self, lr):
        self.lr = lr

    def update(self, x, g):
        return x - self.lr * g

    def append(self, x):
        return x * self.lr

    def pop(self, x):
        return x + self.lr

    def clear(self):
        return self.lr


class Holder:
    def __init__(self, opt):
        self.opt = opt


OPT = Opt(0.25)
GLOBAL_LIST = []


def loss(x, m):
    return m.act(x) ** 2


def step(x, opt):
    y = opt.update(x, np.sin(x))
    y = opt.append(y)
    return opt.pop(y) * y + opt.clear()


def step_global(x):
    return OPT.update(x, np.cos(x)) ** 2


def step_attribute(x, h):
    return h.opt.update(x, x * x) ** 3


def writes_global(x):
    GLOBAL_LIST.append(x)
    return x * x


def local_writes(x):
    xs = [x]
    xs.append(2 * x)
    xs.insert(0, x * x)
    return xs.pop() * sum(xs)


def check(f, *args):
    assert srcad.grad(f)(*args) == pytest.approx(fd(f, args), rel=1e-7, abs=1e-10)


def test_replacing_a_method_on_the_class_builds_again():
    Local = type("Local", (Model,), {"act": Model.act})
    m = Local(1.5)
    g = srcad.grad(loss)
    assert g(0.7, m) == pytest.approx(fd(loss, (0.7, m)), rel=1e-7)
    Local.act = lambda self, x: np.cos(self.a * x)
    assert g(0.7, m) == pytest.approx(fd(loss, (0.7, m)), rel=1e-7)


def test_overriding_in_a_subclass_after_a_first_call_builds_again():
    Sub = type("Sub", (Child,), {})
    g = srcad.grad(loss)
    c = Sub()
    assert g(0.4, c) == pytest.approx(fd(loss, (0.4, c)), rel=1e-7)
    Sub.act = lambda self, x: np.exp(x)
    assert g(0.4, c) == pytest.approx(np.exp(0.8) * 2, rel=1e-9)  # d/dx exp(x)^2 = 2 exp(2x)


def test_a_function_on_the_instance_hides_the_class_method():
    m = Model(1.5)
    g = srcad.grad(loss)
    assert g(0.7, m) == pytest.approx(fd(loss, (0.7, m)), rel=1e-7)
    m2 = Model(1.5)
    m2.act = lambda x: np.exp(0.5 * x)
    assert g(0.7, m2) == pytest.approx(np.exp(0.7), rel=1e-9)  # d/dx exp(x/2)^2 = exp(x)
    check(loss, 0.7, m2)


def test_methods_named_like_list_writes_on_objects():
    check(step, 0.7, Opt(0.3))
    check(step_global, 0.2)
    check(step_attribute, 0.9, Holder(Opt(0.1)))
    _, t = srcad.jvp(step, (0.7, Opt(0.3)), (1.0, None))
    assert t == pytest.approx(fd(step, (0.7, Opt(0.3))), rel=1e-7)


def test_local_lists_and_dicts_are_still_written():
    check(local_writes, 0.6)


def test_a_write_into_a_global_list_is_refused_at_its_line():
    with pytest.raises(srcad.UnsafeMutationError, match=r"\.append\(\) changes an object srcad cannot track"
                       ) as e:
        srcad.grad(writes_global)(0.5)
    assert "test_objects_methods.py" in str(e.value)


def test_second_order_through_methods_named_like_writes():
    opt = Opt(0.3)
    h = 1e-4
    want = (fd(step, (0.7 + h, opt)) - fd(step, (0.7 - h, opt))) / (2 * h)
    assert float(srcad.hessian(step)(0.7, opt)) == pytest.approx(want, rel=1e-5, abs=1e-7)
    m = Model(1.5)
    m.act = lambda x: np.exp(0.5 * x)
    assert float(srcad.grad(srcad.grad(loss))(0.7, m)) == pytest.approx(np.exp(0.7), rel=1e-9)
