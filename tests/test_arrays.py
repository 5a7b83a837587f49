"""Arrays of other libraries as differentiated values (srcad/namespaces.py): dask arrays through
grad, value_and_grad, jvp and vjp stay lazy and equal the NumPy gradient (checked against hand-derived
gradients and finite differences); what would compute them, or is outside the dask subset
(indexing whose adjoint writes into NumPy arrays), is a TypeSupportError at the user's line;
array-API-only arrays (array_api_strict) are tests/test_array_api.py; JAX arrays are refused,
never converted;
CuPy runs where a GPU is (skipped otherwise)."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_directional, fd_grad

import srcad

da = pytest.importorskip("dask.array")


def least_squares(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2)


def smooth(x, c):
    y = np.tanh(x * c + 0.5) - c
    return np.sum(y ** 2) / x.size + np.mean(x * c) + np.max(x)


def pieces(x):
    a = np.concatenate([x[:3] * 2.0, np.exp(x[3:])])
    return np.sum(np.where(a > 1.0, a, a ** 2)) + np.sum(x.reshape(2, -1).T @ x.reshape(2, -1))


def computes(x):
    s = float(np.sum(x))  # (a Python number made from the array: dask would compute it)
    return np.sum(x) * s


def picks(x):
    return np.sum(x[[0, 2, 2]] ** 2)  # (its adjoint adds at repeated positions: np.add.at)


def items(x):
    return x[0] * x[-1]  # (its adjoint writes items of a cotangent buffer)


def rows_picked_by_data(x):
    return np.sum(x[np.flatnonzero(x > 0.5)] ** 2)  # (an index made from the dask array's values)


def spectrum(x):
    return np.linalg.norm(np.fft.fft(x).real)  # (dask's FFT wants one chunk along its axis)


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def branches(x):
    if np.sum(x) > 0:
        return np.sum(x ** 2)
    return np.sum(x)


RNG = np.random.default_rng(1)
X, Y, W = RNG.normal(size=(60, 3)), RNG.normal(size=60), RNG.normal(size=3)


def _lazy(a):
    assert isinstance(a, da.Array), type(a)
    return a.compute()


def test_least_squares_on_dask_data_and_weights_is_lazy_and_exact():
    Xd, yd = da.from_array(X, chunks=20), da.from_array(Y, chunks=20)
    expected = 2.0 / len(Y) * X.T @ (X @ W - Y)  # (hand-derived)
    assert_tree_close(_lazy(srcad.grad(least_squares)(W, Xd, yd)), expected)
    value, g = srcad.value_and_grad(least_squares)(da.from_array(W), Xd, yd)
    assert_tree_close(float(_lazy(value)), least_squares(W, X, Y))
    assert_tree_close(_lazy(g), expected)


@pytest.mark.parametrize("variants", [8, 0], ids=["shaped", "rank_only"])
def test_elementwise_reductions_indexing_concatenation_match_numpy(variants, monkeypatch):
    monkeypatch.setattr(srcad.config, "shape_variants", variants)
    x = np.linspace(-0.9, 1.3, 8)
    xd = da.from_array(x, chunks=3)
    gx, gc = srcad.grad(smooth, argnums=(0, 1))(xd, 0.7)
    assert_tree_close(_lazy(gx), fd_grad(smooth, (x, 0.7)), rtol=1e-6)
    assert_tree_close(float(_lazy(gc) if isinstance(gc, da.Array) else gc), fd_grad(smooth, (x, 0.7), 1),
                      rtol=1e-6)
    assert_tree_close(_lazy(srcad.grad(pieces)(xd)), fd_grad(pieces, (x,)), rtol=1e-6)


def test_a_large_dask_array_builds_its_gradient_graph_without_numpy_constants(monkeypatch):
    """Shape-generic code on 10^7 elements: no full-size NumPy array joins the graph (each
    would be hashed into it: seconds and hundreds of MiB), so building the graph is quick."""
    monkeypatch.setattr(srcad.config, "shape_variants", 0)
    x = da.ones(10 ** 7, chunks=10 ** 6)
    gx, _ = srcad.grad(smooth, argnums=(0, 1))(x, 0.5)
    graph = dict(gx.__dask_graph__())
    big = [v for v in graph.values() if isinstance(v, np.ndarray) and v.size > 10 ** 5]
    assert not big


def test_code_that_would_compute_a_dask_array_is_refused_at_its_line():
    xd = da.from_array(np.linspace(0.1, 1.0, 6), chunks=3)
    outside = "outside srcad's dask subset"
    for fn, line, why in ((computes, 1, "would compute a dask array"), (branches, 1, "would compute"),
                          (rows_picked_by_data, 1, "would compute"), (spectrum, 1, outside)):
        with pytest.raises(srcad.TypeSupportError) as err:
            srcad.grad(fn)(xd)
        assert err.value.lineno == fn.__code__.co_firstlineno + line, fn.__name__
        assert why in str(err.value), fn.__name__
    assert_tree_close(srcad.grad(branches)(np.linspace(0.1, 1.0, 6)), 2 * np.linspace(0.1, 1.0, 6))


def test_numpy_and_dask_calls_of_one_gradient_do_not_share_their_fast_path():
    g = srcad.grad(least_squares)
    Xd, yd = da.from_array(X, chunks=30), da.from_array(Y, chunks=30)
    expected = 2.0 / len(Y) * X.T @ (X @ W - Y)
    for _ in range(2):  # (the second calls take the fast path)
        assert type(g(W, X, Y)) is np.ndarray
        assert_tree_close(_lazy(g(W, Xd, yd)), expected)


def computes_from_a_list(xs):
    s = float(np.sum(xs[0]))  # (dask would compute it)
    return np.sum(xs[1]) * s


def test_a_list_of_dask_arrays_after_one_of_numpy_arrays_still_runs_guarded():
    """The fast path's key tells a list of dask arrays from a list of NumPy arrays: the code
    that would compute them is refused, not run unguarded."""
    g = srcad.grad(computes_from_a_list)
    x = np.linspace(0.1, 1.0, 6)
    assert_tree_close(g([x, x])[1], np.full(6, np.sum(x)))
    with pytest.raises(srcad.TypeSupportError, match="would compute"):
        g([da.from_array(x), da.from_array(x)])


def test_jvp_and_vjp_of_dask_arrays_are_lazy_and_exact():
    """jvp and vjp take dask arrays too (lazily: their results are dask arrays), against the
    hand-derived gradient of least squares and finite differences of smooth."""
    Wd, Xd, Yd = da.from_array(W), da.from_array(X, chunks=20), da.from_array(Y, chunks=20)
    T = RNG.normal(size=3)
    gradient = 2.0 / len(Y) * X.T @ (X @ W - Y)
    value, tangent = srcad.jvp(least_squares, (Wd, Xd, Yd), (da.from_array(T), None, None))
    assert_tree_close((_lazy(value), _lazy(tangent)), (least_squares(W, X, Y), gradient @ T))
    out, vjp_fn = srcad.vjp(least_squares, Wd, Xd, Yd)
    w_bar, x_bar, y_bar = vjp_fn(2.0)
    assert_tree_close((_lazy(out), _lazy(w_bar)), (least_squares(W, X, Y), 2.0 * gradient))
    assert_tree_close(_lazy(y_bar), 2.0 * -2.0 / len(Y) * (X @ W - Y))
    x = np.linspace(0.1, 1.2, 6)
    _, t = srcad.jvp(smooth, (da.from_array(x, chunks=3), 0.7), (da.from_array(x[::-1]), 0.0))
    assert_tree_close(_lazy(t), fd_directional(smooth, (x, 0.7), (x[::-1], 0.0)), rtol=1e-6)
    with pytest.raises(srcad.TypeSupportError, match="must be one"):  # (a NumPy tangent: never mixed)
        srcad.jvp(least_squares, (Wd, Xd, Yd), (T, None, None))


def test_dask_arrays_elsewhere_are_refused_not_converted():
    with pytest.raises(srcad.TypeSupportError, match="value_and_grad, jvp, vjp and hvp only"):
        srcad.jacfwd(least_squares)(da.from_array(W), X, Y)
    with pytest.raises(srcad.TypeSupportError, match="value_and_grad, jvp, vjp and hvp only"):
        srcad.hessian(least_squares)(da.from_array(W), X, Y)


def test_jax_arrays_are_refused():
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(srcad.TypeSupportError, match="JAX arrays are immutable"):
        srcad.grad(least_squares)(jnp.asarray(W), X, Y)


def test_cupy_arrays_on_a_gpu():
    cp = pytest.importorskip("cupy")
    try:
        w = cp.asarray(W)
    except Exception as e:  # (cupy installed, no GPU)
        pytest.skip(f"no GPU: {e}")
    g = srcad.grad(least_squares)(w, cp.asarray(X), cp.asarray(Y))
    assert isinstance(g, cp.ndarray)
    assert_tree_close(cp.asnumpy(g), 2.0 / len(Y) * X.T @ (X @ W - Y))


def test_vmap_of_dask_arrays_stays_lazy():
    """vmap over a dask array runs once per example (dask's calls) and stacks lazily."""
    x = np.random.default_rng(3).normal(size=(6, 4))
    rows = da.from_array(x, chunks=(3, 4))
    got = srcad.vmap(lambda r: np.sum(np.sin(r) * r))(rows)
    assert isinstance(got, da.Array)
    assert np.allclose(got.compute(), np.sum(np.sin(x) * x, axis=1))


def _sin_times(x):
    return np.sum(np.sin(x) * x)


def _chained(x):
    return np.sum(x[1:] * x[:-1] ** 2)


def test_hvp_of_dask_arrays_is_lazy_and_the_hand_derived_hessian_times_v():
    rng = np.random.default_rng(4)
    x, v = rng.normal(size=6), rng.normal(size=6)
    got = srcad.hvp(_sin_times, (da.from_array(x, chunks=3),), (da.from_array(v, chunks=3),))
    assert isinstance(got, da.Array)
    assert np.allclose(got.compute(), (2.0 * np.cos(x) - x * np.sin(x)) * v)
    # slices: their adjoints write into cotangent buffers, which are dask arrays too
    got = srcad.hvp(_chained, (da.from_array(x, chunks=3),), (da.from_array(v, chunks=3),))
    hv = np.zeros(6)  # f = sum_i x[i+1] x[i]^2: H[i,i] = 2 x[i+1], H[i,i+1] = H[i+1,i] = 2 x[i]
    hv[:-1] += 2 * x[1:] * v[:-1] + 2 * x[:-1] * v[1:]
    hv[1:] += 2 * x[:-1] * v[:-1]
    assert isinstance(got, da.Array) and np.allclose(got.compute(), hv)


def test_gradients_that_write_slices_and_items_of_dask_arrays_stay_lazy():
    x = np.linspace(-1.2, 0.9, 9)
    g = srcad.grad(rosen)(da.from_array(x, chunks=4))
    hand = np.zeros(9)  # the Rosenbrock gradient
    hand[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    hand[1:] += 200 * (x[1:] - x[:-1] ** 2)
    np.testing.assert_allclose(_lazy(g), hand, rtol=1e-12)
    got = _lazy(srcad.grad(items)(da.from_array(x, chunks=4)))
    np.testing.assert_allclose(got, np.eye(9)[0] * x[-1] + np.eye(9)[-1] * x[0], rtol=1e-12)
    got = _lazy(srcad.grad(picks)(da.from_array(x, chunks=4)))  # index 2 twice: its terms add
    np.testing.assert_allclose(got, [2 * x[0], 0, 4 * x[2]] + [0] * 6, rtol=1e-12)
    value, vjp_fn = srcad.vjp(rosen, da.from_array(x, chunks=4))
    np.testing.assert_allclose(_lazy(vjp_fn(2.0)[0]), 2 * hand, rtol=1e-12)


def test_array_makers_in_code_run_on_dask_make_dask_arrays_with_numpys_parameters():
    from srcad.namespaces import _made_lazily

    full, zeros = _made_lazily(np.full, da.full), _made_lazily(np.zeros, da.zeros)
    made = full((2,), 1.5, np.float32)  # (a positional dtype, which da.full would ignore)
    assert isinstance(made, da.Array) and made.dtype == np.float32 and list(made.compute()) == [1.5, 1.5]
    assert isinstance(zeros((3,), np.float32), da.Array) and zeros((3,), np.float32).dtype == np.float32
    assert type(zeros(())) is np.ndarray  # (a 0-d buffer stays NumPy's: a number)
    assert zeros((2, 2), order="F").flags["F_CONTIGUOUS"]  # (what dask cannot make: NumPy's)


def written_through_an_ellipsis_in_a_loop(x):
    y0 = x.copy()
    y1 = np.zeros((1, 2))
    for _ in range(1):
        y1[...] = np.tanh(y0) + y0 * 0.5
    return np.sum(y1) + np.sum(x)


def test_a_write_through_an_ellipsis_keeps_its_cotangent_on_dask_arrays():
    """The adjoint of y[...] = v reads y_bar through np.where(True, y_bar[...], 0.0), then
    zeroes y_bar: dask's np.where returned y_bar itself, which its __setitem__ then changed,
    so the derivative through the write was lost (fuzz 12500:663). Against finite
    differences and the NumPy gradient."""
    x = np.array([[0.3, -1.4]])
    want = fd_grad(written_through_an_ellipsis_in_a_loop, (x,))
    got = srcad.grad(written_through_an_ellipsis_in_a_loop)(da.from_array(x))
    assert isinstance(got, da.Array)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
