"""Spec rows for scipy.stats (srcad/rules/scipy_stats.py: source implementations inlined in
place of the call), when scipy is installed: each function with its loc, scale and shape
parameters differentiated, against finite differences (tests/test_rule_specs.py), at second
order (tests/test_rules_second_order.py) and over shape and keyword variants."""

import numpy as np
from rule_specs import const, normal, row, uniform

try:
    import scipy.stats  # noqa: F401
except ImportError:
    scipy = None

if scipy is not None:
    ST = "import scipy.stats"
    X, POS = normal(4), uniform(0.5, 2.0, 4)
    LOC, SCALE = uniform(-0.5, 0.5), uniform(0.7, 1.8)
    KW = {"kw": [", loc, scale", ", loc=loc, scale=scale", ", loc, scale=scale"]}

    def stat(rule, expr, **args):
        row(f"scipy.stats.{rule}", expr, imports=ST, **args)

    for _fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        stat(f"norm.{_fn}", f"scipy.stats.norm.{_fn}(x$kw)", x=X, loc=LOC, scale=SCALE, alts=KW,
             ew=("x", "loc", "scale"))
    stat("norm.ppf", "scipy.stats.norm.ppf(q$kw)", q=uniform(0.05, 0.95, 4), loc=LOC, scale=SCALE, alts=KW)
    stat("norm.logpdf", "scipy.stats.norm.logpdf(x)", x=X, note="standard")
    stat("norm.logpdf", "scipy.stats.norm.logpdf(x, loc, scale)", x=X, loc=normal(4), scale=POS,
         note="array parameters")
    for _fn in ("logpdf", "pdf"):
        stat(f"t.{_fn}", f"scipy.stats.t.{_fn}(x, df$kw)", x=X, df=uniform(1.5, 8.0), loc=LOC,
             scale=SCALE, alts=KW, ew=("x", "df"))
    stat("t.cdf", "scipy.stats.t.cdf(x, df$kw)", x=X, df=uniform(1.5, 8.0), loc=LOC, scale=SCALE,
         alts=KW, wrt=("x", "loc", "scale"))
    for _dist, _shape in {"gamma": uniform(0.8, 3.0), "lognorm": uniform(0.4, 1.5)}.items():
        for _fn in ("logpdf", "pdf", "cdf"):
            stat(f"{_dist}.{_fn}", f"scipy.stats.{_dist}.{_fn}(x, a$kw)", x=uniform(0.8, 3.0, 4), a=_shape,
                 loc=uniform(-0.3, 0.3), scale=SCALE, alts=KW,
                 wrt=("x", "loc", "scale") if (_dist, _fn) == ("gamma", "cdf") else ())
    for _fn in ("logpdf", "pdf", "cdf"):
        stat(f"beta.{_fn}", f"scipy.stats.beta.{_fn}(x, a, b$kw)", x=uniform(0.15, 0.85, 4),
             a=uniform(0.8, 3.0), b=uniform(0.8, 3.0), loc=uniform(-0.05, 0.05), scale=uniform(1.0, 1.1),
             alts=KW, wrt=("x", "loc", "scale") if _fn == "cdf" else ())
        for _dist in ("expon", "laplace", "logistic", "cauchy", "uniform"):
            lo = {"expon": 0.6, "uniform": 0.6}.get(_dist)
            x = uniform(lo, lo + 1.0, 4) if lo else X
            stat(f"{_dist}.{_fn}", f"scipy.stats.{_dist}.{_fn}(x$kw)", x=x, loc=uniform(-0.5, 0.5),
                 scale=uniform(2.0, 3.0) if _dist == "uniform" else SCALE, alts=KW)
    # the tails: sf, logcdf, logsf (and ppf where it has a closed form)
    for _fn in ("sf", "logcdf", "logsf"):
        stat(f"t.{_fn}", f"scipy.stats.t.{_fn}(x, df$kw)", x=X, df=uniform(1.5, 8.0), loc=LOC, scale=SCALE,
             alts=KW, wrt=("x", "loc", "scale"))
        stat(f"gamma.{_fn}", f"scipy.stats.gamma.{_fn}(x, a$kw)", x=uniform(0.8, 3.0, 4), a=uniform(0.8, 3.0),
             loc=uniform(-0.3, 0.3), scale=SCALE, alts=KW, wrt=("x", "loc", "scale"))
        stat(f"beta.{_fn}", f"scipy.stats.beta.{_fn}(x, a, b$kw)", x=uniform(0.15, 0.85, 4),
             a=uniform(0.8, 3.0), b=uniform(0.8, 3.0), loc=uniform(-0.05, 0.05), scale=uniform(1.0, 1.1),
             alts=KW, wrt=("x", "loc", "scale"))
        stat(f"lognorm.{_fn}", f"scipy.stats.lognorm.{_fn}(x, s$kw)", x=uniform(0.8, 3.0, 4),
             s=uniform(0.4, 1.5), loc=uniform(-0.3, 0.3), scale=SCALE, alts=KW)
        for _dist in ("expon", "laplace", "logistic", "cauchy", "uniform"):
            lo = {"expon": 0.6, "uniform": 0.6}.get(_dist)
            stat(f"{_dist}.{_fn}", f"scipy.stats.{_dist}.{_fn}(x$kw)",
                 x=uniform(lo, lo + 1.0, 4) if lo else X,
                 loc=uniform(-0.5, 0.5), scale=uniform(2.0, 3.0) if _dist == "uniform" else SCALE, alts=KW)
    stat("t.logpdf", "scipy.stats.t.logpdf(x, np.inf, loc, scale)", x=X, loc=LOC, scale=SCALE,
         note="df = inf: the normal density")
    stat("t.cdf", "scipy.stats.t.cdf(x, np.inf, loc, scale)", x=X, loc=LOC, scale=SCALE, note="df = inf")
    for _dist in ("expon", "laplace", "logistic", "cauchy", "uniform"):
        stat(f"{_dist}.ppf", f"scipy.stats.{_dist}.ppf(q$kw)", q=uniform(0.05, 0.95, 4), loc=LOC, scale=SCALE,
             alts=KW, ew=("q",))
    stat("laplace.ppf", "scipy.stats.laplace.ppf(q)", q=uniform(0.55, 0.95, 4), note="upper half")
    stat("cauchy.ppf", "scipy.stats.cauchy.ppf(q)", q=uniform(0.01, 0.2, 4), note="lower tail")
    stat("lognorm.ppf", "scipy.stats.lognorm.ppf(q, s$kw)", q=uniform(0.05, 0.95, 4), s=uniform(0.4, 1.5),
         loc=LOC, scale=SCALE, alts=KW)
    K = const(np.array([0, 1, 3, 6]))
    for _fn in ("logpmf", "pmf"):
        stat(f"poisson.{_fn}", f"scipy.stats.poisson.{_fn}(k, mu)", k=K, mu=uniform(0.5, 4.0), ew=("mu",))
        stat(f"binom.{_fn}", f"scipy.stats.binom.{_fn}(k, 8, p)", k=K, p=uniform(0.1, 0.9, 4))
        stat(f"nbinom.{_fn}", f"scipy.stats.nbinom.{_fn}(k, n, p)", k=K, n=uniform(0.5, 5.0),
             p=uniform(0.1, 0.9))
        stat(f"bernoulli.{_fn}", f"scipy.stats.bernoulli.{_fn}(k, p)", k=const(np.array([0, 1, 1, 0])),
             p=uniform(0.1, 0.9, 4))
        stat(f"geom.{_fn}", f"scipy.stats.geom.{_fn}(k + 1, p)", k=K, p=uniform(0.1, 0.9))

    stat("poisson.pmf", "scipy.stats.poisson.pmf(np.array([0.0, 1.5, -1.0, 3.0]), mu)",
         mu=uniform(0.5, 4.0, 4), note="float counts, some not counts (pmf 0)")
    stat("poisson.logpmf", "scipy.stats.poisson.logpmf(3, mu) + scipy.stats.poisson.logpmf(2.0, mu)",
         mu=uniform(0.5, 4.0), note="a Python int and a float count")
    stat("poisson.cdf", "scipy.stats.poisson.cdf(k, mu)", k=K, mu=uniform(0.5, 4.0), ew=("mu",))
    stat("poisson.cdf", "scipy.stats.poisson.cdf(np.array([-1.0, 0.5, 2.7]), mu)", mu=uniform(0.5, 4.0, 3),
         note="float counts, one below 0 (cdf 0)")
    for _fn in ("logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"):
        stat(f"chi2.{_fn}", f"scipy.stats.chi2.{_fn}(x, df$kw)", x=uniform(0.8, 3.0, 4), df=uniform(1.5, 6.0),
             loc=uniform(-0.3, 0.3), scale=SCALE, alts=KW,
             wrt=("x", "loc", "scale") if _fn not in ("logpdf", "pdf") else ())

    def _spd(c):
        return f"{c} @ {c}.T + 3.0 * np.eye(3)"

    for _fn in ("logpdf", "pdf"):
        stat(f"multivariate_normal.{_fn}", f"scipy.stats.multivariate_normal.{_fn}(x, mean, {_spd('c')})",
             x=normal(3), mean=normal(3), c=normal(3, 3))
        stat(f"dirichlet.{_fn}", f"scipy.stats.dirichlet.{_fn}(x / np.sum(x), alpha)",
             x=uniform(0.5, 2.0, 3), alpha=uniform(0.6, 3.0, 3))
    MVN = "scipy.stats.multivariate_normal.logpdf"
    stat("multivariate_normal.logpdf", f"{MVN}(x, mean=mean, cov={_spd('c')})", x=normal(5, 3),
         mean=normal(3), c=normal(3, 3), note="n points")
    stat("multivariate_normal.logpdf", f"{MVN}(x, mean, cov)", x=normal(3), mean=normal(3),
         cov=uniform(0.5, 2.0, 3), note="diagonal cov")
    stat("multivariate_normal.logpdf", f"{MVN}(x, mean, cov=cov)", x=normal(4, 3), mean=normal(3),
         cov=uniform(0.5, 2.0), note="scalar cov")
    stat("multivariate_normal.logpdf", f"{MVN}(x, cov=cov)", x=normal(4), cov=uniform(0.5, 2.0),
         note="scalar cov, mean None: points of one dimension")
    stat("dirichlet.logpdf", "scipy.stats.dirichlet.logpdf(x / np.sum(x, axis=0), alpha)",
         x=uniform(0.5, 2.0, 3, 4), alpha=uniform(0.6, 3.0, 3), note="4 points")
