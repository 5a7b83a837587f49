"""NumPy elementwise functions (ufuncs and friends).

Non-smooth points (the same choice in both modes):
- abs/absolute/fabs take derivative sign(x), so 0 at 0; copysign likewise.
- Selections never multiply a derivative by a 0/1 mask (0 * inf is NaN): maximum, minimum,
  fmax, fmin, clip, where, heaviside and nan_to_num pick derivatives with np.where, so the
  derivative of an argument that is not selected is exactly 0 even where it is inf or NaN
  (the tangent of x / 0, of sqrt at 0...). Kinks are different: abs, fabs and copysign
  multiply by sign(x), so an infinite derivative at x = 0 stays NaN there (its one-sided
  limits differ), as it does through any product.
- maximum, minimum, fmax and fmin split the derivative equally on ties (0.5 each); fmax and
  fmin select the other argument where one is NaN, as their values do.
- clip passes the derivative to x where lo <= x <= hi (boundaries included) and to a bound
  where x is strictly beyond it, so the parts always sum to the derivative of the result.
- where() selects derivatives with np.where, never by multiplying with the condition: a
  NaN or inf value or tangent in the unselected branch never reaches the result's
  derivative. In reverse mode the simplifier keeps the mask on the cotangent through the
  elementwise adjoints that follow (`where(m, g, 0) * d` becomes `where(m, g * d, 0)`), so
  an infinite local derivative in the unselected branch, as in where(x > 0, sqrt(x), 0)
  at x <= 0, gives 0 and not NaN. (A mask does not pass through reductions or products
  such as a matmul; there, guard the argument: sqrt(where(x > 0, x, 1)).)
- nan_to_num: derivative 1 where x is finite, and the replaced entries get the derivative
  of the replacement values (nan=, posinf=, neginf=).
- heaviside(x1, x2) is x2 where x1 == 0: derivative 1 in x2 there, 0 elsewhere and in x1.
- sign, floor, ceil, trunc, rint, round, fix, comparisons and logical
  functions have derivative 0 (they are registered as non-differentiable); sinc is
  smooth, with derivative 0 at 0; fmod and remainder are differentiable where continuous.
- select(condlist, choicelist, default) passes each element's derivative from the choice
  whose condition holds first (default where none does): a selection, as where.
- imag and angle of srcad's real values are constant (0, and 0 or pi): non-differentiable.
"""

from .. import runtime as rt
from ..ir import types as T
from . import shapes as sh
from . import typefns as ty
from .registry import alias, defrule, elementwise, elementwise2, family, nondiff

family("numpy elementwise", kind="elementwise")

#: what the ufuncs that mirror an operator (np.add is +) do not share with it: Python operators
#: fold on constants and are cheap to recompute on scalars (remat); the ufuncs are left as written
NOT_OPERATOR = {"cheap": "", "foldable": False, "ring": False, "type_errors": ""}

_UNARY = {
    "sin": "np.cos(x)",
    "cos": "-np.sin(x)",
    "tan": "1.0 + ans * ans",
    "arcsin": "1.0 / np.sqrt(1.0 - x * x)",
    "arccos": "-1.0 / np.sqrt(1.0 - x * x)",
    "arctan": "1.0 / (1.0 + x * x)",
    "sinh": "np.cosh(x)",
    "cosh": "np.sinh(x)",
    "tanh": "1.0 - ans * ans",
    "arcsinh": "1.0 / np.sqrt(x * x + 1.0)",
    "arccosh": "1.0 / np.sqrt(x * x - 1.0)",
    "arctanh": "1.0 / (1.0 - x * x)",
    "exp": "ans",
    "exp2": "ans * 0.6931471805599453",
    "expm1": "ans + 1.0",
    "log": "1.0 / x",
    "log2": "1.0 / (x * 0.6931471805599453)",
    "log10": "1.0 / (x * 2.302585092994046)",
    "log1p": "1.0 / (1.0 + x)",
    "sqrt": "0.5 / ans",
    "cbrt": "1.0 / (3.0 * ans * ans)",
    "square": "2.0 * x",
    "reciprocal": "-(ans * ans)",
    "absolute": "np.sign(x)",
    "fabs": "np.sign(x)",
    "deg2rad": "0.017453292519943295",
    "rad2deg": "57.29577951308232",
    "sinc": "srcad.sinc_slope(x)",
}
#: the functions above that are holomorphic with the same derivative for complex arguments
#: (principal branches): for a complex operand the adjoint multiplies by its conjugate
#: (docs/subset.md, "Complex intermediate values"); arccosh's formula picks another branch's sign
HOLOMORPHIC = ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
               "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "square",
               "reciprocal")
FLOATING = ty.floating("x")
# |z| of a complex z: derivative Re(conj(z) dz) / |z|, 0 at z = 0 (as sign(0) = 0 for reals)
_NZ = "np.where(ans == 0.0, 1.0, ans)"
_COMPLEX = {name: {"complex": "keeps", "complex_vjp": f"g * np.conj({_UNARY[name]})"} for name in HOLOMORPHIC}
_COMPLEX["absolute"] = {"complex": "real",
                        "complex_jvp": f"np.where(ans == 0.0, 0.0, np.real(np.conj(x) * t) / {_NZ})",
                        "complex_vjp": f"np.where(ans == 0.0, 0.0j, g * x / {_NZ})"}
for _name, _d in _UNARY.items():
    elementwise(f"numpy.{_name}", _d, out=FLOATING, **_COMPLEX.get(_name, {}),
                shift=_name if _name in ("exp", "log") else "")
alias("numpy.abs", "numpy.absolute")
alias("numpy.degrees", "numpy.rad2deg")
alias("numpy.radians", "numpy.deg2rad")
defrule("numpy.negative", "x", jvp="-t", vjp="-g", out=ty.same("x"), linear=("x",))
defrule("numpy.positive", "x", jvp="t", vjp="g", out=ty.same("x"), linear=("x",))

B2 = ty.floating("x", "y")
for _name, (_dx, _dy) in {
    "hypot": ("x / ans", "y / ans"),
    "power": ("y * x ** (y - 1)", "ans * srcad.log_or_zero(x)"),
    "float_power": ("y * x ** (y - 1)", "ans * srcad.log_or_zero(x)"),
    "logaddexp": ("np.exp(x - ans)", "np.exp(y - ans)"),
    "logaddexp2": ("2.0 ** (x - ans)", "2.0 ** (y - ans)"),
    "copysign": ("np.sign(x) * np.sign(ans)", None),
    "fmod": ("1.0", "-np.trunc(x / y)"),
    "remainder": ("1.0", "-np.floor(x / y)"),
}.items():
    elementwise2(f"numpy.{_name}", _dx, _dy, out=B2,
                 commutative=_name in ("hypot", "logaddexp", "logaddexp2"))


# maximum, minimum, fmax, fmin select an argument: its derivative where it is selected (half
# of it on ties), and exactly 0 where the other is selected (np.where, never a 0/1 weight
# times a derivative that may be inf or NaN); fmax and fmin select the other where one is NaN
def _pick(selected: str, v: str) -> str:
    return f"np.where({selected}, {v}, np.where(x == y, 0.5 * {v}, 0.0))"


for _name, _x, _y in (("maximum", "x > y", "y > x"), ("minimum", "x < y", "y < x"),
                      ("fmax", "(x > y) | np.isnan(y)", "(y > x) | (np.isnan(x) & (y == y))"),
                      ("fmin", "(x < y) | np.isnan(y)", "(y < x) | (np.isnan(x) & (y == y))")):
    defrule(f"numpy.{_name}", "x, y", jvp={"x": _pick(_x, "t"), "y": _pick(_y, "t")},
            vjp={"x": _pick(_x, "g"), "y": _pick(_y, "g")}, out=B2, broadcasts=("x", "y"))
alias("numpy.mod", "numpy.remainder")
# numpy.arctan2(x1, x2) is the angle of the point (x2, x1)
elementwise2("numpy.arctan2", "x2 / (x1 * x1 + x2 * x2)", "-x1 / (x1 * x1 + x2 * x2)",
             params="x1, x2", out=ty.floating("x1", "x2"))

for _name, _target in {"add": "operator.add", "subtract": "operator.sub",
                       "multiply": "operator.mul", "divide": "operator.truediv",
                       "true_divide": "operator.truediv"}.items():
    alias(f"numpy.{_name}", _target, **NOT_OPERATOR)

def _where_type(sig) -> T.Type:
    """np.where(c, x, y): the operands' broadcast shape (the condition's too: np.where(m, 1.0,
    0.0) is an array); np.where(c) alone is np.nonzero(c), a tuple of index arrays."""
    if isinstance(sig.type("x"), T.NoneT) and isinstance(sig.type("y"), T.NoneT):
        return T.UNKNOWN
    return ty.floating("condition", "x", "y")(sig)


defrule("numpy.where", "condition, x, y",
        jvp={"x": "np.where(condition, t, 0.0)", "y": "np.where(condition, 0.0, t)"},
        vjp={"x": "np.where(condition, g, 0.0)", "y": "np.where(condition, 0.0, g)"},
        out=_where_type, broadcasts=("condition", "x", "y"), linear=("x", "y"), shape=sh.where,
        complex="keeps")
# select: each element from the choice whose condition holds first, else default
_REST = "srcad.select_rest(condlist)"
defrule("numpy.select", "condlist, choicelist, default=0",
        jvp={"choicelist": "np.broadcast_to(np.select(condlist, t, 0.0), np.shape(ans))",
             "default": f"np.broadcast_to(np.where({_REST}, t, 0.0), np.shape(ans))"},
        vjp={"choicelist": "srcad.select_choices_adjoint(g, condlist, choicelist)",
             "default": f"srcad.unbroadcast(np.where({_REST}, g, 0.0), default)"},
        out=lambda sig: T.Array(None, "f"), linear=("choicelist", "default"), raises="always", vmap=None)
defrule("srcad.select_choices_adjoint", "c, condlist, choicelist",
        vjp={"c": "np.broadcast_to(np.select(condlist, g, 0.0), np.shape(c))"},
        out=ty.list_cotangent("choicelist"), fn=rt.select_choices_adjoint, linear=("c",), vmap=None)
nondiff("srcad.select_rest", "condlist", out=lambda sig: T.Array(None, "b"), fn=rt.select_rest, vmap=None)
# (the bounds may also be given as min= and max=, NumPy 2)
_LO, _HI = "(a_min if a_min is not None else min)", "(a_max if a_max is not None else max)"
_CLIP = {"a": f"srcad.clip_mask(a, {_LO}, {_HI})", "a_min": "a < a_min", "a_max": "a > a_max",
         "min": "a < min", "max": "a > max"}
defrule("numpy.clip", "a, a_min=None, a_max=None, out=None, min=None, max=None",
        jvp={p: f"np.where({m}, t, 0.0)" for p, m in _CLIP.items()},
        vjp={p: f"np.where({m}, g, 0.0)" for p, m in _CLIP.items()},
        out=ty.floating("a", "a_min", "a_max", "min", "max"),
        broadcasts=("a", "a_min", "a_max", "min", "max"), shape=sh.first)

# (the tangent of a replaced entry may be inf or NaN, as for x / 0: selected, never multiplied)
_REPLACED = {"x": "np.isfinite(x)", "nan": "np.isnan(x)", "posinf": "np.isposinf(x)",
             "neginf": "np.isneginf(x)"}
defrule("numpy.nan_to_num", "x, copy=True, nan=0.0, posinf=None, neginf=None",
        jvp={p: f"np.where({m}, t, 0.0)" for p, m in _REPLACED.items()},
        vjp={p: f"np.where({m}, g, 0.0)" for p, m in _REPLACED.items()},
        out=ty.same("x"), broadcasts=("x", "nan", "posinf", "neginf"))
elementwise2("numpy.ldexp", "np.exp2(x2)", None, params="x1, x2", out=ty.floating("x1"))
defrule("numpy.float64", "x=0.0", vjp="g", out=ty.floating("x"), linear=("x",))

for _name in ("sign", "floor", "ceil", "trunc", "rint", "round", "around", "fix"):
    nondiff(f"numpy.{_name}", "x, decimals=0" if "round" in _name else "x", out=ty.same("x"))
for _name in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_not"):
    nondiff(f"numpy.{_name}", "x", out=ty.compare("x"), foldable=True)  # (of a number: a bool)
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor", "isclose"):
    nondiff(f"numpy.{_name}", "x, y", out=ty.compare("x", "y"))
nondiff("numpy.floor_divide", "x, y", out=ty.arith("x", "y"))
# heaviside(x1, x2) is x2 where x1 == 0 (and 0 or 1 elsewhere): piecewise constant in x1
defrule("numpy.heaviside", "x1, x2", jvp={"x2": "np.where(x1 == 0.0, t, 0.0)"},
        vjp={"x2": "np.where(x1 == 0.0, g, 0.0)"}, out=ty.floating("x1", "x2"), broadcasts=("x1", "x2"))
# imag and angle of a complex z: imag is R-linear (adjoint 1j * g); d angle = Im(conj(z) dz) / |z|^2,
# 0 at z = 0. Of a real value they are constant (0, and 0 or pi): derivative 0
_ABS2 = "np.where(z == 0.0, 1.0, np.real(z * np.conj(z)))"
_DEG = "(57.29577951308232 if deg else 1.0)"
defrule("numpy.imag", "val", jvp="0.0 * t", vjp="0.0 * g", out=ty.floating("val"),
        complex="real", complex_jvp="np.imag(t)", complex_vjp="1j * g")
defrule("numpy.angle", "z, deg=False", jvp={"z": "0.0 * t"}, vjp={"z": "0.0 * g"}, out=ty.floating("z"),
        complex="real",
        complex_jvp={"z": f"np.where(z == 0.0, 0.0, np.imag(np.conj(z) * t) / {_ABS2}) * {_DEG}"},
        complex_vjp={"z": f"np.where(z == 0.0, 0.0j, 1j * g * z / {_ABS2}) * {_DEG}"})
