"""`out=` and `np.copyto` in the user's code (frontend/outs.py): a NumPy or SciPy call
writing its result into an array the function holds is the assignment `y[...] = f(...)`
(broadcast and cast as out= does), whose value is y; they were refused. The write is checked
as any other: an argument written into gets a copy of its own, another name of the array
read afterwards is refused. Oracle: central differences with Richardson extrapolation, the
function's own value and jacfwd."""

import numpy as np
import pytest
from gradcheck import check_on_copies
from scipy.special import expit

import srcad

W = np.arange(12.0).reshape(3, 4) / 10


def layer(x):
    h = np.empty(3)
    np.dot(W, x, out=h)
    np.tanh(h, out=h)
    z = np.multiply(h, x[:3], out=np.empty(3))
    expit(h, out=h)
    return np.sum(z * h)


def into_a_slice(x):
    buf = np.zeros(5)
    np.exp(x[:2], out=buf[1:3])
    np.copyto(buf[3:], x[2:] ** 2)
    return np.sum(buf ** 2) * buf[2]


def into_the_argument(x):
    np.add(x, 1.0, out=x)
    return np.sum(np.sin(x))


def squared(y):
    return np.square(y, out=y)


def returned(x):
    y = x * 2.0
    s = np.sum(squared(y) * x)
    return s + np.sum(y)  # (y itself squared too: out= wrote into it)


def tuple_out(x):
    y = np.zeros(4)
    np.multiply(x, x, out=(y,))
    return np.sum(y * x)


def methods(x):
    z = np.outer(x, x) - 0.5
    z.clip(-0.2, 0.9, out=z)
    s = np.zeros(4)
    z.sum(axis=0, out=s)
    return np.sum(s * x)


def stale(x):
    y = x * 2.0
    v = y
    np.exp(y, out=y)
    return np.sum(v)


X = np.array([0.5, -0.3, 0.8, 1.1])


@pytest.mark.parametrize("f", [layer, into_a_slice, into_the_argument, returned, tuple_out, methods],
                         ids=lambda f: f.__name__)
def test_value_gradient_and_forward_mode(f):
    check_on_copies(f, X, atol=1e-9)


def test_the_argument_is_not_changed():
    x = X.copy()
    srcad.grad(into_the_argument)(x)
    np.testing.assert_array_equal(x, X)


def test_another_name_read_after_the_write_is_refused():
    with pytest.raises(srcad.UnsafeMutationError, match="test_out_arguments.py"):
        srcad.grad(stale)(X.copy())


def test_the_generated_code_shows_the_assignment():
    assert "h[...] = np.tanh(h)" in srcad.source(srcad.jacfwd(layer), X) or "np.tanh" in srcad.source(
        srcad.grad(layer), X)
