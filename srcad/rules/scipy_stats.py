"""scipy.stats: its distributions' functions, called as `scipy.stats.norm.logpdf(x, loc, scale)`
(however imported), by their *source implementations* (`composite`, rules/registry.py): plain
Python functions in rules/stats_continuous.py and rules/stats_discrete.py that srcad inlines in
place of the call, so that derivatives in every argument, both modes and any order come from
the rules of NumPy and scipy.special. Registered when your code has imported scipy.stats.

Not differentiable (a NoRuleError if a derivative reaches them): the counts k of the discrete
distributions, binom's n, loc of the discrete ones (data), and the parameters of functions
scipy.special has no rule in: t.cdf in df (stdtr), gamma.cdf in a (gammainc), beta.cdf in a
and b (betainc). Frozen distributions (`norm(loc, scale).logpdf(x)`, also kept in a variable
`d = norm(loc, scale)`) call the same functions (frontend/frozen.py).
"""

from . import stats_continuous as cont
from . import stats_discrete as disc
from . import stats_tails as tails
from .registry import composite, family

family("scipy.stats")

#: parameters a derivative may not reach, by function (the rules of what they reach refuse them)
REFUSES = {**{f"t.{_f}": ("df",) for _f in ("cdf", "sf", "logcdf", "logsf")},
           **{f"gamma.{_f}": ("a",) for _f in ("cdf", "sf", "logcdf", "logsf")},
           **{f"beta.{_f}": ("a", "b") for _f in ("cdf", "sf", "logcdf", "logsf")},
           **{f"chi2.{_f}": ("df",) for _f in ("cdf", "sf", "logcdf", "logsf")}}
for _dist, _fns in {
    "norm": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
    "t": ("logpdf", "pdf", "cdf"),
    "gamma": ("logpdf", "pdf", "cdf"),
    "chi2": ("logpdf", "pdf", "cdf"),
    "beta": ("logpdf", "pdf", "cdf"),
    "expon": ("logpdf", "pdf", "cdf"),
    "laplace": ("logpdf", "pdf", "cdf"),
    "logistic": ("logpdf", "pdf", "cdf"),
    "cauchy": ("logpdf", "pdf", "cdf"),
    "lognorm": ("logpdf", "pdf", "cdf"),
    "uniform": ("logpdf", "pdf", "cdf"),
}.items():
    for _fn in _fns:
        composite(f"scipy.stats.{_dist}.{_fn}", getattr(cont, f"{_dist}_{_fn}"),
                  refuses=REFUSES.get(f"{_dist}.{_fn}", ()))

_TAILS = ("sf", "logcdf", "logsf")
for _dist, _fns in {"t": _TAILS, "gamma": _TAILS, "chi2": _TAILS, "beta": _TAILS, "expon": _TAILS + ("ppf",),
                    "laplace": _TAILS + ("ppf",), "logistic": _TAILS + ("ppf",), "cauchy": _TAILS + ("ppf",),
                    "lognorm": _TAILS + ("ppf",), "uniform": _TAILS + ("ppf",)}.items():
    for _fn in _fns:
        composite(f"scipy.stats.{_dist}.{_fn}", getattr(tails, f"{_dist}_{_fn}"),
                  refuses=REFUSES.get(f"{_dist}.{_fn}", ()))

# the counts k (binom's n, a discrete loc) are data (srcad.data_only)
for _dist, _data in {"poisson": ("k", "loc"), "binom": ("k", "n", "loc"), "nbinom": ("k", "loc"),
                     "bernoulli": ("k", "loc"), "geom": ("k", "loc")}.items():
    for _fn in ("logpmf", "pmf"):
        composite(f"scipy.stats.{_dist}.{_fn}", getattr(disc, f"{_dist}_{_fn}"), refuses=_data)

composite("scipy.stats.poisson.cdf", disc.poisson_cdf, refuses=("k", "loc"))
for _fn in ("logpdf", "pdf"):
    composite(f"scipy.stats.multivariate_normal.{_fn}", getattr(disc, f"multivariate_normal_{_fn}"))
    composite(f"scipy.stats.dirichlet.{_fn}", getattr(disc, f"dirichlet_{_fn}"))
