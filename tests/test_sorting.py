"""sorted(xs) of numbers, xs.sort() on a local list, and the refusals around order statistics
and ufunc methods: gradients, jvps and Hessians against finite differences; what srcad cannot
differentiate exactly is an error naming the user's line."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp

import srcad

X = np.array([0.3, 0.9, 0.1, -0.5])
V = np.array([1.0, 2.0, 0.5, -1.0])


def sorted_numbers(x):
    s = sorted(x * x)
    return s[0] * s[2] + s[1] ** 2 + sorted([x[0], x[3]], reverse=True)[0]


def sorted_list_of_floats(x):
    xs = [x[0], x[1] * x[2], x[2], x[3]]
    ys = sorted(xs)
    return ys[0] * ys[3] + sum(v * (i + 1) for i, v in enumerate(sorted(xs, reverse=True)))


def list_sort(x):
    xs = [x[0], x[1] * x[1], x[2], x[3]]
    xs.sort(reverse=True)
    xs.append(x[0] * 2.0)
    xs.sort()
    return xs[0] + 3 * xs[2] * xs[1] + xs[4] ** 3


def list_sort_in_loop(x):
    out = 0.0
    xs = [x[0], x[1], x[2]]
    for k in range(3):
        xs.append(x[3] * (k + 1))
        xs.sort()
        out = out + xs[0] * xs[-1]
    return out


@pytest.mark.parametrize("f", [sorted_numbers, sorted_list_of_floats, list_sort, list_sort_in_loop])
def test_sorting_lists_against_finite_differences(f):
    assert_tree_close(srcad.grad(f)(X), fd_grad(f, [X], 0), rtol=1e-6, atol=1e-8, what=f.__name__)
    _, jv = srcad.jvp(f, (X,), (V,))
    np.testing.assert_allclose(jv, fd_jvp(f, [X], [V]), rtol=1e-6, atol=1e-8)
    g = srcad.grad(f)
    hess = np.array([fd_grad(lambda y, i=i: g(y)[i], [X], 0) for i in range(len(X))])
    assert_tree_close(srcad.hessian(f)(X), hess, rtol=1e-5, atol=1e-6, what=f"hessian of {f.__name__}")


def sort_alias(x):
    xs = [x[0], x[1], x[2]]
    ys = xs
    xs.sort()
    return ys[0]


def sort_key(x):
    xs = [x[0], x[1], x[2]]
    xs.sort(key=abs)
    return xs[0]


def quantile_of_q(x, q):
    return np.quantile(x, q)


def reduce_positional(x):
    return np.maximum.reduce(x, 0, None, None, True)  # (ufunc.reduce's dtype: not max's)


def accumulate_out(x):
    out = np.zeros(4)
    np.maximum.accumulate(x, out=out)
    return np.sum(out)


@pytest.mark.parametrize("f, argnums, error, words", [
    (sort_alias, 0, srcad.UnsafeMutationError, "changes 'xs' in place"),
    (sort_key, 0, srcad.UnsupportedSyntaxError, "key function"),
    (quantile_of_q, 1, srcad.NoRuleError, "argument 'q'"),
    (reduce_positional, 0, srcad.NoRuleError, "at most 2 positional"),
    (accumulate_out, 0, srcad.NoRuleError, "out="),
])
def test_what_is_not_differentiated_exactly_is_an_error(f, argnums, error, words):
    args = (X, 0.3) if argnums == 1 else (X,)
    with pytest.raises(error) as info:
        srcad.grad(f, argnums=argnums)(*args)
    assert words in str(info.value)
    assert "test_sorting.py:" in str(info.value)  # the user's line


def running_max_with_ties(x):
    return np.sum(np.maximum.accumulate(np.array([x[0], x[0], x[1], x[1]])) * np.array([1.0, 2.0, 3.0, 4.0]))


def test_running_maximum_ties_go_to_the_first_element():
    # y = [a, a, max(a, b), max(a, b)] with a = x0 = b = x1: the first element reaching the
    # value gets the derivative: a for the first two, then a again (b only ties it)
    x = np.array([1.0, 1.0])
    np.testing.assert_allclose(srcad.grad(running_max_with_ties)(x), [10.0, 0.0])
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(running_max_with_ties)(x), [3.0, 7.0])


def median_of_two(x):
    return np.median(x)


def test_median_of_an_even_count_gives_half_to_each_middle_element_also_at_a_tie():
    np.testing.assert_allclose(srcad.grad(median_of_two)(np.array([3.0, 1.0, 2.0, 2.0])), [0, 0, 0.5, 0.5])
    _, jv = srcad.jvp(median_of_two, (np.array([3.0, 1.0, 2.0, 2.0]),), (np.array([1.0, 1.0, 1.0, 3.0]),))
    np.testing.assert_allclose(jv, 2.0)


def nanmedian_rows(x):
    holes = np.where(np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]) == 1.0, np.nan, x)
    return np.sum(np.nan_to_num(np.nanmedian(holes, axis=1)) * np.array([2.0, 3.0]))


def test_nan_quantiles_of_a_row_of_nans_pass_no_derivative():
    # the first row is all NaN: NumPy's result is NaN (with a warning); the second has two numbers
    x = np.array([[0.3, -1.0, 2.0], [0.5, 4.0, -0.2]])
    with pytest.warns(RuntimeWarning):
        g = srcad.grad(nanmedian_rows)(x)
        ref = fd_grad(nanmedian_rows, (x,))
        t = np.arange(6.0).reshape(2, 3)
        jv = srcad.jvp(nanmedian_rows, (x,), (t,))[1]
    assert_tree_close(g, ref)
    assert np.allclose(g, [[0.0, 0.0, 0.0], [1.5, 0.0, 1.5]])  # hand: the mean of the two numbers, times 3
    assert jv == pytest.approx(np.sum(ref * t))


# -- y.sort() and y.fill(v) on a local array: the write y[...] = np.sort(y) (or v), checked
# like any write into y

def array_sorted_in_place(x):
    y = x * np.array([1.0, -2.0, 0.5, 3.0])
    y.sort()
    return y[0] * 2 + y[-1] * y[1]


def array_filled_in_place(x):
    y = x ** 2
    s = np.sum(y * x)
    y.fill(x[0])
    return s + np.sum(y * x)


@pytest.mark.parametrize("fn", [array_sorted_in_place, array_filled_in_place])
def test_arrays_sorted_and_filled_in_place(fn):
    x = np.array([0.5, -1.0, 2.0, 0.25])
    np.testing.assert_allclose(srcad.grad(fn)(x), fd_grad(fn, (x,), 0), rtol=1e-6, atol=1e-9)
    _, t = srcad.jvp(fn, (x,), (np.ones(4),))
    assert t == pytest.approx(np.sum(fd_grad(fn, (x,), 0)), rel=1e-6)


def sorted_while_another_name_reads_it(x):
    y = x * 1.0
    z = y
    y.sort()  # (z sees it)
    return z[0] * x[1]


def sorts_its_argument(x):
    x.sort()
    return x[0]


def test_an_array_sorted_in_place_and_seen_elsewhere_is_refused():
    with pytest.raises(srcad.UnsafeMutationError):
        srcad.grad(sorted_while_another_name_reads_it)(np.array([0.5, -1.0, 2.0, 0.25]))


def test_an_argument_sorted_in_place_is_sorted_in_a_copy():
    """x.sort() on an argument: the code sorts a copy of its own (transforms/owning.py). By
    hand: the gradient of the least entry is the indicator of where it was."""
    x = np.array([0.5, -1.0, 2.0, 0.25])
    np.testing.assert_array_equal(srcad.grad(sorts_its_argument)(x), [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(x, [0.5, -1.0, 2.0, 0.25])
