"""Reads of local variables that may be unassigned (fuzz programs M1:1144, M1:1230, M1:329,
M1:229): where the function raises UnboundLocalError, so do its derivatives, also when the
value read is unused or the variable is unassigned on every path reaching the read; where it
does not raise, the derivatives are exact, also when reverse mode needs a zero cotangent of
a value that one branch leaves unassigned."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad

import srcad


def unused_read_one_branch(x, c):
    if c > 0:
        y = x * x
    a = y  # noqa: F841 (raises when c <= 0)
    return 3.0 * x


def augmented_never_assigned(x):
    k0 = x * x
    k1 += 0  # noqa: F821,F841 (raises always)
    return k0


def read_after_early_return(x, n):
    if n == 0:
        pass
    else:
        return 2.0 * x
    w = ws[0]  # noqa: F821 (ws is assigned below only: raises when n == 0)
    ws = [x]  # noqa: F841 (the read above is the test)
    return w


def read_before_first_assignment_in_loop(x, k):
    s = x
    for i in range(3):
        if i >= k:
            s = s + h  # noqa: F821 (h is unassigned in the first iteration)
        h = s * x  # noqa: F841 (read in the next iteration)
    return s


def read_after_loop(x, n):
    for i in range(n):
        y = x * i
    z = y  # noqa: F841 (raises when the loop runs zero times)
    return x * x


def tuple_one_branch(x, y, z):
    if not z:
        t = (x, z, x)
    elif y > 0:
        return 0.5
    u0, u1, u2 = t
    return np.sum(u0 * u2) + u1


def assigned_a_value_computed_before(x):
    # U1:127: w's name was shared with x[0], computed before the if (common subexpressions)
    xs = [x, x[0]]
    if len(xs) > 2:
        w = x[0]
    v = w  # noqa: F841
    return 0.5 * np.sum(x)


def tuple_carried_after_continue(x, n):
    # F1:2431: scalarize took t apart in the branch that continues, reading it there
    s = x
    for i in range(n):
        if i < 5:
            s = s * x
            continue
        t = (t[0] * x, x)  # noqa: F821,F841 (raises in the first iteration that gets here)
    return s


def _assigned_if_less(a, b):
    if a < b:
        w = b
    return a * w


def _last_of_loop(a, n):
    for i in range(n):
        w = a * i
    return w


def helper_called_in_a_loop(x, bs):
    # fuzz 9200:1068: each call of the helper starts with its locals unassigned; inlined into the
    # loop, w kept the previous call's value, and the derivatives returned where f raises
    s = 0.0
    for b in bs:
        s = s + _assigned_if_less(x, b)
    return s


def helper_loop_called_in_a_loop(x, ns):
    s = 0.0
    for n in ns:
        s = s + _last_of_loop(x, n)
    return s


def helper_result_unused_in_a_loop(x, bs):
    for b in bs:
        _assigned_if_less(x, b)
    return 2.0 * x


X1 = np.array([-0.5])
RAISING = [
    (helper_called_in_a_loop, (1.0, [2.0, 0.0])),
    (helper_loop_called_in_a_loop, (1.5, [3, 0])),
    (helper_result_unused_in_a_loop, (1.0, [2.0, 0.0])),
    (tuple_carried_after_continue, (0.7, 6)),
    (assigned_a_value_computed_before, (X1,)),
    (unused_read_one_branch, (2.0, -1.0)),
    (augmented_never_assigned, (2.0,)),
    (read_after_early_return, (2.0, 0)),
    (read_before_first_assignment_in_loop, (2.0, 0)),
    (read_after_loop, (2.0, 0)),
    (tuple_one_branch, (X1, -0.5, 0.5)),
]


def _ones(x):
    return np.ones_like(x) if isinstance(x, np.ndarray) else 1.0


@pytest.mark.parametrize("fn,args", [pytest.param(*c, id=c[0].__name__) for c in RAISING])
def test_derivatives_raise_unbound_local_error_where_the_function_does(fn, args):
    with pytest.raises(UnboundLocalError):
        fn(*args)
    tangents = (_ones(args[0]),) + (None,) * (len(args) - 1)
    for call in (lambda: srcad.grad(fn)(*args), lambda: srcad.jvp(fn, args, tangents),
                 lambda: srcad.vjp(fn, *args), lambda: srcad.jacfwd(fn)(*args),
                 lambda: srcad.hessian(fn)(*args)):
        with pytest.raises(UnboundLocalError):
            call()


EXACT = [
    (helper_called_in_a_loop, (1.0, [2.0, 3.0])),
    (helper_loop_called_in_a_loop, (1.5, [3, 2])),
    (tuple_carried_after_continue, (0.7, 3)),
    (unused_read_one_branch, (2.0, 1.0)),
    (read_after_early_return, (2.0, 1)),
    (read_before_first_assignment_in_loop, (0.7, 1)),
    (read_after_loop, (0.7, 2)),
    (tuple_one_branch, (X1, -0.5, 0.0)),
    (tuple_one_branch, (X1, 0.5, 0.5)),
]


@pytest.mark.parametrize("fn,args",
                         [pytest.param(*c, id=f"{c[0].__name__}-{i}") for i, c in enumerate(EXACT)])
def test_where_the_function_does_not_raise_derivatives_match_finite_differences(fn, args):
    want = fd_grad(fn, args, 0)
    assert_tree_close(srcad.grad(fn)(*args), want, what="grad")
    assert_tree_close(srcad.vjp(fn, *args)[1](1.0)[0], want, what="vjp")
    v = _ones(args[0])
    jvp = srcad.jvp(fn, args, (v,) + (None,) * (len(args) - 1))[1]
    assert abs(float(jvp) - float(np.sum(want * v))) <= 1e-5 * max(1.0, abs(float(jvp)))


@pytest.mark.parametrize("shape_variants", [8, 0])
def test_zero_cotangent_of_a_value_one_branch_leaves_unassigned(shape_variants):
    # M1:229: the backward sweep made t's zero cotangent from t where t is unassigned
    fn = tuple_one_branch
    old = srcad.config.shape_variants
    srcad.config.shape_variants = shape_variants
    try:
        for args in ((X1, 0.5, 0.5), (np.array([0.3, -0.4]), 0.5, 0.0)):
            assert_tree_close(srcad.grad(fn)(*args), fd_grad(fn, args, 0), what="grad")
    finally:
        srcad.config.shape_variants = old
