"""scipy.special: registered only when scipy is installed (an optional dependency).

Templates name the module `special` (the rule's namespace); generated code calls
scipy.special.<name>. Derivatives use scipy.special functions that have rules themselves,
so they can be differentiated again (digamma -> polygamma(1) -> polygamma(2) ...).

Choices: xlogy(x, y) and xlog1py(x, y) give d/dy = 0 where x == 0 and y == 0 (their value is
0 there; elsewhere x / y, whose derivative in x is 1 / y also at x == 0); logsumexp's
weights b are differentiable, and return_sign=True gives (log |sum|, sign)
(rules/scipy_special_impl.py); the parameters not listed are rejected rather than ignored.
gammainc, gammaincc and betainc and stdtr (in df) have rules in x only: differentiating them
in a or b raises NoRuleError (never a silent
zero); polygamma's order n is an integer, and differentiating it is an error too.

Bessel functions (jv, yv, iv, kv, their scaled forms and the integer-order ones) are
differentiable in x, by the recurrences for their derivatives; in the order v they are not
(an error). The exponentially scaled ive, i0e, i1e carry exp(-|x|): at x = 0 their derivative
takes sign(0) = 0 (the mean of the one-sided slopes, as abs does). zeta(x, q) is
differentiable in q (-x zeta(x + 1, q)), not in x. gammasgn is piecewise constant.
"""

from ..ir import types as T
from . import shapes as sh
from . import typefns as ty
from .registry import composite, defrule, elementwise, elementwise2, family, nondiff


def _logsumexp_type(sig) -> T.Type:
    """A reduction's type, except that scipy gives a 0-d input with keepdims=True a result
    of shape (1,) in some versions: of unknown rank there (an output then checked when the
    code runs)."""
    a = sig.type("a")
    scalar = isinstance(a, (T.Float, T.Int, T.Bool)) or getattr(a, "ndim", None) == 0
    keep = sig.const("keepdims", False) is not False
    return T.Array(None, "f") if scalar and keep else ty.reduce_("a")(sig)

try:
    import scipy.special as special

    from . import scipy_special_impl as impl
except ImportError:  # scipy is optional
    special = None

family("scipy.special")
NS = {"special": special}
F1 = ty.floating("x")
SQRT_2_OVER_PI = "1.1283791670955126"  # 2 / sqrt(pi), the derivative of erf at 0
SQRT_PI_OVER_2 = "0.886226925452758"
INV_SQRT_2PI = "0.3989422804014327"


def unary(name: str, d: str, params: str = "x") -> None:
    elementwise(f"scipy.special.{name}", d, params=params, out=F1, namespace=NS, shape=sh.elementwise)


def binary(name: str, dx: str | None, dy: str | None, params: str = "x, y", **flags) -> None:
    names = [p.split("=")[0].strip() for p in params.split(",")]
    elementwise2(f"scipy.special.{name}", dx, dy, params=params, out=ty.floating(*names), namespace=NS,
                 shape=sh.elementwise, **flags)


if special is not None:
    for _name, _d in {
        "expit": "ans * (1.0 - ans)",
        "logit": "1.0 / (x * (1.0 - x))",
        "log_expit": "special.expit(-x)",
        "softplus": "special.expit(x)",
        "erf": f"{SQRT_2_OVER_PI} * np.exp(-x * x)",
        "erfc": f"-{SQRT_2_OVER_PI} * np.exp(-x * x)",
        "erfcx": f"2.0 * x * ans - {SQRT_2_OVER_PI}",
        "erfinv": f"{SQRT_PI_OVER_2} * np.exp(ans * ans)",
        "erfcinv": f"-{SQRT_PI_OVER_2} * np.exp(ans * ans)",
        "ndtr": f"{INV_SQRT_2PI} * np.exp(-0.5 * x * x)",
        "log_ndtr": f"{INV_SQRT_2PI} * np.exp(-0.5 * x * x - ans)",
        "ndtri": "2.5066282746310002 * np.exp(0.5 * ans * ans)",
        "gamma": "ans * special.digamma(x)",
        "rgamma": "-ans * special.digamma(x)",
        "gammaln": "special.digamma(x)",
        "loggamma": "special.digamma(x)",
        "digamma": "special.polygamma(1, x)",
        "entr": "-(np.log(x) + 1.0)",
        "expm1": "ans + 1.0",
        "log1p": "1.0 / (1.0 + x)",
        "exp2": "ans * 0.6931471805599453",
        "exp10": "ans * 2.302585092994046",
        "cbrt": "1.0 / (3.0 * ans * ans)",
        "sindg": "0.017453292519943295 * special.cosdg(x)",
        "cosdg": "-0.017453292519943295 * special.sindg(x)",
        "i0": "special.i1(x)",
        "i1": "special.i0(x) - np.where(x == 0.0, 0.5, special.i1(x) / np.where(x == 0.0, 1.0, x))",
    }.items():
        unary(_name, _d)
    binary("polygamma", None, "special.polygamma(n + 1, x)", params="n, x", diff=("n", "x"))  # n: an int
    # (x / y, 0 at x == y == 0 without the where on x itself, which would take the cross
    # derivative d2/dx dy = 1 / y away at x == 0)
    binary("xlogy", "np.log(y)", "x / np.where((x == 0.0) & (y == 0.0), 1.0, y)")
    binary("xlog1py", "np.log1p(y)", "x / np.where((x == 0.0) & (y == -1.0), 1.0, 1.0 + y)")
    binary("rel_entr", "np.log(x / y) + 1.0", "-x / y")
    binary("kl_div", "np.log(x / y)", "1.0 - x / y")
    binary("beta", "ans * (special.digamma(a) - special.digamma(a + b))",
           "ans * (special.digamma(b) - special.digamma(a + b))", params="a, b")
    binary("betaln", "special.digamma(a) - special.digamma(a + b)",
           "special.digamma(b) - special.digamma(a + b)", params="a, b")
    # no rule in a: differentiating with respect to it is an error, not a silent zero
    binary("gammainc", None, "np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))", params="a, x",
           diff=("a", "x"))
    binary("gammaincc", None, "-np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))", params="a, x",
           diff=("a", "x"))
    defrule("scipy.special.betainc", "a, b, x",
            jvp={"x": "t * np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x) - special.betaln(a, b))"},
            vjp={"x": "g * np.exp((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x) - special.betaln(a, b))"},
            out=ty.floating("a", "b", "x"), broadcasts=("a", "b", "x"), diff=("a", "b", "x"), namespace=NS)

    # Student's t distribution function: a rule in t only (its density); in df, an error
    _T_PDF = ("np.exp(special.gammaln(0.5 * df + 0.5) - special.gammaln(0.5 * df) - 0.5 * np.log(df * np.pi)"
              " - (0.5 * df + 0.5) * np.log1p(x * x / df))")  # (scipy names x `t`)
    defrule("scipy.special.stdtr", "df, x", jvp={"x": f"t * {_T_PDF}"}, vjp={"x": f"g * {_T_PDF}"},
            out=ty.floating("df", "x"), broadcasts=("df", "x"), diff=("df", "x"), namespace=NS)

    # multigammaln(a, d) = d (d - 1) / 4 log(pi) + sum_{j < d} gammaln(a - j / 2) (d an int)
    _MULTI = "np.sum(special.digamma(np.expand_dims(a, -1) - 0.5 * np.arange(d)), axis=-1)"
    defrule("scipy.special.multigammaln", "a, d", jvp={"a": f"t * {_MULTI}"}, vjp={"a": f"g * {_MULTI}"},
            out=ty.floating("a"), namespace=NS, raises="always")  # ValueError for a <= (d - 1) / 2

    # reductions over an axis: w = exp(a - logsumexp) are the softmax weights
    _W = "np.exp(a - srcad.expand_reduced(ans, a, axis, keepdims))"
    _E = "srcad.expand_reduced(g, a, axis, keepdims)"
    # scipy's logsumexp is a source implementation (rules/scipy_special_impl.py, for return_sign)
    # that calls the primitive srcad.logsumexp; registered first, it is what scipy's function
    # stands for, also where generated code calls it (the primitive's `runs`)
    composite("scipy.special.logsumexp", impl.logsumexp, diff=("a", "b"))
    defrule("srcad.logsumexp", "a, axis=None, b=None, keepdims=False", fn=impl.logsumexp_value,
            runs=special.logsumexp,
            jvp={"a": f"np.sum(t * {_W} * (1.0 if b is None else b), axis=axis, keepdims=keepdims)",
                 "b": f"np.sum(t * {_W}, axis=axis, keepdims=keepdims)"},
            vjp={"a": f"{_E} * {_W} * (1.0 if b is None else b)", "b": f"{_E} * {_W}"},
            out=_logsumexp_type, broadcasts=("a", "b"), namespace=NS)
    defrule("scipy.special.softmax", "x, axis=None",
            jvp="ans * (t - np.sum(t * ans, axis=axis, keepdims=True))",
            vjp="ans * (g - np.sum(g * ans, axis=axis, keepdims=True))", out=ty.rank("x"), namespace=NS)
    defrule("scipy.special.log_softmax", "x, axis=None",
            jvp="t - np.sum(np.exp(ans) * t, axis=axis, keepdims=True)",
            vjp="g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)", out=ty.rank("x"), namespace=NS)

    # Bessel functions: derivatives in x by the recurrences; the order is not differentiable
    _BESSEL = {
        "jv": "0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x))",
        "jve": "0.5 * (special.jve(v - 1.0, x) - special.jve(v + 1.0, x))",
        "yv": "0.5 * (special.yv(v - 1.0, x) - special.yv(v + 1.0, x))",
        "yve": "0.5 * (special.yve(v - 1.0, x) - special.yve(v + 1.0, x))",
        "iv": "0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x))",
        "ive": "0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x)) - np.sign(x) * ans",
        "kv": "-0.5 * (special.kv(v - 1.0, x) + special.kv(v + 1.0, x))",
        "kve": "ans - 0.5 * (special.kve(v - 1.0, x) + special.kve(v + 1.0, x))",
    }
    for _name, _d in _BESSEL.items():
        binary(_name, None, _d, params="v, x", diff=("v", "x"))
    binary("yn", None, "0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x))", params="n, x", diff=("n", "x"))
    binary("kn", None, "-0.5 * (special.kn(n - 1, x) + special.kn(n + 1, x))", params="n, x", diff=("n", "x"))
    _OVER_X = "np.where(x == 0.0, 0.5, ans / np.where(x == 0.0, 1.0, x))"  # j1(x) / x, i1e(x) / x -> 1/2
    for _name, _d in {
        "j0": "-special.j1(x)",
        "j1": f"special.j0(x) - {_OVER_X}",
        "y0": "-special.y1(x)",
        "y1": "special.y0(x) - ans / x",
        "i0e": "special.i1e(x) - np.sign(x) * ans",
        "i1e": f"special.i0e(x) - {_OVER_X} - np.sign(x) * ans",
        "k0": "-special.k1(x)",
        "k1": "-special.k0(x) - ans / x",
        "k0e": "ans - special.k1e(x)",
        "k1e": "ans - special.k0e(x) - ans / x",
    }.items():
        unary(_name, _d)
    binary("zeta", None, "-x * special.zeta(x + 1.0, q)", params="x, q=None", diff=("x", "q"))
    nondiff("scipy.special.gammasgn", "x", out=F1)
