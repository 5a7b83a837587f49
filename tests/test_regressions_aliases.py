"""Containers that share their items with others (fuzz F1:2454): `xs + [y]`, `xs * 2`,
`xs.copy()`, `list(xs)`, `tuple(xs)`, `d.copy()` make a new container holding the same
objects, so writing into an item afterwards is seen through the copy. srcad cannot follow
such a write, and must refuse it (it returned the derivative of the code without the write);
the same code without the later use of the copy is exact."""

import numpy as np
import pytest

import srcad
from oracle import fd_grad


def concatenated(x):
    y = np.zeros(1)
    y[0] += x
    ys = [] + [y]
    y[0] *= 0.5  # seen through ys
    return np.sum(ys[0]) * x


def repeated(x):
    y = np.zeros(1)
    ys = [y] * 2
    y[0] = x
    return np.sum(ys[1]) * x


def copied(x):
    y = np.zeros(1)
    ys = [y].copy()
    y[0] = x
    return np.sum(ys[0]) * x


def listed(x):
    y = np.zeros(1)
    ys = list([y])
    y[0] = x
    return np.sum(ys[0]) * x


def tupled(x):
    y = np.zeros(1)
    ys = tuple([y])
    y[0] = x
    return np.sum(ys[0]) * x


def dict_copied(x):
    y = np.zeros(1)
    d = {"a": y}.copy()
    y[0] = x
    return np.sum(d["a"]) * x


def copy_of_a_copy(x):
    y = np.zeros(1)
    ys = list([y] + [])
    y[0] = x
    return np.sum(ys[0]) * x


def rows_of_a_local_array(x):
    y = np.zeros((2, 2))
    rows = list(y)
    y[0, 0] = x
    return np.sum(rows[0]) * x


def items_of_an_argument_list(xs):
    ys = list(xs)
    ys[0][0] = 1.0  # writes into the caller's array
    return np.sum(ys[0])


SEEN = [concatenated, repeated, copied, listed, tupled, dict_copied, copy_of_a_copy, rows_of_a_local_array]


@pytest.mark.parametrize("fn", SEEN, ids=[f.__name__ for f in SEEN])
def test_a_write_seen_through_a_shallow_copy_is_refused(fn):
    # the function itself sees its write through the copy: the value is x * x (or 0.5 x * x)
    assert fn(2.0) in (4.0, 2.0)
    with pytest.raises(srcad.UnsafeMutationError) as info:
        srcad.grad(fn)(2.0)
    assert "is used afterwards" in str(info.value)


def test_a_write_into_an_item_of_an_argument_through_a_copy_is_refused():
    with pytest.raises(srcad.UnsafeMutationError) as info:
        srcad.grad(items_of_an_argument_list)([np.ones(2)])
    assert "belongs to the caller" in str(info.value)


def copied_then_written_before(x):
    y = np.zeros(2)
    y[0] = x
    ys = [y] + [y * x]
    ys2 = ys.copy()
    ys2.append(np.ones(2) * x)
    return sum(np.sum(v) for v in ys2) * x


def test_copies_without_a_later_write_into_an_item_are_exact():
    g = srcad.grad(copied_then_written_before)(0.7)
    assert g == pytest.approx(fd_grad(copied_then_written_before, (0.7,)), rel=1e-6)
