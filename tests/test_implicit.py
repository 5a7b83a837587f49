"""srcad.fixed_point and srcad.custom_root (srcad/implicit.py): derivatives by the implicit
function theorem in both modes, against closed-form implicit derivatives and finite
differences of the solution; never the derivative of the iterations."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp

import srcad

optimize = pytest.importorskip("scipy.optimize")


def cos_map(x, p):
    return np.cos(p * x)


def cos_fixed(p, x0=0.5):
    return srcad.fixed_point(cos_map, x0, p)


def test_fixed_point_of_cos_against_the_closed_form():
    p = 0.8
    x = cos_fixed(p)
    dx = -np.sin(p * x) * x / (1.0 + p * np.sin(p * x))  # d/dp of x = cos(p x)
    assert abs(srcad.grad(cos_fixed)(p) - dx) < 1e-10
    assert abs(srcad.jvp(cos_fixed, (p,), (1.0,))[1] - dx) < 1e-10


def test_the_derivative_is_not_that_of_the_iterations():
    """Started at the solution, the iteration stops at once: the derivative of its steps
    would be that of one application of the map, not the implicit derivative."""
    p = 0.8
    x = cos_fixed(p)
    dx = -np.sin(p * x) * x / (1.0 + p * np.sin(p * x))
    assert abs(srcad.grad(cos_fixed)(p, x) - dx) < 1e-10


def layer(x, params):
    w, b = params
    return np.tanh(w @ x + b)


def equilibrium(w, b):
    x = srcad.fixed_point(layer, np.zeros(3), (w, b))
    return np.sum(x * np.arange(1.0, 4.0))


def test_a_vector_fixed_point_with_tuple_parameters_against_finite_differences():
    rng = np.random.default_rng(0)
    w, b = 0.3 * rng.standard_normal((3, 3)), rng.standard_normal(3)
    g_w, g_b = srcad.grad(equilibrium, argnums=(0, 1))(w, b)
    assert_tree_close(g_w, fd_grad(equilibrium, (w, b), 0), rtol=1e-6, atol=1e-8)
    assert_tree_close(g_b, fd_grad(equilibrium, (w, b), 1), rtol=1e-6, atol=1e-8)
    u = rng.standard_normal((3, 3))
    assert abs(srcad.jvp(equilibrium, (w, b), (u, None))[1] - fd_jvp(equilibrium, (w, b), (u, None))) < 1e-7


def square_minus(x, a):
    return x * x - a


def newton_sqrt(a):
    return srcad.custom_root(square_minus, 1.0, a)


def scipy_sqrt(a):
    x = srcad.custom_root(square_minus, np.array([1.0]), a,
                          solve=lambda g, x0: optimize.root(g, x0, tol=1e-13).x)
    return x[0]


@pytest.mark.parametrize("fn", [newton_sqrt, scipy_sqrt])
def test_square_root_by_a_root_finder(fn):
    assert abs(fn(2.0) - np.sqrt(2.0)) < 1e-10
    assert abs(srcad.grad(fn)(2.0) - 0.5 / np.sqrt(2.0)) < 1e-9
    assert abs(srcad.jvp(fn, (2.0,), (1.0,))[1] - 0.5 / np.sqrt(2.0)) < 1e-9


def linear_residual(x, params):
    a, b = params
    return a @ x - b


def linear_root(a, b):
    x = srcad.custom_root(linear_residual, np.zeros(2), (a, b),
                          tangent_solve=lambda matvec, rhs: optimize.root(lambda v: matvec(v) - rhs,
                                                                          np.zeros(2), tol=1e-13).x)
    return np.sum(x ** 2)


def test_a_linear_system_with_a_given_tangent_solve_against_the_closed_form():
    a, b = np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([1.0, -1.0])
    x = np.linalg.solve(a, b)
    u = np.linalg.solve(a.T, 2.0 * x)
    g_a, g_b = srcad.grad(linear_root, argnums=(0, 1))(a, b)
    assert_tree_close(g_a, -np.outer(u, x), rtol=1e-8, atol=1e-10)
    assert_tree_close(g_b, u, rtol=1e-8, atol=1e-10)
    t_a = np.array([[0.1, 0.0], [0.2, -0.3]])
    assert abs(srcad.jvp(linear_root, (a, b), (t_a, None))[1] - np.sum(-np.outer(u, x) * t_a)) < 1e-9


def minimiser(c):
    """argmin_x sum((x - c)^4) + x.x by scipy.optimize.minimize: a root of the gradient."""
    def grad_f(x, c):
        return 4.0 * (x - c) ** 3 + 2.0 * x
    x = srcad.custom_root(grad_f, np.zeros(2), c,
                          solve=lambda g, x0: optimize.root(g, x0, tol=1e-13).x)
    return np.sum(np.sin(x))


def test_the_minimiser_of_an_optimiser_differentiated_implicitly():
    c = np.array([0.5, -1.0])
    assert_tree_close(srcad.grad(minimiser)(c), fd_grad(minimiser, (c,)), rtol=1e-6, atol=1e-8)


def expanding(x, p):
    return 2.0 * x + p


def test_a_map_that_does_not_converge_is_an_error():
    with pytest.raises(srcad.SrcadError, match="did not converge"):
        srcad.grad(lambda p: srcad.fixed_point(expanding, 1.0, p, max_iter=50))(0.5)


def test_second_order_is_a_clear_error():
    with pytest.raises(srcad.NoRuleError, match="second-order"):
        srcad.hessian(cos_fixed)(0.8)


def test_a_map_closing_over_a_differentiated_value_is_refused_at_the_users_line():
    def solution(p):
        return srcad.fixed_point(lambda x, q: np.cos(p * x), 0.5, None)
    with pytest.raises(srcad.UnsupportedSyntaxError, match="pass those values") as e:
        srcad.grad(solution)(0.8)
    assert e.value.filename.endswith("test_implicit.py")
