"""srcad.grad of a test function checked argument by argument against Richardson-extrapolated
finite differences (tests/oracle.py), returning the generated source for the test to read."""

import numpy as np
from oracle import assert_tree_close, fd_grad_richardson

import srcad


def checked_source(fn, args, argnums, rtol=1e-6, atol=1e-8) -> str:
    """The source of srcad.grad(fn, argnums) for args, after its gradients matched finite
    differences."""
    g = srcad.grad(fn, argnums=argnums)
    got = g(*args)
    for i, a in zip(argnums, got):
        assert_tree_close(a, fd_grad_richardson(fn, args, i), rtol=rtol, atol=atol, what=f"argument {i}")
    return srcad.source(g, *args)


def check_on_copies(f, x, atol=1e-8):
    """value_and_grad and jacfwd of f (which may change its argument: each run gets a copy)
    against f's own value and Richardson differences."""
    value, g = srcad.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy()), rtol=1e-13)
    expected = fd_grad_richardson(lambda v: f(v.copy()), (x,))
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=atol)
    np.testing.assert_allclose(srcad.jacfwd(f)(x.copy()), expected, rtol=1e-6, atol=atol)


def check_hessian_rows(f, x):
    """srcad.hessian of f, each row against differences of srcad.grad (checked on its own)."""
    h, grad = srcad.hessian(f)(x.copy()), srcad.grad(f)
    for i in range(x.size):
        row = fd_grad_richardson(lambda v, i=i: grad(v.copy())[i], (x,))
        np.testing.assert_allclose(h[i], row, rtol=1e-5, atol=1e-7)
