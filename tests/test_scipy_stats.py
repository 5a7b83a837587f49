"""scipy.stats through source implementations (srcad/rules/scipy_stats.py): values against
scipy itself (in the support, on its boundary, outside it, for invalid parameters), every way
of naming the function, keyword and positional arguments, errors at the user's line, second
derivatives, and the generated code. Gradients of every function against finite differences
are the spec rows (tests/rule_specs_stats.py)."""

import itertools
import warnings

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_grad_richardson
from sourcemod import import_source

import srcad
from srcad.rules import listing
from srcad.rules.registry import RULES, load_all

scipy_stats = pytest.importorskip("scipy.stats")
import scipy.stats as st  # noqa: E402
from scipy.stats import multivariate_normal, norm, poisson  # noqa: E402

_counter = itertools.count()

X = np.array([-3.0, -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 7.0, np.nan])
K = np.array([-1, 0, 1, 2, 5, 9, 30])
# per distribution: the calls' arguments after x, as (name, values) lists, valid and invalid
CONTINUOUS = {
    "norm": [(), (0.5, 2.0), (0.5, -1.0), (0.0, np.zeros(1))],
    "t": [(3.0,), (0.7, 0.3, 1.5), (4.0, 0.0, -1.0), (-1.0,), (np.inf,), (np.inf, 0.5, 2.0)],
    "gamma": [(2.5,), (0.5, 0.2, 1.5), (1.0,), (-1.0,), (2.0, 0.0, -2.0)],
    "beta": [(2.0, 3.0), (0.5, 0.7), (1.0, 1.0), (2.0, 3.0, -0.5, 2.0), (-1.0, 2.0)],
    "expon": [(), (0.5, 2.0), (0.0, -1.0)],
    "laplace": [(), (0.5, 2.0), (0.0, -0.5)],
    "logistic": [(), (0.5, 2.0), (0.0, -2.0)],
    "cauchy": [(), (0.5, 2.0), (0.0, -2.0)],
    "lognorm": [(0.8,), (1.5, -0.5, 2.0), (-1.0,)],
    "uniform": [(), (-1.0, 2.0), (0.5, -1.0)],
}
DISCRETE = {
    "poisson": [(2.5,), (0.0,), (-1.0,), (3.0, 1)],
    "binom": [(9, 0.3), (9, 0.0), (9, 1.0), (9, 1.5), (4.5, 0.3)],
    "nbinom": [(2.5, 0.4), (1.0, 1.0), (0.0, 0.4)],
    "bernoulli": [(0.3,), (1.0,), (-0.5,)],
    "geom": [(0.3,), (1.0,), (1.5,)],
}


def _functions(prefix: str) -> list[str]:
    load_all()
    return sorted(n for n in RULES if n.startswith(f"scipy.stats.{prefix}"))


def _module(tmp_path_factory, src: str):
    return import_source(tmp_path_factory.mktemp("stats"), f"stats_{next(_counter)}", src)


def _srcad_values(mod, args, name=None):
    """The function's values as the code srcad generated computes them (jvp's primal, along
    the parameters the rule `name` differentiates)."""
    diff = RULES[name].diff_params if name else ()
    tangents = [np.zeros_like(a, dtype=float) if np.asarray(a).dtype.kind == "f"
                and (not name or RULES[name].params[i] in diff) else None for i, a in enumerate(args)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return srcad.jvp(mod.f, args, tangents)[0]


def _case_args(name, params):
    ps = ", ".join(f"p{i}" for i in range(len(params)))
    return ps, [float(p) if isinstance(p, float) else p for p in params]


@pytest.mark.parametrize("name", [n for d in CONTINUOUS for n in _functions(d + ".")
                                  if n.split(".")[2] in CONTINUOUS])
def test_continuous_values_match_scipy(name, tmp_path_factory):
    dist, fn = name.split(".")[2:]
    if fn == "ppf":
        xs = np.array([0.0, 1e-12, 0.05, 0.5, 0.9, 1.0, 1.5, -0.2, np.nan])
    else:
        xs = np.concatenate([X, np.array([1.0 - 1e-9, 1e-300, 40.0, -40.0])])
    for params in CONTINUOUS[dist]:
        ps, values = _case_args(name, params)
        call = f"scipy.stats.{dist}.{fn}(x{', ' if ps else ''}{ps})"
        mod = _module(tmp_path_factory, f"import scipy.stats\n\n\ndef f(x, {ps}):\n    return {call}\n")
        got = _srcad_values(mod, [xs] + values, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(getattr(scipy_stats, dist), fn)(xs, *values)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, err_msg=f"{call} with {params}")


@pytest.mark.parametrize("name", [n for d in DISCRETE for n in _functions(d + ".")])
def test_discrete_values_match_scipy(name, tmp_path_factory):
    dist, fn = name.split(".")[2:]
    for params in DISCRETE[dist]:
        ps, values = _case_args(name, params)
        for k in (K, K + 0.5):
            mod = _module(tmp_path_factory, f"import scipy.stats\n\n\ndef f(k, {ps}):\n"
                          f"    return scipy.stats.{dist}.{fn}(k, {ps})\n")
            got = _srcad_values(mod, [k] + values, name)
            want = getattr(getattr(scipy_stats, dist), fn)(k, *values)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, err_msg=f"{name}{params} at {k}")


@pytest.mark.parametrize("mean, cov", [
    (np.array([0.3, -1.0, 0.5]), np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]])),
    (np.array([0.3, -1.0, 0.5]), np.array([0.5, 1.0, 2.0])),
    (np.array([0.3, -1.0, 0.5]), 1.7),
    (None, np.eye(3) * 0.5),
])
@pytest.mark.parametrize("x", [np.array([0.1, 0.2, -0.3]), np.arange(12.0).reshape(4, 3) / 7.0])
def test_multivariate_normal_values_match_scipy(x, mean, cov, tmp_path_factory):
    for fn in ("logpdf", "pdf"):
        mod = _module(tmp_path_factory, "import scipy.stats\n\n\ndef f(x, mean, cov):\n"
                      f"    return scipy.stats.multivariate_normal.{fn}(x, mean, cov)\n")
        got = _srcad_values(mod, [x, mean, cov])
        want = getattr(scipy_stats.multivariate_normal, fn)(x, mean, cov)
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_multivariate_normal_of_one_dimension_and_dirichlet_match_scipy(tmp_path_factory):
    mod = _module(tmp_path_factory, "import scipy.stats\n\n\ndef f(x, v):\n"
                  "    return scipy.stats.multivariate_normal.logpdf(x, cov=v)\n")
    x = np.array([0.3, -1.0, 2.0])
    want = multivariate_normal.logpdf(x, cov=1.7)
    np.testing.assert_allclose(_srcad_values(mod, [x, 1.7]), want, rtol=1e-12)
    mod = _module(tmp_path_factory, "import scipy.stats\n\n\ndef f(x, alpha):\n"
                  "    return scipy.stats.dirichlet.logpdf(x, alpha), scipy.stats.dirichlet.pdf(x, alpha)\n")
    for x in (np.array([0.2, 0.3, 0.5]), np.array([[0.2, 0.1], [0.3, 0.8], [0.5, 0.1]])):
        alpha = np.array([0.7, 2.0, 3.5])
        got = _srcad_values(mod, [x, alpha])
        np.testing.assert_allclose(got[0], scipy_stats.dirichlet.logpdf(x, alpha), rtol=1e-12)
        np.testing.assert_allclose(got[1], scipy_stats.dirichlet.pdf(x, alpha), rtol=1e-12)


def test_there_are_at_least_30_functions_with_both_modes():
    stats = [line for line in listing.lines() if line.startswith("scipy.stats.")]
    assert len(stats) >= 30
    assert all(line.endswith(" forward reverse") for line in stats)


# -- every way of naming the call, keyword and positional arguments --------------------------

def spelled(x, mu, s):
    return (np.sum(scipy_stats.norm.logpdf(x, mu, s)) + np.sum(norm.logpdf(x, loc=mu, scale=s))
            + np.sum(st.norm.logpdf(x, mu, scale=s)) + np.sum(norm(mu, s).logpdf(x))
            + np.sum(st.t.logpdf(x, 4.0, loc=mu, scale=s)) + np.sum(st.t(4.0, mu, s).logpdf(x)))


def spelled_reference(x, mu, s):
    return (4 * np.sum(scipy_stats.norm.logpdf(x, mu, s)) + 2 * np.sum(scipy_stats.t.logpdf(x, 4.0, mu, s)))


def test_every_spelling_of_the_call_differentiates():
    x, mu, s = np.array([0.3, -1.2, 2.0]), 0.5, 1.3
    np.testing.assert_allclose(spelled(x, mu, s), spelled_reference(x, mu, s), rtol=1e-12)
    for i in range(3):
        got = srcad.grad(spelled, argnums=i)(x, mu, s)
        assert_tree_close(got, fd_grad_richardson(spelled_reference, [x, mu, s], i), rtol=1e-7, atol=1e-8)


def lists_and_floats(mu, s):
    return scipy_stats.norm.logpdf([0.5, 1.0], mu, s)[1] + scipy_stats.expon.pdf(2.0, scale=s)


def test_lists_and_python_floats():
    got = srcad.grad(lists_and_floats, argnums=(0, 1))(0.2, 1.4)
    for i in range(2):
        assert_tree_close(got[i], fd_grad_richardson(lists_and_floats, [0.2, 1.4], i), rtol=1e-7)


# -- derivatives at and outside the support are finite or exact -------------------------------

def gamma_mixed_support(x, a, s):
    logp = np.where(x > 0, scipy_stats.gamma.logpdf(x, a, scale=s), 0.0)
    return (np.sum(logp) + np.sum(scipy_stats.gamma.cdf(x, 2.0, 0.0, s))
            + np.sum(scipy_stats.beta.pdf(x, a, 2.0)))


def test_no_nan_from_points_outside_the_support():
    x = np.array([-1.0, 0.5, 2.0, -3.0])
    got = srcad.grad(gamma_mixed_support, argnums=(1, 2))(x, 2.5, 1.5)
    assert np.all(np.isfinite(got))
    for i in (1, 2):
        assert_tree_close(got[i - 1], fd_grad(gamma_mixed_support, [x, 2.5, 1.5], i), rtol=1e-6)


# -- second order ------------------------------------------------------------------------------

def mvn_objective(mean, c, x):
    cov = c @ c.T + 2.0 * np.eye(3)
    return np.sum(multivariate_normal.logpdf(x, mean, cov))


def hierarchical(theta, x):
    mu, log_tau, log_s = theta[0], theta[1], theta[2]
    return (np.sum(scipy_stats.norm.logpdf(x, mu, np.exp(log_s)))
            + scipy_stats.t.logpdf(mu, 3.0, 0.0, np.exp(log_tau))
            + scipy_stats.gamma.logpdf(np.exp(log_s), 2.0, scale=0.5)
            + np.sum(poisson.logpmf(np.array([1, 3]), np.exp(mu))))


def test_hessians_against_finite_differences_of_the_gradient():
    rng = np.random.default_rng(0)
    theta, x = np.array([0.3, -0.2, 0.1]), rng.normal(size=5)
    h = srcad.hessian(hierarchical)(theta, x)
    g = lambda th: fd_grad_richardson(hierarchical, [th, x], 0)  # noqa: E731 (no srcad in the oracle)
    ref = np.stack([(g(theta + 1e-3 * e) - g(theta - 1e-3 * e)) / 2e-3 for e in np.eye(3)])
    np.testing.assert_allclose(h, ref, rtol=1e-5, atol=1e-6)
    mean, c, xs = rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    hm = srcad.hessian(mvn_objective)(mean, c, xs)
    gm = lambda m: fd_grad_richardson(mvn_objective, [m, c, xs], 0)  # noqa: E731
    ref = np.stack([(gm(mean + 1e-3 * e) - gm(mean - 1e-3 * e)) / 2e-3 for e in np.eye(3)])
    np.testing.assert_allclose(hm, ref, rtol=1e-5, atol=1e-6)
    assert_tree_close(srcad.grad(mvn_objective, argnums=1)(mean, c, xs),
                      fd_grad(mvn_objective, [mean, c, xs], 1), rtol=1e-6)


def poisson_counts(mu, k):
    return np.sum(poisson.logpmf(k, np.exp(mu)))


@pytest.mark.parametrize("k", [np.array([0, 3, -1, 2]), np.array([0.0, 3.0, 1.5, 2.0])], ids=["int", "float"])
def test_counts_outside_the_support_by_their_dtype(k):
    # an integer count is outside the support only where negative: the generated code says
    # `k < 0` there; a float count needs np.floor too (srcad.not_a_count at run time)
    mu = np.array([0.3, -0.2, 0.5, 1.1])
    g = srcad.grad(poisson_counts)
    want = np.where((k < 0) | (np.floor(k) != k), 0.0, k - np.exp(mu))  # (d/dmu of k mu - e^mu)
    np.testing.assert_allclose(g(mu, k), want, rtol=1e-12)
    inside = want != 0.0  # (-inf outside the support: finite differences there are nan)
    fd = fd_grad_richardson(poisson_counts, [mu[inside], k[inside]], 0)
    np.testing.assert_allclose(g(mu, k)[inside], fd, rtol=1e-7)
    assert ("_not_a_count" in srcad.source(g)) == (k.dtype.kind == "f")


# -- errors at the user's line -----------------------------------------------------------------

def t_cdf_in_df(x, df):
    return np.sum(scipy_stats.t.cdf(x, df))


def poisson_in_k(k, mu):
    return np.sum(poisson.logpmf(k, mu))


def frozen_in_a_branch(x, mu):
    if mu > 0.0:
        d = norm(mu, 1.0)
    else:
        d = norm(mu, 2.0)
    return np.sum(d.logpdf(x))


def frozen_and_its_mean(x, mu):
    d = norm(mu, 1.0)
    return np.sum(d.logpdf(x)) + d.mean()


def beta_cdf_in_b(x, b):
    return scipy_stats.beta.cdf(x, 2.0, b)


@pytest.mark.parametrize("fn, args, argnum, says", [
    (t_cdf_in_df, (np.ones(3), 3.0), 1, "stdtr with respect to its argument 'df'"),
    (poisson_in_k, (np.ones(3), 2.0), 0, "the count k of poisson.logpmf is data"),
    (frozen_in_a_branch, (np.ones(3), 0.5), 1, "a frozen scipy.stats distribution is supported where"),
    (frozen_and_its_mean, (np.ones(3), 0.5), 1, "a frozen scipy.stats distribution is supported where"),
    (beta_cdf_in_b, (0.4, 3.0), 1, "betainc with respect to its argument 'b'"),
])
def test_what_has_no_derivative_is_an_error_at_the_users_line(fn, args, argnum, says):
    for transform in (lambda f: srcad.grad(f, argnums=argnum),
                      lambda f: (lambda *a: srcad.jvp(f, a, [np.ones_like(v) if i == argnum else None
                                                             for i, v in enumerate(a)]))):
        with pytest.raises(srcad.NoRuleError) as err:
            transform(fn)(*args)
        diag = err.value.diagnostics[0]
        assert diag.file == __file__ and says in diag.message + diag.hint
        lines = {fn.__code__.co_firstlineno + k for k in (1, 2, 5)}  # (5: after the branch)
        assert diag.line in lines, (diag.line, lines)


def frozen_in_variables(x, mu, s):
    d = norm(mu, scale=s)
    g = scipy_stats.gamma(2.5, loc=mu)
    t = st.t(4.0)
    return np.sum(d.logpdf(x) + d.logcdf(x) + g.logpdf(x + 3.0)) + t.sf(mu) + d.ppf(0.3)


def test_frozen_distributions_kept_in_variables():
    args = (np.array([0.3, -1.2, 0.8]), 0.4, 1.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (scipy.stats made, and only used through methods: no warning)
        value, grads = srcad.value_and_grad(frozen_in_variables, argnums=(0, 1, 2))(*args)
    assert value == pytest.approx(frozen_in_variables(*args), rel=1e-12)
    for i in range(3):
        assert_tree_close(grads[i], fd_grad_richardson(frozen_in_variables, args, argnum=i), rtol=1e-7)
    text = srcad.source(srcad.grad(frozen_in_variables), *args)
    assert "norm_gen" not in text  # (the frozen distribution is not made in the gradient)


def test_generated_code_names_the_implementations_lines():
    text = srcad.source(srcad.grad(hierarchical))
    assert "# adjoint of stats_continuous.py line" in text
    assert "srcad.data_only" in text or "data_only" in text


def mvn_allowing_singular(x, mean, cov):
    return multivariate_normal.logpdf(x, mean, cov, allow_singular=True)


def test_allow_singular_gives_scipys_values_or_raises_for_a_singular_cov():
    x, mean, cov = np.array([0.3, -0.2]), np.array([0.1, 0.5]), np.array([[2.0, 0.4], [0.4, 1.0]])
    value, grad = srcad.value_and_grad(mvn_allowing_singular, argnums=(1, 2))(x, mean, cov)
    want = multivariate_normal.logpdf(x, mean, cov, allow_singular=True)
    np.testing.assert_allclose(value, want, rtol=1e-12)
    for i in (1, 2):
        assert_tree_close(grad[i - 1], fd_grad(mvn_allowing_singular, [x, mean, cov], i), rtol=1e-6)
    with pytest.raises(np.linalg.LinAlgError):
        srcad.grad(mvn_allowing_singular, argnums=1)(x, mean, np.ones((2, 2)))


def invalid_scale(x, s):
    return scipy_stats.norm.logpdf(x, 0.0, s) + scipy_stats.expon.ppf(0.3, scale=s) + st.t.logpdf(x, s)


@pytest.mark.parametrize("s", [0.0, -1.5])
def test_invalid_parameters_give_nan_values_and_derivatives_also_of_python_floats(s):
    # scipy gives nan (no ZeroDivisionError for Python floats); a derivative of 0 there would
    # look like a stationary point to an optimiser, so the derivatives are nan too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(invalid_scale(1.0, s))
        value, grads = srcad.value_and_grad(invalid_scale, argnums=(0, 1))(1.0, s)
        _, tangent = srcad.jvp(invalid_scale, (1.0, s), (1.0, 1.0))
    assert np.isnan(value) and np.isnan(grads).all() and np.isnan(tangent)
