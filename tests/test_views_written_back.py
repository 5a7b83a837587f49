"""A helper changing in place an item it is given (`apply_bc(u[1:-1])`, `apply_bc(A[1])`,
`sgd(params["W"], g)`, `scale(layers[1], c)`): in Python the change shows in the caller's
container (a view of an array by integers and slices; a list's or dict's item is the object
itself), and srcad stores the changed item back into the caller's variable
(frontend/binding.py written_back, transforms/sequences.py written_back_item). A copy (a fancy
index) is not stored back; a container read while the item is changed, another view kept, or
the item returned and used after are refused, as stale references are
(transforms/safety.py _stored_back). Oracle: central differences with Richardson extrapolation
on the function itself, which Python runs with its views; the function's own value."""

import numpy as np
import pytest
from gradcheck import check_hessian_rows, check_on_copies

import srcad


def apply_bc(v):
    v[0] = 0.0
    v[-1] = 0.0


def smooth(v):
    for i in range(1, v.shape[0] - 1):
        v[i] = 0.5 * (v[i - 1] + v[i + 1])


def scale(v, c):
    v *= c


def sgd(w, g, lr):
    w -= lr * g


def interior_bc(x):
    u = x * 1.5
    apply_bc(u[1:-1])
    return np.sum(u ** 2 * x)


def heat_steps(x):
    u = np.sin(x)
    for _ in range(3):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + 0.2 * lap
        apply_bc(u[1:-1])
    return np.sum(u ** 2)


def smoothed_window(x):
    u = np.exp(x)
    smooth(u[1:5])
    return np.sum(u * x)


def read_before(x):
    u = x ** 2
    s = np.sum(u ** 3)
    apply_bc(u[2:])
    return s + np.sum(u * x)


def row_of(x):
    a = np.outer(x, x)
    apply_bc(a[1])
    return np.sum(a * a)


def column_of(x):
    a = np.outer(x, x) + 1.0
    scale(a[:, 2], x[0])
    return np.sum(np.sin(a))


def dict_params(x):
    params = {"W": np.outer(x[:3], x[3:]), "b": x[:3] * 2.0}
    sgd(params["W"], np.ones((3, 3)) * x[0], 0.1)
    sgd(params["b"], x[3:], 0.5)
    return np.sum(params["W"] ** 2) + np.sum(params["b"] * x[:3])


def list_layers(x):
    layers = [x[:3] * 1.0, x[3:] * 2.0]
    scale(layers[1], x[0])
    return np.sum(layers[0] * layers[1])


def fancy_copy(x):
    u = x * 2.0
    apply_bc(u[[1, 2, 3]])  # (a copy: u is unchanged, as in Python)
    return np.sum(u ** 2)


def list_slice_copy(x):
    xs = [x[0], x[1], x[2]]
    ys = [x * 1.0, x * 2.0]
    scale(ys[0:1][0], 3.0)
    return xs[0] * xs[1] + np.sum(ys[0])


def variable_bounds(x):
    u = x * 1.0
    n = x.shape[0]
    for i in range(1, n - 2):
        apply_bc(u[i:i + 2])
    return np.sum(u * x)


def two_views(x):
    u = np.cos(x)
    apply_bc(u[:3])
    apply_bc(u[3:])
    return np.sum(u * x)


def scalar_item(x):
    u = x * 1.0
    scale(u[0], 5.0)  # (a number: rebound in scale, u unchanged)
    return np.sum(u * x)


def reads_other(v, u):
    v[0] = 5.0 * v[1]
    return np.sum(u)


def stale_through_param(x):
    u = x * 1.0
    s = reads_other(u[1:-1], u)
    return s + np.sum(u * x)


def stale_view(x):
    u = x * 2.0
    w = u[1:-1]
    apply_bc(u[1:-1])
    return np.sum(w * x[1:-1]) + np.sum(u)


def outer(u):
    apply_bc(u[1:-1])
    u *= 2.0


def nested_views(x):
    u = np.sin(x)
    outer(u)
    return np.sum(u * x)


def maybe(v, c):
    if c > 0.5:
        v[0] = v[1] * 3.0
    else:
        v[1] = 0.0


def branch_view(x):
    u = x * 1.0
    maybe(u[2:], x[0])
    maybe(u[:3], x[2])
    return np.sum(u ** 2)


def returns_view(v):
    v[0] = 1.0
    return v


def returned_view(x):
    u = x * 1.0
    w = returns_view(u[2:])
    return np.sum(w * 2.0) + np.sum(u * x)


def relax(v):
    n = 0
    while n < 3:
        v[1:-1] = 0.5 * (v[:-2] + v[2:])
        n += 1


def while_view(x):
    u = x ** 2
    relax(u[1:])
    return np.sum(u * x)


def argument_view(x):
    apply_bc(x[1:-1])
    return np.sum(x ** 2)


def matrix_block(x):
    A = np.outer(x, x) + np.eye(6)
    scale(A[1:3, 2:4], 3.0)
    apply_bc(A[4, :])
    return np.sum(np.tanh(A))


def zero_d_view(x):
    A = np.outer(x[:3], x[3:]) + 1.0
    scale(A[1, 2, ...], 3.0)  # (a 0-d view: A changes)
    return np.sum(A ** 2)


def zero_d_array(x):
    u = np.array(x[0] * 2.0)
    u[...] *= 3.0
    return float(u) * x[1]


def ellipsis_item(x):
    u = x * 1.0
    u[2, ...] *= 3.0
    u[..., 1] = x[0] * 2.0
    return np.sum(u ** 2)


def bc_in_branch(x):
    u = x * 2.0
    if x[0] > 0.0:
        apply_bc(u[1:-1])
    return np.sum(u ** 2 * x)


def bc_in_loop_branch(x):
    u = np.sin(x)
    for k in range(3):
        if k % 2 == 0:
            apply_bc(u[1:-1])
        else:
            scale(u[2:4], 1.5)
        u = u + 0.1 * x
    return np.sum(u * x)


def named_view(x):
    u = x * 2.0
    interior = u[1:-1]
    apply_bc(interior)  # (a view given by name: u changes too)
    return np.sum(u ** 2 * x)


def named_view_read_after(x):
    u = x * 2.0
    interior = u[1:-1]
    apply_bc(interior)
    u[0] = 7.0
    return np.sum(interior * x[1:-1]) + np.sum(u)


def stale_after_branch(x):
    u = x * 2.0
    w = u
    if x[0] > 0.0:
        apply_bc(u[1:-1])
    return np.sum(w * x)  # (w is u: changed in Python)


X = np.array([0.3, 0.5, 0.9, 1.2, 0.7, 0.2])
WORKING = [bc_in_branch, bc_in_loop_branch, named_view,
           zero_d_view, zero_d_array, ellipsis_item, interior_bc, heat_steps, smoothed_window, read_before,
           row_of, column_of, dict_params, list_layers, variable_bounds, two_views, scalar_item, nested_views,
           branch_view, while_view, argument_view, matrix_block]


@pytest.mark.parametrize("f", WORKING, ids=lambda f: f.__name__)
def test_gradient_value_and_forward_mode(f):
    check_on_copies(f, X)


@pytest.mark.parametrize("f", [interior_bc, heat_steps, dict_params, while_view], ids=lambda f: f.__name__)
def test_second_order(f):
    check_hessian_rows(f, X)


def test_the_argument_is_not_changed():
    x = X.copy()
    srcad.grad(argument_view)(x)
    np.testing.assert_array_equal(x, X)


def shared_slots(x):
    v = x * 2.0
    L = [v] * 2
    scale(L[0], 3.0)  # (Python: both slots change)
    return np.sum(L[1] * x)


def overlapping_views(x):
    a = x * 1.0
    L = [a[:3], a[1:]]
    L[0][1] = 3.0  # (Python: L[1][0] changes too)
    return np.sum(L[1] * x[1:])


@pytest.mark.parametrize("f", [stale_through_param, stale_view, returned_view, fancy_copy, list_slice_copy,
                               shared_slots, overlapping_views, stale_after_branch, named_view_read_after],
                         ids=lambda f: f.__name__)
def test_stale_references_are_refused(f):
    """The container read inside the helper after the change, a view taken before and read
    after, the changed item returned and used: Python sees the change through each, srcad's
    value would be the old one. (A fancy index's copy and an item of a list's slice are refused
    too, conservatively: srcad's aliases do not tell copies from views there.)"""
    with pytest.raises(srcad.UnsafeMutationError, match="test_views_written_back.py"):
        srcad.grad(f)(X.copy())
