"""Parameters of scipy.special functions that have no derivative rule are refused, never a
silent zero: the order of a Bessel function, zeta's exponent, polygamma's order."""

import numpy as np
import pytest

import srcad

scipy_special = pytest.importorskip("scipy.special")


def bessel_in_order(v):
    return scipy_special.jv(v, 1.3) + scipy_special.iv(v, 0.4)


def integer_order(n):
    return scipy_special.yn(n * 1.0, 2.0)


def zeta_in_exponent(s):
    return scipy_special.zeta(s, 2.0)


@pytest.mark.parametrize("f", [bessel_in_order, integer_order, zeta_in_exponent])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_order_is_not_differentiated(f, mode):
    with pytest.raises(srcad.NoRuleError, match="with respect to its argument") as info:
        if mode == "grad":
            srcad.grad(f)(2.5)
        else:
            srcad.jvp(f, (2.5,), (1.0,))
    assert "test_special_orders.py" in str(info.value)


def bessel_sum(x):
    return np.sum(scipy_special.jv(1.5, x) * scipy_special.kv(0.5, x))


def test_half_integer_orders_have_closed_forms():
    # J_{3/2} and K_{1/2} in elementary functions give an independent oracle
    x = np.array([0.7, 1.9])

    def j32(x):
        return np.sqrt(2 / (np.pi * x)) * (np.sin(x) / x - np.cos(x))

    def k12(x):
        return np.sqrt(np.pi / (2 * x)) * np.exp(-x)

    h = 1e-6
    ref = [(j32(x + h) * k12(x + h) - j32(x - h) * k12(x - h)) / (2 * h)]
    assert np.allclose(srcad.grad(bessel_sum)(x), ref[0], rtol=1e-6)
