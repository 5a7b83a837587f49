"""Spec rows for numpy's cov, corrcoef and meshgrid (source implementations:
srcad/rules/numpy_statistics.py). See rule_specs.py for the row format."""

from rule_specs import normal, row

A = normal(3, 5)

# -- cov: m 1-d or 2-d, y, rowvar, bias, ddof ----------------------------------------------------
row("numpy.cov", "np.cov(x$kw)", x=A,
    alts={"kw": ["", ", rowvar=False", ", bias=True", ", ddof=0", ", ddof=2", ", rowvar=False, ddof=3",
                 ", None, False", ", None, True, True", ", bias=True, ddof=1"]},
    shapes=({"x": (5,)}, {"x": (1, 5)}, {"x": (2, 3)}, {"x": "list"}))
row("numpy.cov", "np.cov(x, y$kw)", x=normal(2, 5), y=normal(5), alts={"kw": ["", ", bias=True", ", ddof=3"]},
    shapes=({"x": (5,)}, {"y": (3, 5)}, {"x": "list", "y": "list"}), note="two sets of variables")
row("numpy.cov", "np.cov(x, y, rowvar=False$kw)", x=normal(5, 2), y=normal(5, 3),
    alts={"kw": ["", ", ddof=0"]}, shapes=({"y": (5,)}, {"x": (5,), "y": (5,)}), note="columns are variables")
row("numpy.cov", "np.cov(x) * x", x=normal(4), note="one variable: a 0-d result")

# -- corrcoef: cov divided by the standard deviations, clipped to [-1, 1] ------------------------
row("numpy.corrcoef", "np.corrcoef(x$kw)", x=A, alts={"kw": ["", ", rowvar=False", ", None, False"]},
    shapes=({"x": (2, 6)}, {"x": (4, 3)}, {"x": "list"}))
row("numpy.corrcoef", "np.corrcoef(x, y$kw)", x=normal(6), y=normal(6), alts={"kw": ["", ", rowvar=False"]},
    shapes=({"x": (2, 6)}, {"x": (2, 6), "y": (3, 6)}, {"y": "list"}), note="two sets of variables")
row("numpy.corrcoef", "np.corrcoef(x, y, rowvar=False)", x=normal(6, 2), y=normal(6, 3))
row("numpy.corrcoef", "np.corrcoef(x) * x", x=normal(4), note="one variable: c / c, a 0-d 1.0")

# -- meshgrid: 1 to 3 arrays, both indexings, sparse or not, copied or not -----------------------
row("numpy.meshgrid", "np.meshgrid(x, y$kw)", x=normal(3), y=normal(4),
    alts={"kw": ["", ", indexing='ij'", ", copy=False", ", indexing='xy', copy=True"]},
    shapes=({"x": (1,)}, {"x": (2, 2)}, {"x": "list"}, {"x": "0d"}))
row("numpy.meshgrid", "np.meshgrid(x, y, z$kw)", x=normal(3), y=normal(2), z=normal(4),
    alts={"kw": ["", ", indexing='ij'"]}, note="three arrays")
row("numpy.meshgrid", "np.meshgrid(x)", x=normal(3), shapes=({"x": (2, 3)},), note="one array")
row("numpy.meshgrid", "np.meshgrid(x, y, sparse=True$kw)", x=normal(3), y=normal(4),
    alts={"kw": ["", ", indexing='ij'", ", copy=False"]}, reduce="np.sum(np.sin(out[0]) * out[1] ** 2)",
    note="sparse: arrays of different shapes (a list for copy=False)")
row("numpy.meshgrid", "np.meshgrid(x, y, z, sparse=True$kw)", x=normal(3), y=normal(2), z=normal(4),
    alts={"kw": ["", ", indexing='ij'"]}, reduce="np.sum(np.sin(out[0]) * out[1] ** 2 * np.cos(out[2]))")
