"""Source implementations of the tail functions of scipy.stats' univariate continuous
distributions other than norm (registered by rules/scipy_stats.py): `sf`, `logcdf`, `logsf`
and, where it has a closed form, `ppf`. Like rules/stats_continuous.py, plain Python in the
subset srcad transforms, inlined in place of the call.

Each uses the stable form scipy uses where there is one (the mirrored cdf for sf, log_expit,
log_ndtr, expm1/log1p; beta's sf as I_{1-z}(b, a)); the others take the log of the cdf or sf.
ppf is nan for q outside [0, 1] and for invalid parameters, as scipy's. t, gamma and beta
have no ppf here (their inverses have no rule: a NoRuleError names them).
"""

import numpy as np
import scipy.special as special

from .stats_continuous import (
    _positive,
    _valid,
    beta_cdf,
    cauchy_cdf,
    expon_cdf,
    gamma_cdf,
    laplace_cdf,
    t_cdf,
    uniform_cdf,
)


def _ppf_valid(ok, q, value):
    return _valid(ok & (q >= 0.0) & (q <= 1.0), value)


def _log(p, complement):
    """log p, from its complement 1 - p where p > 1/2 (accurate near 1); -inf at p = 0 with a
    derivative that is not nan."""
    zero, high = p <= 0.0, p > 0.5
    return np.where(zero, -np.inf, np.where(high, np.log1p(-np.where(high, complement, 0.0)),
                                            np.log(np.where(zero | high, 1.0, p))))


# -- t, gamma, beta ----------------------------------------------------------------------------

def t_sf(x, df, loc=0.0, scale=1.0):
    return t_cdf(-x, df, -loc, scale)


def t_logcdf(x, df, loc=0.0, scale=1.0):
    return _log(t_cdf(x, df, loc, scale), t_sf(x, df, loc, scale))


def t_logsf(x, df, loc=0.0, scale=1.0):
    return _log(t_sf(x, df, loc, scale), t_cdf(x, df, loc, scale))


def gamma_sf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = z <= 0.0
    return _valid((scale > 0) & (a > 0), np.where(out, 1.0, special.gammaincc(a, np.where(out, 1.0, z))))


def gamma_logcdf(x, a, loc=0.0, scale=1.0):
    return _log(gamma_cdf(x, a, loc, scale), gamma_sf(x, a, loc, scale))


def gamma_logsf(x, a, loc=0.0, scale=1.0):
    return _log(gamma_sf(x, a, loc, scale), gamma_cdf(x, a, loc, scale))


def chi2_sf(x, df, loc=0.0, scale=1.0):
    return gamma_sf(x, df / 2.0, loc, 2.0 * scale)


def chi2_logcdf(x, df, loc=0.0, scale=1.0):
    return gamma_logcdf(x, df / 2.0, loc, 2.0 * scale)


def chi2_logsf(x, df, loc=0.0, scale=1.0):
    return gamma_logsf(x, df / 2.0, loc, 2.0 * scale)


def beta_sf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = (z <= 0.0) | (z >= 1.0)
    value = np.where(out, np.where(z <= 0.0, 1.0, 0.0), special.betainc(b, a, 1.0 - np.where(out, 0.5, z)))
    return _valid((scale > 0) & (a > 0) & (b > 0), value)


def beta_logcdf(x, a, b, loc=0.0, scale=1.0):
    return _log(beta_cdf(x, a, b, loc, scale), beta_sf(x, a, b, loc, scale))


def beta_logsf(x, a, b, loc=0.0, scale=1.0):
    return _log(beta_sf(x, a, b, loc, scale), beta_cdf(x, a, b, loc, scale))


# -- expon, laplace, logistic, cauchy ----------------------------------------------------------

def expon_sf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z <= 0.0, 1.0, np.exp(-np.where(z <= 0.0, 0.0, z))))


def expon_logsf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z <= 0.0, 0.0, -z))


def expon_logcdf(x, loc=0.0, scale=1.0):
    return _log(expon_cdf(x, loc, scale), expon_sf(x, loc, scale))


def expon_ppf(q, loc=0.0, scale=1.0):
    return _ppf_valid(scale > 0, q, loc - scale * np.log1p(-q))


def laplace_sf(x, loc=0.0, scale=1.0):
    return laplace_cdf(-x, -loc, scale)


def laplace_logcdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    up = z > 0.0
    zs = np.where(up, -z, z)  # (never exp of a large positive number)
    return _valid(scale > 0, np.where(up, np.log1p(-0.5 * np.exp(zs)), zs - 0.6931471805599453))


def laplace_logsf(x, loc=0.0, scale=1.0):
    return laplace_logcdf(-x, -loc, scale)


def laplace_ppf(q, loc=0.0, scale=1.0):
    low = q <= 0.5
    value = np.where(low, np.log(2.0 * np.where(low, q, 0.5)), -np.log(2.0 - 2.0 * np.where(low, 0.5, q)))
    return _ppf_valid(scale > 0, q, loc + scale * value)


def logistic_sf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.expit((loc - x) / _positive(scale)))


def logistic_logcdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.log_expit((x - loc) / _positive(scale)))


def logistic_logsf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.log_expit((loc - x) / _positive(scale)))


def logistic_ppf(q, loc=0.0, scale=1.0):
    return _ppf_valid(scale > 0, q, loc + scale * special.logit(q))


def cauchy_sf(x, loc=0.0, scale=1.0):
    return cauchy_cdf(-x, -loc, scale)


def cauchy_logcdf(x, loc=0.0, scale=1.0):
    return _log(cauchy_cdf(x, loc, scale), cauchy_sf(x, loc, scale))


def cauchy_logsf(x, loc=0.0, scale=1.0):
    return _log(cauchy_sf(x, loc, scale), cauchy_cdf(x, loc, scale))


def cauchy_ppf(q, loc=0.0, scale=1.0):
    low, high = q < 0.25, q > 0.75  # (accurate in the tails: 1 - q is exact there)
    mid = np.where(low | high, 0.5, q)
    tail = np.where(low, q, np.where(high, 1.0 - q, 0.25))
    with_tail = np.where(low, -1.0, 1.0) / np.tan(np.pi * tail)
    value = np.where(low | high, with_tail, np.tan(np.pi * (mid - 0.5)))
    return _ppf_valid(scale > 0, q, loc + scale * value)


# -- lognorm, uniform ---------------------------------------------------------------------------

def _lognorm_w(x, s, loc, scale):
    """log(z) / s (the standard normal variable) and where z <= 0 (outside the support)."""
    z = (x - loc) / _positive(scale)
    out = z <= 0.0
    return np.log(np.where(out, 1.0, z)) / _positive(s), out


def lognorm_sf(x, s, loc=0.0, scale=1.0):
    w, out = _lognorm_w(x, s, loc, scale)
    return _valid((scale > 0) & (s > 0), np.where(out, 1.0, special.ndtr(-w)))


def lognorm_logcdf(x, s, loc=0.0, scale=1.0):
    w, out = _lognorm_w(x, s, loc, scale)
    return _valid((scale > 0) & (s > 0), np.where(out, -np.inf, special.log_ndtr(w)))


def lognorm_logsf(x, s, loc=0.0, scale=1.0):
    w, out = _lognorm_w(x, s, loc, scale)
    return _valid((scale > 0) & (s > 0), np.where(out, 0.0, special.log_ndtr(-w)))


def lognorm_ppf(q, s, loc=0.0, scale=1.0):
    return _ppf_valid((scale > 0) & (s > 0), q, loc + scale * np.exp(s * special.ndtri(q)))


def uniform_sf(x, loc=0.0, scale=1.0):
    return 1.0 - uniform_cdf(x, loc, scale)


def uniform_logcdf(x, loc=0.0, scale=1.0):  # (log of the cdf and sf themselves, as scipy)
    p = uniform_cdf(x, loc, scale)
    return np.where(p <= 0.0, -np.inf, np.log(np.where(p <= 0.0, 1.0, p)))


def uniform_logsf(x, loc=0.0, scale=1.0):
    p = uniform_sf(x, loc, scale)
    return np.where(p <= 0.0, -np.inf, np.log(np.where(p <= 0.0, 1.0, p)))


def uniform_ppf(q, loc=0.0, scale=1.0):
    return _ppf_valid(scale > 0, q, loc + scale * q)
