"""`for v in x` and `a, b = x` take the items iterating x gives, as Python does, for values
whose items are not x[0], x[1], ... (runtime/containers.py iter_items): a pandas Series with
labels that are not its positions, an object whose __iter__ differs from its __getitem__ (a
batcher), itertools' and NumPy's iterators without a length, sets, mappings. srcad indexed
them by position: a wrong value and gradient (a sorted Series), or a crash. Oracle: central
differences with Richardson extrapolation, and the function's own value."""

import itertools
import types

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


class Labelled:
    """Indexed by label, iterated by value (as a pandas Series)."""

    def __init__(self, values, labels):
        self.values, self.labels = list(values), list(labels)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, label):
        return self.values[self.labels.index(label)]

    def __iter__(self):
        return iter(self.values)


class Batches:
    """Iterated in batches of two rows, indexed by row (a data loader)."""

    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    def __iter__(self):
        for s in range(0, len(self.rows), 2):
            yield self.rows[s:s + 2]


def smoothed(a, ys):
    level = 0.0
    for y in ys:
        level = a * level + y
    return level


def unpacked(a, ys):
    y0, y1, y2 = ys
    return a * y0 + a ** 2 * y1 + a ** 3 * y2


def batched(w, data):
    s = 0.0
    for xb in data:
        s += np.sum(np.tanh(xb @ w)) ** 2
    return s


def pairs(x):
    s = 0.0
    for i, j in itertools.combinations(range(3), 2):
        s += (x[i] - x[j]) ** 2
    for i, j in itertools.product(range(2), range(2)):
        s += x[i] * x[j + 1]
    return s


def grid(a):
    s = 0.0
    for i, j in np.ndindex(a.shape):
        s += a[i, j] ** 2 * (i + 1)
    return s


def over_set(x, ks):
    return sum(x[k] ** 2 for k in ks)


def over_mapping(x, m):
    s = 0.0
    for k in m:
        s += m[k] * x[k]
    first, second = m  # (a mapping unpacks to its keys)
    return s + x[first] * x[second]


A = 0.5
W = np.array([0.7, -0.2])
ROWS = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])


def check(f, args, argnum=0):
    value, g = srcad.value_and_grad(f, argnums=argnum)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    np.testing.assert_allclose(g, fd_grad_richardson(f, args, argnum), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("labels", [[0, 1, 2], [2, 1, 0], [5, 0, 9]], ids=["positions", "reversed", "sparse"])
@pytest.mark.parametrize("f", [smoothed, unpacked], ids=lambda f: f.__name__)
def test_an_object_indexed_by_label_is_iterated_by_value(f, labels):
    check(f, (A, Labelled([1.0, 2.0, 3.0], labels)))


def test_a_pandas_series_sorted_by_value():
    pd = pytest.importorskip("pandas")
    ys = pd.Series([3.0, 1.0, 2.0]).sort_values()  # (labels 1, 2, 0)
    check(smoothed, (A, ys))
    check(unpacked, (A, ys))


def test_an_object_iterated_otherwise_than_indexed():
    check(batched, (W, Batches(ROWS)))


def test_iterators_without_a_length():
    check(pairs, (np.array([0.5, 1.5, -0.7]),))
    check(grid, (np.array([[0.3, -0.5], [1.1, 0.2]]),))


def test_sets_and_mappings():
    x = np.array([0.5, 1.5, -0.7])
    check(over_set, (x, {0, 2}))
    check(over_set, (x, frozenset({1})))
    check(over_mapping, (x, types.MappingProxyType({0: 2.0, 2: -1.0})))


def iterated_twice(x):
    p = itertools.product(range(2), range(2))
    acc = 0.0
    for i, j in p:
        acc = acc + x[i] * x[j]
    for i, _ in p:  # (the iterator is used up: no iteration, as in Python)
        acc = acc + 100.0 * x[i]
    return acc


def test_an_iterator_iterated_twice_is_empty_the_second_time():
    """Two iterations of one iterator were merged into one tuple (common subexpressions):
    160.64 where Python gives 0.64. By hand: (x0 + x1)^2, gradient 2 (x0 + x1) each."""
    x = np.array([0.3, 0.5])
    value, g = srcad.value_and_grad(iterated_twice)(x)
    assert value == pytest.approx(0.64, rel=1e-14)
    np.testing.assert_allclose(g, [1.6, 1.6], rtol=1e-14)


def zipped_with_itself(x, it):
    s = 0.0
    for a, b in zip(it, it):
        s += x[a] * x[b] ** 2
    return s


def nested_over_one(x, it):
    s = 0.0
    for a in it:
        for b in it:
            s += x[a] * x[b]
    return s


@pytest.mark.parametrize("f", [zipped_with_itself, nested_over_one], ids=lambda f: f.__name__)
def test_an_iterator_iterated_during_its_own_iteration(f):
    """zip(it, it) pairs an iterator's consecutive items, and a loop over it inside a loop over
    it takes the rest: Python's iterations share its items, where srcad takes them all when an
    iteration starts (2.609 for 1.371). Refused when the code runs; a list is fine (by hand:
    zip(xs, xs) pairs each item with itself, sum x_i^3)."""
    x = np.array([0.3, 0.5, 0.9, 1.2])
    with pytest.raises(srcad.UnsupportedSyntaxError, match="test_iteration_protocol.py"):
        srcad.grad(f)(x, iter([0, 1, 2, 3]))
    if f is zipped_with_itself:
        np.testing.assert_allclose(srcad.grad(f)(x, [0, 1, 2, 3]), 3 * x ** 2, rtol=1e-14)
