"""Where a function raises, its derivatives raise the same error, even when the operation
that raises computes a value nothing uses (dead-code elimination must keep it); operations
that cannot raise (NumPy on arrays only warns) are still dropped."""

import math
import warnings

import numpy as np
import pytest

import srcad


def unused_log(x):
    unused = math.log(x - 10)  # noqa: F841
    return x * x


def unused_int_division(x, k):
    unused = k // 0  # noqa: F841
    return x * x


def unused_list_index(x, xs):
    unused = xs[5]  # noqa: F841
    return x * x


def unused_sqrt_in_product(x):
    unused = math.sqrt(x - 10) * 2.0  # noqa: F841
    return x * x


def unused_singular_inverse(x):
    unused = np.linalg.inv(np.zeros((2, 2)))  # noqa: F841
    return x * x


def unused_in_loop(x):
    for i in range(3):
        unused = math.log(x - 10 + i)  # noqa: F841
    return x * x


def unused_in_branch(x):
    if x > 0:
        unused = 1.0 / (x - x)  # noqa: F841
    return x * x


def missing_dict_key(x):
    d = {"a": 1.0}
    unused = d["b"]  # noqa: F841
    return x * x


def array_index_out_of_range(x, k):
    unused = x[k]  # noqa: F841
    return np.sum(x * x)


def unknown_function(x, k):
    unused = math.lgamma(k)  # noqa: F841 (no rule: a call srcad cannot see into)
    return x * x


def check_positive(v):
    if v < 0:
        raise ValueError("negative")
    return v


def helper_that_raises(x):
    check_positive(x - 10)
    return x * x


def returns_nothing(v):
    v * 2.0  # (no return: None)


def none_compared(x):
    # F2:1818: None > -0.3 raises TypeError; the elif and everything after it was dead code
    if x > 10.0:
        v = x  # noqa: F841
    elif returns_nothing(x) > -0.3:
        v = 2.0 * x  # noqa: F841
    return x * x


def log_times_zero(x):
    return math.log(x) * 0.0 + x


X3 = np.array([0.5, -1.0, 2.0])
CASES = [
    (unused_log, (2.0,), ValueError),
    (unused_int_division, (2.0, 3), ZeroDivisionError),
    (unused_list_index, (2.0, [1.0, 2.0]), IndexError),
    (unused_sqrt_in_product, (2.0,), ValueError),
    (unused_singular_inverse, (2.0,), np.linalg.LinAlgError),
    (unused_in_loop, (2.0,), ValueError),
    (unused_in_branch, (2.0,), ZeroDivisionError),
    (missing_dict_key, (2.0,), KeyError),
    (array_index_out_of_range, (X3, 3), IndexError),
    (unknown_function, (2.0, 0), ValueError),
    (helper_that_raises, (2.0,), ValueError),
    (log_times_zero, (-1.0,), ValueError),
    (none_compared, (2.0,), TypeError),
]


def _ones(x):
    return np.ones_like(x) if isinstance(x, np.ndarray) else 1.0


@pytest.mark.parametrize("fn,args,exc", [pytest.param(*c, id=c[0].__name__) for c in CASES])
def test_derivatives_raise_where_the_function_raises(fn, args, exc):
    with pytest.raises(exc):
        fn(*args)
    tangents = (_ones(args[0]),) + (None,) * (len(args) - 1)
    with pytest.raises(exc):
        srcad.grad(fn)(*args)
    with pytest.raises(exc):
        srcad.jvp(fn, args, tangents)
    with pytest.raises(exc):
        srcad.vjp(fn, *args)
    with pytest.raises(exc):
        srcad.jacfwd(fn)(*args)
    with pytest.raises(exc):
        srcad.hessian(fn)(*args)
    with pytest.raises(exc):
        srcad.grad(srcad.grad(fn))(*args) if not isinstance(args[0], np.ndarray) else \
            srcad.hvp(fn, args, tangents)


@pytest.mark.parametrize("fn,args", [
    (unused_log, (12.0,)), (unused_list_index, (12.0, [1.0] * 6)), (unused_in_loop, (12.5,)),
    (helper_that_raises, (12.0,)), (unknown_function, (12.0, 3)),
])
def test_where_the_function_does_not_raise_the_derivative_is_exact(fn, args):
    # d/dx x * x = 2 x, d2/dx2 = 2 (hand-derived)
    x = args[0]
    assert srcad.grad(fn)(*args) == pytest.approx(2 * x, rel=1e-12)
    assert srcad.jvp(fn, args, (1.0,) + (None,) * (len(args) - 1))[1] == pytest.approx(2 * x, rel=1e-12)
    assert srcad.hessian(fn)(*args) == pytest.approx(2.0, rel=1e-12)


def array_work_only_warns(x):
    unused = np.log(x - 10) + x / 0.0  # noqa: F841 (NumPy warns, returns nan and inf)
    return np.sum(x * x)


def scalar_work_that_cannot_raise(x):
    a = x / 2.0 + x ** 2 + math.sin(x) * math.exp(x)  # noqa: F841
    return x * x


def _code(source: str) -> str:
    """The generated statements, without the def line and comments."""
    return "\n".join(line for line in source.splitlines()[1:] if not line.strip().startswith("#"))


def test_unused_work_that_cannot_raise_is_still_dropped():
    g = srcad.grad(array_work_only_warns)
    np.testing.assert_allclose(g(X3), 2 * X3, rtol=1e-12)
    assert "log" not in _code(srcad.source(g))
    h = srcad.grad(scalar_work_that_cannot_raise)
    assert h(0.7) == pytest.approx(1.4, rel=1e-12)
    text = _code(srcad.source(h))
    assert "sin" not in text and "exp" not in text and "/ 2" not in text and "**" not in text


def unused_stack_of_nothing(n, x):
    # G7:1417: np.stack of an empty list raises in Python; its result is unused, and dead-code
    # elimination dropped it, so srcad returned a derivative where f raises
    xs = []
    if n > 2:
        xs.append(np.ones(3))
    v = np.sum(np.stack(xs) ** 2)  # noqa: F841 (unused: the point of the test)
    return x * x


def test_an_unused_shape_function_that_raises_still_raises():
    with pytest.raises(ValueError):
        unused_stack_of_nothing(2, 0.5)
    for transform in (srcad.grad, srcad.jacfwd, srcad.jacrev):
        with pytest.raises(ValueError):
            transform(unused_stack_of_nothing, argnums=1)(2, 0.5)
    assert srcad.grad(unused_stack_of_nothing, argnums=1)(3, 0.5) == pytest.approx(1.0)  # d/dx x^2


# -- derivatives that are infinite where the function is not: NumPy's inf, not Python's error --

def log_of(x):
    return np.log(x)


def square_root(x):
    return x ** 0.5


def arctanh_of(x):
    return np.arctanh(x)


def reciprocal_of(x):
    return 1.0 / x


@pytest.mark.parametrize("fn, at, slope, curvature", [
    (log_of, 0.0, np.inf, -np.inf),          # 1 / x and -1 / x**2 at 0 (from the right)
    (square_root, 0.0, np.inf, -np.inf),     # 0.5 x**-0.5, -0.25 x**-1.5
    (arctanh_of, 1.0, np.inf, np.inf),       # 1 / (1 - x**2), 2x / (1 - x**2)**2
])
def test_an_infinite_derivative_of_python_floats_is_inf_not_zero_division(fn, at, slope, curvature):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fn(at)  # (the function itself runs there: NumPy warns)
        assert srcad.grad(fn)(at) == slope
        assert srcad.jvp(fn, (at,), (1.0,))[1] == slope
        assert srcad.hessian(fn)(at) == curvature
        assert srcad.vjp(fn, at)[1](1.0)[0] == slope


def test_where_the_function_itself_raises_so_does_its_derivative():
    with pytest.raises(ZeroDivisionError):
        reciprocal_of(0.0)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(reciprocal_of)(0.0)
    with pytest.raises(ZeroDivisionError):
        srcad.jvp(reciprocal_of, (0.0,), (1.0,))


def always_raises(x):
    raise ValueError("never returns")


def calls_it_in_a_branch_not_taken(x):
    return always_raises(x) * 2.0 if x > 10.0 else x * 3.0


def returns_in_a_loop_or_raises(x):
    for k in range(3):
        if x > k:
            return x * (k + 1.0)
    raise ValueError("x <= 2")


def test_a_function_that_never_returns_normally():
    """The result of a function that only raises is None (its result variable started
    undefined for `return` inside loops: it reached code generation). By hand: 3, then 1 (the
    loop returns at k = 0 for x = 0.5), and a call that raises raises."""
    assert srcad.grad(calls_it_in_a_branch_not_taken)(1.0) == pytest.approx(3.0)
    assert srcad.grad(returns_in_a_loop_or_raises)(0.5) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="x <= 2"):
        srcad.grad(returns_in_a_loop_or_raises)(-1.0)
    with pytest.raises(srcad.NonScalarOutputError, match="None"):
        srcad.grad(always_raises)(1.0)
