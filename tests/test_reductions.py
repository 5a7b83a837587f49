"""passes/reductions.py (sums taken before the products that feed them) and the scalar
folds of passes/simplify.py and passes/algebra.py (`t + t` is `2.0 * t`; a scalar multiplies
the smallest array of a product). Gradients are checked against finite differences, with the
rewrite shown in the generated source, and the cases it must leave alone are shown left alone."""

import re

import numpy as np
import pytest
from gradcheck import checked_source
from oracle import assert_tree_close, fd_grad_richardson

import srcad
from srcad.ir.nodes import iter_ops
from srcad.ir.values import of_value
from srcad.passes.dce import dce
from srcad.passes.reductions import push_sums
from srcad.pipeline import lowered
from srcad.transforms.specialize import specialize

rng = np.random.default_rng(162)


def centred(x, mean, q, L):
    xc = x - mean
    z = xc * q + xc @ L.T
    return np.sum(np.sum(z * z, axis=1) * np.cos(x[:, 0]))


def per_component(x, means, q, Ls):
    total = 0.0
    for j in range(means.shape[0]):
        xc = x - means[j]
        z = xc * q[j] + xc @ Ls[j].T
        total = total - 0.5 * np.sum(np.exp(-np.sum(z * z, axis=1)))
    return total


@pytest.mark.parametrize("n, d", [(1, 1), (5, 2), (7, 3)])
def test_the_sum_over_points_comes_first(n, d):
    args = (rng.normal(size=(n, d)), rng.normal(size=d), rng.normal(size=d), rng.normal(size=(d, d)))
    src = checked_source(centred, args, (1, 2, 3))
    assert "xc_bar" not in src  # (the cotangent of xc, n x d, is never built: only its sum)


@pytest.mark.parametrize("k", [1, 3])
def test_in_a_loop(k):
    n, d = 6, 2
    args = (rng.normal(size=(n, d)), rng.normal(size=(k, d)), rng.normal(size=(k, d)),
            rng.normal(size=(k, d, d)) * 0.5)
    src = checked_source(per_component, args, (1, 2, 3))
    assert "xc_bar" not in src and ".sum(axis=0)" in src


def _sums_of(fn, *args):
    out = dce(push_sums(specialize(lowered(fn).function, tuple(of_value(a) for a in args))))
    return [op for op in iter_ops(out.body) if getattr(op, "prim", "") == "numpy.sum"]


def both_used(a, m):
    b = a @ m
    return np.sum(b, axis=0) + b[0]


def varies_along_axis(a, v):
    return np.sum(a * v, axis=0)


def test_left_alone():
    a, m = np.ones((4, 3)), np.ones((3, 2))
    # the product is used elsewhere too: summing first would compute it twice
    assert _sums_of(both_used, a, m)[0].args[0].hint == "b"
    # v changes along the summed axis: sum(a * v) is not sum(a) * v
    assert _sums_of(varies_along_axis, a, np.ones((4, 1)))[0].args[0].hint == ""


def test_a_row_broadcast_along_the_axis():
    a, v = rng.normal(size=(4, 3)), rng.normal(size=3)
    assert _sums_of(varies_along_axis, a, v)[0].args[0].hint == "a"  # sum(a, axis=0) * v

    def f(a, v):
        return np.sum(np.sin(varies_along_axis(a, v)))
    for i in (0, 1):
        assert_tree_close(srcad.grad(f, argnums=i)(a, v), fd_grad_richardson(f, (a, v), i), rtol=1e-6)


def twice(x):
    t = np.sin(x)
    return np.sum((t + t) * x)


def scaled_column(q, z):
    return np.sum(np.cos(-0.5 * q[:, None] * z + -0.5 * q[:, None] * z))


def test_t_plus_t_is_two_t():
    x = rng.normal(size=5)
    assert_tree_close(srcad.grad(twice)(x), fd_grad_richardson(twice, (x,)), rtol=1e-6)
    src = srcad.source(srcad.grad(scaled_column, argnums=(0, 1)), rng.normal(size=6), rng.normal(size=(6, 3)))
    # the scalar 2 (of t + t) multiplies the (6, 1) column, not the (6, 3) product
    # (gathered again after cse: 2.0 * -0.5 is -1.0, a negation; the factor moved out of `[:, None]`)
    column = re.search(r"(_t\d+) = (?:2\.0 \* \(-0\.5 \* q\[:, None\]\)|-1\.0 \* q\[:, None\]"
                       r"|-q\[:, None\])\n", src)
    assert re.search(r"np.sin\(2.0 \* _t\d+ \* z\)", src) or (
        column and f"np.sin({column.group(1)} * z)" in src), src
    args = (rng.normal(size=6), rng.normal(size=(6, 3)))
    checked_source(scaled_column, args, (0, 1))


@pytest.mark.parametrize("n, d", [(5, 2), (7, 3)])
def test_sum_of_a_product_is_the_diagonal_of_a_product_computed_anyway(n, d):
    """The cotangent of q in `xc * q + xc @ L.T` is sum(xc * z_bar, axis=0), the diagonal of
    xc.T @ z_bar, which the cotangent of L computes anyway: no n x d product is built for it."""
    args = (rng.normal(size=(n, d)), rng.normal(size=d), rng.normal(size=d), rng.normal(size=(d, d)))
    src = checked_source(centred, args, (2, 3))
    assert "np.diagonal(" in src and "(xc * " not in src, src
    src = checked_source(centred, args, (2,))  # (without L's cotangent there is no product to read)
    assert "np.diagonal(" not in src, src


def two_masked(x, y):
    m = x > 0.2
    return np.sum(np.where(m, 0.0, np.sin(x) * y) + np.where(m, 0.0, x * x))


def test_two_wheres_of_one_mask_added_are_one_where():
    """where(m, 0, a) + where(m, 0, b) is where(m, 0, a + b) (passes/simplify.py): one np.where
    fewer (the value here; the adjoints of scipy.stats' discrete log-densities), exactly."""
    args = (rng.normal(size=7), rng.normal(size=7))
    checked_source(two_masked, args, (0, 1))
    src = srcad.source(srcad.value_and_grad(two_masked, argnums=(0, 1)), *args)
    code = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert code.count("np.where(") == 3, src  # (the value, x_bar, y_bar: one each)
    x = np.array([0.5, -0.3, np.inf, 0.1])  # (inf where the mask picks 0: value and gradient finite)
    v, (gx, gy) = srcad.value_and_grad(two_masked, argnums=(0, 1))(x, np.ones(4))
    assert np.isfinite(v) and np.isfinite(gy).all() and v == two_masked(x, np.ones(4))
