"""A function with its own derivative rules (srcad.checkpoint, custom_vjp) that changes its
argument in place: generated code calls it as it is, on the caller's array, and the
derivative around the call did not see the change (checkpoint of `u[0] *= 3` gave the value
14.5 where Python gives 13.0: the stop-37 note). Now refused when the code runs with an
array, list or dict for that parameter (frontend/param_writes.py); a number changed by
`x += v` is a new object, as in Python, and works. Oracle: central differences with
Richardson extrapolation."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


def tripled_first(u):
    u[0] = u[0] * 3.0
    return np.sum(u ** 2)


def apply_bc(u):
    u[-1] = 0.0


def through_a_helper(u):
    apply_bc(u)
    return np.sum(np.sin(u))


def appends(xs, v):
    xs.append(v)
    return sum(xs)


def shifted(s, k):
    s += k
    return s * s


ck_tripled = srcad.checkpoint(tripled_first)
ck_helper = srcad.checkpoint(through_a_helper)
ck_shifted = srcad.checkpoint(shifted)
custom_appends = srcad.custom_vjp(appends)
custom_appends.defvjp(lambda xs, v: (appends(xs, v), None), lambda res, g: (None, g))


def uses_tripled(x):
    y = x * 1.0
    return ck_tripled(y) + np.sum(y * x)


def uses_helper(x):
    y = np.cos(x)
    return ck_helper(y) * x[0]


def uses_appends(x):
    xs = [x[0], x[1]]
    return custom_appends(xs, x[2]) * x[0]


def uses_shifted(x):
    s = np.sum(x)
    return ck_shifted(s, x[1]) + s


X = np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("f,transform", [(uses_tripled, srcad.grad), (uses_tripled, srcad.jacfwd),
                                         (uses_helper, srcad.grad), (uses_helper, srcad.hessian),
                                         (uses_appends, srcad.grad)])  # (appends has no jvp rule)
def test_a_change_in_place_is_refused(f, transform):
    with pytest.raises(srcad.UnsafeMutationError, match="test_custom_rules_writing.py"):
        transform(f)(X.copy())


def test_a_number_rebound_by_plus_equals_is_not_a_change():
    expected = fd_grad_richardson(uses_shifted, (X,))
    np.testing.assert_allclose(srcad.grad(uses_shifted)(X), expected, rtol=1e-7)
    np.testing.assert_allclose(srcad.jacfwd(uses_shifted)(X), expected, rtol=1e-7)
