"""Spec rows for the numpy rule families (elementwise, arrays, reductions, shape, products,
non-differentiable functions, ndarray methods). See rule_specs.py for the row format."""

import numpy as np
from rule_specs import const, normal, row, uniform

V = normal(3)
M = normal(2, 3)
P = uniform(0.5, 2.0, 3)
U1 = uniform(-0.9, 0.9, 3)

# -- elementwise -------------------------------------------------------------------------------
_DOMAINS = {
    "sin": V, "cos": V, "tan": U1, "arcsin": U1, "arccos": U1, "arctan": V, "sinh": V, "cosh": V,
    "tanh": V, "arcsinh": V, "arccosh": uniform(1.2, 3.0, 3), "arctanh": U1, "exp": V, "exp2": V,
    "expm1": V, "log": P, "log2": P, "log10": P, "log1p": P, "sqrt": P, "cbrt": P, "square": V,
    "reciprocal": P, "absolute": V, "abs": V, "fabs": V, "deg2rad": V, "rad2deg": V, "degrees": V,
    "radians": V, "sinc": V, "negative": V, "positive": V,
}
# piecewise linear: a small finite-difference step
KINKS = ("absolute", "abs", "fabs", "maximum", "minimum", "fmax", "fmin", "copysign", "max", "min", "amax",
         "amin", "nanmax", "nanmin", "ptp", "sort", "clip")
for _name, _dom in _DOMAINS.items():
    row(f"numpy.{_name}", f"np.{_name}(x)", x=_dom, ew=("x",), fd_step=1e-5 if _name in KINKS else 1e-3)
row("numpy.sqrt", "np.sqrt(x)", x=uniform(0.5, 2.0, 2, 3), note="a matrix")
row("numpy.sin", "np.sin(x) * x", x=normal(), note="a float")
row("numpy.sinc", "np.sinc(x * 0.0 + np.array([0.0, 0.5, 1.5]))", x=V, note="at 0")
for _name, (_x, _y) in {
    "add": (M, V), "subtract": (V, M), "multiply": (M, normal(2, 1)), "divide": (M, P),
    "true_divide": (V, P), "power": (P, uniform(0.5, 2.5, 3)), "float_power": (P, V),
    "hypot": (M, V), "logaddexp": (M, V), "logaddexp2": (V, M), "maximum": (M, V),
    "minimum": (M, V), "fmax": (V, V), "fmin": (V, V), "copysign": (V, V),
    # x / y stays inside (2, 3): no jump of the remainder near the samples
    "fmod": (uniform(4.5, 5.5, 3), uniform(2.0, 2.1, 3)),
    "remainder": (uniform(4.5, 5.5, 3), uniform(2.0, 2.1)),
    "mod": (uniform(4.5, 5.5, 3), uniform(2.0, 2.1, 3)),
}.items():
    row(f"numpy.{_name}", f"np.{_name}(x, y)", x=_x, y=_y, ew=("x", "y"),
        fd_step=1e-5 if _name in KINKS else 1e-3)
row("numpy.maximum", "np.maximum(x, y)", x=const(np.array([1.0, 2.0, 3.0])),
    y=const(np.array([1.0, 0.0, 4.0])),
    note="a tie: the derivative is shared equally", rtol=1e-3, wrt=("x",), reduce="np.sum(out)")
row("numpy.arctan2", "np.arctan2(x, y)", x=M, y=V, ew=("x", "y"))
row("numpy.ldexp", "np.ldexp(x, 3)", x=V)
row("numpy.float64", "np.float64(x) * x", x=normal())
row("numpy.where", "np.where(x > 0.0, x, y * y)", x=M, y=V, ew=("x", "y"))
row("numpy.where", "np.where(np.array([[True, False, True], [False, True, True]]), x, y)", x=normal(), y=V,
    ew=("x", "y"), note="the condition broadcasts the branches")
row("numpy.where", "np.where(x < 5.0, x * x, np.log(x - 10.0))", x=V,
    note="the unselected branch is NaN (with a finite derivative): gradients stay finite")
row("numpy.where", "np.where(np.isfinite(y), y, 0.0) * x", x=normal(4),
    y=const(np.array([1.0, np.inf, np.nan, -2.0])), note="inf/NaN data in the unselected branch")
row("numpy.clip", "np.clip(x, -0.5, 0.5)", x=normal(5), ew=("x",), fd_step=1e-5)
row("numpy.clip", "np.clip(x, y, z)", x=normal(5), y=uniform(-1.0, -0.5), z=uniform(0.5, 1.0),
    note="differentiable bounds", ew=("x", "y", "z"), shapes=({"y": (5,), "z": (2, 1)},), fd_step=1e-5)
row("numpy.clip", "np.clip(x, None, 0.2)", x=normal(5))
row("numpy.nan_to_num", "np.nan_to_num(np.log(x), nan=y)", x=normal(5), y=normal(), ew=("x",))
# no derivative: rounding, tests, comparisons, logical functions
for _name in ("sign", "floor", "ceil", "trunc", "rint", "round", "around", "fix"):
    row(f"numpy.{_name}", f"x * np.{_name}(x * 3.0)", x=V)
for _name in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_not"):
    row(f"numpy.{_name}", f"x * np.{_name}(x)", x=V)
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor", "isclose"):
    row(f"numpy.{_name}", f"x * np.{_name}(x, 0.3)", x=V)
row("numpy.floor_divide", "x * np.floor_divide(7.0, 2.0)", x=V)
row("numpy.heaviside", "x * np.heaviside(x, 0.5)", x=V)

# -- reductions --------------------------------------------------------------------------------
A = normal(3, 4)
for _name in ("sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var", "nansum", "nanmean",
              "nanprod", "nanmax", "nanmin", "nanstd", "nanvar", "ptp"):
    row(f"numpy.{_name}", f"np.{_name}(x)", x=A)
    row(f"numpy.{_name}", f"np.{_name}(x, axis=1)", x=A)
    row(f"numpy.{_name}", f"np.{_name}(x, axis=0, keepdims=True)", x=A)
for _name in ("std", "var", "nanstd", "nanvar"):
    row(f"numpy.{_name}", f"np.{_name}(x, axis=0, ddof=1)", x=A)
# the same reductions at more shapes (0-d, length-1 axes, lists) and keywords (negative axes,
# tuples of axes, keepdims; ddof for the statistics)
_RED_KW = [", axis=-1", "", ", axis=-2, keepdims=True", ", axis=(0, -1)", ", axis=(-1,), keepdims=True",
           ", keepdims=True", ", axis=0"]
_RED_SHAPES = ({"x": (1, 4)}, {"x": (3, 1)}, {"x": (4,)}, {"x": (1,)}, {"x": "0d"}, {"x": ()}, {"x": "list"},
               {"x": (2, 1, 3)})
for _name in ("sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var", "nansum", "nanmean",
              "nanprod", "nanmax", "nanmin", "nanstd", "nanvar", "ptp"):
    row(f"numpy.{_name}", f"np.{_name}(x$kw)", x=A, alts={"kw": _RED_KW}, shapes=_RED_SHAPES,
        fd_step=1e-5 if _name in KINKS else 1e-3)
for _name in ("std", "var", "nanstd", "nanvar"):
    row(f"numpy.{_name}", f"np.{_name}(x$kw)", x=A, shapes=_RED_SHAPES,
        alts={"kw": [", ddof=1", ", axis=-1, ddof=2", ", axis=0, ddof=1, keepdims=True", ", ddof=0.5"]})
row("numpy.sum", "np.sum(x, axis=(0, 2))", x=normal(2, 3, 2), note="a tuple of axes")
row("numpy.max", "np.max(x)", x=const(np.array([1.0, 3.0, 3.0, 2.0])), rtol=1e-3, reduce="out",
    note="tied maxima share the derivative")
for _name in ("nansum", "nanmean", "nanmax", "nanstd"):
    row(f"numpy.{_name}", f"np.{_name}(np.where(x > 1.0, np.nan, x), axis=0)", x=A, note="with NaNs")
row("numpy.average", "np.average(x, axis=1)", x=A)
row("numpy.average", "np.average(x$kw)", x=A, shapes=_RED_SHAPES,
    alts={"kw": [", axis=-1", "", ", axis=0, keepdims=True", ", axis=(0, 1)"]})
row("numpy.average", "np.average(x, axis=$ax, weights=w)", x=A, w=uniform(0.5, 2.0, 4),
    alts={"ax": ["-1", "1"]}, shapes=({"w": "list"}, {"x": (1, 4)}))
row("numpy.average", "np.average(x, axis=1, weights=w)", x=A, w=uniform(0.5, 2.0, 4))
row("numpy.average", "np.average(x, weights=w, keepdims=True)", x=A, w=uniform(0.5, 2.0, 3, 4))
for _name in ("cumsum", "cumprod", "nancumsum"):
    row(f"numpy.{_name}", f"np.{_name}(x)", x=A)
    row(f"numpy.{_name}", f"np.{_name}(x, axis=0)", x=A)
    row(f"numpy.{_name}", f"np.{_name}(x$kw)", x=A, alts={"kw": [", axis=-1", ", axis=-2", ""]},
        shapes=({"x": (1, 4)}, {"x": (3, 1)}, {"x": (1,)}, {"x": "0d"}, {"x": ()}, {"x": "list"}))
row("numpy.cumulative_sum", "np.cumulative_sum(x, axis=1)", x=A)
row("numpy.cumulative_prod", "np.cumulative_prod(x)", x=normal(4))
for _name in ("cumulative_sum", "cumulative_prod"):
    row(f"numpy.{_name}", f"np.{_name}(x$kw)", x=A, alts={"kw": [", axis=-1", ", axis=0"]},
        shapes=({"x": (1, 4)}, {"x": (4,)}, {"x": "list"}))
row("numpy.diff", "np.diff(x)", x=A)
row("numpy.diff", "np.diff(x, 2, axis=0)", x=normal(4, 2))
row("numpy.diff", "np.diff(x$kw)", x=normal(4, 3), alts={"kw": [", axis=-2", ", 2, -1", ", n=1, axis=0"]},
    shapes=({"x": (4,)}, {"x": "list"}, {"x": (2, 4, 3)}))

# -- shape, joining, indexing ------------------------------------------------------------------
row("numpy.transpose", "np.transpose(x)", x=A)
row("numpy.transpose", "np.transpose(x, (1, 2, 0))", x=normal(2, 3, 2))
row("numpy.transpose", "np.transpose(x$kw)", x=normal(2, 3, 2), alts={"kw": [", (-1, 0, 1)", ""]},
    shapes=({"x": (3,)}, {"x": "0d"}, {"x": "list"}))
row("numpy.reshape", "np.reshape(x, (4, 3))", x=A)
row("numpy.reshape", "np.reshape(x, $s)", x=A, alts={"s": ["-1", "(2, -1)", "(1, 12)"]},
    shapes=({"x": "list"}, {"x": (2, 6)}))
row("numpy.ravel", "np.ravel(x)", x=A, shapes=({"x": "0d"}, {"x": ()}, {"x": "list"}))
row("numpy.copy", "np.copy(x) * x", x=V)
row("numpy.array", "np.array([x, y * y])", x=V, y=V)
row("numpy.asarray", "np.asarray([x, y])", x=normal(), y=normal())
row("numpy.moveaxis", "np.moveaxis(x, 0, -1)", x=normal(2, 3, 2))
row("numpy.moveaxis", "np.moveaxis(x, $a)", x=normal(2, 3, 2), alts={"a": ["-1, 0", "(0, -1), (-1, 1)"]})
row("numpy.swapaxes", "np.swapaxes(x, 0, 2)", x=normal(2, 3, 2))
row("numpy.swapaxes", "np.swapaxes(x, -1, 0)", x=normal(2, 3, 2), shapes=({"x": (3, 1)},))
row("numpy.expand_dims", "np.expand_dims(x, 1) * y", x=M, y=normal(2, 2, 3))
row("numpy.expand_dims", "np.expand_dims(x, (0, 2))", x=M)
row("numpy.squeeze", "np.squeeze(x)", x=normal(2, 1, 3))
row("numpy.squeeze", "np.squeeze(x$kw)", x=normal(2, 1, 3), alts={"kw": [", -2", ", axis=(1,)"]},
    shapes=({"x": (1, 1, 1)},))
row("numpy.broadcast_to", "np.broadcast_to(x, (3, 2, 3))", x=normal(2, 1))
row("numpy.broadcast_to", "np.broadcast_to(x, (2, 3))", x=normal(2, 1),
    shapes=({"x": "0d"}, {"x": ()}, {"x": (3,)}, {"x": (1, 1)}, {"x": (1,)}))
row("numpy.matrix_transpose", "np.matrix_transpose(x)", x=normal(2, 3, 2))
for _n in (1, 2, 3):
    row(f"numpy.atleast_{_n}d", f"np.atleast_{_n}d(x) * x", x=normal())
    row(f"numpy.atleast_{_n}d", f"np.atleast_{_n}d(x)", x=normal(3),
        shapes=({"x": "0d"}, {"x": (2, 3)}, {"x": (2, 3, 2)}, {"x": "list"}))
row("numpy.real", "np.real(x)", x=V)
row("numpy.conjugate", "np.conjugate(x)", x=V)
for _name in ("ascontiguousarray", "asfortranarray", "asanyarray"):
    row(f"numpy.{_name}", f"np.{_name}(x.T)", x=M)
row("numpy.concatenate", "np.concatenate([x, y], axis=1)", x=M, y=normal(2, 2))
row("numpy.concatenate", "np.concatenate((x, np.sin(y)), axis=None)", x=M, y=V, note="a tuple, flattened")
row("numpy.stack", "np.stack([x, y], axis=1)", x=M, y=M)
row("numpy.hstack", "np.hstack([x, y])", x=V, y=normal(2))
row("numpy.hstack", "np.hstack((x, y))", x=M, y=normal(2, 2), note="matrices")
row("numpy.hstack", "np.hstack([x, y])", x=normal(), y=normal(2), note="a float")
row("numpy.vstack", "np.vstack([x, y])", x=V, y=M)
row("numpy.dstack", "np.dstack([x, y])", x=M, y=M)
row("numpy.column_stack", "np.column_stack([x, y])", x=V, y=normal(3, 2))
row("numpy.append", "np.append(x, y)", x=M, y=normal(2))
row("numpy.append", "np.append(x, y, axis=0)", x=M, y=normal(1, 3))
# joining functions take a list or tuple of arrays, or one array (the sequence of its rows)
_SEQ = ["[x, y]", "(x, y)", "x", "[x]", "(x,)"]
_JOIN_SHAPES = ({"x": (), "y": ()}, {"x": "0d", "y": ()}, {"x": (3,), "y": (2,)}, {"x": (3,), "y": (3,)},
                {"x": (2, 3), "y": (2, 3)}, {"x": (2, 3), "y": (1, 3)}, {"x": (2, 3), "y": (2, 1)},
                {"x": (2, 3, 2), "y": (2, 3, 2)}, {"x": (1, 3), "y": (3,)}, {"x": (3,), "y": (3, 1)},
                {"x": "list", "y": (3,)})
for _name in ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"):
    row(f"numpy.{_name}", f"np.{_name}($seq)", x=M, y=M, alts={"seq": _SEQ}, shapes=_JOIN_SHAPES)
for _name in ("concatenate", "stack"):
    row(f"numpy.{_name}", f"np.{_name}($seq, axis=$ax)", x=M, y=M,
        alts={"seq": _SEQ, "ax": ["-1", "1", "None"]}, shapes=_JOIN_SHAPES)
row("numpy.append", "np.append(x, y$kw)", x=M, y=M, alts={"kw": ["", ", axis=-1", ", axis=0"]},
    shapes=_JOIN_SHAPES)
row("numpy.split", "np.split(x, 3)[1] * np.split(x, 3)[2]", x=normal(6))
row("numpy.split", "np.split(x, [1], axis=1)[1]", x=M)
row("numpy.array_split", "np.array_split(x, 2)[0]", x=normal(5))
row("numpy.hsplit", "np.hsplit(x, 2)[1]", x=normal(2, 4))
row("numpy.vsplit", "np.vsplit(x, 2)[0]", x=normal(4, 2))
row("numpy.dsplit", "np.dsplit(x, 2)[0]", x=normal(2, 2, 4))
row("numpy.unstack", "np.unstack(x, axis=1)[2]", x=M)
row("numpy.split", "np.split(x, $k)[$i]", x=normal(2, 4),
    alts={"k": ["2, axis=-1", "[1, 3], -1", "[1]"], "i": ["0", "-1"]},
    shapes=({"x": (4,)},))  # (not lists: np.split of a list along axis -1 splits by its length)
row("numpy.unstack", "np.unstack(x, axis=-1)[0]", x=M)
row("numpy.tile", "np.tile(x, (2, 3))", x=normal(2, 2))
row("numpy.tile", "np.tile(x, 3)", x=normal(2))
row("numpy.repeat", "np.repeat(x, 3)", x=normal(2, 2))
row("numpy.repeat", "np.repeat(x, [1, 2], axis=0)", x=normal(2, 2))
row("numpy.tile", "np.tile(x, $r)", x=normal(2, 2), alts={"r": ["(2, 1, 3)", "1", "(1,)"]},
    shapes=({"x": "0d"}, {"x": ()}, {"x": (3,)}, {"x": "list"}))
row("numpy.repeat", "np.repeat(x, $r)", x=normal(2, 2), alts={"r": ["2, axis=-1", "[1, 2], axis=-2", "1"]},
    shapes=({"x": "0d"}, {"x": ()}, {"x": "list"}))
row("numpy.flip", "np.flip(x)", x=M)
row("numpy.flip", "np.flip(x, 1)", x=M)
row("numpy.fliplr", "np.fliplr(x)", x=M)
row("numpy.flipud", "np.flipud(x)", x=M)
row("numpy.roll", "np.roll(x, 2)", x=normal(5))
row("numpy.roll", "np.roll(x, (1, -1), axis=(0, 1))", x=A)
row("numpy.rot90", "np.rot90(x)", x=M)
row("numpy.rot90", "np.rot90(x, 3, (1, 0))", x=M)
row("numpy.flip", "np.flip(x$kw)", x=M, alts={"kw": [", -1", ", (0, -1)"]},
    shapes=({"x": "list"}, {"x": (3,)}))
row("numpy.roll", "np.roll(x, $kw)", x=A, alts={"kw": ["-1, axis=-1", "(1, 2), axis=(-1, -2)", "5"]},
    shapes=({"x": (4,)}, {"x": "list"}))
row("numpy.rot90", "np.rot90(x, $k)", x=normal(2, 3, 2), alts={"k": ["2", "1, (-1, -2)", "-1"]})
row("numpy.pad", "np.pad(x, 2)", x=V)
row("numpy.pad", "np.pad(x, ((1, 0), (2, 1)), constant_values=c)", x=M, c=normal(),
    note="a differentiable constant")
for _mode in ("edge", "reflect", "symmetric", "wrap"):
    row("numpy.pad", f"np.pad(x, ((1, 2), (2, 1)), mode='{_mode}')", x=normal(3, 3))
row("numpy.take", "np.take(x, np.array([0, 2, 2]))", x=M)
row("numpy.take", "np.take(x, np.array([[0, 1], [1, 1]]), axis=1)", x=M)
row("numpy.take", "np.take(x, $i)", x=M,
    alts={"i": ["np.array([0, 2]), axis=-1", "-1", "1, axis=0", "[[0], [1]], axis=0"]},
    shapes=({"x": "list"}, {"x": (3,)}))
row("numpy.take_along_axis", "np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", x=M)
row("numpy.take_along_axis", "np.take_along_axis(x, np.argsort(x, axis=$a), axis=$a)", x=M,
    alts={"a": ["-1", "0"]}, shapes=({"x": (3,)}, {"x": (1, 3)}))
row("numpy.diag", "np.diag(x)", x=V)
row("numpy.diag", "np.diag(x, -1)", x=V)
row("numpy.diag", "np.diag(x, 1)", x=normal(3, 4))
row("numpy.diag", "np.diag(x$k)", x=normal(3, 4), alts={"k": ["", ", -2", ", 5"]},
    shapes=({"x": (4, 3)}, {"x": (3,)}, {"x": (1,)}, {"x": "list"}))
row("numpy.diagflat", "np.diagflat(x)", x=normal(2, 2))
row("numpy.diagonal", "np.diagonal(x, 1, 0, 2)", x=normal(3, 2, 4))
row("numpy.diagonal", "np.diagonal(x$k)", x=normal(3, 2, 4), alts={"k": [", -1, -1, 0", ", 0, -2, -1", ""]},
    shapes=({"x": (3, 3)}, {"x": "list"}))
row("numpy.linalg.diagonal", "np.linalg.diagonal(x)", x=normal(2, 3, 3))
row("numpy.linalg.matrix_transpose", "np.linalg.matrix_transpose(x)", x=M)
row("numpy.tril", "np.tril(x)", x=normal(3, 3))
row("numpy.triu", "np.triu(x, 1)", x=normal(3, 3))
for _name in ("tril", "triu"):
    row(f"numpy.{_name}", f"np.{_name}(x$k)", x=normal(2, 3, 4), alts={"k": ["", ", -1", ", 2"]},
        shapes=({"x": (3,)}, {"x": "list"}))
row("numpy.trace", "np.trace(x)", x=normal(3, 3))
row("numpy.trace", "np.trace(x, 1, 1, 2)", x=normal(2, 3, 4))
row("numpy.trace", "np.trace(x$k)", x=normal(2, 3, 4), alts={"k": [", -1, -1, 0", ", 0, -2, -1", ""]},
    shapes=({"x": (3, 3)}, {"x": "list"}))
row("numpy.linalg.trace", "np.linalg.trace(x)", x=normal(2, 3, 3))
row("numpy.sort", "np.sort(x)", x=A)
row("numpy.sort", "np.sort(x, axis=0)", x=A)
row("numpy.sort", "np.sort(x, axis=None)", x=A)
row("numpy.sort", "np.sort(x$kw)", x=A, alts={"kw": [", axis=-2", ", -1", ""]},
    shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "list"}), fd_step=1e-5)

# -- products ----------------------------------------------------------------------------------
row("numpy.dot", "np.dot(x, y)", x=M, y=normal(3, 2))
row("numpy.dot", "np.dot(x, y)", x=V, y=V)
row("numpy.dot", "np.dot(x, y)", x=normal(2, 3, 4), y=normal(4, 2), note="a >2-d operand")
row("numpy.dot", "np.dot(x, y)", x=normal(), y=V)
row("numpy.dot", "np.dot(x, y)", x=V, y=normal(3, 2), note="every rank combination",
    shapes=tuple({"x": a, "y": b} for a, b in (((), (3, 2)), ((2, 3), ()), ((2, 3), (3,)), ((3,), (2, 3, 2)),
                                             ((2, 2, 3), (3,)), ((2, 3), (2, 3, 4)), ((), ()))) +
    ({"x": "list"}, {"y": "list"}, {"x": "0d"}))
row("numpy.matmul", "np.matmul(x, y)", x=normal(2, 2, 3), y=normal(3, 2))
row("numpy.matmul", "np.matmul(x, y)", x=V, y=normal(2, 3, 4), note="a vector times a stack")
row("numpy.matmul", "np.matmul(x, y)", x=normal(2, 3), y=normal(3, 2), note="broadcast stacks",
    shapes=tuple({"x": a, "y": b} for a, b in (((1, 2, 3), (4, 3, 2)), ((4, 1, 2, 3), (5, 3, 2)),
                                             ((3,), (3,)), ((2, 3), (4, 3, 2)), ((3,), (4, 3, 2)),
                                             ((4, 2, 3), (3,)))) +
    ({"x": "list"}, {"y": "list"}))
row("numpy.linalg.matmul", "np.linalg.matmul(x, y)", x=normal(2, 3, 4), y=normal(4))
row("numpy.outer", "np.outer(x, y)", x=V, y=normal(2),
    shapes=({"x": ()}, {"x": "0d"}, {"x": (2, 2)}, {"x": "list"}, {"y": "list"}))
row("numpy.linalg.outer", "np.linalg.outer(x, y)", x=V, y=normal(2))
row("numpy.vdot", "np.vdot(x, y)", x=M, y=M, shapes=({"x": (6,)}, {"x": "list"}, {"x": (3, 2), "y": (6,)}))
row("numpy.inner", "np.inner(x, y)", x=M, y=normal(4, 3))
row("numpy.inner", "np.inner(x, y)", x=normal(), y=M)
row("numpy.inner", "np.inner(x, y)", x=V, y=V,
    shapes=({"x": (2, 2, 3)}, {"y": (2, 2, 3)}, {"x": "0d"}, {"x": "list"}, {"y": "list"}, {"y": ()}))
row("numpy.vecdot", "np.vecdot(x, y)", x=M, y=V)
row("numpy.vecdot", "np.vecdot(x, y$kw)", x=M, y=M, alts={"kw": ["", ", axis=0", ", axis=-2"]},
    shapes=({"x": (1, 3), "y": (2, 3)}, {"x": (2, 1, 3)}, {"x": "list"}))
row("numpy.linalg.vecdot", "np.linalg.vecdot(x, y, axis=0)", x=normal(3, 2), y=normal(3, 2))
row("numpy.tensordot", "np.tensordot(x, y)", x=normal(2, 3, 2), y=normal(3, 2, 2))
row("numpy.tensordot", "np.tensordot(x, y, axes=([0, 2], [2, 0]))", x=normal(2, 3, 2), y=normal(2, 3, 2))
row("numpy.tensordot", "np.tensordot(x, y, 0)", x=normal(2), y=V)
row("numpy.tensordot", "np.tensordot(x, y, $ax)", x=normal(2, 3, 2), y=normal(3, 2, 2),
    alts={"ax": ["([-1, -2], [1, 0])", "(-1, 1)", "([1], [0])"]}, shapes=({"x": "list"},))
row("numpy.linalg.tensordot", "np.linalg.tensordot(x, y, axes=1)", x=M, y=normal(3, 2))
row("numpy.einsum", "np.einsum('ij,jk->ik', x, y)", x=M, y=normal(3, 2))
row("numpy.einsum", "np.einsum('ii->i', x)", x=normal(3, 3))
row("numpy.einsum", "np.einsum('ii', x)", x=normal(3, 3), note="implicit output: the trace")
row("numpy.einsum", "np.einsum('i,j,k->ijk', x, y, z)", x=normal(2), y=V, z=normal(2))
row("numpy.einsum", "np.einsum('...ij,...jk', x, y)", x=normal(2, 2, 3), y=normal(3, 2))
row("numpy.einsum", "np.einsum('ij,kl->jl', x, y)", x=M, y=normal(2, 2),
    note="an index summed in one operand")
row("numpy.einsum", "np.einsum('mnd,mdo->mno', x, y)", x=normal(1, 2, 3), y=normal(4, 3, 2),
    note="NumPy broadcasts a length-1 index against a longer one", shapes=({"x": (4, 2, 3), "y": (1, 3, 2)},))
row("numpy.einsum", "np.einsum($s, x, y)", x=normal(2, 3), y=normal(3, 2),
    alts={"s": ["'...ij,...jk->...ik'", "'ij...,jk...->ik...'", "'...j,j...'", "'i...,i...->...'"]},
    shapes=({"x": (4, 2, 3), "y": (1, 3, 2)}, {"x": (1, 2, 3), "y": (4, 3, 2)}, {"x": (2, 3), "y": (4, 3, 2)},
            {"x": (2, 3, 1), "y": (3, 2, 4)}, {"x": (2, 3, 1), "y": (3, 2)}, {"x": (3,), "y": (3,)},
            {"x": "list", "y": (3, 2)}))
row("numpy.einsum", "np.einsum(x, $s)", x=normal(2, 3), y=normal(3, 2),
    alts={"s": ["[0, 1], [1, 0]", "[0, 1], y, [1, 2], [0, 2]", "[0, 1], y, [1, 0]",
                "[Ellipsis, 1], y, [1, 2]", "[0, 1], [0]"]}, note="the sublist form")
row("numpy.kron", "np.kron(x, y)", x=normal(2), y=V)
row("numpy.kron", "np.kron(x, y)", x=M, y=normal(2, 2))
# every rank combination 0..3 (a scalar, vectors, matrices, 3-d arrays), and lists
_KRON = [(), (3,), (2, 3), (2, 1, 2)]
row("numpy.kron", "np.kron(x, y)", x=normal(2), y=normal(3, 2), note="all rank combinations",
    shapes=tuple({"x": a, "y": b} for a in _KRON for b in _KRON) + ({"x": (5,), "y": (3, 1)}, {"x": "0d"},
                 {"x": "list"}, {"y": "list"}))
row("numpy.cross", "np.cross(x, y)", x=V, y=normal(2, 3))
row("numpy.cross", "np.cross(x, y)", x=normal(3, 2), y=normal(2), note="2-vectors: a scalar per row")
row("numpy.cross", "np.cross(x, y, axisa=0, axisb=1, axisc=0)", x=normal(3, 2), y=normal(2, 3))
row("numpy.cross", "np.cross(x, y$kw)", x=normal(2, 3), y=normal(3),
    alts={"kw": ["", ", axis=-1", ", axisc=0"]},
    shapes=({"x": "list"}, {"y": "list"}, {"x": (3,), "y": (2, 1, 3)}))
row("numpy.linalg.cross", "np.linalg.cross(x, y)", x=M, y=M)
row("numpy.bincount", "np.bincount(np.array([0, 2, 2, 1]), x, 5)", x=normal(4))

# -- non-differentiable: shapes, constructors, indices, random numbers ---------------------------
row("numpy.shape", "x * np.shape(x)[0]", x=V)
row("numpy.ndim", "x * np.ndim(x)", x=V)
row("numpy.size", "x * np.size(x)", x=V)
row("numpy.isscalar", "x * np.isscalar(2.0)", x=V)
row("numpy.iscomplexobj", "x * np.iscomplexobj(x)", x=V)
row("numpy.result_type", "x * (np.result_type(x) == np.float64)", x=V)
for _name in ("zeros", "ones", "empty"):
    row(f"numpy.{_name}", f"x + 0.0 * np.{_name}(3)", x=V)
row("numpy.full", "x * np.full(3, 2.0)", x=V)
row("numpy.full", "np.full((2, 3), y) * x", x=M, y=normal(), note="a differentiable fill value")
row("numpy.full", "np.full((2, 3), y)", y=V, note="a fill value broadcast along rows")
for _name in ("zeros_like", "ones_like", "empty_like"):
    row(f"numpy.{_name}", f"x + 0.0 * np.{_name}(x)", x=V)
row("numpy.full_like", "x * np.full_like(x, 2.0)", x=V)
row("numpy.full_like", "x * np.full_like(x, y)", x=V, y=normal(), note="a differentiable fill value")
row("numpy.arange", "x * np.arange(3)", x=V)
row("numpy.arange", "np.sin(np.arange(y, y + 2.5, z))", y=normal(), z=uniform(0.55, 0.6),
    note="differentiable start and step (the count does not change nearby)")
row("numpy.linspace", "x * np.linspace(0.0, 1.0, 3)", x=V)
row("numpy.linspace", "np.sin(np.linspace(x, y, 5))", x=normal(), y=normal(), note="differentiable endpoints")
row("numpy.linspace", "np.linspace(x, y, 4, False)", x=V, y=V, note="array endpoints, no endpoint")
row("numpy.logspace", "x * np.logspace(0.0, 1.0, 3)", x=V)
row("numpy.geomspace", "x * np.geomspace(1.0, 4.0, 3)", x=V)
row("numpy.eye", "x @ np.eye(3)", x=V)
row("numpy.identity", "x @ np.identity(3)", x=V)
row("numpy.tri", "np.tri(3) @ x", x=V)
row("numpy.indices", "x * np.indices((3,))[0]", x=V)
row("numpy.triu_indices", "x[np.triu_indices(3)]", x=normal(3, 3))
row("numpy.tril_indices", "x[np.tril_indices(3, -1)]", x=normal(3, 3))
row("numpy.diag_indices", "x[np.diag_indices(3)]", x=normal(3, 3))
for _name in ("argmax", "argmin", "nanargmax", "nanargmin"):
    row(f"numpy.{_name}", f"x[np.{_name}(x)]", x=normal(4))
row("numpy.argsort", "x[np.argsort(x)]", x=normal(4))
row("numpy.lexsort", "x[np.lexsort((x, x * x))]", x=normal(4))
row("numpy.nonzero", "x[np.nonzero(x > 0.0)]", x=normal(4))
row("numpy.flatnonzero", "x[np.flatnonzero(x > -10.0)]", x=normal(4))
row("numpy.argwhere", "x[np.argwhere(x > -10.0)[:, 0]]", x=normal(4))
row("numpy.searchsorted", "x * np.searchsorted(np.array([0.0, 1.0]), 0.5)", x=V)
row("numpy.digitize", "x * np.digitize(x, np.array([-0.5, 0.5]))", x=V)
row("numpy.unique", "x * np.sum(np.unique(np.array([1, 2, 2])))", x=V)
row("numpy.linalg.matrix_rank", "x * np.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))", x=V)
row("numpy.isin", "x * np.isin(np.array([1, 2, 3]), np.array([2]))", x=V)
row("numpy.any", "x * np.any(x > 0.0)", x=V)
row("numpy.all", "x * np.all(x > -10.0)", x=V)
row("numpy.count_nonzero", "x * np.count_nonzero(x > 0.0)", x=V)
row("numpy.allclose", "x * np.allclose(x, x)", x=V)
row("numpy.array_equal", "x * np.array_equal(x, x)", x=V)
for _name, _call in {"random": "random(3)", "rand": "rand(3)", "randn": "randn(3)",
                     "random_sample": "random_sample(3)", "standard_normal": "standard_normal(3)",
                     "normal": "normal(0.0, 1.0, 3)", "uniform": "uniform(0.0, 1.0, 3)",
                     "exponential": "exponential(1.0, 3)", "gamma": "gamma(2.0, 1.0, 3)",
                     "beta": "beta(2.0, 2.0, 3)", "randint": "randint(0, 5, 3)",
                     "choice": "choice(3, 3)", "permutation": "permutation(3)",
                     "poisson": "poisson(1.0, 3)", "binomial": "binomial(3, 0.5, 3)"}.items():
    row(f"numpy.random.{_name}", f"x + 0.0 * np.random.{_call}", x=V,
        note="impure: never merged or dropped; the derivative does not see the random values")
row("numpy.random.seed", "x + 0.0 * float(np.random.seed(0) is None)", x=V)
row("numpy.random.default_rng", "x + 0.0 * float(np.random.default_rng(0) is None)", x=V)

# -- ndarray methods and attributes ------------------------------------------------------------
for _call in ("sum(axis=0)", "mean()", "prod(axis=1)", "max(axis=1)", "min()", "std(ddof=1)",
              "var(axis=0)", "cumsum(axis=1)", "cumprod()", "ravel()", "flatten()", "copy()",
              "squeeze()", "swapaxes(0, 1)", "take(np.array([0, 2]))", "repeat(2, axis=0)",
              "conj()", "conjugate()", "clip(-0.5, 0.5)", "astype(np.float64)"):
    row(f"numpy.ndarray.{_call.split('(')[0]}", f"x.{_call}", x=M)
row("numpy.ndarray.reshape", "x.reshape(3, 2)", x=M)
# methods with keyword variants (the receiver of another shape where that is meaningful)
for _call in ("sum", "mean", "prod", "max", "min", "std", "var", "cumsum", "cumprod"):
    row(f"numpy.ndarray.{_call}", f"x.{_call}($kw)", x=A, shapes=({"x": (1, 4)}, {"x": "0d"}),
        fd_step=1e-5 if _call in KINKS else 1e-3,
        alts={"kw": ["axis=-1", "axis=-2" + (", keepdims=True" if not _call.startswith("cum") else ""), ""]
              + ([", ddof=1".lstrip(", "), "axis=-1, ddof=2"] if _call in ("std", "var") else [])})
row("numpy.ndarray.reshape", "x.reshape($s)", x=A, alts={"s": ["-1", "(2, -1)", "2, 2, 3", "(1, 12)"]})
row("numpy.ndarray.transpose", "x.transpose($s)", x=normal(2, 3, 2),
    alts={"s": ["(1, 0, 2)", "2, 0, 1", "-1, 0, 1"]})
row("numpy.ndarray.swapaxes", "x.swapaxes(-1, 0)", x=normal(2, 3, 2))
row("numpy.ndarray.squeeze", "x.squeeze($s)", x=normal(2, 1, 3), alts={"s": ["-2", "axis=1", "(1,)"]})
row("numpy.ndarray.take", "x.take($s)", x=M,
    alts={"s": ["[0, 2], axis=-1", "1", "np.array([[0], [1]]), axis=0"]})
row("numpy.ndarray.repeat", "x.repeat($s)", x=M, alts={"s": ["2", "[1, 2, 3], axis=-1", "2, -2"]})
row("numpy.ndarray.clip", "x.clip($s)", x=M, alts={"s": ["max=0.3", "min=-0.2", "-0.5, 0.5"]}, fd_step=1e-5)
row("numpy.ndarray.diagonal", "x.diagonal($s)", x=normal(3, 2, 4),
    alts={"s": ["1, 0, 2", "0, -1, -2", "axis1=1, axis2=0"]})
row("numpy.ndarray.trace", "x.trace($s)", x=normal(3, 2, 4), alts={"s": ["1, 0, 2", "0, -1, -2"]})
row("numpy.ndarray.dot", "x.dot(y)", x=M, y=normal(3, 2), shapes=({"y": ()}, {"y": "list"}))
row("numpy.ndarray.item", "x.item($s)", x=M, alts={"s": ["-1", "(0, 1)", "2"]})
row("numpy.ndarray.reshape", "x.reshape((6,))", x=M)
row("numpy.ndarray.transpose", "x.transpose()", x=M)
row("numpy.ndarray.transpose", "x.transpose(1, 0)", x=M)
row("numpy.ndarray.dot", "x.dot(y)", x=M, y=V)
row("numpy.ndarray.diagonal", "x.diagonal()", x=normal(3, 3))
row("numpy.ndarray.trace", "x.trace()", x=normal(3, 3))
row("numpy.ndarray.astype", "x.astype(float) * x", x=V)
row("numpy.ndarray.T", "x.T", x=M)
row("numpy.ndarray.real", "x.real", x=M)
row("numpy.ndarray.shape", "x * x.shape[0]", x=V)
row("numpy.ndarray.ndim", "x * x.ndim", x=V)
row("numpy.ndarray.size", "x * x.size", x=V)
row("numpy.ndarray.dtype", "x.astype(x.dtype)", x=V)
row("numpy.ndarray.argmax", "x[x.argmax()]", x=normal(4))
row("numpy.ndarray.argmin", "x[x.argmin()]", x=normal(4))
row("numpy.ndarray.argsort", "x[x.argsort()]", x=normal(4))
row("numpy.ndarray.nonzero", "x[(x > 0.0).nonzero()]", x=normal(4))
row("numpy.ndarray.any", "x * (x > 0.0).any()", x=V)
row("numpy.ndarray.all", "x * (x > -10.0).all()", x=V)
row("numpy.ndarray.round", "x * x.round()", x=V)

# -- numerical analysis: quadrature, polynomials, interpolation -----------------------------------
row("numpy.trapezoid", "np.trapezoid(x * x, np.array([0.0, 0.5, 1.5, 2.0]))", x=normal(4))
row("numpy.trapezoid", "np.trapezoid(x, dx=0.3, axis=0)", x=normal(3, 2), note="dx, along an axis")
row("numpy.polyval", "np.polyval(x, y)", x=normal(3), y=normal(4), note="coefficients and points")
row("numpy.polyval", "np.polyval(x, y)", x=normal(2), y=normal(), note="a float point")
row("numpy.polyder", "np.polyder(x)", x=normal(4))
row("numpy.interp", "np.interp(y, np.array([0.0, 1.0, 2.5]), x)", x=normal(3),
    y=const(np.array([0.3, 1.7, 2.2, -0.5, 3.0])), note="inside, and beyond both ends")
row("numpy.interp", "np.interp(y, np.array([0.0, 1.0, 2.5]), np.array([1.0, -2.0, 0.5]))",
    y=uniform(0.1, 0.9, 3), note="in x: the slope of the interval")
row("numpy.ndarray.item", "x.item(1) * (x[:1] * 2.0).item()", x=V)
row("numpy.ndarray.tolist", "np.array((x * x).tolist()[1:])", x=V)
