"""numpy.cov, numpy.corrcoef, numpy.meshgrid (srcad/rules/numpy_statistics.py) and
scipy.special.logsumexp(..., return_sign=True) (srcad/rules/scipy_special_impl.py) in
realistic uses: gradients against Richardson-extrapolated finite differences, tangents
against directional differences, Hessian-vector products against differences of differences
of the function itself; values against NumPy's and scipy's own (types and shapes too); and
the arguments whose derivative srcad does not compute, refused at the user's line."""

import numpy as np
import pytest
import scipy.special
from oracle import assert_tree_close, fd_directional, fd_grad_richardson, fd_second_directional

import srcad

RNG = np.random.default_rng(20240611)
DATA = RNG.normal(size=(12, 3))  # 12 observations of 3 variables
W0 = RNG.normal(size=(3, 2)) + np.eye(3, 2)
T = np.linspace(0.0, 3.0, 9)


def whitened_loss(w, data):
    """A Gaussian fit of projected data: log det of the sample covariance plus its trace."""
    c = np.cov(data @ w, rowvar=False)
    return np.linalg.slogdet(c)[1] + np.trace(c) + np.sum(c * c)


def cov_between(w, data):
    """Cross-covariance of two projections, rows as variables, biased and with ddof."""
    z = (data @ w).T
    return np.sum(np.cov(z[0], np.tanh(z[1]), bias=True) ** 2) + np.sum(np.cov(z, ddof=0)) \
        + np.cov(z[1] ** 2)


def series_correlation(a, b):
    """The correlation between two parameterised series."""
    x = np.sin(a * T) + 0.3 * T
    y = np.cos(b * T + a) + 0.1 * T * T
    return np.corrcoef(x, y)[0, 1]


def feature_correlations(w, data):
    """A penalty on the correlations of learned features (columns as variables)."""
    r = np.corrcoef(np.tanh(data @ w), data[:, :1], rowvar=False)
    return np.sum(r[np.triu_indices(3, 1)] ** 2)


def grid_energy(p, q):
    """A function evaluated on a meshgrid of parameters ('xy': X varies along columns)."""
    gx, gy = np.meshgrid(p, q)
    return np.sum(np.exp(-(gx * gx + 0.5 * gy * gy)) * gx * gy) + np.sum(gx[0] * gy[:, 0][0])


def grid_energy_ij(p, q, r):
    """Three axes, 'ij' indexing, and sparse grids broadcast by hand."""
    a, b, c = np.meshgrid(p, q, r, indexing="ij")
    sa, sb = np.meshgrid(p, q, sparse=True)
    return np.sum(np.sin(a) * b * c ** 2) + np.sum(np.cos(sa * sb))


def signed_logsumexp(a, w):
    """log |sum w exp(a)| per row with weights of both signs, times the sign of the sum."""
    out, sign = scipy.special.logsumexp(a, axis=1, b=w, return_sign=True)
    total, s = scipy.special.logsumexp(a, return_sign=True)
    return np.sum(out * sign) + total * s


def of_a_list_of_series(v, w):
    """np.cov and np.corrcoef of a list (a tuple) of series, which NumPy stacks."""
    return np.sum(np.cov([v, v ** 2]) ** 2) + np.sum(np.corrcoef((v, w)))


P = np.array([0.3, -0.8, 1.1, 0.4])
Q = np.array([0.5, -0.2, 0.9])
R = np.array([-0.6, 0.7])
A = RNG.normal(size=(3, 4))
WB = np.array([[1.5, -0.4, 2.0, -0.3], [-2.0, 0.5, -1.0, 0.2], [0.7, 0.8, -0.1, 0.9]])

CASES = [
    (whitened_loss, (W0, DATA), (0, 1)),
    (cov_between, (W0, DATA), (0, 1)),
    (series_correlation, (0.7, 1.3), (0, 1)),
    (feature_correlations, (W0, DATA), (0, 1)),
    (grid_energy, (P, Q), (0, 1)),
    (grid_energy_ij, (P, Q, R), (0, 1, 2)),
    (signed_logsumexp, (A, WB), (0, 1)),
    (of_a_list_of_series, (P, P[::-1] * 0.7 + 0.1), (0, 1)),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("fn, args, argnums", CASES, ids=IDS)
def test_gradients_match_richardson_finite_differences(fn, args, argnums):
    got = srcad.grad(fn, argnums=argnums)(*args)
    for i, g in zip(argnums, got):
        assert_tree_close(g, fd_grad_richardson(fn, list(args), i), rtol=1e-7, atol=1e-9,
                          what=f"{fn.__name__} d/darg{i}")


def _directions(args, seed):
    rng = np.random.default_rng(seed)
    return [float(rng.normal()) if isinstance(a, float) else rng.normal(size=np.shape(a)) for a in args]


@pytest.mark.parametrize("fn, args, argnums", CASES, ids=IDS)
def test_jvp_matches_directional_differences(fn, args, argnums):
    tangents = _directions(args, 1)
    value, tangent = srcad.jvp(fn, args, tangents)
    assert value == pytest.approx(float(fn(*args)), rel=1e-12)
    assert float(tangent) == pytest.approx(fd_directional(fn, list(args), tangents), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("fn, args, argnums", CASES, ids=IDS)
def test_second_order_matches_differences_of_the_function(fn, args, argnums):
    """u^T H v by forward over reverse (hvp, in every argument) and by srcad.hessian (in the
    first), against finite differences of f's values alone."""
    u, v = _directions(args, 2), _directions(args, 3)
    hv = srcad.hvp(fn, args, v)
    got = sum(float(np.sum(np.asarray(h) * ui)) for h, ui in zip(hv, u))
    assert got == pytest.approx(fd_second_directional(fn, list(args), u, v), rel=1e-5, abs=1e-6)
    u0 = [u[0]] + [0.0 * np.asarray(a) if not isinstance(a, float) else 0.0 for a in args[1:]]
    v0 = [v[0]] + u0[1:]
    h = np.asarray(srcad.hessian(fn)(*args))
    n = np.size(args[0])
    got0 = float(np.ravel(u[0]) @ h.reshape(n, n) @ np.ravel(v[0]))
    assert got0 == pytest.approx(fd_second_directional(fn, list(args), u0, v0), rel=1e-5, abs=1e-6)


# -- values: NumPy's and scipy's own, with their types and shapes ------------------------------

def _cov_1d(x):
    return np.cov(x)


def _cov_rows(x):
    return np.cov(x, x[::-1] * 2.0, ddof=2)


def _corr_1d(x):
    return np.corrcoef(x)


def _corr_cols(x):
    return np.corrcoef(x, rowvar=False)


def _mesh(x):
    return np.meshgrid(x, x[:2] * 3.0)


def _mesh_sparse_view(x):
    return np.meshgrid(x, x[:2] * 3.0, x[1:], sparse=True, copy=False, indexing="ij")


def _mesh_sparse(x):
    return np.meshgrid(x, x[:2] * 3.0, sparse=True)


def _lse_sign(x):
    return scipy.special.logsumexp(x, axis=0, b=-np.ones_like(x), keepdims=True, return_sign=True)


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want) and np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn, x", [(_cov_1d, P), (_cov_rows, P), (_cov_1d, DATA.T), (_corr_1d, P),
                                   (_corr_cols, DATA), (_mesh, P), (_mesh_sparse_view, P),
                                   (_mesh_sparse, P), (_lse_sign, A)])
def test_values_are_the_librarys(fn, x):
    got, _ = srcad.jvp(fn, (x,), (np.ones_like(x),))
    _same(got, fn(x))


def test_cov_of_float32_data_is_float64_as_numpy():
    x = DATA.T.astype(np.float32)
    got, tangent = srcad.jvp(_cov_1d, (x,), (np.ones_like(x),))
    _same(got, np.cov(x))


# -- what srcad refuses: at the user's line, in both modes --------------------------------------

def cov_weighted(x):
    return np.sum(np.cov(x, fweights=np.array([1, 2, 1, 1])))


def cov_aweighted(x):
    return np.sum(np.cov(x, aweights=np.ones(4)))


def cov_dtype(x):
    return np.sum(np.cov(x, dtype=np.float32))


def corrcoef_dtype(x):
    return np.sum(np.corrcoef(x, dtype=np.float64))


@pytest.mark.parametrize("fn, what", [(cov_weighted, "fweights"), (cov_aweighted, "aweights"),
                                      (cov_dtype, "dtype"), (corrcoef_dtype, "dtype")])
def test_unsupported_arguments_are_refused_at_the_users_line(fn, what):
    x = DATA[:4].T
    for transform in (srcad.grad, lambda f: (lambda a: srcad.jvp(f, (a,), (np.ones_like(a),)))):
        with pytest.raises(srcad.SrcadError) as err:
            transform(fn)(x)
        assert isinstance(err.value, srcad.NoRuleError)
        assert what in str(err.value)
        diag = err.value.diagnostics[0]
        assert diag.file == __file__ and diag.line == fn.__code__.co_firstlineno + 1


def meshgrid_bad_indexing(x):
    return np.sum(np.meshgrid(x, x, indexing="yx")[0])


def test_meshgrid_raises_what_numpy_raises():
    with pytest.raises(ValueError, match="indexing"):
        np.meshgrid(P, P, indexing="yx")
    with pytest.raises(ValueError, match="indexing"):
        srcad.grad(meshgrid_bad_indexing)(P)
