"""Every rule that gives no derivative must be right to: a non-differentiable rule's results
must be locally constant in its float inputs (rounding, comparisons, argmax, shapes), or a
differentiated input must be an error (`refuses=`). A float result that moves with a float
input (np.unique's values used to) would otherwise get a silent zero derivative.

Each non-differentiable rule is called at random points and again with every float input
that a derivative may reach moved by a tiny random step: every result must stay exactly the
same. Rules are called with random float arrays (or floats) for their required parameters,
or with the arguments in PROBES; EXEMPT says why a rule cannot be checked this way. A new
non-differentiable rule must pass, or be listed with a reason.

The second test does the same for the parameters of differentiable rules that have no
derivative template (and are not refused): copysign's sign argument, heaviside's x1, ...
"""

from __future__ import annotations

import operator
import zlib

import numpy as np
import pytest

from srcad.rules.registry import RULES, load_all

load_all()

_R = np.random.default_rng


def _sorted(rng, n=5):
    return np.sort(rng.normal(size=n))


# explicit arguments (as a function of a random generator) where random float arrays do not fit
PROBES = {
    "builtins.hasattr": lambda rng: (rng.normal(size=3), "shape"),
    "builtins.isinstance": lambda rng: (rng.normal(), float),
    "builtins.str": lambda rng: (rng.normal(),),
    "builtins.divmod": lambda rng: (rng.normal(), 0.7),
    "numpy.digitize": lambda rng: (rng.normal(size=5), _sorted(rng)),
    "srcad.irfft_weights": lambda rng: (rng.normal(size=(2, 4)), None, (1,)),
    "numpy.searchsorted": lambda rng: (_sorted(rng), rng.normal(size=4)),
    "numpy.result_type": lambda rng: (rng.normal(size=3),),
    "numpy.linalg.matrix_rank": lambda rng: (rng.normal(size=(3, 4)),),
    "srcad.zero_item": lambda rng: ([rng.normal(size=3), rng.normal()], 0),
    "srcad.check_length": lambda rng: ([rng.normal(), rng.normal()], 2),
    "srcad.diagonal_index": lambda rng: (rng.normal(size=(3, 4)), rng.normal(), "f.py:1"),
    "srcad.check_unpack": lambda rng: ([rng.normal(), rng.normal()], 2, False),
    "srcad.svd_rank": lambda rng: (rng.normal(size=(3, 4)), False),
    "srcad.lu_rows": lambda rng: (np.array([2, 2, 2]),),
    "srcad.write_winners": lambda rng: (rng.normal(size=4), np.array([0, 0, 2])),
    "srcad.einsum_spec": lambda rng: (rng.normal(size=2), [0], [0]),
    "srcad.not_in": lambda rng: (0.5, [rng.normal(), 0.25]),
    "operator.contains": lambda rng: ([rng.normal(), 0.25], 0.5),
    "operator.floordiv": lambda rng: (rng.normal(size=5), 0.7),
    "operator.ifloordiv": lambda rng: (rng.normal(size=5), 0.7),
    "numpy.geomspace": lambda rng: (rng.uniform(1.0, 2.0), rng.uniform(3.0, 4.0)),
    "srcad.trapezoid_weights": lambda rng: (rng.normal(size=4), np.arange(4.0)),
    "numpy.argpartition": lambda rng: (rng.normal(size=5), 2),
    "srcad.partition_order": lambda rng: (lambda a: (a, np.partition(a, 2)))(rng.normal(size=5)),
    "srcad.rolled_axis": lambda rng: (3, 0, 2),
    "srcad.loop_trips": lambda rng: (0, 9, 2),
    "srcad.segment_bound": lambda rng: (1, 2, 3, 10, 2),
    "srcad.select_rest": lambda rng: ([rng.normal(size=3) > 0.0, rng.normal(size=3) > 0.5],),
    "srcad.batch_copies": lambda rng: (rng.normal(size=3), 4),
    "srcad.example_of": lambda rng: ([rng.normal(size=(4, 3)), rng.normal(size=4)], 2),
}

_NO_FLOAT = "its parameters cannot be floats (Python or NumPy refuse them)"
_BITWISE = "bitwise: floats are refused by Python and NumPy"
EXEMPT = {
    "builtins.range": _NO_FLOAT,
    "builtins.slice": "a slice object (indexing with float bounds fails)",
    "builtins.print": "no result",
    "srcad.shape_error": "no result: it raises ShapeError where it runs (transforms/shape_checks.py)",
    "math.comb": _NO_FLOAT,
    "math.factorial": _NO_FLOAT,
    "math.gcd": _NO_FLOAT,
    "list.index": "an int: a position found by comparing items",
    "list.count": "an int: a count found by comparing items",
    "numpy.empty": "no float input (a shape); its values are not initialised",
    "numpy.empty_like": "its values are not initialised (only a's shape and dtype are read)",
    "numpy.zeros": _NO_FLOAT, "numpy.ones": _NO_FLOAT, "numpy.eye": _NO_FLOAT,
    "numpy.identity": _NO_FLOAT, "numpy.tri": _NO_FLOAT, "numpy.indices": _NO_FLOAT,
    "numpy.triu_indices": _NO_FLOAT, "numpy.tril_indices": _NO_FLOAT, "numpy.diag_indices": _NO_FLOAT,
    "numpy.random.seed": _NO_FLOAT, "numpy.random.default_rng": _NO_FLOAT,
    "srcad.inverse_axes": "a permutation of ints",
    "srcad.stop_gradient": "its purpose: x with no derivative, as the user asks",
    "srcad.shift_invariant": "marks a max no output depends on (passes/shifts.py): its derivative is 0",
    "srcad.global": "reads a global variable (the value comes from outside, not from an argument)",
    "srcad.cell": "reads a closure variable (the value comes from outside, not from an argument)",
    "srcad.arg_cell": "reads a value a function argument captured (f.__closure__[k]), not a float",
    "srcad.arg_partial": "reads a value a partial given as an argument binds (f.keywords[key])",
    "srcad.slice": "a slice object",
    "srcad.format": "a string",
    "srcad.assert": "no result",
    "srcad.raise": "no result",
    "srcad.unbound": "raises UnboundLocalError whatever its arguments (a read no path assigned)",
    "srcad.known": "no result (a run-time type check)",
    "srcad.check_type": "no result (SRCAD_DEBUG=types: a run-time type check)",
    "srcad.check_leaf": "no result (a run-time type check of a vmap form's results)",
    "srcad.custom": "custom_vjp/custom_jvp calls: differentiated through the user's rules",
    "srcad.running_extreme_index": "which element each of ans = np.maximum.accumulate(a) is: constant "
                                   "while a and ans move together (tests/test_sorting.py)",
    **{f"operator.{op}": _BITWISE for op in ("and_", "or_", "xor", "lshift", "rshift", "invert",
                                            "iand", "ior", "ixor", "ilshift", "irshift")},
}


def _random_draw(name: str) -> bool:
    return name.startswith("numpy.random.") and name not in ("numpy.random.seed", "numpy.random.default_rng")


def _callable(rule):
    """The function a rule stands for (methods and operators have no `fn`)."""
    if rule.fn is not None:
        return rule.fn
    module, _, attr = rule.name.rpartition(".")
    if module == "operator":
        return getattr(operator, attr)
    if rule.name == "srcad.not_in":
        return lambda x, y: x not in y
    if module == "numpy.ndarray":
        return lambda x, *args: (getattr(x, attr)(*args) if callable(getattr(x, attr)) else getattr(x, attr))
    return None


def _arguments(name, rule, rng):
    """Arguments for a call: a probe, or random float arrays (then floats) for the required ones."""
    if name in PROBES:
        return [PROBES[name](rng)]
    required = [p for p in rule.params if p not in rule.defaults] or ["x"]
    return [tuple(rng.normal(size=5) for _ in required), tuple(float(rng.normal()) for _ in required)]


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def _floaty(v) -> bool:
    return isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")


def _same(a, b) -> bool:
    la, lb = _leaves(a), _leaves(b)
    if len(la) != len(lb):
        return False
    for u, v in zip(la, lb):
        if isinstance(u, (np.ndarray, np.generic, int, float, bool)):
            if np.shape(u) != np.shape(v) or not np.array_equal(np.asarray(u), np.asarray(v), equal_nan=True):
                return False
    return True


def _nudged(v, rng, step=1e-7):
    if isinstance(v, (list, tuple)):
        return type(v)(_nudged(e, rng, step) for e in v)
    return v + step * (rng.normal(size=np.shape(v)) if isinstance(v, np.ndarray) else float(rng.normal()))


def _moved(args, i, rng):
    out = list(args)
    out[i] = _nudged(args[i], rng)
    return tuple(out)


def _call(fn, args):
    return fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])  # (x //= y updates x)


def check_locally_constant(fn, args, movable, rng, what):
    """fn(*args) stays the same when each argument in `movable` (positions of float inputs)
    moves a little, at several random directions."""
    base = _call(fn, args)
    for i in movable:
        for _ in range(3):
            moved = _call(fn, _moved(args, i, rng))
            assert _same(base, moved), f"{what}: the result moves with its float input {i}, " \
                "so it needs a derivative rule or refuses=(...) for that parameter"


NONDIFF = sorted(n for n, r in RULES.items() if not r.differentiable and not r.structural and not r.opaque)


def test_every_nondifferentiable_rule_is_checked_or_exempt():
    unknown = sorted((set(EXEMPT) | set(PROBES)) - set(RULES))
    assert not unknown, f"EXEMPT/PROBES name rules that are not registered: {unknown}"
    for name in NONDIFF:
        if name in EXEMPT or _random_draw(name):
            continue
        assert _callable(RULES[name]) is not None, f"{name}: give it a probe in PROBES or a reason in EXEMPT"


@pytest.mark.parametrize("name", [n for n in NONDIFF if n not in EXEMPT])
def test_nondifferentiable_results_are_locally_constant(name):
    rule = RULES[name]
    if _random_draw(name):
        # its float parameters are refused; what it draws does not depend on anything else
        assert set(rule.refuses) == {p for p in rule.params if p not in ("size", "dtype")}, name
        return
    fn = _callable(rule)
    rng = _R(zlib.crc32(name.encode()))
    errors = []
    for args in _arguments(name, rule, rng):
        try:
            _call(fn, args)
        except Exception as e:  # noqa: BLE001 (try the next kind of argument)
            errors.append(f"{type(e).__name__}: {e}")
            continue
        names = list(rule.params) or [str(i) for i in range(len(args))]
        movable = [i for i, v in enumerate(args)
                   if _floaty(v) and (i >= len(names) or names[i] not in rule.refuses)]
        check_locally_constant(fn, args, movable, rng, name)
        return
    pytest.fail(f"{name}: could not be called with random floats ({errors}); add a probe to PROBES "
                "or a reason to EXEMPT")


# -- parameters of differentiable rules that get no derivative ---------------------------------

#: names of parameters that are never float values NumPy accepts (axes, shapes, flags, modes)
STRUCTURAL = {"axis", "axes", "axis1", "axis2", "axisa", "axisb", "axisc", "keepdims", "dtype", "out",
              "order", "shape", "kind", "UPLO", "upper", "full_matrices", "endpoint", "num", "copy", "mode",
              "ord", "offset", "indices", "indices_or_sections", "repeats", "reps", "shift", "source",
              "destination", "idx", "which", "subscripts", "minlength", "equal_nan", "return_index",
              "return_inverse", "return_counts", "pad_width", "name", "ndmin", "where",
              # scipy.linalg's and scipy.signal's flags and modes, and their helpers' shapes
              "lower", "trans", "unit_diagonal", "transposed", "eigvals_only", "compute_expm",
              "return_rank", "pivoting", "check_finite", "overwrite_a", "overwrite_b", "overwrite_ab",
              "permute_l", "p_indices", "lapack_driver", "boundary", "l_and_u", "shape1", "shape2",
              "convention"}
_INT = "an int (NumPy, SciPy or Python refuse a float there)"
_ONLY_SHAPE = "only its shape, length or keys are read"
_SELECTS = "which elements equal the maximum (best = max(xs)): constant while they move together"


def _rt(name):
    import srcad.runtime as rt
    return getattr(rt, name)


# (rule, parameter) -> (function, arguments, position of the parameter) from a generator, or a reason
SILENT = {
    ("math.copysign", "y"): lambda r: (RULES["math.copysign"].fn, (r.normal(), r.normal()), 1),
    ("numpy.copysign", "y"): lambda r: (np.copysign, (r.normal(size=4), r.normal(size=4)), 1),
    ("numpy.heaviside", "x1"): lambda r: (np.heaviside, (r.normal(size=4), r.normal(size=4)), 0),
    ("numpy.arange", "stop"): lambda r: (np.arange, (0.25, 3.0 + r.uniform(0.01, 0.09), 0.5), 1),
    ("numpy.linalg.lstsq", "rcond"):
        lambda r: (np.linalg.lstsq, (r.normal(size=(4, 3)), r.normal(size=4), 0.1), 2),
    ("numpy.where", "condition"):
        lambda r: (np.where, (r.normal(size=4), r.normal(size=4), r.normal(size=4)), 0),
    ("numpy.full_like", "a"): lambda r: (np.full_like, (r.normal(size=3), 2.5), 0),
    ("srcad.tie_div", "tol"): lambda r: (_rt("tie_div"), (r.normal(size=3), np.array([0.0, 1e-3, 1.0]),
                                                          r.uniform(0.01, 0.1)), 2),
    ("srcad.interp_slope", "x"): lambda r: (_rt("interp_slope"), (r.uniform(0.1, 2.9, 4), np.arange(4.0),
                                                                  r.normal(size=4)), 0),
    ("srcad.select_adjoint", "xs"): _SELECTS, ("srcad.select_adjoint", "best"): _SELECTS,
    ("srcad.select_tangent", "xs"): _SELECTS, ("srcad.select_tangent", "best"): _SELECTS,
    ("operator.setitem", "old"): lambda r: (_rt("setitem"), ([0.0, 1.0], 0, r.normal(), r.normal()), 3),
    ("srcad.setitem", "old"): lambda r: (_rt("setitem"), ([0.0, 1.0], 0, r.normal(), r.normal()), 3),
    ("srcad.unique_tangent", "ar"):
        lambda r: (_rt("unique_tangent"), (r.normal(size=4), r.normal(size=4)), 1),
    ("srcad.unique_adjoint", "ar"):
        lambda r: (_rt("unique_adjoint"), (r.normal(size=4), r.normal(size=4)), 1),
    ("srcad.polyval_adjoint", "p"): lambda r: (_rt("polyval_adjoint"), (r.normal(size=2), r.normal(size=3),
                                                                        r.normal(size=2)), 1),
    ("srcad.average_weights", "a"):
        lambda r: (_rt("average_weights"), (r.normal(size=3), r.normal(size=(2, 3)), 1), 1),
    ("srcad.average_weights_adjoint", "w"):
        lambda r: (_rt("average_weights_adjoint"), (r.normal(size=(2, 3)), r.normal(size=3), 1), 1),
    ("srcad.expand_reduced", "x"):
        lambda r: (_rt("expand_reduced"), (r.normal(size=3), r.normal(size=(2, 3)), 0), 1),
    ("srcad.unbroadcast", "x"): lambda r: (_rt("unbroadcast"), (r.normal(size=(2, 3)), r.normal(size=3)), 1),
    ("srcad.broadcast_like", "like"):
        lambda r: (_rt("broadcast_like"), (r.normal(size=3), r.normal(size=(2, 3))), 1),
    ("srcad.take_adjoint", "a"):
        lambda r: (_rt("take_adjoint"), (r.normal(size=2), r.normal(size=4), np.array([0, 2])), 1),
    ("srcad.take_along_adjoint", "arr"):
        lambda r: (_rt("take_along_adjoint"), (r.normal(size=(2, 1)), r.normal(size=(2, 3)),
                                               np.array([[0], [2]]), 1), 1),
    ("srcad.pad_adjoint", "array"):
        lambda r: (_rt("pad_adjoint"), (r.normal(size=5), r.normal(size=3), 1, "edge"), 1),
    ("srcad.untile", "a"): lambda r: (_rt("untile"), (r.normal(size=6), r.normal(size=2), (3,)), 1),
    ("srcad.unrepeat", "a"): lambda r: (_rt("unrepeat"), (r.normal(size=6), r.normal(size=3), 2), 1),
    ("srcad.diag_adjoint", "v"):
        lambda r: (_rt("diag_adjoint"), (r.normal(size=(3, 3)), r.normal(size=3), 0), 1),
    ("srcad.diagonal_adjoint", "a"):
        lambda r: (_rt("diagonal_adjoint"), (r.normal(size=2), r.normal(size=(3, 3)), 1), 1),
    ("srcad.array_adjoint", "x"):
        lambda r: (_rt("array_adjoint"), (r.normal(size=2), [r.normal(), r.normal()]), 1),
    ("srcad.sum_adjoint", "x"): lambda r: (_rt("sum_adjoint"), (r.normal(), r.normal(size=3)), 1),
    ("srcad.split_like", "arrays"):
        lambda r: (_rt("split_like"), (r.normal(size=5), [r.normal(size=2), r.normal(size=3)]), 1),
    ("srcad.join_like", "arrays"): lambda r: (_rt("join_like"), ([r.normal(size=2), r.normal(size=3)],
                                                                 np.zeros(5)), 1),
    ("srcad.unstack_like", "arrays"):
        lambda r: (_rt("unstack_like"), (r.normal(size=(2, 3)), r.normal(size=(3, 2)), 1), 1),
    ("srcad.sequence_adjoint", "x"):
        lambda r: (_rt("sequence_adjoint"), ([r.normal(), r.normal()], r.normal(size=2)), 1),
    ("numpy.diag", "k"): _INT, ("numpy.diagflat", "k"): _INT, ("numpy.tril", "k"): _INT,
    ("numpy.triu", "k"): _INT, ("numpy.rot90", "k"): _INT, ("numpy.diff", "n"): _INT,
    ("numpy.ldexp", "x2"): _INT, ("numpy.bincount", "x"): _INT,
    ("numpy.ndarray.item", "i"): _INT, ("list.insert", "i"): _INT, ("srcad.list_insert", "i"): _INT,
    ("srcad.list_pop_at", "i"): _INT, ("srcad.list_repeat", "n"): _INT, ("srcad.diag_adjoint", "k"): _INT,
    ("srcad.diff_adjoint", "n"): _INT, ("srcad.einsum_vjp", "k"): _INT,
    ("scipy.special.multigammaln", "d"): _INT, ("numpy.linalg.matrix_power", "n"): _INT,
    ("scipy.signal.convolve2d", "fillvalue"): "accepted only as the literal 0 (Rule.accepts)",
    ("scipy.signal.correlate2d", "fillvalue"): "accepted only as the literal 0 (Rule.accepts)",
    ("scipy.stats.multivariate_normal.logpdf", "allow_singular"): "a flag (its value does not change the "
    "density of a positive definite cov; a singular one raises LinAlgError: tests/test_scipy_stats.py)",
    ("scipy.stats.multivariate_normal.pdf", "allow_singular"): "a flag, as for logpdf",
    ("srcad.list_unrepeat", "x"): _ONLY_SHAPE, ("srcad.list_unextend", "ys"): _ONLY_SHAPE,
    ("srcad.iter_adjoint", "x"): _ONLY_SHAPE, ("srcad.dict_like", "d"): _ONLY_SHAPE,
    ("srcad.items_cotangent", "d"): _ONLY_SHAPE,
    ("operator.setitem", "added"): "a constant flag srcad passes (the write adds a dict key)",
    ("srcad.own_argument", "others"): "the other arguments, only checked not to share x's memory (its copy's "
                                      "values are x's)",
    ("srcad.setitem", "added"): "a constant flag srcad passes (the write adds a dict key)",
    ("srcad.without_key", "key"): "a dict key (a constant str)",
    ("srcad.custom_cotangents", "args"): _ONLY_SHAPE,
    ("numpy.einsum", "optimize"): "a flag: the order NumPy contracts in, not the value",
    ("numpy.gradient", "edge_order"): _INT, ("srcad.gradient_adjoint", "edge_order"): _INT,
    ("srcad.gradient_adjoint", "f"): _ONLY_SHAPE,
    ("numpy.linalg.svd", "compute_uv"): "a literal flag: how many results",
    ("scipy.linalg.svd", "compute_uv"): "a literal flag: how many results",
    ("scipy.signal.convolve", "method"): "a method name (a string)",
    **{(_f, "rowvar"): "a flag (a bool)" for _f in ("numpy.cov", "numpy.corrcoef")},
    ("numpy.cov", "bias"): "a flag (a bool)",
    **{("numpy.cov", _p): "weights: refused unless None (NoRuleError)" for _p in ("fweights", "aweights")},
    ("numpy.meshgrid", "sparse"): "a flag (a bool)", ("numpy.meshgrid", "indexing"): "'xy' or 'ij'",
    **{("scipy.linalg.eigh", _p): "accepted only as None" for _p in ("b", "subset_by_value")},
    **{("scipy.linalg.pinv", _p): "accepted only as None" for _p in ("atol", "rtol")},
    ("scipy.special.logsumexp", "return_sign"): "a flag (a bool): whether the sign comes back too",
    ("scipy.signal.correlate", "method"): "a method name (a string)",
    **{(f"numpy.{_n}", "overwrite_input"): "a flag: may NumPy reuse a's memory"
       for _n in ("median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile")},
    **{(_n, "method"): "a method name (a string)" for _n in (
        "numpy.percentile", "numpy.quantile", "numpy.nanpercentile", "numpy.nanquantile",
        "srcad.quantile_tangent", "srcad.quantile_adjoint")},
    **{(f"srcad.quantile_{_n}", "nan"): "a constant flag srcad passes (the NaN-ignoring functions)"
       for _n in ("tangent", "adjoint")},
    **{(f"srcad.reduceat_{_n}", "op"): "the ufunc's name (a constant string srcad passes)"
       for _n in ("tangent", "adjoint")},
    ("srcad.reduceat_tangent", "a"): lambda r: (_rt("reduceat_tangent"), (
        r.normal(size=5), r.normal(size=5), [0, 2], 0, np.array([3.0, 3.0]), "add"), 1),
    ("srcad.reduceat_tangent", "y"): lambda r: (_rt("reduceat_tangent"), (
        r.normal(size=5), r.normal(size=5), [0, 2], 0, np.array([3.0, 3.0]), "add"), 4),
    ("srcad.reduceat_adjoint", "a"): lambda r: (_rt("reduceat_adjoint"), (
        r.normal(size=2), r.normal(size=5), [0, 2], 0, np.array([3.0, 3.0]), "add"), 1),
    ("srcad.reduceat_adjoint", "y"): lambda r: (_rt("reduceat_adjoint"), (
        r.normal(size=2), r.normal(size=5), [0, 2], 0, np.array([3.0, 3.0]), "add"), 4),
    ("numpy.partition", "kth"): _INT, ("numpy.rollaxis", "start"): _INT,
    ("numpy.real_if_close", "tol"):
        lambda r: (np.real_if_close, (r.normal(size=3), r.uniform(50.0, 150.0)), 1),
    ("numpy.vstack", "casting"): "a casting rule (a string)",
    ("numpy.angle", "deg"): "a flag: degrees or radians",
    **{(f"{_m}.{_n}", "norm"): "a normalisation name (a string)" for _m in ("numpy.fft", "scipy.fft")
       for _n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn", "irfft",
                  "irfft2", "irfftn", "hfft", "ihfft")},
    ("srcad.resize_axes", "like"): _ONLY_SHAPE,
    ("numpy.row_stack", "casting"): "a casting rule (a string)",
    ("numpy.select", "condlist"): "booleans (NumPy refuses float conditions)",
    ("srcad.select_choices_adjoint", "condlist"): "booleans (NumPy refuses float conditions)",
    ("srcad.select_choices_adjoint", "choicelist"): _ONLY_SHAPE,
    ("srcad.domain_checked", "x"): lambda r: (_rt("domain_checked"), (r.normal(size=3), r.normal(size=3)), 1),
    ("srcad.domain_checked", "x2"):
        lambda r: (_rt("domain_checked"), (r.normal(size=3), r.normal(size=3), r.normal(size=3)), 2),
    ("srcad.quantile_tangent", "a"):
        lambda r: (_rt("quantile_tangent"), (r.normal(size=5), r.normal(size=5), 0.3), 1),
    ("srcad.quantile_adjoint", "a"):
        lambda r: (_rt("quantile_adjoint"), (r.normal(size=2), r.normal(size=5), [0.3, 0.8]), 1),
}


def _silent():
    for name, rule in sorted(RULES.items()):
        if not rule.differentiable or rule.structural or rule.opaque or rule.custom or rule.family == "user":
            continue
        for p in rule.params:
            if p not in rule.diff_params and p not in rule.refuses and p not in STRUCTURAL:
                yield name, p


SILENT_PARAMS = list(_silent())


def test_every_parameter_without_a_derivative_is_checked_or_explained():
    missing = [pair for pair in SILENT_PARAMS if pair not in SILENT]
    assert not missing, f"parameters that get no derivative, with no probe or reason in SILENT: {missing}"
    stale = sorted(set(SILENT) - set(SILENT_PARAMS))
    assert not stale, f"SILENT names parameters that now have derivatives (or no longer exist): {stale}"


@pytest.mark.parametrize("pair", [p for p in SILENT_PARAMS if callable(SILENT.get(p))], ids=".".join)
def test_parameters_without_a_derivative_are_locally_constant(pair):
    rng = _R(zlib.crc32(".".join(pair).encode()))
    fn, args, i = SILENT[pair](rng)
    check_locally_constant(fn, args, [i], rng, f"{pair[0]} in {pair[1]}")
