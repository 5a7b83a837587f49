"""`import` inside the function (frontend/imports.py), `with np.errstate(...)` set to 'ignore'
or 'warn' (frontend/contexts.py), `d.get(k, default)` of a dict with known keys, a tuple
grown in a loop (transforms/sequences.py, unroll.py), `np.fill_diagonal` on a local array
(frontend/inplace_calls.py): gradients against Richardson-
extrapolated finite differences, tangents against finite-difference directional
derivatives; what stays refused, at the user's line."""

import numpy as np
import pytest
from oracle import fd_directional, fd_grad_richardson

import srcad


def imports_inside(x):
    import math

    import numpy as npx
    import scipy.special
    from scipy.special import expit
    from scipy.special import gammaln as lg
    return npx.sum(lg(x + 1.0)) + np.sum(expit(x)) + scipy.special.logsumexp(x) + math.pi * x[0]


def imports_what_the_module_imports(x):
    import numpy as np  # (the module binds np too: Python 3.11 compiles np.sum(...) for that)
    return np.sum(np.sin(x) * x)


def helper_importing(v):
    from numpy import tanh
    return tanh(v) * 2.0


def calls_a_helper_that_imports(x):
    return np.sum(helper_importing(x) ** 2)


def masked_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(x > 0, x, 1.0)
        y = np.where(x > 0, np.log(safe), 0.0)
    return np.sum(y * x)


def returns_inside_with(x):
    for i in range(2):
        with np.errstate(over="ignore"):
            if x[i] > 10.0:
                return np.sum(x)
    with np.errstate(all="warn"), np.errstate(under="ignore"):
        return np.sum(np.exp(x) * x)


def _scaled(a, **kw):
    return np.sum(a) * kw.get("w", 1.0) + kw.get("b", 0.0)


def keyword_defaults(x, w):
    return _scaled(x, w=w) + _scaled(x * x)


def grown_tuple(x):
    t = ()
    for i in range(3):
        t += (x[i] ** 2,)
    return t[0] + t[1] * t[2]


def kernel_with_noise(x, noise):
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2)
    np.fill_diagonal(K, K.diagonal() + noise)
    return np.linalg.slogdet(K)[1] + np.sum(np.linalg.solve(K, x))


def wide_diagonal(x, s):
    M = np.ones((2, 3)) * x[0]
    np.fill_diagonal(M, x[1:3] * s)
    np.fill_diagonal(M, M.diagonal() * 2.0, wrap=False)
    return np.sum(np.sin(M))


X = np.array([0.5, -1.5, 2.0])
CASES = [(kernel_with_noise, (X, 0.1)), (wide_diagonal, (X, 0.7)), (imports_what_the_module_imports, (X,)),
         (imports_inside, (np.abs(X),)), (calls_a_helper_that_imports, (X,)), (masked_log, (X,)),
         (returns_inside_with, (X,)), (keyword_defaults, (X, 0.7)), (grown_tuple, (X,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_and_tangent_against_finite_differences(fn, args):
    for argnum in range(len(args)):
        got = srcad.grad(fn, argnums=argnum)(*args)
        np.testing.assert_allclose(got, fd_grad_richardson(fn, args, argnum), rtol=1e-7, atol=1e-9)
    tangents = tuple(np.full_like(np.asarray(a), 0.3) for a in args)
    value, tangent = srcad.jvp(fn, args, tangents)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-14)
    np.testing.assert_allclose(tangent, fd_directional(fn, args, tangents), rtol=1e-7, atol=1e-9)


def raising_errstate(x):
    with np.errstate(divide="raise"):  # (changes what the code does: refused)
        return np.sum(np.log(x))


def other_context(x):
    import warnings
    with warnings.catch_warnings():
        return np.sum(x)


def repeated_diagonal(x):
    M = np.ones((3, 3)) * x[0]
    np.fill_diagonal(M, x[:2])  # (NumPy repeats [x0, x1] along the diagonal)
    return np.sum(M)


def test_a_diagonal_value_numpy_would_repeat_is_refused_at_the_users_line():
    with pytest.raises(srcad.TypeSupportError, match="repeats along the diagonal") as info:
        srcad.grad(repeated_diagonal)(X)
    assert f"test_imports_and_contexts.py:{repeated_diagonal.__code__.co_firstlineno + 2}:" in str(info.value)


@pytest.mark.parametrize("fn, offset", [(raising_errstate, 1), (other_context, 2)])
def test_other_contexts_are_refused_at_the_users_line(fn, offset):
    with pytest.raises(srcad.UnsupportedSyntaxError, match="'with' statements are not supported") as info:
        srcad.grad(fn)(X)
    assert f"test_imports_and_contexts.py:{fn.__code__.co_firstlineno + offset}:" in str(info.value)
