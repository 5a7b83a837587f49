"""Source implementations of scipy.stats' discrete distributions and of multivariate_normal
and dirichlet (registered by rules/scipy_stats.py; see rules/stats_continuous.py for how they
are used). The counts `k` (and binom's `n`, and `loc`) are data: they pass through
`srcad.data_only`, and differentiating with respect to them is a NoRuleError. A count that is
not an integer or lies outside the support has log-probability -inf (as in scipy); invalid
parameters give nan.
"""

import numpy as np
import scipy.special as special

from .. import runtime as srcad
from .stats_continuous import _valid


def _count(k, loc, what):
    """The count k - loc, and where it is not a whole number >= 0."""
    k = srcad.data_only(k, what) - srcad.data_only(loc, "loc")
    return k, srcad.not_a_count(k)


# -- discrete: log-probabilities and probabilities ---------------------------------------------

def poisson_logpmf(k, mu, loc=0):
    k, out = _count(k, loc, "the count k of poisson.logpmf")
    ks = np.where(out, 0.0, k)
    return _valid(mu >= 0.0, np.where(out, -np.inf, special.xlogy(ks, mu) - special.gammaln(ks + 1.0) - mu))


def poisson_pmf(k, mu, loc=0):
    return np.exp(poisson_logpmf(k, mu, loc))


def poisson_cdf(k, mu, loc=0):
    """P(K <= k): the regularized upper incomplete gamma Q(floor(k) + 1, mu), 0 below 0."""
    k = np.floor(srcad.data_only(k, "the count k of poisson.cdf") - srcad.data_only(loc, "loc"))
    below = k < 0.0
    return _valid(mu >= 0.0, np.where(below, 0.0, special.gammaincc(np.where(below, 0.0, k) + 1.0, mu)))


def binom_logpmf(k, n, p, loc=0):
    k, out = _count(k, loc, "the count k of binom.logpmf")
    n = srcad.data_only(n, "the number of trials n of binom")
    out = out | (k > n)
    ks = np.where(out, 0.0, k)
    comb = special.gammaln(n + 1.0) - (special.gammaln(ks + 1.0) + special.gammaln(n - ks + 1.0))
    value = np.where(out, -np.inf, comb + special.xlogy(ks, p) + special.xlog1py(n - ks, -p))
    return _valid((n >= 0) & (np.floor(n) == n) & (p >= 0.0) & (p <= 1.0), value)


def binom_pmf(k, n, p, loc=0):
    return np.exp(binom_logpmf(k, n, p, loc))


def bernoulli_logpmf(k, p, loc=0):
    return binom_logpmf(k, 1, p, loc)


def bernoulli_pmf(k, p, loc=0):
    return np.exp(binom_logpmf(k, 1, p, loc))


def nbinom_logpmf(k, n, p, loc=0):
    k, out = _count(k, loc, "the count k of nbinom.logpmf")
    ks = np.where(out, 0.0, k)
    coeff = special.gammaln(n + ks) - special.gammaln(ks + 1.0) - special.gammaln(n)
    value = np.where(out, -np.inf, coeff + n * np.log(p) + special.xlog1py(ks, -p))
    return _valid((n > 0.0) & (p > 0.0) & (p <= 1.0), value)


def nbinom_pmf(k, n, p, loc=0):
    return np.exp(nbinom_logpmf(k, n, p, loc))


def geom_logpmf(k, p, loc=0):
    k, out = _count(k, loc, "the count k of geom.logpmf")
    out = out | (k < 1.0)
    ks = np.where(out, 1.0, k)
    return _valid((p > 0.0) & (p <= 1.0), np.where(out, -np.inf, special.xlog1py(ks - 1.0, -p) + np.log(p)))


def geom_pmf(k, p, loc=0):
    return np.exp(geom_logpmf(k, p, loc))


# -- multivariate ------------------------------------------------------------------------------

def multivariate_normal_logpdf(x, mean=None, cov=1.0, allow_singular=False):
    """As scipy: the dimension d is that of cov, or of mean when cov is a number (1 when both
    are not given). x has shape (d,) (one point: a number) or (n, d) (n points); when d == 1,
    each element of x is a point. cov is a number, the diagonal (d,) or the (d, d) matrix
    (through its Cholesky factor, reading its lower triangle, as scipy does).
    allow_singular=True gives the same values for a positive definite cov; for a singular one
    the Cholesky factorisation raises LinAlgError (scipy would use a pseudo-inverse)."""
    d = np.shape(cov)[-1] if np.ndim(cov) > 0 else (1 if mean is None else np.size(mean))
    dev = x if mean is None else x - mean
    if d == 1:
        var = np.reshape(cov, ())
        return -0.5 * (1.8378770664093453 + np.log(var) + dev * dev / var)
    if np.ndim(cov) == 2:
        chol = np.linalg.cholesky(cov)
        z = np.linalg.solve(chol, np.transpose(dev))
        maha = np.sum(z * z, axis=0)
        logdet = 2.0 * np.sum(np.log(np.diagonal(chol)))
    elif np.ndim(cov) == 1:
        maha = np.sum(dev * dev / cov, axis=-1)
        logdet = np.sum(np.log(cov))
    else:
        maha = np.sum(dev * dev, axis=-1) / cov
        logdet = d * np.log(cov)
    return -0.5 * (d * 1.8378770664093453 + logdet + maha)


def multivariate_normal_pdf(x, mean=None, cov=1.0, allow_singular=False):
    return np.exp(multivariate_normal_logpdf(x, mean, cov, allow_singular))


def dirichlet_logpdf(x, alpha):
    """x of shape (k,) (one point) or (k, n) (n points, as scipy: the first axis is the simplex).
    Unlike scipy, srcad does not check that x lies on the simplex."""
    log_b = np.sum(special.gammaln(alpha)) - special.gammaln(np.sum(alpha))
    if np.ndim(x) == 1:
        return np.sum(special.xlogy(alpha - 1.0, x)) - log_b
    return np.sum(special.xlogy(np.expand_dims(alpha - 1.0, 1), x), axis=0) - log_b


def dirichlet_pdf(x, alpha):
    return np.exp(dirichlet_logpdf(x, alpha))
