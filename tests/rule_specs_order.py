"""Spec rows for order statistics (quantile, percentile, median, partition) and the methods
of ufuncs (reduce, accumulate, outer). See rule_specs.py for the row format.

These functions are piecewise linear in their elements: the samples are normal draws (no
ties) and the variants use a small finite-difference step."""

from rule_specs import helper, normal, row, uniform

A = normal(3, 4)
V = normal(4)
STEP = 1e-5

# -- quantiles ---------------------------------------------------------------------------------
_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
            "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
            "normal_unbiased")
row("numpy.quantile", "np.quantile(x, 0.3)", x=V)
row("numpy.quantile", "np.quantile(x, 0.3$kw)", x=A, fd_step=STEP,
    alts={"kw": ["", ", axis=0", ", axis=-1", ", axis=1, keepdims=True", ", axis=(0, 1)",
                 ", keepdims=True"] + [f", axis=1, method='{m}'" for m in _METHODS]},
    shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "0d"}, {"x": "list"}, {"x": (2, 3, 4)}))
row("numpy.quantile", "np.quantile(x, [0.1, 0.5, 0.95], axis=1)", x=A, note="several q: q's axis first")
row("numpy.quantile", "np.quantile(x, np.array([[0.2], [0.7]]), axis=0, keepdims=True)", x=A)
for _m in _METHODS:
    row("numpy.quantile", f"np.quantile(x, 0.4, method='{_m}')", x=normal(7))
row("numpy.percentile", "np.percentile(x, 30.0)", x=V)
row("numpy.percentile", "np.percentile(x, $q)", x=A, fd_step=STEP,
    alts={"q": ["30.0", "[10.0, 90.0], axis=1", "50.0, axis=0, keepdims=True", "75, method='midpoint'"]},
    shapes=({"x": (4,)}, {"x": "0d"}, {"x": "list"}))
row("numpy.median", "np.median(x)", x=V, note="an even count: the mean of the middle two")
row("numpy.median", "np.median(x)", x=normal(5), note="an odd count: the middle element")
row("numpy.median", "np.median(x$kw)", x=A, fd_step=STEP,
    alts={"kw": ["", ", axis=0", ", axis=-1, keepdims=True", ", axis=(0, 1)"]},
    shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "0d"}, {"x": "list"}))
row("numpy.median", "np.median(x * 0.0 + np.array([1.0, 2.0, 2.0, 3.0]))", x=V,
    note="a tie of the middle two: half each")
# the NaN-ignoring ones: rows with 0, 1 and 3 NaNs (each row counts its numbers only)
_HOLES = "np.where(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1]]) == 1, np.nan, x)"
row("numpy.nanquantile", f"np.nanquantile({_HOLES}, 0.3$kw)", x=A, fd_step=STEP,
    alts={"kw": ["", ", axis=1", ", axis=0, keepdims=True", ", axis=1, method='hazen'",
                 ", axis=1, method='nearest'"]})
row("numpy.nanquantile", f"np.nanquantile({_HOLES}, [0.2, 0.9], axis=1)", x=A)
row("numpy.nanquantile", "np.nanquantile(x, 0.3)", x=V, note="no NaN")
row("numpy.nanpercentile", f"np.nanpercentile({_HOLES}, $q)", x=A, fd_step=STEP,
    alts={"q": ["30.0", "[10.0, 90.0], axis=1", "50.0, axis=0, keepdims=True"]})
row("numpy.nanmedian", f"np.nanmedian({_HOLES}$kw)", x=A, fd_step=STEP,
    alts={"kw": ["", ", axis=1", ", axis=0", ", axis=-1, keepdims=True"]})
row("numpy.nanmedian", "np.nanmedian(x)", x=V, note="no NaN")
helper("srcad.quantile_tangent", "rt.quantile_tangent(x, y, 0.3, 1, 'linear', False)", x=A, y=A)
_HOLES_Y = _HOLES.replace("x)", "y)")
helper("srcad.quantile_tangent", f"rt.quantile_tangent(x, {_HOLES_Y}, 0.6, 1, 'linear', False, True)",
       x=A, y=A)
helper("srcad.quantile_adjoint", "rt.quantile_adjoint(x, y, [0.2, 0.6], 0, 'hazen', True)",
       x=normal(2, 1, 4), y=A)

# -- partition ---------------------------------------------------------------------------------
row("numpy.partition", "np.partition(x, 1)", x=V)
row("numpy.partition", "np.partition(x, $k)", x=A, fd_step=STEP,
    alts={"k": ["1", "2, axis=0", "(0, 3), axis=-1", "5, axis=None", "-1"]},
    shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "list"}))
row("srcad.partition_order", "x[rt.partition_order(x, np.partition(x, 2), -1)]", x=V,
    imports="import srcad.runtime as rt")
row("numpy.argpartition", "x[np.argpartition(x, 2)]", x=V)

# -- ufunc.reduce ------------------------------------------------------------------------------
for _name, _dom in (("add", A), ("multiply", A), ("maximum", A), ("minimum", A)):
    row(f"numpy.{_name}.reduce", f"np.{_name}.reduce(x)", x=_dom)
    row(f"numpy.{_name}.reduce", f"np.{_name}.reduce(x$kw)", x=_dom, fd_step=STEP,
        alts={"kw": ["", ", axis=1", ", axis=-1, keepdims=True", ", axis=None"]
              + ([", 0, None, None, True"] if _name in ("add", "multiply") else [])},
        shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "list"}, {"x": (2, 3, 4)}))
row("numpy.maximum.reduce", "np.maximum.reduce(x * 0.0 + np.array([1.0, 3.0, 3.0, 2.0]))", x=V,
    note="a tie: half each")
for _name, _init in (("add", "1.5"), ("multiply", "1.5"), ("maximum", "-5.0"), ("minimum", "5.0")):
    row(f"numpy.{_name}.reduce", f"np.{_name}.reduce(x$kw)", x=A, fd_step=STEP,
        alts={"kw": [f", where=np.array([True, False, True, True]), initial={_init}",
                     f", axis=1, where=np.array([[True], [False], [True]]), initial={_init}",
                     f", axis=None, keepdims=True, initial={_init}"]}, note="where= and initial=")

# -- ufunc.accumulate --------------------------------------------------------------------------
for _name in ("add", "multiply", "maximum", "minimum"):
    row(f"numpy.{_name}.accumulate", f"np.{_name}.accumulate(x)", x=V)
    row(f"numpy.{_name}.accumulate", f"np.{_name}.accumulate(x$kw)", x=A, fd_step=STEP,
        alts={"kw": ["", ", axis=1", ", axis=-1", ", 0"]},
        shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "list"}, {"x": (2, 3, 4)}))
row("numpy.maximum.accumulate", "np.maximum.accumulate(x * 0.0 + np.array([1.0, 3.0, 3.0, 2.0]))", x=V,
    note="a tie: the first element that reached the maximum")
row("numpy.multiply.accumulate", "np.multiply.accumulate(x * np.array([1.0, 0.0, 1.0, 1.0]))", x=V,
    note="at 0")
row("srcad.running_extreme_index",
    "x[rt.running_extreme_index(x, np.minimum.accumulate(x), 0)]", x=V, imports="import srcad.runtime as rt")

# -- ufunc.reduceat: segments [0, 2), [2, 3), [3, ...); a decreasing index gives one element ---
for _name in ("add", "maximum", "minimum"):
    row(f"numpy.{_name}.reduceat", f"np.{_name}.reduceat(x, [0, 2, 3])", x=normal(5))
    row(f"numpy.{_name}.reduceat", f"np.{_name}.reduceat(x, $kw)", x=normal(3, 5), fd_step=STEP,
        alts={"kw": ["[0, 2, 3], axis=1", "[1, 0, 2], axis=-1", "np.array([0, 2]), axis=0", "[0, 3], 1"]})
row("numpy.maximum.reduceat", "np.maximum.reduceat(x * 0.0 + np.array([1.0, 3.0, 3.0, 2.0]), [0, 3])", x=V,
    note="a tie: half each")
row("numpy.add.reduceat", "np.add.reduceat(x, [0, 2], axis=1)", x=normal(2, 4, 3), note="3-d")
row("numpy.maximum.reduceat", "np.maximum.reduceat(x, [0, 2], axis=1)", x=normal(2, 4, 3), note="3-d")
helper("srcad.reduceat_tangent", "rt.reduceat_tangent(x, y, [0, 2], 1, np.maximum.reduceat(y, [0, 2], 1), "
       "'maximum')", x=A, y=A)
helper("srcad.reduceat_adjoint", "rt.reduceat_adjoint(x, y, [0, 2], 1, np.add.reduceat(y, [0, 2], 1), 'add')",
       x=normal(3, 2), y=A)

# -- ufunc.outer -------------------------------------------------------------------------------
P = uniform(0.5, 2.0, 3)
for _name, _y in (("add", V), ("subtract", V), ("multiply", V), ("divide", P), ("maximum", V),
                  ("minimum", V)):
    row(f"numpy.{_name}.outer", f"np.{_name}.outer(x, y)", x=normal(3), y=_y)
    row(f"numpy.{_name}.outer", f"np.{_name}.outer(x, y)", x=normal(2, 3), y=_y, fd_step=STEP,
        shapes=({"x": "0d"}, {"y": "0d"}, {"x": (1,)}, {"x": "list"}, {"y": (1, 3)}, {"x": (), "y": ()}))
row("numpy.maximum.outer", "np.maximum.outer(x * 0.0 + np.array([1.0, 2.0]), y * 0.0 + np.array([2.0, 0.0]))",
    x=normal(2), y=normal(2), note="a tie: half each")
row("srcad.outer_axes", "x * np.sum(np.ones((2, 3)), axis=rt.outer_axes(np.ones(2), np.ones(3)))",
    x=normal(2), imports="import srcad.runtime as rt")

# -- sorting lists: sorted(xs) and xs.sort() (transforms/sequences.py) ------------------------
helper("srcad.list_permute", "np.array(rt.list_permute([x[0], x[1] * x[2], x[2]], [2, 0, 1]))", x=normal(3))
helper("srcad.list_unpermute", "np.array(rt.list_unpermute([x[0], x[1] * x[2], x[2]], [2, 0, 1]))",
       x=normal(3))

# -- where= and initial= of reductions (numpy_arrays) -------------------------------------------
_W = "np.array([[True, False, True, True]])"
for _name in ("sum", "mean", "prod", "max", "min", "amax", "amin"):
    _init = "" if _name == "mean" else (", initial=-5.0" if "max" in _name else
                                        (", initial=5.0" if "min" in _name else ", initial=1.5"))
    row(f"numpy.{_name}", f"np.{_name}(x, where={_W}{_init})", x=A, note="where= and initial=")
    row(f"numpy.{_name}", f"np.{_name}(x$kw)", x=A, fd_step=STEP,
        alts={"kw": [f", where={_W}{_init}", f", axis=1, where={_W}{_init}",
                     f", axis=0, keepdims=True, where={_W}{_init}", _init or ", where=True",
                     f", None, None, None, False{', ' + _init[10:] if _init else ''}"]},
        shapes=({"x": (1, 4)}, {"x": (2, 3, 4)}, {"x": "list"}))
row("numpy.max", "np.max(x, initial=10.0)", x=A, note="the result is initial: derivative 0")
row("numpy.ndarray.sum", "x.sum(axis=0, where=np.array([True, False, True, True]))", x=A)
