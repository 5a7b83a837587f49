"""A function with its own derivative rules (srcad.checkpoint, custom_vjp, custom_jvp) that
changes its argument in place: generated code calls it as it is, on the caller's array, and
the derivative around the call did not see the change (checkpoint of `u[0] *= 3` gave the
value 14.5 where Python gives 13.0: the stop-37 note). Generated code now calls such
functions on read-only views of their arrays and copies of their lists and dicts
(srcad/guarded.py): any write, through helpers, aliases, views, np.add.at or out=, is an
UnsafeMutationError; a function that copies first, or rebinds a number by `x += v`, works.
Oracle: central differences with Richardson extrapolation."""

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


def added_at(u):
    v = u
    np.add.at(v, [0, 0], 1.0)
    return np.sum(v ** 2)


def nested_write(u):
    def bump(w):
        w[1] *= 2.0
    bump(u)
    return np.sum(u)


def copies_first(u):
    u = u.copy()
    u[0] = 0.0
    return np.sum(u ** 3)


def shifted(s, k):
    s += k
    return s * s


ck_tripled = srcad.checkpoint(tripled_first)
ck_helper = srcad.checkpoint(through_a_helper)
ck_shifted = srcad.checkpoint(shifted)
ck_added_at = srcad.checkpoint(added_at)
ck_nested = srcad.checkpoint(nested_write)
ck_copies = srcad.checkpoint(copies_first)
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


def uses_added_at(x):
    y = x * 2.0
    return ck_added_at(y) * np.sum(y)


def uses_nested(x):
    y = np.sin(x)
    return ck_nested(y) + y[1]


def uses_copies(x):
    y = x * 1.5
    return ck_copies(y) + np.sum(y)


def uses_shifted(x):
    s = np.sum(x)
    return ck_shifted(s, x[1]) + s


X = np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("f,transform", [(uses_tripled, srcad.grad), (uses_tripled, srcad.jacfwd),
                                         (uses_tripled, srcad.hessian),  # (generated code transformed again)
                                         (uses_helper, srcad.grad), (uses_appends, srcad.grad),
                                         (uses_added_at, srcad.grad), (uses_added_at, srcad.jacfwd),
                                         (uses_nested, srcad.value_and_grad), (uses_nested, srcad.jacfwd)])
def test_a_change_in_place_is_refused(f, transform):
    with pytest.raises(srcad.UnsafeMutationError, match="test_custom_rules_writing.py"):
        transform(f)(X.copy())


@pytest.mark.parametrize("f", [uses_shifted, uses_copies], ids=lambda f: f.__name__)
def test_a_number_rebound_or_a_copy_changed_is_not_a_change(f):
    expected = fd_grad_richardson(f, (X,))
    np.testing.assert_allclose(srcad.grad(f)(X), expected, rtol=1e-7)
    np.testing.assert_allclose(srcad.jacfwd(f)(X), expected, rtol=1e-7)
