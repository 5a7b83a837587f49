"""The adjoints of einsums and tensordots written as those products when the shapes are known
(passes/product_adjoints.py), and a sum of an einsum over a letter of one operand taken in that
operand first (passes/reductions.py). Gradients against finite differences; the generated code
checked for what it computes."""

import numpy as np
import pytest
from gradcheck import checked_source
from oracle import assert_tree_close, fd_grad_richardson

import srcad

rng = np.random.default_rng(41)


def mahalanobis(Ls, x, means):  # GradBench's gmm: points against every component
    xc = x[:, None, :] - means[None, :, :]
    z = np.einsum("ijk,mik->mij", Ls, xc)
    return np.sum(np.exp(-0.5 * np.sum(z * z, axis=2)))


def implicit(a, b):  # 'ij,jk' is 'ij,jk->ik'
    return np.sum(np.sin(np.einsum("ij,jk", a, b)))


def broadcast(a, b):  # a (1, 3) against b (4, 3): NumPy broadcasts letter i
    return np.sum(np.einsum("ij,ij->ij", a, b) ** 2)


def diagonal(a, w):  # a repeated letter: the adjoint writes onto the diagonal
    return np.dot(np.einsum("ii->i", a), w) + np.sum(np.einsum("ij,ij->i", a, a))


def summed_keepdims(a, b):
    return np.sum(np.cos(np.sum(np.einsum("mi,ij->mj", a, b), axis=0, keepdims=True)))


@pytest.mark.parametrize("n, k, d", [(6, 3, 2), (1, 1, 1), (5, 2, 4)])
def test_mahalanobis_sum_over_points_first(n, k, d):
    args = (rng.normal(size=(k, d, d)) * 0.5, rng.normal(size=(n, d)), rng.normal(size=(k, d)))
    src = checked_source(mahalanobis, args, (0, 2))
    assert "_einsum_vjp" not in src, src
    if n > 1:  # (the cotangent of xc summed over the points first)
        assert "_einsum('ij,ijk->ik'" in src, src
    assert "_unbroadcast" not in src, src
    # (2.0 and -0.5 from the adjoint of z * z and the -0.5 factor, moved out of the indexing
    # `[:, :, None]` that puts an axis back, are one negation: passes/algebra.py)
    assert "2.0" not in src and "0.5 *" not in src.split("adjoint")[1], src


def test_implicit_spec():
    args = (rng.normal(size=(3, 4)), rng.normal(size=(4, 2)))
    src = checked_source(implicit, args, (0, 1))
    assert "_einsum_vjp" not in src, src


def test_broadcast_letter_keeps_the_run_time_adjoint():
    args = (rng.normal(size=(1, 3)), rng.normal(size=(4, 3)))
    src = checked_source(broadcast, args, (0, 1))
    assert "_einsum_vjp" in src, src  # (a broadcast letter is summed at run time)


def test_repeated_letter_keeps_the_run_time_adjoint():
    args = (rng.normal(size=(3, 3)), rng.normal(size=3))
    src = checked_source(diagonal, args, (0, 1))
    assert "_einsum_vjp" in src, src


def test_sum_with_keepdims_pushed():
    args = (rng.normal(size=(5, 3)), rng.normal(size=(3, 2)))
    src = checked_source(summed_keepdims, args, (0, 1))
    assert "_einsum_vjp" not in src, src


def test_second_order_through_the_written_adjoint():
    Ls, x, means = rng.normal(size=(2, 2, 2)) * 0.5, rng.normal(size=(4, 2)), rng.normal(size=(2, 2))
    h = srcad.hessian(mahalanobis, argnums=2)(Ls, x, means)
    g = srcad.grad(mahalanobis, argnums=2)
    rows = []
    for i in range(2):
        for j in range(2):
            rows.append(fd_grad_richardson(lambda m, i=i, j=j: g(Ls, x, m)[i, j], (means,), 0))
    want = np.stack(rows).reshape(2, 2, 2, 2)
    assert_tree_close(h, want, rtol=1e-6, atol=1e-8)


def test_complex_operands():
    a = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    b = rng.normal(size=(2, 4))

    def f(b):
        return np.sum(np.abs(np.einsum("ij,jk->ik", a, b)) ** 2)

    assert_tree_close(srcad.grad(f)(b), fd_grad_richardson(f, (b,), 0), rtol=1e-6, atol=1e-8)


def td_mixed(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=((2, 0), (0, 1)))))


def td_int(a, b):
    return np.sum(np.tensordot(a, b, axes=1) ** 2)


def dot_nd(a, b):
    return np.sum(np.cos(np.dot(a, b)))


def inner_nd(a, b):
    return np.sum(np.inner(a, b) ** 3)


def td_outer(a, b):
    return np.sum(np.tensordot(a, b, axes=0) ** 2)


@pytest.mark.parametrize("f, sa, sb", [(td_mixed, (2, 3, 4), (4, 2, 5)), (td_int, (2, 3, 4), (4, 3)),
                                       (dot_nd, (2, 3, 4), (5, 4, 2)), (inner_nd, (3, 4), (2, 5, 4)),
                                       (td_outer, (2, 3), (4,))], ids=lambda v: getattr(v, "__name__", ""))
def test_tensordot_adjoint_is_a_tensordot_and_a_transpose(f, sa, sb):
    """The adjoint of np.tensordot (np.dot and np.inner of N-d arrays) with literal axes and
    known shapes: a tensordot and, where the axes come out in another order, a transpose
    (passes/product_adjoints.py), with no run-time helper."""
    args = (rng.normal(size=sa), rng.normal(size=sb))
    src = checked_source(f, args, (0, 1))
    assert "_tensordot_adjoint" not in src, src
