"""Rule bugs that were found and fixed, each against an independent oracle: a hand-derived
formula, or NumPy itself evaluated on unit vectors (for multilinear functions), in both
modes and, where the bug was about it, at second order."""

import math

import numpy as np
import pytest
import scipy.special
from oracle import fd_grad, fd_grad_richardson

import srcad


def _both_modes(f, x):
    """The gradient from reverse mode, and the same from forward mode (one jvp per element)."""
    rev = srcad.grad(f)(x)
    fwd = np.zeros(np.shape(x))
    for i in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[i] = 1.0
        fwd[i] = srcad.jvp(f, (x,), (e,))[1]
    return rev, fwd


# -- prod and cumprod: second derivatives at exact zeros ---------------------------------------

def prod_all(x):
    return np.prod(x)


def prod_method_axis(x):
    return np.sum(x.prod(axis=0) * np.array([1.0, 2.0]))


def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def nanprod_sum(x):
    return np.nanprod(x)


def cumulative_prod_sum(x):
    return np.sum(np.cumulative_prod(x))


# the first partial derivative, d/dx0, as functions srcad can differentiate again
GRAD_PROD, GRAD_CUMPROD, GRAD_CUMULATIVE = (srcad.grad(f)
                                            for f in (prod_all, cumprod_sum, cumulative_prod_sum))


def d0_prod(x):
    return GRAD_PROD(x)[0]


def d0_cumprod(x):
    return GRAD_CUMPROD(x)[0]


def d0_cumulative_prod(x):
    return GRAD_CUMULATIVE(x)[0]


@pytest.mark.parametrize("x, hess", [
    # d2/dxi dxk prod(x) = product of the elements other than i and k (0 on the diagonal)
    ([0.0, 2.0, 3.0], [[0, 3, 2], [3, 0, 0], [2, 0, 0]]),
    ([0.0, 0.0, 3.0], [[0, 3, 0], [3, 0, 0], [0, 0, 0]]),
    ([0.0, 0.0, 0.0], np.zeros((3, 3))),
    ([1.5, 2.0, 3.0], [[0, 3, 2], [3, 0, 1.5], [2, 1.5, 0]]),
])
def test_prod_hessian_is_exact_at_zeros(x, hess):
    x = np.array(x)
    assert np.array_equal(srcad.hessian(prod_all)(x), hess)
    assert np.array_equal(srcad.hvp(prod_all, (x,), (np.array([1.0, 0.0, 0.0]),)), np.asarray(hess)[0])
    assert np.array_equal(srcad.grad(d0_prod)(x), np.asarray(hess)[0])


def _third_by_hand(x):
    """d3 prod / dxi dxk dxm: the product of the elements other than i, k and m (distinct)."""
    n = len(x)
    out = np.zeros((n, n, n))
    for i, k, m in np.ndindex(n, n, n):
        if len({i, k, m}) == 3:
            out[i, k, m] = np.prod([x[j] for j in range(n) if j not in (i, k, m)])
    return out


@pytest.mark.parametrize("x", [[0.0, 2.0, 3.0, 5.0], [0.0, 0.0, 3.0, 5.0], [0.0, 0.0, 0.0, 5.0],
                               [0.0, 0.0, 0.0, 0.0], [1.5, 2.0, 3.0, -0.5]])
def test_prod_third_derivatives_are_exact_at_zeros(x):
    """prod_hvp's derivative divided by the elements: NaN at zeros (a Hessian of a function
    calling grad of a product with two zero factors, fuzz 20600:1494). By hand, as above."""
    x = np.array(x)
    want = _third_by_hand(x)
    np.testing.assert_allclose(srcad.jacfwd(srcad.hessian(prod_all))(x), want, rtol=1e-14, atol=0)
    np.testing.assert_allclose(srcad.jacrev(srcad.hessian(prod_all))(x), want, rtol=1e-14, atol=0)


def squared_zero_factor(a, y):
    return np.prod(np.array([a, y, 0.7, y]))


def through_the_grad_of_a_product(x, y):
    return x * srcad.grad(squared_zero_factor, argnums=1)(x, y - y + 0.0 * x)


def test_the_hessian_through_a_gradient_of_a_product_with_two_zeros():
    """By hand: the inner gradient is 1.4 a y at y = 0, so f = x * 1.4 x * 0 = 0: all zero."""
    hess = srcad.hessian(through_the_grad_of_a_product, argnums=(0, 1))(0.3, 0.6)
    assert all(h == 0.0 for row in hess for h in row)


def test_prod_method_with_axis_hessian_at_zeros():
    x = np.array([[0.0, 2.0], [3.0, 0.0]])
    h = srcad.hessian(prod_method_axis)(x)
    # f = x00 x10 + 2 x01 x11
    ref = np.zeros((2, 2, 2, 2))
    ref[0, 0, 1, 0] = ref[1, 0, 0, 0] = 1.0
    ref[0, 1, 1, 1] = ref[1, 1, 0, 1] = 2.0
    assert np.array_equal(h, ref)


@pytest.mark.parametrize("fun, d0", [(cumprod_sum, d0_cumprod), (cumulative_prod_sum, d0_cumulative_prod)])
@pytest.mark.parametrize("x", [[1.5, 0.0, 3.0], [0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [2.0, -1.0, 0.5]])
def test_cumprod_second_derivatives_exact_at_zeros(fun, d0, x):
    x0, x1, x2 = x
    # f = x0 + x0 x1 + x0 x1 x2
    grad = [1 + x1 + x1 * x2, x0 + x0 * x2, x0 * x1]
    hess = [[0, 1 + x2, x1], [1 + x2, 0, x0], [x1, x0, 0]]
    x = np.array(x)
    rev, fwd = _both_modes(fun, x)
    assert np.allclose(rev, grad) and np.allclose(fwd, grad)
    assert np.allclose(srcad.hessian(fun)(x), hess)
    assert np.allclose(srcad.grad(d0)(x), hess[0])


def test_nanprod_is_exact_at_zeros_and_ignores_nans():
    x = np.array([0.0, np.nan, 2.0, 3.0])
    rev, fwd = _both_modes(nanprod_sum, x)
    assert np.array_equal(rev, [6.0, 0.0, 0.0, 0.0]) and np.array_equal(fwd, rev)
    h = srcad.hessian(nanprod_sum)(x)
    assert np.array_equal(h[0], [0.0, 0.0, 3.0, 2.0])


# -- list(t) of a tuple of differently shaped arrays ---------------------------------------------

def list_of_tuple(a, b):
    items = list((a, b))
    return np.sum(items[0]) + np.sum(items[1] ** 2)


def tuple_of_list(a, b):
    items = tuple([a, b])
    return np.sum(items[0] * 3.0) + np.sum(items[1] ** 2)


@pytest.mark.parametrize("f, da", [(list_of_tuple, 1.0), (tuple_of_list, 3.0)])
def test_sequence_of_arrays_of_different_shapes(f, da):
    a, b = np.array([1.0, 2.0]), np.arange(9.0).reshape(3, 3)
    ga, gb = srcad.grad(f, argnums=(0, 1))(a, b)
    assert np.array_equal(ga, [da, da]) and np.array_equal(gb, 2 * b)
    _, jv = srcad.jvp(f, (a, b), (np.ones(2), np.ones((3, 3))))
    assert jv == pytest.approx(2 * da + np.sum(2 * b))


# -- einsum: broadcasting, ellipsis, sublists ---------------------------------------------------

C3 = np.arange(20 * 2 * 4, dtype=float).reshape(20, 2, 4) / 100.0


def einsum_broadcast(x, w):
    return np.sum(np.einsum('mnd,mdo->mno', x, w) * C3)


def test_einsum_adjoint_sums_over_a_broadcast_index():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(1, 2, 3)), rng.normal(size=(20, 3, 4))
    gx, gw = srcad.grad(einsum_broadcast, argnums=(0, 1))(x, w)
    # out[m] = x[0] @ w[m]: d/dx[0] = sum_m C[m] @ w[m]^T, d/dw[m] = x[0]^T @ C[m]
    assert np.allclose(gx, sum(C3[m] @ w[m].T for m in range(20))[None])
    assert np.allclose(gw, np.stack([x[0].T @ C3[m] for m in range(20)]))
    tx, tw = rng.normal(size=x.shape), rng.normal(size=w.shape)
    _, jv = srcad.jvp(einsum_broadcast, (x, w), (tx, tw))
    assert jv == pytest.approx(np.sum(gx * tx) + np.sum(gw * tw))


C2 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def sublist_transpose(a):
    return np.sum(np.einsum(a, [0, 1], [1, 0]) * C2)


def sublist_matmul(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1, 2], [0, 2]) * C2.T[:, :1])


def ellipsis_batched(a, b):
    return np.sum(np.einsum('...ij,...jk->...ik', a, b) * C2[0])


def test_einsum_sublist_form():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(2, 3))
    assert np.array_equal(srcad.grad(sublist_transpose)(a), C2.T)
    assert srcad.jvp(sublist_transpose, (a,), (np.ones((2, 3)),))[1] == pytest.approx(np.sum(C2))
    b = rng.normal(size=(3, 1))
    ga, gb = srcad.grad(sublist_matmul, argnums=(0, 1))(a, b)
    c = C2.T[:, :1]
    assert np.allclose(ga, c @ b.T) and np.allclose(gb, a.T @ c)


def test_einsum_ellipsis_with_broadcast_batch():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(4, 1, 3, 2)), rng.normal(size=(5, 2, 2))
    ga, gb = srcad.grad(ellipsis_batched, argnums=(0, 1))(a, b)
    c = np.broadcast_to(C2[0], (4, 5, 3, 2))
    assert np.allclose(ga, np.sum(c @ np.swapaxes(b, -1, -2), axis=1, keepdims=True))
    assert np.allclose(gb, np.sum(np.swapaxes(a, -1, -2) @ c, axis=0))


# -- joining functions given one array -----------------------------------------------------------

W23 = np.arange(6.0).reshape(2, 3) + 1.0


def vstack_rows(x):
    return np.sum(np.vstack(x) * W23)


def stack_rows_as_columns(x):
    return np.sum(np.stack(x, axis=1) * W23.T)


def concatenate_rows(x):
    return np.sum(np.concatenate(x) * W23.ravel())


def column_stack_rows(x):
    return np.sum(np.column_stack(x) * W23.T)


@pytest.mark.parametrize("f", [vstack_rows, stack_rows_as_columns, concatenate_rows, column_stack_rows])
def test_joining_one_array_joins_its_rows(f):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, 3.0]])
    rev, fwd = _both_modes(f, x)
    assert np.array_equal(rev, W23) and np.array_equal(fwd, W23)


# -- kron of every rank combination ----------------------------------------------------------------

_SHAPES = [(), (3,), (2, 1), (1, 2, 2)]


def kron_weighted(a, b):
    return np.sum(np.kron(a, b) * CK)


CK = None


@pytest.mark.parametrize("sa", _SHAPES)
@pytest.mark.parametrize("sb", _SHAPES)
def test_kron_every_rank_combination(sa, sb):
    global CK
    rng = np.random.default_rng(len(sa) * 4 + len(sb))
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    CK = rng.normal(size=np.shape(np.kron(a, b)))
    # kron is bilinear: the gradient in a is <C, kron(e_i, b)> for unit arrays e_i (and in b alike)
    ref_a = np.array([np.sum(CK * np.kron(np.eye(max(a.size, 1))[i].reshape(sa), b)) for i in range(a.size)])
    ref_b = np.array([np.sum(CK * np.kron(a, np.eye(b.size)[i].reshape(sb))) for i in range(b.size)])
    ga, gb = srcad.grad(kron_weighted, argnums=(0, 1))(a, b)
    assert np.allclose(np.ravel(ga), ref_a) and np.allclose(np.ravel(gb), ref_b)
    assert np.shape(ga) == sa and np.shape(gb) == sb
    ta, tb = rng.normal(size=sa), rng.normal(size=sb)
    _, jv = srcad.jvp(kron_weighted, (a, b), (ta, tb))
    assert jv == pytest.approx(np.sum(ref_a * np.ravel(ta)) + np.sum(ref_b * np.ravel(tb)))


# -- std and var of one element ----------------------------------------------------------------------

def std_all(x):
    return np.std(x)


def std_rows(x):
    return np.sum(np.std(x, axis=1))


def std_ddof(x):
    return np.std(x, ddof=1)


def var_ddof(x):
    return np.var(x, ddof=1)


@pytest.mark.parametrize("f, x", [(std_all, np.array([2.0])), (std_all, np.array(2.0)), (std_all, 2.0),
                                  (std_rows, np.array([[1.0], [3.0]])), (std_all, np.array([2.0, 2.0]))])
def test_std_of_a_single_element_has_derivative_zero(f, x):
    assert np.array_equal(srcad.grad(f)(x), np.zeros(np.shape(x)))
    assert srcad.jvp(f, (x,), (np.ones(np.shape(x)) if np.ndim(x) else 1.0,))[1] == 0.0
    if np.ndim(x):
        assert np.array_equal(srcad.hessian(f)(x), np.zeros(np.shape(x) * 2))


@pytest.mark.parametrize("f", [std_ddof, var_ddof])
def test_ddof_equal_to_the_size_gives_nan_like_numpy(f):
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        value = f(np.array([2.0]))
        g = srcad.grad(f)(np.array([2.0]))
    assert np.isnan(value) and np.isnan(g).all()


# -- multigammaln -------------------------------------------------------------------------------------

def multigammaln_3(a):
    return scipy.special.multigammaln(a, 3)


def test_multigammaln():
    # d/da sum_j gammaln(a - j / 2) = sum_j digamma(a - j / 2)
    ref = sum(scipy.special.digamma(3.5 - j / 2) for j in range(3))
    assert srcad.grad(multigammaln_3)(3.5) == pytest.approx(ref)
    assert srcad.jvp(multigammaln_3, (3.5,), (1.0,))[1] == pytest.approx(ref)
    ref2 = sum(scipy.special.polygamma(1, 3.5 - j / 2) for j in range(3))
    assert srcad.grad(srcad.grad(multigammaln_3))(3.5) == pytest.approx(ref2)


# -- eigh, eigvalsh and cholesky read one triangle ---------------------------------------------------

A = np.array([[2.0, 0.3, -0.4], [1.1, 3.0, 0.2], [0.5, -0.7, 4.0]])  # not symmetric


def sum_squared_eigvalsh(a):
    return np.sum(np.linalg.eigvalsh(a) ** 2)


def sum_squared_eigvalsh_upper(a):
    return np.sum(np.linalg.eigvalsh(a, UPLO='U') ** 2)


def sum_squared_eigh(a):
    return np.sum(np.linalg.eigh(a)[0] ** 2)


def logdet_cholesky(a):
    return 2.0 * np.sum(np.log(np.diagonal(np.linalg.cholesky(a + 4.0 * np.eye(3)))))


def logdet_cholesky_upper(a):
    return 2.0 * np.sum(np.log(np.diagonal(np.linalg.cholesky(a + 4.0 * np.eye(3), upper=True))))


@pytest.mark.parametrize("f, lower", [(sum_squared_eigvalsh, True), (sum_squared_eigh, True),
                                      (sum_squared_eigvalsh_upper, False)])
def test_eigenvalues_read_one_triangle(f, lower):
    # sum of squared eigenvalues of S = ||S||_F^2: a_ii^2 + twice each element of the triangle read
    tri = np.tril(A, -1) if lower else np.triu(A, 1)
    ref = 2.0 * np.diag(np.diag(A)) + 4.0 * tri
    rev, fwd = _both_modes(f, A)
    assert np.allclose(rev, ref) and np.allclose(fwd, ref)
    assert np.allclose(rev, fd_grad(f, [A]), atol=1e-6)


@pytest.mark.parametrize("f, lower", [(logdet_cholesky, True), (logdet_cholesky_upper, False)])
def test_cholesky_reads_one_triangle(f, lower):
    s_of = (lambda m: np.tril(m) + np.tril(m, -1).T) if lower else (lambda m: np.triu(m) + np.triu(m, 1).T)
    inv = np.linalg.inv(s_of(A + 4.0 * np.eye(3)))
    # d logdet(S) = tr(S^-1 dS): the triangle read, off-diagonal elements counted twice
    ref = (np.tril(2.0 * inv, -1) if lower else np.triu(2.0 * inv, 1)) + np.diag(np.diag(inv))
    rev, fwd = _both_modes(f, A)
    assert np.allclose(rev, ref) and np.allclose(fwd, ref)


# -- np.where with a condition larger than its branches ------------------------------------------

WW = np.array([0.3, -1.2, 0.8, 0.5])


def where_scalar_branch(x, y):
    c = x == 0.0
    return np.sum(WW * np.where(c, 0.0, x / np.where(c, 1.0, y)))


def test_where_condition_broadcasts_a_scalar_branch():
    # the result of np.where(c, 1.0, y) has c's shape: the cotangent of the scalar y is a sum
    x, y = np.array([0.1, 0.5, 0.0, 1.2]), 1.7
    ref = np.sum(WW * np.where(x == 0.0, 0.0, -x / y ** 2))
    g = srcad.grad(where_scalar_branch, argnums=1)(x, y)
    assert np.shape(g) == () and g == pytest.approx(ref)
    assert srcad.jvp(where_scalar_branch, (x, y), (np.zeros(4), 1.0))[1] == pytest.approx(ref)


def test_a_fourth_derivative_of_prod_is_refused():
    """prod_third has no derivative in a: a fourth derivative was 0, silently (d4 prod / dx0..dx3
    of four elements is 1)."""
    with pytest.raises(srcad.NoRuleError, match="prod_third"):
        srcad.jacfwd(srcad.jacfwd(srcad.hessian(prod_all)))(np.array([1.5, 2.0, 3.0, -0.5]))


def _xlogy(x, y):
    return scipy.special.xlogy(x, y)


def _xlog1py(x, y):
    return scipy.special.xlog1py(x, y)


def test_xlogy_cross_derivative_at_x_zero():
    """d/dy xlogy = x / y was set to 0 where x == 0, which took the cross derivative
    d2/dx dy = 1 / y away there (an asymmetric Hessian; adversarial pass). By hand."""
    for fn, dy in ((_xlogy, 1.0 / 0.5), (_xlog1py, 1.0 / 1.5)):
        hess = srcad.hessian(fn, argnums=(0, 1))(0.0, 0.5)
        assert hess[0][1] == pytest.approx(dy, rel=1e-14) and hess[1][0] == pytest.approx(dy, rel=1e-14)
        assert hess[0][0] == 0.0 and hess[1][1] == 0.0
    assert srcad.grad(_xlogy, argnums=1)(0.0, 0.0) == 0.0  # (its value is 0 there: so is d/dy)


def _sinc(x):
    return np.sinc(x)


def test_sinc_second_derivative_at_zero():
    """d sinc/dx was np.where(x == 0, 0, ...): its derivative at 0 was 0 (adversarial pass).
    By hand: sinc(x) = 1 - (pi x)^2 / 6 + ..., so the second derivative at 0 is -pi^2 / 3
    and the third 0 (sinc is even); a fourth derivative is refused."""
    assert srcad.grad(srcad.grad(_sinc))(0.0) == pytest.approx(-np.pi ** 2 / 3, rel=1e-15)
    x = 0.7  # by hand away from 0: sinc'' = -pi^2 sinc - 2 sinc' / x, sinc' = (cos(pi x) - sinc) / x
    slope = (np.cos(np.pi * x) - np.sinc(x)) / x
    assert srcad.hessian(_sinc)(x) == pytest.approx(-np.pi ** 2 * np.sinc(x) - 2 * slope / x, rel=1e-12)
    assert srcad.grad(srcad.grad(srcad.grad(_sinc)))(0.0) == 0.0
    with pytest.raises(srcad.NoRuleError, match="sinc_third"):
        srcad.grad(srcad.grad(srcad.grad(srcad.grad(_sinc))))(0.3)


def _q_sum(x):
    return np.sum(np.linalg.qr(x)[0])


def test_qr_of_a_wide_matrix_is_refused_not_a_numpy_error():
    """R of a wide matrix is not square: NumPy's solve raised LinAlgError inside generated code
    (adversarial pass); a NoRuleError naming np.linalg.qr now, in both modes. A tall one is
    differentiated (against finite differences)."""
    wide = np.random.default_rng(0).standard_normal((3, 5))
    with pytest.raises(srcad.NoRuleError, match="wide matrix"):
        srcad.grad(_q_sum)(wide)
    with pytest.raises(srcad.NoRuleError, match="wide matrix"):
        srcad.jvp(_q_sum, (wide,), (wide,))
    tall = np.random.default_rng(1).standard_normal((5, 3))
    np.testing.assert_allclose(srcad.grad(_q_sum)(tall), fd_grad(_q_sum, (tall,)), rtol=1e-6, atol=1e-8)


def fsums(x):
    return math.fsum(x * x) + math.fsum([x[0] * x[1], x[2] ** 2])


def test_math_fsum_in_batched_forward_mode():
    """jacfwd's batched tangents reached math.fsum as a 2-d array (a TypeError in generated
    code; the adversarial pass of stop 38): each direction is summed."""
    x = np.array([0.3, -0.7, 1.2])
    expected = fd_grad_richardson(fsums, (x,))
    np.testing.assert_allclose(srcad.jacfwd(fsums)(x), expected, rtol=1e-8)
    np.testing.assert_allclose(srcad.vmap(srcad.grad(fsums))(np.stack([x, 2 * x]))[1],
                               fd_grad_richardson(fsums, (2 * x,)), rtol=1e-8)
    np.testing.assert_allclose(srcad.hessian(fsums)(x), [[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 4.0]])


MATMUL_SHAPES = [((3,), (4, 3, 2)), ((2, 3), (4, 3, 2)), ((4, 2, 3), (3, 2)), ((4, 2, 3), (3,)),
                 ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 4, 3, 2)), ((4, 2, 3), (4, 3, 2))]


def tanh_product(x, y):
    return np.tanh(x @ y)


@pytest.mark.parametrize("xs,ys", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("argnum", [0, 1])
def test_jacfwd_of_a_matmul_with_a_stack(xs, ys, argnum):
    """jacfwd's batched tangents met a stack of matrices in x @ y: the directions axis was
    matmul'ed against the stack axis (a wrong Hessian of np.sum(np.tanh(X @ W) ** 2) for a
    stacked X when the counts matched, else a crash; the adversarial pass of stop 38). Against
    differences of a random projection of the output."""
    rng = np.random.default_rng(3)
    args = [rng.normal(size=xs), rng.normal(size=ys)]
    jac = srcad.jacfwd(tanh_product, argnums=argnum)(*args)
    w = rng.normal(size=np.shape(tanh_product(*args)))
    expected = fd_grad_richardson(lambda *a: np.sum(w * tanh_product(*a)), tuple(args), argnum)
    got = np.tensordot(w, jac, axes=w.ndim)
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9)


def batched_loss(W, X):
    return np.sum(np.tanh(X @ W) ** 2)


def test_hessian_of_a_loss_over_a_stack():
    rng = np.random.default_rng(0)
    W, X = rng.normal(size=(3, 2)), rng.normal(size=(6, 2, 3))
    H = srcad.hessian(batched_loss)(W, X).reshape(6, 6)

    def hand_grad(W):  # d/dW of sum(tanh(XW)^2) = X^T (2 tanh(XW) sech^2(XW)), summed over the stack
        return 2 * np.einsum("bnd,bnk->dk", X, np.tanh(X @ W) / np.cosh(X @ W) ** 2)

    for i, e in enumerate(np.eye(6).reshape(6, 3, 2)):  # rows against differences of hand_grad
        row = (hand_grad(W + 1e-5 * e) - hand_grad(W - 1e-5 * e)).ravel() / 2e-5
        np.testing.assert_allclose(H[i], row, rtol=1e-5, atol=1e-6)


def batched_transposes(X):
    return np.sum(np.tanh(X @ X.transpose(0, -1, -2)))


def test_jacfwd_of_a_transpose_with_negative_axes():
    X = np.random.default_rng(1).normal(size=(2, 2, 3))
    expected = fd_grad_richardson(batched_transposes, (X,))
    np.testing.assert_allclose(srcad.jacfwd(batched_transposes)(X), expected, rtol=1e-7, atol=1e-9)


def det_of(a):
    return np.linalg.det(a) + np.sum(np.linalg.inv(a))


def test_zero_size_matrices():
    """np.linalg of 0x0 matrices: det is 1 (constant), inv is 0x0; grad and jacfwd crashed."""
    z = np.zeros((0, 0))
    assert srcad.grad(det_of)(z).shape == (0, 0) and srcad.jacfwd(det_of)(z).shape == (0, 0)
