"""`A @ x` and `A.dot(x)` of a scipy.sparse matrix or array A that is not differentiated (a
finite-difference Laplacian, a stiffness matrix) and a differentiated array x: srcad.sparse_dot,
whose adjoint is A.T @ g. It was a TypeSupportError (a value srcad does not know). `x @ A`,
np.dot(A, x) (which NumPy does not compute as a product) and differentiating A stay refused.
Oracle: central differences with Richardson extrapolation."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad

sps = pytest.importorskip("scipy.sparse")

N = 5
LAPLACIAN = sps.diags([np.ones(N - 1), -2.0 * np.ones(N), np.ones(N - 1)], [-1, 0, 1], format="csr")
RECT = sps.random(3, N, density=0.6, random_state=np.random.RandomState(0), format="csc")
ARRAY = sps.csr_array(LAPLACIAN)
U = np.linspace(0.1, 1.0, N)


def heat(u0, k):
    u = u0
    for _ in range(4):
        u = u + 0.1 * (k @ u)
    return np.sum(u ** 3)


def rectangular(u):
    return np.sum(np.tanh(RECT @ u)) + ARRAY.dot(u) @ u


def matrix_operand(m):
    return np.sum(np.sin(LAPLACIAN @ m))


def dense_on_the_left(u):
    return np.sum(u @ LAPLACIAN)


def numpy_dot(u):
    return np.sum(np.dot(LAPLACIAN, u))


def test_a_loop_of_sparse_products():
    f = lambda u: heat(u, LAPLACIAN)  # noqa: E731
    np.testing.assert_allclose(srcad.grad(heat)(U, LAPLACIAN), fd_grad_richardson(f, (U,)), rtol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(heat)(U, LAPLACIAN), fd_grad_richardson(f, (U,)), rtol=1e-8)


@pytest.mark.parametrize("f, x", [(rectangular, U), (matrix_operand, np.outer(U, [1.0, -0.5]))],
                         ids=["rectangular", "matrix"])
def test_gradients_hessians_and_maps(f, x):
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, fd_grad_richardson(f, (x,)), rtol=1e-8, atol=1e-12)
    grad = srcad.grad(f)
    rows = [fd_grad_richardson(lambda z, i=i: grad(z)[np.unravel_index(i, x.shape)], (x,))
            for i in range(x.size)]
    np.testing.assert_allclose(srcad.hessian(f)(x).reshape(x.size, x.size),
                               np.reshape(rows, (x.size, x.size)), rtol=1e-6, atol=1e-8)
    batch = np.stack([x, 2.0 * x])
    np.testing.assert_allclose(srcad.vmap(grad)(batch)[1], fd_grad_richardson(f, (2.0 * x,)),
                               rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("f", [dense_on_the_left, numpy_dot], ids=lambda f: f.__name__)
def test_other_products_stay_refused(f):
    with pytest.raises(srcad.TypeSupportError, match="test_sparse.py"):
        srcad.grad(f)(U)


def test_the_matrix_is_not_differentiated():
    with pytest.raises(srcad.TypeSupportError, match="argument k"):
        srcad.grad(heat, argnums=1)(U, LAPLACIAN)
