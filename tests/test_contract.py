"""passes/contract.py: products accumulated over a loop's iterations become one contraction
after the loop. Every gradient is checked against finite differences (with the rewrite made,
as the generated source shows), and the cases where the rewrite must not happen are shown
not to happen."""

import numpy as np
import pytest
from gradcheck import checked_source
from oracle import assert_tree_close, fd_grad_richardson

import srcad
from srcad.examples import show
from srcad.ir import types as T
from srcad.ir.nodes import For, iter_ops
from srcad.passes.contract import contract_after_loops
from srcad.passes.dce import dce
from srcad.pipeline import lowered
from srcad.transforms.specialize import specialize

rng = np.random.default_rng(16)


def rnn(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_rows(W, h0, n):
    h = h0
    for _ in range(n):
        h = np.tanh(h @ W)
    return np.sum(np.sin(h))


def rnn_strided(W, h0, xs):
    h = h0
    for t in range(1, xs.shape[0], 2):
        h = np.tanh(np.dot(W, h) + xs[t])
    return np.sum(h * h)


def rnn_backwards(W, h0, xs):
    h = h0
    for t in range(xs.shape[0] - 1, -1, -1):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)


def outer_sum(a, b):
    acc = np.zeros((a.shape[1], b.shape[1]))
    for t in range(a.shape[0]):
        acc = acc + np.outer(np.sin(a[t]), b[t])
    return np.sum(acc * acc)


def column_times_row(a, b):
    acc = np.zeros((a.shape[1], b.shape[1]))
    for t in range(a.shape[0]):
        acc += np.cos(a[t])[:, None] * b[t]
    return np.sum(np.tanh(acc))


@pytest.mark.parametrize("batch", [1, 2])
@pytest.mark.parametrize("steps", [1, 3, 6])
def test_rnn_column_state(steps, batch):
    args = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)) * 0.5, rng.normal(size=(4, batch)),
            rng.normal(size=(steps, 3, batch)))
    src = checked_source(rnn, args, (0, 1))
    assert "np.tensordot" in src and "W_bar +=" not in src and "U_bar +=" not in src
    assert "xs, axes" in src  # the rows of xs are read after the loop, not stored


def test_rnn_vector_state():
    args = (rng.normal(size=(5, 5)) * 0.5, rng.normal(size=(5, 2)), rng.normal(size=5),
            rng.normal(size=(4, 2)))
    src = checked_source(rnn, args, (0, 1))
    assert src.count("np.tensordot") == 2 and "np.expand_dims" not in src


@pytest.mark.parametrize("n", [0, 1, 5])
def test_trip_count_known_only_when_running(n):
    args = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(1, 4)), n)
    src = checked_source(rnn_rows, args, (0, 1))
    assert "len(range(0, n, 1))" in src and "np.tensordot" in src


@pytest.mark.parametrize("fn", [rnn_strided, rnn_backwards])
def test_other_ranges(fn):
    args = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4), rng.normal(size=(7, 4)))
    src = checked_source(fn, args, (0, 1))
    assert "np.tensordot" in src


@pytest.mark.parametrize("fn", [outer_sum, column_times_row])
@pytest.mark.parametrize("steps", [1, 4])
def test_accumulations_in_the_users_loop(fn, steps):
    args = (rng.normal(size=(steps, 3)), rng.normal(size=(steps, 4)))
    src = checked_source(fn, args, (0, 1))
    assert "np.tensordot" in src
    assert fn(*args) == pytest.approx(srcad.value_and_grad(fn, argnums=(0, 1))(*args)[0], rel=1e-12)


# -- where the rewrite must not happen -------------------------------------------------------

def read_in_loop(a, b):
    acc = np.zeros((3, 4))
    s = 0.0
    for t in range(a.shape[0]):
        acc = acc + np.outer(a[t], b[t])
        s = s + np.sum(np.sin(acc))
    return s


def breaks(a, b):
    acc = np.zeros((3, 4))
    for t in range(a.shape[0]):
        if np.sum(a[t]) > 2.0:
            break
        acc = acc + np.outer(a[t], b[t])
    return np.sum(acc * acc)


def starts_elsewhere(a, b, acc):
    for t in range(a.shape[0]):
        acc = acc + np.outer(a[t], b[t])
    return np.sum(acc * acc)


def _loops_carry_products(fn, arg_types) -> bool:
    """Does the rewritten IR still have a loop that adds a product into a carried value?"""
    out = dce(contract_after_loops(specialize(lowered(fn).function, arg_types)))
    return any(isinstance(op, For) and any(getattr(o, "prim", "") in ("numpy.outer", "operator.matmul")
                                           for o in op.body.ops) for op in iter_ops(out.body))


@pytest.mark.parametrize("fn", [read_in_loop, breaks])
def test_not_when_read_in_the_loop_or_breaking(fn):
    a, b = rng.normal(size=(4, 3)) * 0.5, rng.normal(size=(4, 4))
    src = checked_source(fn, (a, b), (0, 1))
    assert "np.outer(" in src and "np.tensordot" not in src


def test_not_when_the_accumulator_starts_elsewhere():
    a, b, acc = rng.normal(size=(4, 3)), rng.normal(size=(4, 4)), rng.normal(size=(3, 4))
    src = checked_source(starts_elsewhere, (a, b, acc), (0, 1, 2))
    assert "np.outer(" in src and "np.tensordot" not in src


def test_not_when_shapes_are_unknown():
    known = (T.Array(2, "f", (4, 3)), T.Array(2, "f", (4, 4)))
    unknown = (T.Array(2, "f", None), T.Array(2, "f", None))
    assert not _loops_carry_products(outer_sum, known)
    assert _loops_carry_products(outer_sum, unknown)


def test_not_when_storing_moves_more_than_adding():
    # (3, 8) @ (8, 3) per step: 48 numbers stored against 9 added
    args = (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(3, 2)), rng.normal(size=(3, 8)),
            rng.normal(size=(2, 2, 8)))
    src = checked_source(rnn, args, (0, 1))
    assert "np.tensordot" not in src and "W_bar +=" in src


def test_not_under_a_memory_budget():
    args = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)), rng.normal(size=(4, 1)),
            rng.normal(size=(5, 3, 1)))
    g = srcad.grad(rnn, argnums=(0, 1), memory_budget=10_000)
    got = g(*args)
    for i, a in zip((0, 1), got):
        assert_tree_close(a, fd_grad_richardson(rnn, args, i), rtol=1e-6, atol=1e-8)
    assert "np.tensordot" not in srcad.source(g, *args)


def test_ir_shows_the_contraction(capsys):
    show(contract_after_loops(specialize(lowered(outer_sum).function,
                                         (T.Array(2, "f", (4, 3)), T.Array(2, "f", (4, 2))))))
    text = capsys.readouterr().out
    assert "numpy.tensordot(" in text and "operator.setitem(" in text
