"""Source implementations of scipy.stats' univariate continuous distributions (registered by
rules/scipy_stats.py). srcad inlines them in place of `scipy.stats.norm.logpdf(x, loc, scale)`
and the like, so that their derivatives, in both modes and to any order, come from the rules
of NumPy and scipy.special: they are plain Python, in the subset srcad transforms.

Each follows scipy's definition: the standard density of `z = (x - loc) / scale`, divided by
`scale`, in the numerically stable form scipy uses (log space, log_ndtr, xlogy). Outside the
support a log density is -inf and a density 0; invalid parameters (scale <= 0, a shape <= 0)
give nan, and so do their derivatives. Where the formula would be evaluated outside its
domain, the argument is first replaced by a harmless value (`_inside`), so that the
derivative of the branch np.where
discards is 0, never 0 * nan.
"""

import numpy as np
import scipy.special as special


def _valid(ok, value):
    """value where the parameters are valid, nan elsewhere (as scipy), and so are its
    derivatives (never a 0 that would look like a stationary point)."""
    return value * np.where(ok, 1.0, np.nan)


def _positive(p):
    """p where it is positive, nan elsewhere: what a scale divides by (1.0 / 0.0 of Python
    floats would raise ZeroDivisionError, where scipy gives nan)."""
    return np.where(p > 0, p, np.nan)


def _inside(out, z, harmless):
    """z, with `harmless` where it is outside the support (`out`)."""
    return np.where(out, harmless, z)


# -- norm -------------------------------------------------------------------------------------

def norm_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, -0.5 * z * z - 0.9189385332046727 - np.log(_positive(scale)))


def norm_pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.exp(-0.5 * z * z) / 2.5066282746310002 / _positive(scale))


def norm_cdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.ndtr((x - loc) / _positive(scale)))


def norm_logcdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.log_ndtr((x - loc) / _positive(scale)))


def norm_sf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.ndtr((loc - x) / _positive(scale)))


def norm_logsf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.log_ndtr((loc - x) / _positive(scale)))


def norm_ppf(q, loc=0.0, scale=1.0):
    return _valid((scale > 0) & (q >= 0.0) & (q <= 1.0), special.ndtri(q) * scale + loc)


# -- t (Student's) ----------------------------------------------------------------------------

def t_logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    inf = np.isinf(df)  # df = inf: the normal density, as scipy
    d = np.where(inf, 1.0, df)
    log_c = (special.gammaln(0.5 * d + 0.5) - special.gammaln(0.5 * d)
             - 0.5 * (np.log(d) + 1.1447298858494002))
    value = np.where(inf, -0.5 * z * z - 0.9189385332046727, log_c - (d + 1.0) / 2.0 * np.log1p(z * z / d))
    return _valid((scale > 0) & (df > 0), value - np.log(_positive(scale)))


def t_pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(t_logpdf(x, df, loc, scale))


def t_cdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    inf = np.isinf(df)
    value = np.where(inf, special.ndtr(z), special.stdtr(np.where(inf, 1.0, df), z))
    return _valid((scale > 0) & (df > 0), value)


# -- gamma and beta ---------------------------------------------------------------------------

def gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = z < 0.0
    zs = _inside(out, z, 1.0)
    log_scale = np.log(_positive(scale))
    value = np.where(out, -np.inf, special.xlogy(a - 1.0, zs) - zs - special.gammaln(a) - log_scale)
    return _valid((scale > 0) & (a > 0), value)


def gamma_pdf(x, a, loc=0.0, scale=1.0):
    return np.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = z <= 0.0
    return _valid((scale > 0) & (a > 0), np.where(out, 0.0, special.gammainc(a, _inside(out, z, 1.0))))


def chi2_logpdf(x, df, loc=0.0, scale=1.0):
    """chi2(df) is gamma(df / 2) at twice the scale."""
    return gamma_logpdf(x, df / 2.0, loc, 2.0 * scale)


def chi2_pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(chi2_logpdf(x, df, loc, scale))


def chi2_cdf(x, df, loc=0.0, scale=1.0):
    return gamma_cdf(x, df / 2.0, loc, 2.0 * scale)


def beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = (z < 0.0) | (z > 1.0)
    zs = _inside(out, z, 0.5)
    value = (special.xlog1py(b - 1.0, -zs) + special.xlogy(a - 1.0, zs) - special.betaln(a, b)
             - np.log(_positive(scale)))
    return _valid((scale > 0) & (a > 0) & (b > 0), np.where(out, -np.inf, value))


def beta_pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = (z <= 0.0) | (z >= 1.0)
    value = np.where(out, np.where(z >= 1.0, 1.0, 0.0), special.betainc(a, b, _inside(out, z, 0.5)))
    return _valid((scale > 0) & (a > 0) & (b > 0), value)


# -- expon, laplace, logistic, cauchy ----------------------------------------------------------

def expon_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z < 0.0, -np.inf, -z - np.log(_positive(scale))))


def expon_pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z < 0.0, 0.0, np.exp(-z) / _positive(scale)))


def expon_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z <= 0.0, 0.0, -np.expm1(-z)))


def laplace_logpdf(x, loc=0.0, scale=1.0):
    scale_ = _positive(scale)
    return _valid(scale > 0, -0.6931471805599453 - np.abs((x - loc) / scale_) - np.log(scale_))


def laplace_pdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, 0.5 * np.exp(-np.abs((x - loc) / _positive(scale))) / _positive(scale))


def laplace_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    up = z > 0.0
    zs = np.where(up, -z, z)  # (never exp of a large positive number)
    return _valid(scale > 0, np.where(up, 1.0 - 0.5 * np.exp(zs), 0.5 * np.exp(zs)))


def logistic_logpdf(x, loc=0.0, scale=1.0):
    y = -np.abs((x - loc) / _positive(scale))
    return _valid(scale > 0, y - 2.0 * np.log1p(np.exp(y)) - np.log(_positive(scale)))


def logistic_pdf(x, loc=0.0, scale=1.0):
    return np.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, special.expit((x - loc) / _positive(scale)))


def cauchy_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, -1.1447298858494002 - np.log1p(z * z) - np.log(_positive(scale)))


def cauchy_pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, 1.0 / np.pi / (1.0 + z * z) / _positive(scale))


def cauchy_cdf(x, loc=0.0, scale=1.0):
    return _valid(scale > 0, np.arctan2(1.0, (loc - x) / _positive(scale)) / np.pi)


# -- lognorm, uniform ---------------------------------------------------------------------------

def lognorm_logpdf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = z <= 0.0
    lz = np.log(_inside(out, z, 1.0))
    value = (-lz * lz / (2.0 * _positive(s) * s)
             - np.log(_positive(s) * _inside(out, z, 1.0) * 2.5066282746310002)
             - np.log(_positive(scale)))
    return _valid((scale > 0) & (s > 0), np.where(out, -np.inf, value))


def lognorm_pdf(x, s, loc=0.0, scale=1.0):
    return np.exp(lognorm_logpdf(x, s, loc, scale))


def lognorm_cdf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    out = z <= 0.0
    value = np.where(out, 0.0, special.ndtr(np.log(_inside(out, z, 1.0)) / _positive(s)))
    return _valid((scale > 0) & (s > 0), value)


def uniform_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)  # (0 * z: nan where x is)
    return _valid(scale > 0, np.where((z < 0.0) | (z > 1.0), -np.inf, 0.0 * z - np.log(_positive(scale))))


def uniform_pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where((z < 0.0) | (z > 1.0), 0.0, 0.0 * z + 1.0 / _positive(scale)))


def uniform_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / _positive(scale)
    return _valid(scale > 0, np.where(z <= 0.0, 0.0, np.where(z >= 1.0, 1.0, z)))
