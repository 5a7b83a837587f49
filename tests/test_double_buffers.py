"""Loop-carried arrays that trade places (analysis/swaps.py): the double buffer of Jacobi,
stencil and fluid solvers (`b[1:-1] = f(a); a, b = b, a`) is written in place, as the safety
check now knows the two names are never one object at the same time. Gradients against
Richardson-extrapolated finite differences, tangents against directional differences,
Hessian-vector products against differences of the function's values; aliases that Python
would show (the same object twice, a name from before the loop) stay refused."""

import numpy as np
import pytest
from oracle import fd_directional, fd_grad_richardson, fd_second_directional

import srcad


def jacobi(x):
    a, b = x.copy(), np.zeros_like(x)
    for _ in range(4):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        b[0], b[-1] = a[0], a[-1]
        a, b = b, a
    return np.sum(a ** 2) + np.sum(np.sin(b))


def jacobi_until_converged(x):
    a, b = x.copy(), np.zeros_like(x)
    diff, n = 1.0, 0
    while diff > 1e-3 and n < 50:
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        b[0], b[-1] = a[0], a[-1]
        diff = np.max(np.abs(b - a))
        a, b = b, a
        n += 1
    return np.sum(a ** 3)


def three_buffers(x):
    a, b, c = x * 1.0, x * 2.0, x * 3.0
    for _ in range(3):
        a[0] = b[1] * c[2]
        a[1:] = np.tanh(a[1:] + c[:-1])
        a, b, c = b, c, a
    return np.sum(a * b) + np.sum(c)


def laplace_with_boundary_values(x):
    n = x.shape[0]
    u = np.zeros((n, n))
    u[0, :] = x  # (written before the loop: still an array the function made)
    u[:, 0] = x ** 2
    v = u.copy()
    for _ in range(4):
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u, v = v, u
    return np.sum(u ** 2)


def both_buffers_written_before_the_loop(x):
    a, b = np.zeros((2, 3)), np.zeros((2, 3))
    a[:] = x
    b[0, :] = x[1] * 2.0  # (b exists while a is written: they are two arrays)
    for _ in range(3):
        b[:, 1:] = np.tanh(a[:, :-1]) + b[:, 1:] * 0.5
        a, b = b, a
    return np.sum(a ** 2) + np.sum(b)


def swapped_through_a_temporary(x):
    a, b = x.copy(), np.zeros_like(x)
    for _ in range(3):
        b[1:] = np.tanh(a[:-1]) + a[1:]
        t = a
        a = b
        b = t
    return np.sum(a ** 2) + np.sum(b)


def heat_2d(u0, k):
    u, v = u0.copy(), np.empty_like(u0)
    for _ in range(3):
        v[:] = u + k * (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
                        + np.roll(u, -1, axis=1) - 4.0 * u)
        u, v = v, u
    return np.sum(u * u)


X = np.array([0.3, -0.5, 0.9, 1.2, -0.4])
U0 = np.random.default_rng(2).normal(size=(4, 5))
CASES = [(jacobi, (X,)), (jacobi_until_converged, (X,)), (three_buffers, (X,)), (heat_2d, (U0, 0.1)),
         (swapped_through_a_temporary, (X,)), (laplace_with_boundary_values, (X,)),
         (both_buffers_written_before_the_loop, (U0[:2, :3],))]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_double_buffers_against_finite_differences(fn, args):
    for argnum in range(len(args)):
        got = srcad.grad(fn, argnums=argnum)(*args)
        np.testing.assert_allclose(got, fd_grad_richardson(fn, args, argnum), rtol=1e-7, atol=1e-9)
    rng = np.random.default_rng(0)
    u = tuple(rng.normal(size=np.shape(a)) for a in args)
    value, tangent = srcad.jvp(fn, args, u)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-14)
    np.testing.assert_allclose(tangent, fd_directional(fn, args, u), rtol=1e-7, atol=1e-9)
    v = rng.normal(size=np.shape(args[0]))
    hvp = srcad.hvp(lambda x: fn(x, *args[1:]), (args[0],), (v,))
    hvp = hvp[1] if isinstance(hvp, tuple) else hvp
    want = fd_second_directional(lambda x: fn(x, *args[1:]), (args[0],), (u[0],), (v,))
    np.testing.assert_allclose(np.sum(u[0] * hvp), want, rtol=1e-5, atol=1e-7)


def buffer_also_named_outside(x):
    z = np.zeros_like(x)
    a, b = x.copy(), z
    for _ in range(3):
        b[:] = a * 2.0
        a, b = b, a
    return np.sum(a) + np.sum(z)  # (z is one of the buffers: Python's writes show in it)


def one_object_twice(x):
    a = x.copy()
    b = a
    for _ in range(2):
        b[0] = a[1] * 2.0
        a, b = b, a
    return np.sum(a * b)


def view_of_a_buffer_from_before(x):
    a, b = x.copy(), np.zeros_like(x)
    head = a[:2]
    for _ in range(3):
        b[:] = a + 1.0
        a, b = b, a
    return np.sum(head) + np.sum(a)


def named_before_its_boundary_was_written(x):
    u = np.zeros((3, 3))
    first = u
    u[0, :] = x[:3]
    v = u.copy()
    for _ in range(2):
        v[1:, :] = u[:-1, :] * 0.5
        u, v = v, u
    return np.sum(u) + np.sum(first)  # (first is one of the buffers)


@pytest.mark.parametrize("fn", [buffer_also_named_outside, one_object_twice, view_of_a_buffer_from_before,
                                named_before_its_boundary_was_written])
def test_buffers_another_name_can_see_stay_refused(fn):
    with pytest.raises(srcad.UnsafeMutationError, match="another reference"):
        srcad.grad(fn)(X)
