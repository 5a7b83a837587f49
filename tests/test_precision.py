"""Gradients keep their arguments' dtypes (srcad/precision.py): a float32 argument gets a
float32 gradient, also where the function computes in float64 (a cast, a float64 constant),
as JAX's do. Values are checked against finite differences of the float64 function."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


def cast_inside(x, y):
    return np.sum(x.astype(np.float64) ** 2 * y)


def float64_constant(x, y):
    return np.sum(np.sin(x) * np.array([1.0, 2.0])) * y


def with_aux(x, y):
    return cast_inside(x, y), "aux"


X32 = np.array([0.3, 0.7], dtype=np.float32)


@pytest.mark.parametrize("fn", [cast_inside, float64_constant])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_the_gradient_has_the_arguments_dtype(fn, dtype):
    x = X32.astype(dtype)
    g = srcad.grad(fn, argnums=(0, 1))(x, dtype(1.5))
    assert g[0].dtype == dtype and np.asarray(g[1]).dtype == dtype
    want = fd_grad_richardson(fn, (x.astype(np.float64), 1.5), 0)
    np.testing.assert_allclose(g[0], want, rtol=max(np.finfo(dtype).eps * 8, 1e-9))


def test_calls_of_either_precision_share_code_and_keep_their_dtypes():
    g = srcad.grad(cast_inside)
    for x in (X32.astype(np.float64), X32, X32.astype(np.float64), X32):
        assert g(x, 1.5).dtype == x.dtype
    assert srcad.grad(with_aux, has_aux=True)(X32, 1.5)[0].dtype == np.float32
    (value, aux), grad = srcad.value_and_grad(with_aux, has_aux=True)(X32, 1.5)
    assert grad.dtype == np.float32 and aux == "aux"
    assert value == pytest.approx(cast_inside(X32, 1.5))


def sine(v):
    return np.sin(v)


def test_numpy_scalars_of_each_precision_in_any_order():
    """The dispatcher keys NumPy's float scalars by their type: a float16 call before a float64
    one gave the float64 call the float16 code's cast (fuzz of the adversarial pass)."""
    for order in ([np.float16, np.float64, np.float32], [np.float64, np.float32, float]):
        g = srcad.grad(sine)
        for t in order:
            got = g(t(0.5))
            assert type(got) is (np.float64 if t is float else t)
            assert float(got) == pytest.approx(np.cos(0.5), rel=np.finfo(np.float16).eps * 4)


def scaled(x, y):
    return np.sum(x * y)


def test_mixed_precisions_each_gradient_in_its_arguments_dtype():
    """Of a float32 and a float64 argument, the float64 one's gradient came back float32 (the
    code computed it from float32 values alone). By hand: d sum(x y) / dy = x."""
    x, y = X32, np.array([1.25, -0.5])
    gx, gy = srcad.grad(scaled, argnums=(0, 1))(x, y)
    assert (gx.dtype, gy.dtype) == (np.float32, np.float64)
    np.testing.assert_allclose(gy, x.astype(np.float64), rtol=1e-7)
    np.testing.assert_allclose(gx, y, rtol=1e-6)


def sine_weighted(x):
    return np.sum(np.sin(x) * x)


def test_the_numba_targets_gradient_has_the_arguments_dtype():
    """The numba target's gradient of a float32 array came back float64. By hand: d sum(x sin x)
    = sin x + x cos x."""
    pytest.importorskip("numba")
    got = srcad.grad(sine_weighted, target="numba")(X32)
    assert got.dtype == np.float32
    x = X32.astype(np.float64)
    np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x), rtol=1e-6)
