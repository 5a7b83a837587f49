"""Arrays of an array-API namespace (array_api_strict) as differentiated values (srcad/namespaces.py,
srcad/lending.py): srcad.grad, value_and_grad, jvp and vjp of functions written against the
namespace give the namespace's arrays, equal to finite differences of the function run on the
namespace's arrays and to srcad's gradient of the same function on NumPy arrays; what the
namespace lacks is a TypeSupportError at the user's line, never a conversion to NumPy."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_directional, fd_grad_richardson

import srcad

xp = pytest.importorskip("array_api_strict")

RNG = np.random.default_rng(7)
W1, X, Y = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 3)), RNG.random((5, 4))
V = RNG.normal(size=6)


def logsumexp_softmax(z):
    """Written against the namespace of its argument (NumPy's too: NumPy >= 2 is one)."""
    ns = z.__array_namespace__()
    m = ns.max(z, axis=-1, keepdims=True)
    lse = m + ns.log(ns.sum(ns.exp(z - m), axis=-1, keepdims=True))
    p = ns.exp(z - lse)
    return ns.sum(lse) + ns.sum(p * p)


def mlp_loss(W, x, y):
    """Methods and operators: @, .T, **, unary minus, broadcasting; xp.* for the rest."""
    h = xp.tanh(x @ W)
    out = h.T @ y / 5.0 - 0.5
    return xp.mean(-(out ** 2)) + xp.sum(W * W) * 0.1 + xp.mean(xp.matmul(x, W))


def recurrent(W, x):
    h = x
    for _ in range(3):
        h = xp.tanh(h @ W[:, :3] + 0.1)
    return xp.sum(h * h)


def shapes(v):
    z = xp.concat([v[2:], v[:4]])
    m = xp.reshape(z, (2, 4))
    w = xp.where(m > 0.0, m, 0.5 * m ** 2)
    s = xp.stack([m, w])
    return xp.sum(xp.matrix_transpose(s) ** 2) + xp.sum(xp.exp(-xp.abs(m)))


def indexed_loop(v):
    """Reverse mode accumulates into a zeros buffer, written into by slices: the namespace's."""
    s = 0.0
    for i in range(3):
        s = s + xp.exp(v[i]) * v[i + 1]
    w = v * 1.0
    w[1:3] = v[:2] ** 2
    return s + xp.sum(w * w)


def saved_number(v):
    """A 0-d array updated in place in a loop whose backward sweep reads its old values (NumPy's
    np.float64 is immutable: the namespace's 0-d array must not be updated where it is saved),
    and a copy of the argument written into (the argument itself is never written)."""
    s = xp.sum(v * v)
    for i in range(2):
        s *= xp.tanh(v[i])
    w = v * 1.0
    w[0] = s
    return s + xp.sum(w * v)


CASES = [(logsumexp_softmax, (X,), (0,)), (mlp_loss, (W1, X, Y), (0, 1)), (recurrent, (W1, X), (0, 1)),
         (shapes, (V,), (0,)), (indexed_loop, (V,), (0,)), (saved_number, (V,), (0,))]


def _xp_fn(fn):
    return lambda *a: float(fn(*[xp.asarray(v) for v in a]))


@pytest.mark.parametrize("fn,args,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_of_namespace_arrays_is_the_namespaces_and_matches_finite_differences_and_numpy(
        fn, args, argnums):
    given = [xp.asarray(a) for a in args]
    got = srcad.grad(fn, argnums=argnums)(*given)
    for a, b in zip(given, args):
        assert np.array_equal(np.from_dlpack(a), b)  # (the arguments are not written into)
    numpy_grad = srcad.grad(fn, argnums=argnums)(*args) if fn is logsumexp_softmax else None
    for i, g in zip(argnums, got):
        assert type(g) is type(xp.asarray(0.0)), type(g)  # (the namespace's array, not NumPy's)
        expected = fd_grad_richardson(_xp_fn(fn), args, i)
        assert_tree_close(np.from_dlpack(g), expected, rtol=1e-6, atol=1e-8, what=f"argument {i}")
        if numpy_grad is not None:
            assert_tree_close(np.from_dlpack(g), numpy_grad[argnums.index(i)], rtol=1e-12, atol=1e-12)


def test_value_and_grad_and_the_numpy_gradient_of_the_same_code():
    """The same source differentiated on NumPy arrays (srcad reads xp.tanh as np.tanh) gives the
    same gradient; the calls do not share code paths that return the wrong library's arrays."""
    g = srcad.value_and_grad(mlp_loss)
    for _ in range(2):  # (the second calls take the dispatcher's fast path)
        value, grad = g(xp.asarray(W1), xp.asarray(X), xp.asarray(Y))
        numpy_value, numpy_grad = g(W1, X, Y)
        assert type(numpy_grad) is np.ndarray and type(grad) is type(xp.asarray(0.0))
        assert_tree_close(float(value), float(_xp_fn(mlp_loss)(W1, X, Y)))
        assert_tree_close(float(value), float(numpy_value))
        assert_tree_close(np.from_dlpack(grad), numpy_grad, rtol=1e-12, atol=1e-12)


def test_the_derivative_codes_np_array_copies_the_namespaces_array():
    """Generated code runs with `np` whose array makers make the namespace's arrays (lending.py):
    np.array copies as NumPy's does (code that writes into the copy leaves the argument alone)."""
    from srcad.lending import Lent, rebound

    def code(a):
        b, c = np.array(a), np.asarray(a)
        b[0] = 5.0
        return b, c, np.zeros((2,)), np.full((2,), a[1])

    a = xp.asarray([1.0, 2.0])
    b, c, z, f = rebound(code, xp)(Lent(a, xp))
    assert float(a[0]) == 1.0 and float(b.a[0]) == 5.0 and float(c.a[0]) == 1.0
    assert all(type(v.a) is type(a) for v in (b, z, f)) and float(f.a[0]) == 2.0


def test_int_namespace_arrays_are_promoted_in_the_namespace():
    got = srcad.grad(lambda v: xp.sum(v * v * v))(xp.asarray([1, 2, 3]))
    assert type(got) is type(xp.asarray(0.0)) and xp.isdtype(got.dtype, "real floating")
    assert_tree_close(np.from_dlpack(got), 3.0 * np.array([1.0, 4.0, 9.0]))


def cumulative(v):
    return xp.sum(xp.cumulative_sum(v) * v)  # (its adjoint calls np.cumsum, outside the standard)


def gathered(v):
    return xp.sum(v[xp.asarray([0, 0, 1])] ** 2)  # (its adjoint calls np.add.at)


def test_what_the_namespace_lacks_is_an_error_at_the_users_line():
    for fn, line, lacks in ((cumulative, 1, "np.cumsum"), (gathered, 1, "np.add.at")):
        with pytest.raises(srcad.TypeSupportError) as err:
            srcad.grad(fn)(xp.asarray(V))
        (d,) = err.value.diagnostics
        assert d.file == __file__ and d.line == fn.__code__.co_firstlineno + line, (fn.__name__, d)
        assert f"array_api_strict arrays needs {lacks}" in str(err.value)
        assert "np.asarray(x)" in d.hint


def test_jvp_and_vjp_of_namespace_arrays_match_finite_differences_and_numpy():
    given = [xp.asarray(a) for a in (W1, X, Y)]
    T = RNG.normal(size=W1.shape)
    value, tangent = srcad.jvp(mlp_loss, given, (xp.asarray(T), None, None))
    assert type(tangent) is type(given[0])
    expected = fd_directional(_xp_fn(mlp_loss), (W1, X, Y), (T, np.zeros_like(X), np.zeros_like(Y)))
    assert_tree_close(float(tangent), expected, rtol=1e-6)
    assert_tree_close(float(tangent), float(srcad.jvp(mlp_loss, (W1, X, Y), (T, None, None))[1]), rtol=1e-12)
    out, vjp_fn = srcad.vjp(mlp_loss, *given)
    bars = vjp_fn(1.0)
    numpy_bars = srcad.vjp(mlp_loss, W1, X, Y)[1](1.0)
    for i, (b, nb) in enumerate(zip(bars, numpy_bars)):
        assert type(b) is type(given[0])
        assert_tree_close(np.from_dlpack(b), fd_grad_richardson(_xp_fn(mlp_loss), (W1, X, Y), i), rtol=1e-6,
                          atol=1e-8)
        assert_tree_close(np.from_dlpack(b), nb, rtol=1e-12, atol=1e-12)


def large(x):
    t = x * 2.0
    u = xp.exp(t) + 1.0
    return xp.sum(xp.tanh(u) * u)


def test_buffer_reuse_writes_into_the_namespaces_arrays():
    """On large arrays the code writes results into dying operands (passes/buffers.py: out=,
    in-place operators): the namespace's arrays take the writes, against the hand-derived gradient."""
    x = np.linspace(0.0, 1.0, 1 << 15)
    g = srcad.grad(large)
    got = g(xp.asarray(x))
    assert "out=" in srcad.source(g, xp.asarray(x)) and type(got) is type(xp.asarray(0.0))
    u = np.exp(2.0 * x) + 1.0
    assert_tree_close(np.from_dlpack(got), (u / np.cosh(u) ** 2 + np.tanh(u)) * 2.0 * np.exp(2.0 * x),
                      rtol=1e-12, atol=1e-12)


def paired(ws):
    return xp.sum(ws[0] * xp.exp(ws[1]))


def test_a_list_of_namespace_arrays_after_one_of_numpy_arrays_gets_its_own_code_path():
    """The dispatcher's fast path keys a container holding other libraries' arrays apart from the
    same container of NumPy arrays (it ran NumPy's unguarded code on them)."""
    g = srcad.grad(paired)
    a, b = RNG.normal(size=4), RNG.normal(size=4)
    for _ in range(2):
        numpy_grad = g([a, b])
        got = g([xp.asarray(a), xp.asarray(b)])
        assert type(numpy_grad[0]) is np.ndarray and type(got[1]) is type(xp.asarray(0.0))
        assert_tree_close([np.from_dlpack(v) for v in got], [np.exp(b), a * np.exp(b)], rtol=1e-12)


def doubled_sum(v):
    return xp.sum(v) * 2.0  # (the backward sweep is given the cotangent alone, no array)


def test_a_vjp_whose_backward_sweep_gets_no_array_still_gives_the_namespaces():
    (v_bar,) = srcad.vjp(doubled_sum, xp.asarray(V))[1](1.5)
    assert type(v_bar) is type(xp.asarray(0.0))
    assert_tree_close(np.from_dlpack(v_bar), fd_grad_richardson(_xp_fn(doubled_sum), (V,), 0) * 1.5)


def _sin_times(x):
    return np.sum(np.sin(x) * x)


def test_hvp_of_namespace_arrays_is_the_hand_derived_hessian_times_v():
    x, v = RNG.normal(size=5), RNG.normal(size=5)
    got = srcad.hvp(_sin_times, (xp.asarray(x),), (xp.asarray(v),))
    assert type(got) is type(xp.asarray(x))
    assert np.allclose(np.from_dlpack(got), (2.0 * np.cos(x) - x * np.sin(x)) * v)  # (a diagonal Hessian)


def test_other_transformations_still_refuse_namespace_arrays():
    with pytest.raises(srcad.TypeSupportError, match="value_and_grad, jvp, vjp and hvp only"):
        srcad.jacfwd(mlp_loss)(xp.asarray(W1), xp.asarray(X), xp.asarray(Y))


def _namespace_rows(x):
    return xp.sum(xp.sin(x) * x)


def test_vmap_keeps_the_namespaces_arrays():
    """vmap of namespace arrays runs once per example (the vectorised code is NumPy's) and
    stacks the results in the namespace: nothing is converted to NumPy."""
    rows = xp.asarray(RNG.normal(size=(4, 3)))
    got = srcad.vmap(_namespace_rows)(rows)
    assert type(got) is type(rows)
    want = [float(np.sum(np.sin(r) * r)) for r in np.from_dlpack(rows)]
    assert np.allclose(np.from_dlpack(got), want)
    cols = srcad.vmap(lambda c: xp.sin(c) * 2.0, in_axes=1, out_axes=1)(rows)
    assert type(cols) is type(rows) and np.allclose(np.from_dlpack(cols), 2.0 * np.sin(np.from_dlpack(rows)))
