"""A helper that changes its parameter in place and returns nothing (`def apply_bc(u):
u[0] = 0.0`), as finite-difference stencils and simulations apply boundary conditions: the
caller's variable sees the change, as the object it names does in Python
(frontend/binding.py written_back). `a += v` inside the helper changes an array or a list in
place, and rebinds a number or a tuple (the caller's is unchanged). Other names of the changed
object are refused, as any stale reference is. Oracle: central differences with Richardson
extrapolation, and the function's own value."""

import numpy as np
import pytest
from gradcheck import check_hessian_rows, check_on_copies
from oracle import fd_grad_richardson

import srcad


def apply_bc(u):
    u[0] = 0.0
    u[-1] = 0.0


def heat(u0):
    u = u0 * 1.0
    for _ in range(3):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + 0.1 * lap
        apply_bc(u)
    return np.sum(u ** 2)


def bc_of_argument(x):
    apply_bc(x)
    return np.sum(np.sin(x) * 2.0)


def rebinds(u):
    u = u * 2
    u[0] = 0.0


def rebinding_helper(x):
    y = np.sin(x)
    rebinds(y)  # (its own copy changed: y is not)
    return np.sum(y * x)


def bump(a):
    a += 1.5


def number_helper(x):
    s = np.sum(x)
    bump(s)  # (a float: bump's `a` is a new object)
    return s * s


def array_helper(x):
    y = x * 3.0
    bump(y)  # (an array: changed in place)
    return np.sum(y * x)


def extend(xs, v):
    xs += [v, v * 2.0]


def list_helper(x):
    xs = [x[0]]
    extend(xs, x[1])
    return xs[0] * xs[1] + xs[2] ** 2


def grow(t, v):
    t += (v,)
    return len(t)


def tuple_helper(x):
    t = (x[0], x[1])
    n = grow(t, x[2])
    return t[0] * t[1] * n + len(t)


def halve_first(u, c):
    if c > 0:
        u[1] = u[1] * 5.0
        return
    u[2] = 7.0 * u[3]


def branching_helper(x):
    y = x * 1.0
    halve_first(y, x[0])
    halve_first(y, -1.0)
    return np.sum(y ** 2)


def outer_helper(u):
    apply_bc(u)  # (written back through two helpers)
    u *= 2.0


def chained_helpers(x):
    y = np.cos(x)
    for _ in range(2):
        outer_helper(y)
        y = y + x
    return np.sum(y * y)


def set_key(d, v):
    d["a"] = v


def dict_helper(x):
    d = {"a": x[0]}
    set_key(d, x[1] ** 2)
    return d["a"] * x[2]


def keyword_helper(x):
    y = np.exp(x)
    apply_bc(u=y)
    return np.sum(y)


def nested_helper(x):
    y = x * 1.0

    def kick(v):
        v[0] = v[0] + v[1] ** 2

    kick(y)
    kick(y)
    return np.sum(y ** 3)


def fill_diag(m):
    np.fill_diagonal(m, 2.0)


def matrix_helper(x):
    m = np.outer(x, x) + np.eye(x.shape[0])
    fill_diag(m)
    return np.sum(np.linalg.inv(m))


def sort_helper(u):
    u.sort()


def sorted_by_helper(x):
    y = x * np.array([3.0, -1.0, 2.0, 0.5, 1.5, -2.0])
    sort_helper(y)
    return np.sum(y * np.arange(6.0))


CASES = [heat, bc_of_argument, rebinding_helper, number_helper, array_helper, list_helper,
         tuple_helper, branching_helper, chained_helpers, dict_helper, keyword_helper, nested_helper,
         matrix_helper, sorted_by_helper]
X = np.array([0.3, 0.5, 0.9, 1.2, 0.7, 0.2])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_and_value(f):
    value, g = srcad.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy()))
    np.testing.assert_allclose(g, fd_grad_richardson(lambda x: f(x.copy()), (X,)), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [heat, array_helper, chained_helpers, nested_helper], ids=lambda f: f.__name__)
def test_forward_mode_and_second_order(f):
    check_on_copies(f, X)
    check_hessian_rows(f, X)


def test_argument_is_not_changed():
    x = X.copy()
    srcad.grad(bc_of_argument)(x)
    np.testing.assert_array_equal(x, X)


def aliased(x):
    y = np.sin(x)
    z = y
    apply_bc(y)
    return np.sum(z * x)  # (z is y, changed: srcad keeps z at the old value, so it refuses)


@pytest.mark.parametrize("f", [aliased], ids=lambda f: f.__name__)
def test_other_references_are_refused(f):
    with pytest.raises(srcad.UnsafeMutationError, match="test_written_back.py:18"):
        srcad.grad(f)(X.copy())


def bump_first(u):
    u[0] = 3.0 * u[1]
    return u[0]


def changed_in_a_while_test(x):
    y = x * 1.0
    while bump_first(y) < 2.0:  # (changes y at every test, the last one too)
        y = y * 2.0
    return y[0] * x[0]


def test_a_change_in_a_while_test_is_refused():
    """A while loop's test yields only its truth in the IR: the write was lost (value 0.32
    where Python gives 1.2; the adversarial pass). Refused at the write, naming the test."""
    with pytest.raises(srcad.UnsafeMutationError, match="while loop's test") as caught:
        srcad.grad(changed_in_a_while_test)(np.array([0.4, 0.5]))
    assert "test_written_back.py" in str(caught.value)


def closure_applies_bc(x):
    y = x * 1.0

    def bc():
        y[0] = 0.0  # (the enclosing function's y, changed in place)
        y[-1] = y[-1] * 2.0

    bc()
    return np.sum(y ** 2)


def closure_in_a_loop(x):
    y = np.sin(x)

    def kick(k):
        y[k] += y[k - 1] ** 2

    for k in range(1, 3):
        kick(k)
    return np.sum(y * x)


def closure_outliving_its_scope(x):
    def make():
        y = x * 1.0

        def bc():
            y[0] = 5.0
            return np.sum(y)
        return bc
    return make()() * x[1]


@pytest.mark.parametrize("f", [closure_applies_bc, closure_in_a_loop], ids=lambda f: f.__name__)
def test_a_nested_function_writing_into_an_array_it_reads(f):
    """A nested function writing into an array of the enclosing function changes that
    function's variable (it was refused as a write into a global). Against differences."""
    value, g = srcad.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy()))
    np.testing.assert_allclose(g, fd_grad_richardson(lambda x: f(x.copy()), (X,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcad.jacfwd(f)(X.copy()), g, rtol=1e-10, atol=1e-12)


def test_a_nested_function_writing_into_a_scope_that_has_ended_is_refused():
    with pytest.raises(srcad.UnsafeMutationError, match="has returned"):
        srcad.grad(closure_outliving_its_scope)(X.copy())
