"""Arguments the function writes into (transforms/owning.py): the code writes into a copy of
its own, made on entry, so every transformation gives the derivative of what the function
computes and leaves the caller's object as it was; an argument another argument also refers
to is an UnsafeMutationError. Tangent's test corpus writes into its arguments this way
(`x[0] = a * b`); they were refused. Oracles: finite differences of the function on copies,
and derivatives by hand."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


def overwrite_first(x):
    y = x ** 2.0
    x[0] = y[1] * y[2]
    return np.sum(x * y)


def through_a_view(x):
    tail = x[1:]
    tail[0] = 3.0 * tail[1]
    return np.sum(np.sin(tail))


def sorted_then_weighted(x, w):
    x.sort()
    return np.sum(x * w)


def appended(xs, v):
    xs.append(v * v)
    return sum(xs)


def keyed(d, v):
    d["b"] = d["a"] * v
    return d["a"] + 2.0 * d["b"]


def both(a, b):
    a[0] = 2.0 * b[1]
    return np.sum(a * b)


def on_copies(fn):
    def copied(*args):
        return fn(*[a.copy() if isinstance(a, (np.ndarray, list, dict)) else a for a in args])
    return copied


X = np.array([0.5, 1.5, -0.7])


def _overwrite_first_by_hand(x):
    return np.array([2 * x[0] * x[1] ** 2 * x[2] ** 2, 2 * x[1] * x[0] ** 2 * x[2] ** 2 + 3 * x[1] ** 2,
                     2 * x[2] * x[0] ** 2 * x[1] ** 2 + 3 * x[2] ** 2])


def test_every_transformation_writes_into_its_own_copy():
    x = X.copy()
    want = fd_grad_richardson(on_copies(overwrite_first), (X,))
    # by hand: f = x0^2 x1^2 x2^2 + x1^3 + x2^3
    by_hand = _overwrite_first_by_hand(X)
    np.testing.assert_allclose(want, by_hand, rtol=1e-8)
    np.testing.assert_allclose(srcad.grad(overwrite_first)(x), by_hand, rtol=1e-13)
    t = np.array([0.3, -0.2, 0.9])
    np.testing.assert_allclose(srcad.jvp(overwrite_first, (x,), (t,))[1], by_hand @ t, rtol=1e-13)
    np.testing.assert_allclose(srcad.jacrev(overwrite_first)(x), by_hand, rtol=1e-13)
    np.testing.assert_allclose(srcad.jacfwd(overwrite_first)(x), by_hand, rtol=1e-13)
    hess = srcad.hessian(overwrite_first)(x)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-13)
    np.testing.assert_allclose(hess[0, 0], 2 * X[1] ** 2 * X[2] ** 2, rtol=1e-13)
    batch = np.stack([X, 2.0 * X])
    np.testing.assert_allclose(srcad.vmap(srcad.grad(overwrite_first))(batch)[0], by_hand, rtol=1e-13)
    np.testing.assert_array_equal(x, X)  # (the caller's array as it was)
    np.testing.assert_array_equal(batch[0], X)


def test_writes_through_a_view_a_sort_a_list_and_a_dict():
    x = X.copy()
    got = srcad.grad(through_a_view)(x)
    # by hand: f = sin(3 x2) + sin(x2)
    np.testing.assert_allclose(got, [0.0, 0.0, 3.0 * np.cos(3.0 * X[2]) + np.cos(X[2])], rtol=1e-13)
    w = np.array([1.0, 2.0, 3.0])
    gx, gw = srcad.grad(sorted_then_weighted, argnums=(0, 1))(x, w)
    order = np.argsort(X)
    np.testing.assert_array_equal(gw, X[order])
    np.testing.assert_array_equal(gx[order], w)
    np.testing.assert_array_equal(x, X)
    xs = [1.0, 2.0]
    assert srcad.grad(appended, argnums=1)(xs, 3.0) == pytest.approx(6.0) and xs == [1.0, 2.0]
    d = {"a": 1.5}
    ga, gv = srcad.grad(keyed, argnums=(0, 1))(d, 0.5)
    assert ga["a"] == pytest.approx(1.0 + 2.0 * 0.5) and gv == pytest.approx(2.0 * 1.5)
    assert d == {"a": 1.5}


def test_an_argument_another_argument_refers_to_is_refused_when_called():
    """In Python the write into a shows through b when they are one array (or b is a view of
    a, or a list holding it): the copy would not, so the call raises."""
    x = X.copy()
    g = srcad.grad(both, argnums=(0, 1))
    for b in (x, x[:], [x]):
        with pytest.raises(srcad.UnsafeMutationError, match="another argument") as err:
            g(x, b) if not isinstance(b, list) else srcad.grad(lambda a, bs: both(a, bs[0]))(x, b)
        assert "test_argument_writes.py" in str(err.value)
    ga, gb = g(x, X.copy())  # by hand: f = 2 b1 b0 + a1 b1 + a2 b2
    np.testing.assert_allclose(ga, [0.0, X[1], X[2]], rtol=1e-15)
    np.testing.assert_allclose(gb, [2.0 * X[1], 2.0 * X[0] + X[1], X[2]], rtol=1e-15)


STATE = np.zeros(3)


def writes_a_global(x):
    STATE[0] = x[0]
    return np.sum(x) + STATE[0]


def test_a_write_into_a_global_is_still_refused():
    with pytest.raises(srcad.UnsafeMutationError, match="global 'STATE'"):
        srcad.grad(writes_a_global)(X.copy())


def test_the_numba_target_writes_into_its_own_copy():
    pytest.importorskip("numba")
    x = X.copy()
    np.testing.assert_allclose(srcad.grad(overwrite_first, target="numba")(x), _overwrite_first_by_hand(X),
                               rtol=1e-13)
    np.testing.assert_array_equal(x, X)


def doubled_first(x, y):
    x[0] = x[1] * 2.0
    return np.sum(x * y)


WEIGHTS = np.array([1.0, 2.0, 3.0])


def written_and_weighted(x):
    x[0] = x[1] * 10.0
    return np.sum(x * WEIGHTS)


def test_aliasing_is_refused_by_vjp_linearize_and_through_a_global():
    """vjp and linearize copied each primal apart, so `vjp(f, x, x)` lost the aliasing and
    gave 17 where Python gives 29; an argument that is also a global the function reads
    (`f(WEIGHTS)`) was copied too, silently (the adversarial pass). Both raise now."""
    x = X.copy()
    for call in (lambda: srcad.vjp(doubled_first, x, x), lambda: srcad.linearize(doubled_first, x, x),
                 lambda: srcad.vjp(doubled_first, x, x[:])):
        with pytest.raises(srcad.UnsafeMutationError, match="another argument"):
            call()
    with pytest.raises(srcad.UnsafeMutationError, match="another argument"):
        srcad.value_and_grad(written_and_weighted)(WEIGHTS)
    value, grad = srcad.value_and_grad(written_and_weighted)(X.copy())  # by hand: 10 x1 + 2 x1 + 3 x2
    assert value == pytest.approx(12.0 * X[1] + 3.0 * X[2], rel=1e-14)
    np.testing.assert_allclose(grad, [0.0, 12.0, 3.0], rtol=1e-15)


def test_a_read_only_argument_written_into_raises_as_the_function_does():
    """The copy of a read-only argument (np.broadcast_to's, a flags.writeable=False array) was
    writeable, so the derivative was computed where f itself raises (the adversarial pass)."""
    x = np.broadcast_to(np.array([0.5, 1.5, -0.7]), (3,))
    with pytest.raises(ValueError, match="read-only"):
        overwrite_first(x)
    with pytest.raises(ValueError, match="read-only"):
        srcad.grad(overwrite_first)(x)
