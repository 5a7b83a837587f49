"""Every array a transformation returns is its own (passes/ownership.py `own_results`):
changing a gradient in place (g *= lr, g += wd * w, clipping) changes nothing else, not the
caller's arguments or cotangents, not the function's globals, closures or attributes, not
another result; and it is writeable. (Found by an adversarial pass: the gradients of x + y
were one object, d/dx x @ C was the global C itself, d/dx sum(x) a read-only broadcast.)
Values are checked against derivatives by hand."""

import numpy as np
import pytest

import srcad

C = np.array([1.0, 2.0, 3.0])
M = np.array([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])


def summed_pair(x, y):
    return np.sum((x + y) ** 2)


def dotted_with_a_global(x):
    return np.dot(x, C)


def times_a_global_row(x):
    return np.sum(x * M[0])


def sum_shaped(w):
    return 3.0 * np.sum(w) + 1.0


def two_sums(x, y):
    return np.sum(x) + np.sum(y)


class Scaled:
    def __init__(self, c):
        self.c = c

    def __call__(self, x):
        return np.sum(x * self.c)


def _leaves(t):
    if isinstance(t, dict):
        return [v for x in t.values() for v in _leaves(x)]
    if isinstance(t, (list, tuple)):
        return [v for x in t for v in _leaves(x)]
    return [t] if isinstance(t, np.ndarray) else []


def _owned(result, *others):
    leaves = _leaves(result)
    for i, a in enumerate(leaves):
        assert a.flags.writeable
        assert not any(np.shares_memory(a, b) for b in leaves[:i])
        assert not any(np.shares_memory(a, o) for o in others)


X, Y = np.array([0.5, -1.0, 2.0]), np.array([4.0, 5.0, 6.0])


def test_gradients_of_two_arguments_are_two_arrays():
    gx, gy = srcad.grad(summed_pair, argnums=(0, 1))(X, Y)
    _owned((gx, gy), X, Y)
    gx += 1.0
    np.testing.assert_allclose(gy, 2.0 * (X + Y), rtol=1e-15)


@pytest.mark.parametrize("fn, const", [(dotted_with_a_global, C), (times_a_global_row, M)])
def test_a_gradient_equal_to_a_global_is_a_copy(fn, const):
    before = const.copy()
    g = srcad.grad(fn)(np.zeros(3))
    _owned(g, const)
    g *= 0.1
    np.testing.assert_array_equal(const, before)
    np.testing.assert_allclose(srcad.grad(fn)(np.ones(3)), before if const is C else before[0], rtol=1e-15)


def test_a_gradient_equal_to_an_attribute_or_closure_is_a_copy():
    c = np.array([2.0, -1.0, 0.5])
    g = srcad.grad(Scaled(c))(X)
    _owned(g, c)
    g2 = srcad.grad(lambda x: np.sum(x * c))(X)
    _owned(g2, c)
    np.testing.assert_allclose(g2, [2.0, -1.0, 0.5], rtol=1e-15)


def test_a_sum_shaped_gradient_is_writeable():
    g = srcad.grad(sum_shaped)(X)
    _owned(g)
    g += 0.01 * X
    np.testing.assert_allclose(g, 3.0 + 0.01 * X, rtol=1e-15)
    gx, gy = srcad.grad(two_sums, argnums=(0, 1))(X, Y)
    _owned((gx, gy))


def test_pytree_gradients_are_owned_leaf_by_leaf():
    p = {"a": X.copy(), "b": Y.copy()}
    _owned(srcad.grad(lambda p: np.sum(p["a"] + p["b"]))(p), *p.values())
    xs = [X.copy(), X.copy()]
    _owned(srcad.grad(lambda xs: np.sum(xs[0] * C + xs[1] * C))(xs), *xs, C)


def test_vjp_and_jvp_results_are_not_the_callers_arrays():
    ct, t = np.ones(3), np.ones(3)
    _, back = srcad.vjp(lambda x: x + 0.0, X)
    (r,) = back(ct)
    _owned(r, ct)
    r *= 5.0
    np.testing.assert_array_equal(ct, np.ones(3))
    _, tangent = srcad.jvp(lambda x: x + 1.0, (X,), (t,))
    _owned(tangent, t)
    jac = srcad.jacfwd(lambda x: x * 1.0)(X)
    np.testing.assert_array_equal(jac, np.eye(3))
    _owned(jac)


def test_a_vjp_primal_output_is_not_the_callers_array():
    """vjp's forward returns its output as Python would compute it, a new array: x * 1.0
    simplifies to x, which must not come back as x itself (its residuals stay as they are)."""
    x = X.copy()
    out, back = srcad.vjp(lambda v: v * 1.0, x)
    _owned(out, x)
    out[0] = 100.0
    np.testing.assert_array_equal(x, X)
    (g,) = back(np.ones(3))
    np.testing.assert_array_equal(g, np.ones(3))
    out, _ = srcad.vjp(lambda v: {"a": v, "b": v * C}, x)
    _owned(out, x, C)
