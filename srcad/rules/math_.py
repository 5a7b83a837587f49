"""The math module. Derivatives use math functions too, so scalar code stays scalar.

Non-smooth points: fabs takes derivative sign(x) (0 at 0), copysign likewise; fmod is
differentiable where continuous (d/dy = -trunc(x / y)); floor, ceil and trunc return ints
and, with isnan/isinf/isfinite/isclose/factorial/comb/gcd, carry no derivative.
"""

from . import batching as bt
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import composite, defrule, elementwise, elementwise2, family, nondiff

family("math", kind="elementwise", foldable=True, vmap=None)  # (see math_function)

F = ty.scalar_float
_DOMAIN = ("asin", "acos", "acosh", "atanh", "log1p", "log2", "log10", "sqrt")  # ValueError outside it
for _name, _d in {
    "sin": "math.cos(x)",
    "cos": "-math.sin(x)",
    "tan": "1.0 + ans * ans",
    "asin": "1.0 / math.sqrt(1.0 - x * x)",
    "acos": "-1.0 / math.sqrt(1.0 - x * x)",
    "atan": "1.0 / (1.0 + x * x)",
    "sinh": "math.cosh(x)",
    "cosh": "math.sinh(x)",
    "tanh": "1.0 - ans * ans",
    "asinh": "1.0 / math.sqrt(x * x + 1.0)",
    "acosh": "1.0 / math.sqrt(x * x - 1.0)",
    "atanh": "1.0 / (1.0 - x * x)",
    "exp": "ans",
    "expm1": "ans + 1.0",
    "log1p": "1.0 / (1.0 + x)",
    "log2": "1.0 / (x * math.log(2.0))",
    "log10": "1.0 / (x * math.log(10.0))",
    "sqrt": "0.5 / ans",
    "fabs": "np.sign(x)",
    "erf": "1.1283791670955126 * math.exp(-x * x)",
    "erfc": "-1.1283791670955126 * math.exp(-x * x)",
    "degrees": "57.29577951308232",
    "radians": "0.017453292519943295",
}.items():
    elementwise(f"math.{_name}", _d, out=F, raises="always" if _name in _DOMAIN else "never",
                vmap=vm.math_function(_name, _name in _DOMAIN), shift="exp" if _name == "exp" else "")

defrule("math.log", "x, base=None",
        jvp={"x": "t / x if base is None else t / (x * math.log(base))",
             "base": "-t * ans / (base * math.log(base))"},
        vjp={"x": "g / x if base is None else g / (x * math.log(base))",
             "base": "-g * ans / (base * math.log(base))"},
        out=F, raises="always", vmap=vm.math_function("log", True), shift="log")
elementwise2("math.pow", "y * x ** (y - 1.0)", "ans * srcad.log_or_zero(x)", out=F, raises="always",
             vmap=vm.math_function("pow", True, 2))
elementwise2("math.atan2", "x / (x * x + y * y)", "-y / (x * x + y * y)", params="y, x", out=F,
             vmap=vm.math_function("atan2", False, 2))
elementwise2("math.hypot", "x / ans", "y / ans", out=F, vmap=vm.math_function("hypot", False, 2))
elementwise2("math.copysign", "math.copysign(1.0, x) * math.copysign(1.0, y)", None, out=F,
             vmap=vm.math_function("copysign", False, 2))
elementwise2("math.fmod", "1.0", "-math.trunc(x / y)", out=F, raises="divide",
             vmap=vm.math_function("fmod", True, 2))

for _name in ("floor", "ceil", "trunc"):
    nondiff(f"math.{_name}", "x", out=ty.scalar_int)
for _name in ("isnan", "isinf", "isfinite"):
    nondiff(f"math.{_name}", "x", out=ty.scalar_bool, vmap=vm.math_function(_name, False))
nondiff("math.isclose", "a, b, rel_tol=1e-09, abs_tol=0.0", out=ty.scalar_bool)
nondiff("math.factorial", "x", out=ty.scalar_int, raises="always")
nondiff("math.comb", "n, k", out=ty.scalar_int, raises="always")
nondiff("math.gcd", "*args", out=ty.scalar_int)
# fsum is sum with exact rounding: the same derivative
defrule("math.fsum", "seq", vjp="srcad.sum_adjoint(g, seq)", out=ty.scalar_float,
        linear=("seq",), kind="reduction", vmap=vmi.summed, batch=bt.summed)


def prod(iterable, *, start=1):
    """math.prod by its source implementation: the items multiplied in order onto start (the
    derivatives from the rule of *)."""
    out = start
    for v in iterable:
        out = out * v
    return out


composite("math.prod", prod)

try:  # (their derivatives are digamma's: scipy.special, an optional dependency)
    import scipy.special as _special
except ImportError:
    _special = None
if _special is not None:
    # lgamma and gamma raise ValueError at 0 and the negative integers, as Python's do
    elementwise("math.lgamma", "special.digamma(x)", out=F, raises="always", namespace={"special": _special},
                vmap=None)
    elementwise("math.gamma", "ans * special.digamma(x)", out=F, raises="always",
                namespace={"special": _special}, vmap=None)
