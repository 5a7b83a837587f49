"""Sums over an axis of a matrix as matrix-vector products (passes/axis_sums.py), and lists a
loop fills with a known number of arrays (transforms/counted.py): gradients against
Richardson finite differences, and the generated code read for the form each should take."""

import numpy as np
import pytest

import srcad
from tests.gradcheck import checked_source
from tests.oracle import assert_tree_close, fd_grad_richardson

RNG = np.random.default_rng(7)
X = RNG.normal(size=(40, 3))
W = RNG.normal(size=3)
U = RNG.normal(size=40)


def row_norms(x, w):  # backward: sum over rows of a column times a matrix
    z = x * w
    return np.sum(np.log1p(np.sum(z * z, axis=1)) * np.arange(x.shape[0]))


def bias(x, b):  # the cotangent of a broadcast bias: the sum of a matrix over its rows
    return np.sum(np.tanh(x + b) ** 2)


def weighted_rows(x, u):
    return np.sum(np.sum(x * x, axis=0) * np.sum(u[:, None] * x, axis=0))


def matrix_times_row(x, w):
    return np.sum(np.sin(np.sum(x * w, axis=1)))


@pytest.mark.parametrize("fn, args, form", [
    (row_norms, (X, W), "einsum('ij,ij->i'"),
    (bias, (X, W), "_axis_sum("),
    (weighted_rows, (X, U), "@"),
    (matrix_times_row, (X, W), "@"),
])
def test_axis_sums_are_products(fn, args, form):
    src = checked_source(fn, args, (0, 1))
    assert form in src
    assert ".sum(axis=0)" not in src and ".sum(axis=1)" not in src


def test_float32_and_an_axis_too_small_to_rewrite():
    x32 = X.astype(np.float32)
    got = srcad.grad(bias, argnums=1)(x32, W.astype(np.float32))
    want = fd_grad_richardson(bias, (X, W), 1)
    assert_tree_close(got, want, rtol=1e-4, atol=1e-4)
    src = checked_source(bias, (X[:4], W), (0, 1))  # 12 elements: np.sum stays
    assert "_axis_sum(" not in src


def test_axis_sum_of_other_arrays_takes_np_sum():
    from srcad import runtime as rt
    ints = np.arange(12).reshape(4, 3)
    assert rt.axis_sum(ints, 0).tolist() == [18, 22, 26]
    assert rt.axis_sum(ints.astype(float), 1).tolist() == [3.0, 12.0, 21.0, 30.0]
    assert rt.axis_sum(np.ones((2, 3, 4)), 1).shape == (2, 4)


def test_numba_target_keeps_plain_sums():  # (numba has no np.einsum)
    from srcad.pipeline import Spec, _blas
    assert not _blas(Spec("grad", target="numba")) and _blas(Spec("grad"))


# -- lists a loop fills -----------------------------------------------------------------------

def stacked_softmax(x, k):
    terms = []
    for j in range(k.shape[0]):
        terms.append(x * k[j] - j)
    inner = np.array(terms)
    m = np.max(inner, axis=0)
    return np.sum(m + np.log(np.sum(np.exp(inner - m), axis=0)))


def two_per_iteration(x, w):
    parts = [x]
    for j in range(3):
        parts.append(np.sin(x) * j)
        parts.append(x ** 2)
    return np.sum(np.array(parts) * w)


def appended_under_a_branch(x):
    parts = []
    for j in range(4):
        if j % 2 == 0:
            parts.append(x * j)
    return np.sum(np.max(np.array(parts), axis=0))


def with_break(x):
    parts = []
    for j in range(5):
        parts.append(np.cos(x * j))
        if j == 2:
            break
    return np.sum(np.array(parts) ** 2)


def no_iterations(x, k):
    parts = []
    for j in range(k.shape[0]):
        parts.append(x * j)
    return np.sum(np.array(parts)) + np.sum(x * x)


def test_a_counted_list_has_a_known_shape():
    k = RNG.normal(size=4)
    src = checked_source(stacked_softmax, (U[:6], k), (0, 1))
    assert "_expand_reduced" not in src and "_unbroadcast" not in src
    assert " == " not in src  # (the shift-invariant max: no tie mask)
    src = checked_source(two_per_iteration, (U[:5], RNG.normal(size=(7, 1))), (0, 1))
    assert "_expand_reduced" not in src


@pytest.mark.parametrize("fn", [appended_under_a_branch, with_break])
def test_lists_not_counted_stay_exact(fn):
    checked_source(fn, (U[:5],), (0,))


def test_a_loop_that_runs_no_times():
    checked_source(no_iterations, (U[:5], np.zeros(0)), (0,))


# -- views written as the array's attribute or subscript (Rule.python) ------------------------

def views(x, m):
    a = np.expand_dims(x, 0) * np.expand_dims(x, -1) + np.transpose(m) @ np.expand_dims(x, 1)
    b = np.expand_dims(np.expand_dims(x, 0), 1) * np.transpose(np.expand_dims(m, 0))
    return np.sum(np.sin(a)) + np.sum(np.cos(b) * np.arange(np.size(b)).reshape(b.shape))


def test_views_are_attributes_and_subscripts():
    src = checked_source(views, (U[:4], RNG.normal(size=(4, 4))), (0, 1))
    src = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert "np.expand_dims" not in src and "np.transpose" not in src
    assert "[None]" in src and "[:, None]" in src and ".T" in src
