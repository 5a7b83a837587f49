"""srcad.jvp, srcad.vjp (and its vjp_fn) and srcad.hvp called inside a function srcad
differentiates (forms.py: jvp as the derivative of f(p + eps t) in eps, hvp as the gradient of
<grad f, t>, vjp_fn as the gradient of <f, ct>), checked against finite differences of the
same function run by NumPy, first and second order."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad
from srcad.errors import UnsupportedSyntaxError

V = np.array([1.0, 2.0, -0.5])
W = np.random.RandomState(0).randn(3, 3) * 0.5


def f(x):
    return np.sin(x) * x


def scalar_f(x):
    return np.sum(np.sin(x) * x ** 2)


def two(x, w):
    return np.tanh(w @ x)


def through_jvp(x):
    return np.sum(srcad.jvp(f, (x,), (V,))[1] ** 2)


def through_jvp_of_two(x):
    out, t = srcad.jvp(two, (x, W), (V, W))
    return np.sum(t * out)


def through_hvp(x):
    return np.sum(srcad.hvp(scalar_f, (x,), (V,)) ** 2)


def through_vjp(x):
    out, vjp_fn = srcad.vjp(f, x)
    return np.sum(vjp_fn(V)[0] ** 2) + np.sum(out)


def through_vjp_of_two(x):
    out, vjp_fn = srcad.vjp(two, x, W)
    ct_x, ct_w = vjp_fn(V)
    return np.sum(ct_x * x) + np.sum(ct_w * W)


def scalar_jvp(x):
    return srcad.jvp(scalar_f, (x,), (V,))[1] * np.sum(x)


CASES = [through_jvp, through_jvp_of_two, through_hvp, through_vjp, through_vjp_of_two, scalar_jvp]
X = np.array([0.3, -0.2, 0.9])


@pytest.mark.parametrize("h", CASES, ids=lambda h: h.__name__)
def test_grad_of_a_function_calling_a_value_transformation(h):
    assert np.allclose(srcad.grad(h)(X), fd_grad_richardson(h, (X,)), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("h", [through_jvp, through_hvp, through_vjp], ids=lambda h: h.__name__)
def test_hessian_of_a_function_calling_a_value_transformation(h):
    hess = srcad.hessian(h)(X)
    cols = [fd_grad_richardson(lambda x, k=k: srcad.grad(h)(x)[k], (X,)) for k in range(3)]
    assert np.allclose(hess, np.stack(cols), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("h", CASES, ids=lambda h: h.__name__)
def test_the_values_are_those_of_the_transformations_called_directly(h):
    assert float(srcad.value_and_grad(h)(X)[0]) == pytest.approx(float(h(X)), rel=1e-12)


def jvp_of_a_lambda(x):
    return np.sum(srcad.jvp(lambda y: y * y, (x,), (x,))[1])


def jvp_with_aux(x):
    return np.sum(srcad.jvp(f, (x,), (x,), has_aux=True)[1])


@pytest.mark.parametrize("h", [jvp_of_a_lambda, jvp_with_aux], ids=lambda h: h.__name__)
def test_what_has_no_form_is_refused_at_the_line(h):
    with pytest.raises(UnsupportedSyntaxError, match=r"srcad.jvp inside a function srcad") as e:
        srcad.grad(h)(X)
    assert "test_value_forms.py:" in str(e.value)


def tuple_jacrev(x):
    jx, jw = srcad.jacrev(two, argnums=(0, 1))(x, W)
    return np.sum(jx ** 2) + np.sum(jw * W)


def tuple_jacfwd(x):
    jx, jw = srcad.jacfwd(two, argnums=(0, 1))(x, W)
    return np.sum(jx * x) + np.sum(jw ** 2)


@pytest.mark.parametrize("h", [tuple_jacrev, tuple_jacfwd], ids=lambda h: h.__name__)
def test_jacobians_in_tuple_argnums_inside_a_differentiated_function(h):
    assert np.allclose(srcad.grad(h)(X), fd_grad_richardson(h, (X,)), rtol=1e-7, atol=1e-9)


def test_jacfwd_of_jacrev_in_tuple_argnums():
    """The outer jacfwd against finite differences of the inner Jacobians (which are checked
    against finite differences of `two` first)."""
    inner = srcad.jacrev(two, argnums=(0, 1))
    first = [np.stack([fd_grad_richardson(lambda x, w, k=k: two(x, w)[k], (X, W), a) for k in range(3)])
             for a in (0, 1)]
    assert all(np.allclose(j, f1, atol=1e-8) for j, f1 in zip(inner(X, W), first))
    jx, jw = srcad.jacfwd(inner)(X, W)
    eps = 1e-5
    for k in range(3):
        e = np.zeros(3)
        e[k] = eps
        plus, minus = (inner(X + s * e, W) for s in (1, -1))
        assert np.allclose(jx[..., k], (plus[0] - minus[0]) / (2 * eps), atol=1e-6)
        assert np.allclose(jw[..., k], (plus[1] - minus[1]) / (2 * eps), atol=1e-6)
