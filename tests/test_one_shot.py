"""One-shot iterators (generator expressions, map, zip, enumerate, filter, reversed, iter)
and unpacking of the wrong length. srcad reads an iterator as a list: right when it is consumed
once, silently wrong (every element counted again) when Python would find it exhausted. So it is
refused wherever it may be consumed twice; everywhere it is consumed once, the derivative is
checked against finite differences. `a, b = v` of a v of another length raises Python's
ValueError, from srcad's derivative as from the function."""

import numpy as np
import pytest

import srcad
from tests.oracle import fd_grad_richardson as fd
from tests.oracle import fd_grad_richardson as fd_grad
from tests.sourcemod import import_source

SRC = '''
import numpy as np


def helper(it):
    return sum(it) + sum(it)


def map_twice(x):
    m = map(np.sin, [x, 2 * x])
    return sum(m) + sum(m)


def zip_in_loop(x):
    z = zip([x, x * x], [1.0, 2.0])
    s = 0.0
    for i in range(3):
        for p, q in z:
            s = s + p * q
    return s


def map_to_helper(x):
    return helper(map(np.cos, [x, 3 * x]))


def gen_to_helper(x):
    return helper(v * v for v in [x, 2 * x])


def stored_map_to_helper(x):
    m = map(np.cos, [x, 3 * x])
    return helper(m)


def enumerate_twice(x):
    e = enumerate([x, 2 * x])
    return sum(i * v for i, v in e) + sum(v for i, v in e)


def returned_zip(x):
    return zip([x], [x])


def lambda_reads_it(x):
    g = (v * v for v in [x, 2 * x])
    f = lambda: sum(g)
    return f() + f()


# consumed once: accepted, and right
def map_once(x):
    m = map(np.sin, [x, 2 * x])
    return sum(m)


def zip_once_in_loop(x):
    s = 0.0
    for k in range(3):
        z = zip([x, x * x], [1.0, float(k)])
        for p, q in z:
            s = s + p * q
    return s


def gen_once(x):
    g = (np.tanh(v) for v in [x, 3 * x])
    return sum(g)


def zip_unpacked(x):
    a, b = zip([x, 2 * x], [3 * x, x * x])
    return a[0] * b[1] + a[1] * b[0]


def hyp(a, b):
    return np.hypot(a, b)


def map_starred(x):
    return hyp(*map(np.sin, [x, 2 * x]))


def enumerate_once(x):
    return sum(i * np.exp(v) for i, v in enumerate([x, x * x, 2.0]))


def zip_in_comprehension(x, ys):
    return sum([p * q for p, q in zip(ys, [x, x * x, np.sin(x)])])


def reversed_once(x):
    acc = 0.0
    for k, v in enumerate(reversed([x, 2 * x, x * x])):
        acc = acc * 0.5 + k * v
    return acc


# unpacking
def unpack_too_many(x):
    a, b = (x, 2 * x, 3 * x)
    return a + b


def unpack_too_few(x):
    a, b, c = [x, 2 * x]
    return a + b + c


def unpack_array(x):
    a, b = x
    return a * b


def unpack_list_arg(xs):
    a, b = xs
    return a * b


def unpack_starred(x):
    a, *rest = (x, 2 * x, x * x)
    return a * rest[1]
'''

REFUSED = ["map_twice", "zip_in_loop", "map_to_helper", "gen_to_helper", "stored_map_to_helper",
           "enumerate_twice", "returned_zip", "lambda_reads_it"]
ACCEPTED = ["map_once", "zip_once_in_loop", "gen_once", "zip_unpacked", "map_starred",
            "enumerate_once", "reversed_once"]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("oneshot"), "one_shot", SRC)


@pytest.mark.parametrize("name", REFUSED)
def test_an_iterator_that_may_be_consumed_twice_is_refused_at_its_line(mod, name):
    with pytest.raises(srcad.UnsupportedSyntaxError, match="may be consumed more than once") as e:
        srcad.grad(getattr(mod, name))(0.7)
    line = next(i for i, text in enumerate(SRC.splitlines(), 1) if f"def {name}(" in text)
    assert any(line < d.line <= line + 6 for d in e.value.diagnostics)


@pytest.mark.parametrize("name", ACCEPTED)
def test_an_iterator_consumed_once_is_differentiated(mod, name):
    f = getattr(mod, name)
    assert srcad.grad(f)(0.7) == pytest.approx(fd_grad(f, (0.7,)), rel=1e-7, abs=1e-9)


def test_zip_in_a_comprehension_with_a_constant_list(mod):
    ys = [1.0, 2.0, 3.0]
    f = mod.zip_in_comprehension
    assert srcad.grad(f)(0.4, ys) == pytest.approx(fd_grad(f, (0.4, ys)), rel=1e-7)


@pytest.mark.parametrize("name", ["unpack_too_many", "unpack_too_few"])
def test_unpacking_of_the_wrong_length_raises_pythons_error(mod, name):
    f = getattr(mod, name)
    with pytest.raises(ValueError) as python:
        f(0.5)
    with pytest.raises(ValueError) as derivative:
        srcad.grad(f)(0.5)
    assert str(derivative.value) == str(python.value)


def test_unpacking_an_array_checks_its_length(mod):
    x = np.array([0.5, 2.0])
    assert srcad.grad(mod.unpack_array)(x) == pytest.approx([2.0, 0.5])  # d(ab) = (b, a)
    assert "check_unpack" not in srcad.source(srcad.grad(mod.unpack_array), x)  # (known: 2)
    with pytest.raises(ValueError, match="too many values to unpack"):
        srcad.grad(mod.unpack_array)(np.array([0.5, 2.0, 3.0]))


def test_unpacking_a_list_argument_is_checked_when_the_code_runs(mod):
    g = srcad.grad(mod.unpack_list_arg)
    assert g([0.5, 2.0]) == pytest.approx([2.0, 0.5])
    with pytest.raises(ValueError, match="too many values to unpack"):
        g([0.5, 2.0, 1.0])


def test_starred_unpacking(mod):
    f = mod.unpack_starred
    assert srcad.grad(f)(0.3) == pytest.approx(fd_grad(f, (0.3,)), rel=1e-7)


@pytest.mark.parametrize("name", ["map_once", "gen_once", "zip_unpacked", "enumerate_once"])
def test_second_order(mod, name):
    """d2f/dx2 against a central difference of finite-difference first derivatives."""
    f = getattr(mod, name)
    h = 1e-4
    want = (fd(f, (0.7 + h,)) - fd(f, (0.7 - h,))) / (2 * h)
    assert srcad.grad(srcad.grad(f))(0.7) == pytest.approx(want, rel=1e-5, abs=1e-7)
    assert float(srcad.hessian(f)(0.7)) == pytest.approx(want, rel=1e-5, abs=1e-7)
