"""One or more spec rows per registered rule: an expression that uses it, argument
samplers (domain and shape), and tolerances.

The spec test turns each row into a small module

    def f(x, y):
        return np.sum((EXPR) * W)      # W: fixed random weights shaped like EXPR

and checks srcad's gradient with respect to every float argument against float64 central
finite differences (and forward mode against reverse mode once srcad.jvp exists). Rows whose
expression is already a scalar are used as is; `reduce=` gives an explicit scalarising
expression for tuple-valued primitives.

`python -m pytest tests/test_rule_specs.py` fails if a registered rule has no row.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field, replace

import numpy as np


@dataclass
class Row:
    rule: str
    expr: str
    args: dict
    wrt: tuple = ()  # arguments to differentiate (default: every float/float-array argument)
    rtol: float = 1e-5
    atol: float = 1e-6
    reduce: str | None = None  # scalarising expression using `out` instead of sum(out * W)
    imports: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)
    # -- what the spec variants (tests/rule_variants.py) may change, beyond this base row --
    template: str = ""  # expr with $placeholders; expr uses the first alternative of each
    alts: dict = field(default_factory=dict)  # placeholder -> alternatives (strings)
    ew: tuple = ()  # array-like arguments NumPy broadcasts elementwise: 0-d, length-1, rank variants
    listable: tuple = ()  # arguments that may be a Python list of floats instead of an array
    shapes: tuple = ()  # more argument shapes to try: dicts name -> shape (or "list", "tuple", "0d")
    fd_step: float = 1e-3  # the variants' finite-difference step (smaller for piecewise-linear functions)


@dataclass(frozen=True)
class Sampler:
    """Draws one argument: a float for shape (), else an array of this shape (or, boxed, a
    0-d array, a list or a tuple of its values). Variants reshape or box a row's samplers."""

    draw: str  # "normal" or "uniform"
    shape: tuple = ()
    lo: float = 0.0
    hi: float = 1.0
    scale: float = 1.0
    box: str = ""  # "" (float or array), "0d", "list", "tuple"

    def __call__(self, rng):
        size = self.shape if self.shape else None
        v = (rng.normal(size=size) * self.scale if self.draw == "normal"
             else rng.uniform(self.lo, self.hi, size=size))
        if self.box == "0d":
            return np.array(float(v))
        if self.box in ("list", "tuple"):
            items = np.asarray(v).tolist()
            return items if self.box == "list" else _tuples(items)
        return float(v) if not self.shape else v

    def reshaped(self, shape) -> Sampler:
        return replace(self, shape=tuple(shape), box="")

    def boxed(self, box: str) -> Sampler:
        return replace(self, box=box)


def _tuples(items):
    return tuple(_tuples(i) for i in items) if isinstance(items, list) else items


def normal(*shape, scale=1.0):
    return Sampler("normal", tuple(shape), scale=scale)


def uniform(lo, hi, *shape):
    return Sampler("uniform", tuple(shape), lo=lo, hi=hi)


def const(value):
    return lambda rng: value


def spd(n):
    def make(rng):
        a = rng.normal(size=(n, n))
        return a @ a.T + n * np.eye(n)
    return make


def well_conditioned(n, m=None):
    def make(rng):
        a = rng.normal(size=(n, m or n))
        return a + (m or n) * np.eye(n, m or n)
    return make


ROWS: list[Row] = []


_OPTIONS = ("wrt", "rtol", "atol", "reduce", "imports", "note", "alts", "ew", "listable", "shapes", "fd_step")


def row(rule, expr, **args):
    """A spec row. `alts={"kw": [", axis=0", ...]}` names alternatives for `$kw` in expr (the
    first is the base row's); `ew`, `listable` and `shapes` declare more variants."""
    options = {k: args.pop(k) for k in list(args) if k in _OPTIONS}
    alts = options.get("alts", {})
    base = string.Template(expr).substitute({k: v[0] for k, v in alts.items()}) if alts else expr
    ROWS.append(Row(rule, base, args, template=expr if alts else "", **options))


# INTERNAL: rules exercised by other tests (the reason says where), not by a spec row.
INTERNAL = {
    "operator.setitem": "item assignment statements: corpus loops (fill) and test_errors",
    "srcad.iter": "for loops over sequences and dicts (resolved while specialising): corpus loops",
    "srcad.add_at": "np.add.at statements: corpus loops.assemble_with_add_at and test_errors",
    "srcad.global": "globals: test_api.test_globals_are_read_at_call_time",
    "srcad.scalar_output": "grad's output checked at run time: test_gate (outputs of unknown rank)",
    "srcad.sinc_curvature": "np.sinc's second derivative: test_rule_regressions (sinc at 0) and the "
                            "second-order check of srcad.sinc_slope's row",
    "srcad.sinc_third": "np.sinc's third derivative: the second-order check of srcad.sinc_slope's row",
    "srcad.own_argument": "an argument written into, copied on entry: test_safety (writes into arguments)",
    "srcad.known": "values of unknown type checked at run time: test_gate (results of opaque calls)",
    "srcad.check_type": "SRCAD_DEBUG=types: test_typecheck",
    "srcad.cell": "closures: test_api.test_closures_are_read_at_call_time",
    "srcad.call": "opaque calls: test_errors (no rule) and corpus (inactive calls)",
    "srcad.getattr": "opaque attributes: test_errors",
    "srcad.method": "unresolved methods: test_errors",
    "srcad.mutate": "resolved to list ops by type inference; test_errors for unsupported ones",
    "srcad.mutate_call": "v.update(...): test_objects_methods (an object's method) and lists/dicts",
    "srcad.item_update": "x[k] += v: test_regressions_aliases (items changed in place, and refused)",
    "srcad.written_back": "a += v into a parameter of a helper: test_written_back (arrays and lists "
                          "changed, numbers and tuples not)",
    "srcad.written_back_item": "apply_bc(u[1:-1]), sgd(params['W'], g): test_views_written_back (views, "
                               "items of lists and dicts stored back; copies and stale references)",
    "srcad.check_reiterable": "zip(it, it), a loop over it in a loop over it: test_iteration_protocol",
    "srcad.check_unshared": "x[k] += v on an item held twice: test_regressions_aliases (refused)",
    "srcad.diagonal_index": "np.fill_diagonal(y, v) on a local array: test_imports_and_contexts",
    "srcad.check_unpack": "a, b = v of the wrong length: test_one_shot",
    "srcad.structure_of": "folded while transforming: test_composition (vmap inside, tuple and dict results)",
    "srcad.check_leaf": "a vmap result of a type not known while transforming: test_composition",
    "srcad.shape_error": "shapes NumPy refuses, raised where the line runs: test_shape_errors",
    "srcad.arg_cell": "captured values of a function given as an argument: test_sharing_arguments",
    "srcad.arg_partial": "a partial's bound numbers (given as an argument): test_sharing_arguments",
    "srcad.format": "f-strings: corpus (inactive)",
    "srcad.assert": "assert statements: corpus",
    "srcad.raise": "raise statements: corpus",
    "srcad.slice": "slices: every indexing row",
    "srcad.tuple": "tuples: corpus/straight.tuple_assign, calls.returns_tuple",
    "srcad.named_tuple": "named tuples made in the function: test_named_tuples (Richardson differences)",
    "srcad.sparse_dot": "A @ x of a scipy.sparse A: test_sparse (Richardson differences)",
    "srcad.sparse_dot_t": "A.T @ g, the adjoint of srcad.sparse_dot: test_sparse (second order, Richardson)",
    "srcad.sparse.dot": "A.dot(x) of a scipy.sparse A: test_sparse (Richardson differences)",
    "srcad.list": "lists: corpus loops/containers",
    "srcad.dict": "dicts: corpus containers (pytrees)",
    "srcad.list_append": "emitted for xs.append: corpus loops",
    "srcad.sort_order": "sorted, min and max with key=: test_closures",
    "srcad.star_call": "f(*v) of a v whose length types give: test_closures (resolved while specialising)",
    "srcad.check_length": "f(*xs) into a user function's parameters: test_closures",
    "srcad.list_extend": "xs.extend(ys): corpus loops.extended_list (second order too)",
    "list.extend": "xs.extend(ys): corpus loops.extended_list",
    "srcad.list_insert": "xs.insert(i, v): corpus loops.extended_list (second order too)",
    "list.insert": "xs.insert(i, v): corpus loops.extended_list",
    "srcad.list_pop_at": "xs.pop(i): corpus loops.extended_list",
    "srcad.list_pop": "loop stacks: every loop test, and reverse-over-reverse",
    "srcad.zeros_like": "zero cotangents: every branch test",
    "srcad.unbroadcast": "broadcast adjoints: rows with broadcasting, second order tests",
    "srcad.broadcast_like": "forward-mode broadcasting",
    "srcad.scatter_add": "indexing adjoints: getitem rows",
    "srcad.add": "container cotangents: corpus containers",
    "srcad.expand_reduced": "reduction adjoints: sum/mean/max rows, second order",
    "srcad.sum_adjoint": "builtins.sum rows",
    "srcad.array_adjoint": "numpy.array rows",
    "srcad.T": "matmul/dot rows",
    "srcad.clip_mask": "clip rows",
    "srcad.not_a_count": "scipy.stats' discrete distributions: rule_specs_stats (counts of both kinds)",
    "srcad.inverse_axes": "transpose rows",
    "srcad.stop_gradient": "test_api.test_stop_gradient_hand_derived",
    "srcad.shift_invariant": "test_shifts (against finite differences and hand-derived Jacobians)",
    "srcad.select_adjoint": "the adjoint of max/min of an iterable: srcad.max_of rows, second order",
    "srcad.select_tangent": "the tangent of max/min of an iterable: srcad.max_of rows, second order",
    "srcad.list_concat": "corpus containers",
    "srcad.not_in": "corpus branches",
    "list.append": "corpus loops",
    "list.pop": "corpus loops",
    "list.copy": "corpus containers",
    "dict.copy": "corpus straight (copied_dict) and calls (dict_state, whose gradient copies dicts)",
    "list.index": "non-differentiable list method",
    "list.count": "non-differentiable list method",
    "builtins.print": "effects are kept: test_passes",
    "builtins.range": "loops",
    "builtins.isinstance": "folded by type: test_passes",
    "builtins.str": "non-differentiable",
    "builtins.repr": "non-differentiable",
    "builtins.type": "non-differentiable",
    "builtins.hasattr": "non-differentiable",
    "builtins.callable": "non-differentiable",
    "builtins.slice": "non-differentiable",
}

# -- operators ---------------------------------------------------------------------------------
V3 = normal(3)
P3 = uniform(0.5, 2.0, 3)
row("operator.add", "x + y", x=V3, y=V3, ew=("x", "y"))
row("operator.add", "x + y", x=normal(2, 3), y=V3, note="broadcasting")
row("operator.sub", "x - y", x=V3, y=normal(), ew=("x", "y"))
row("operator.mul", "x * y", x=normal(2, 1), y=V3, ew=("x", "y"))
row("operator.truediv", "x / y", x=V3, y=P3, ew=("x", "y"))
row("operator.pow", "x ** y", x=P3, y=uniform(0.5, 2.5, 3), ew=("x", "y"))
row("operator.pow", "x ** 3", x=V3)
row("operator.mod", "x % y", x=uniform(0.1, 0.9, 3), y=uniform(1.1, 1.9), ew=("x", "y"))
row("operator.neg", "-x", x=V3, ew=("x",))
row("operator.pos", "+x", x=V3)
row("operator.matmul", "x @ y", x=normal(2, 3), y=normal(3, 4))
row("operator.matmul", "x @ y", x=normal(3), y=normal(3, 4))
row("operator.matmul", "x @ y", x=normal(2, 3), y=normal(3))
row("operator.matmul", "x @ y", x=normal(3), y=normal(3))
row("operator.getitem", "x[1:, 0] * x[0, 1]", x=normal(3, 2))
row("operator.getitem", "x[np.array([0, 2, 0])]", x=V3, note="repeated integer index")
row("operator.getitem", "x[x > 0.0]", x=V3, note="boolean mask")
row("srcad.setitem", "srcad.runtime.setitem(x, 1, y)", x=V3, y=normal(), imports="import srcad.runtime")
row("srcad.setitem", "srcad.runtime.setitem(x, slice(0, 2), y)", x=V3, y=normal(),
    imports="import srcad.runtime", note="a scalar broadcast into a slice")
for _op in ("floordiv", "lt", "le", "gt", "ge", "eq", "ne"):
    _sym = {"floordiv": "//", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[_op]
    row(f"operator.{_op}", f"x * (x {_sym} 0.3)", x=V3)
for _op, _sym in (("and_", "&"), ("or_", "|"), ("xor", "^")):
    row(f"operator.{_op}", f"x * ((x > 0.1) {_sym} (x < 0.5))", x=V3)
row("operator.lshift", "x * float(2 << 1)", x=V3)
row("operator.rshift", "x * float(8 >> 1)", x=V3)
row("operator.invert", "x * ~(x > 0.2)", x=V3)
row("operator.not_", "x * float(not x[0] > 0.2)", x=V3)
row("operator.is_", "x * float(y is None)", x=V3, y=const(None))
row("operator.is_not", "x * float(y is not None)", x=V3, y=const(None))
row("operator.contains", "x * float(1 in (1, 2))", x=V3)
for _op in ("iadd", "isub", "imul", "itruediv", "ipow", "imod", "imatmul", "ifloordiv", "iand", "ior",
            "ixor", "ilshift", "irshift"):
    INTERNAL[f"operator.{_op}"] = "augmented assignment shares the rule of the plain operator " \
        "(rows above); statements are in corpus/straight.augmented"

# -- builtins ----------------------------------------------------------------------------------
S = normal()
row("builtins.abs", "abs(x)", x=V3)
row("builtins.abs", "abs(x) * y", x=S, y=S, note="a scalar")
row("builtins.max", "max(x, y)", x=S, y=normal(scale=2.0), fd_step=1e-5)
row("builtins.min", "min(x, y)", x=S, y=normal(scale=2.0), fd_step=1e-5)
row("builtins.sum", "sum(x)", x=normal(2, 3))
row("builtins.sum", "sum([x, y * y], z)", x=V3, y=V3, z=S, note="a list and a start value")
row("builtins.float", "float(x) * 2.0 + x", x=S)
row("builtins.pow", "pow(x, y)", x=uniform(0.5, 2.0), y=uniform(0.5, 2.5))
row("builtins.list", "np.array(list(x)) ** 2", x=V3)
row("srcad.list_repeat", "np.array([x[0], x[1]] * 2) * x[2] + np.array(2 * [x[1], x[0]])", x=V3)
row("builtins.tuple", "np.array(tuple(x)) * tuple([x[0], x[1]])[1]", x=V3)
row("builtins.tuple", "tuple($s)[1] ** 2", x=V3, y=normal(3, 3), alts={"s": ["(x, y)", "[x, y]", "y"]},
    note="a tuple, a list and the rows of an array")
row("builtins.list", "np.sum(list($s)[0]) + np.sum(list($s)[1] ** 2)", x=normal(2), y=normal(3, 3),
    alts={"s": ["(x, y)", "[x, y]"]}, note="items of different shapes")
row("builtins.list", "list(y)[1] * list(x)[0]", x=V3, y=normal(3, 2), note="the rows of arrays")
row("builtins.len", "x * len(x)", x=V3)
row("builtins.int", "x * int(3.7)", x=V3)
row("builtins.bool", "x * float(bool(x[0] > 0.0))", x=V3)
row("builtins.round", "x * round(2.6)", x=V3)
row("builtins.any", "x * float(any([True, False]))", x=V3)
row("builtins.all", "x * float(all([True, False]))", x=V3)
row("builtins.divmod", "x * divmod(7, 3)[0]", x=V3)

# -- math --------------------------------------------------------------------------------------
for _name, _dom in {"sin": S, "cos": S, "tan": uniform(-1.0, 1.0), "asin": uniform(-0.9, 0.9),
                    "acos": uniform(-0.9, 0.9), "atan": S, "sinh": S, "cosh": S, "tanh": S,
                    "asinh": S, "acosh": uniform(1.2, 3.0), "atanh": uniform(-0.9, 0.9), "exp": S,
                    "expm1": S, "log1p": uniform(-0.5, 2.0), "log2": uniform(0.5, 3.0),
                    "log10": uniform(0.5, 3.0), "sqrt": uniform(0.5, 3.0), "fabs": S, "erf": S,
                    "erfc": S, "degrees": S, "radians": S}.items():
    row(f"math.{_name}", f"math.{_name}(x)", x=_dom)
row("math.lgamma", "math.lgamma(x)", x=uniform(0.3, 4.0))
row("math.gamma", "math.gamma(x)", x=uniform(0.3, 4.0))
row("math.log", "math.log(x)", x=uniform(0.5, 3.0))
row("math.log", "math.log(x, y)", x=uniform(0.5, 3.0), y=uniform(1.5, 3.0), note="with a base")
row("math.pow", "math.pow(x, y)", x=uniform(0.5, 2.0), y=S)
row("math.atan2", "math.atan2(y, x)", y=S, x=S)
row("math.hypot", "math.hypot(x, y)", x=S, y=S)
row("math.fsum", "math.fsum([x, 2.0 * x * y, y]) * y", x=S, y=S)
row("math.prod", "math.prod([x, 2.0 * x * y, y])$kw", x=S, y=S,
    alts={"kw": ["", " * math.prod((x,), start=y)"]})
row("math.copysign", "math.copysign(x, y)", x=S, y=S)
row("math.fmod", "math.fmod(x, y)", x=uniform(2.1, 2.9), y=uniform(0.6, 0.9))
for _name in ("floor", "ceil", "trunc"):
    row(f"math.{_name}", f"x * math.{_name}(x)", x=uniform(0.1, 0.9) if _name != "trunc" else S)
for _name in ("isnan", "isinf", "isfinite"):
    row(f"math.{_name}", f"x * float(math.{_name}(x))", x=S)
row("math.isclose", "x * float(math.isclose(x, 1.0))", x=S)
row("math.factorial", "x * math.factorial(3)", x=S)
row("math.comb", "x * math.comb(4, 2)", x=S)
row("math.gcd", "x * math.gcd(12, 8)", x=S)

# -- srcad's run-time helpers (the adjoints used by the numpy rules), called directly ----------
RT = "import srcad.runtime as rt"


def helper(rule, expr, **args):
    row(rule, expr, imports=RT, **args)


helper("srcad.split_like", "rt.split_like(x, [np.zeros(2), np.zeros(3)], 0)[1]", x=normal(5))
helper("srcad.split_like", "rt.split_like(x, [np.zeros((2, 1)), np.zeros(2)], 1, -2)[0]", x=normal(2, 2),
       note="column_stack pieces")
helper("srcad.join_like", "rt.join_like([x, y], [np.zeros(2), np.zeros(3)], 0)", x=normal(2), y=V3)
helper("srcad.unstack_like", "rt.unstack_like(x, [np.zeros(2), np.zeros(2), np.zeros(2)], 1)[0]",
       x=normal(2, 3))
helper("srcad.unstack_like", "rt.unstack_like(x, np.zeros((3, 2)), 1)", x=normal(2, 3),
       note="an array's rows")
helper("srcad.sequence_adjoint", "np.array(rt.sequence_adjoint([x[0], x[1] * x[2]], (0.0, 0.0)))", x=V3)
helper("srcad.sequence_adjoint", "rt.sequence_adjoint([x[0], x[1] * x[2]], np.zeros(2))", x=V3,
       note="the rows of an array")
helper("srcad.untile", "rt.untile(x, np.zeros(2), (3,))", x=normal(6))
helper("srcad.unrepeat", "rt.unrepeat(x, np.zeros(3), 2)", x=normal(6))
helper("srcad.pad_adjoint", "rt.pad_adjoint(x, np.zeros(3), 1, 'edge')", x=normal(5))
helper("srcad.take_adjoint", "rt.take_adjoint(x, np.zeros(4), np.array([0, 2, 2]))", x=V3)
helper("srcad.take_along_adjoint",
       "rt.take_along_adjoint(x, np.zeros((2, 3)), np.array([[0, 0], [2, 1]]), 1)", x=normal(2, 2))
helper("srcad.diag_adjoint", "rt.diag_adjoint(x, np.zeros(3), 0)", x=normal(3, 3))
helper("srcad.diagonal_adjoint", "rt.diagonal_adjoint(x, np.zeros((3, 3)), 1, 0, 1)", x=normal(2))
helper("srcad.diff_adjoint", "rt.diff_adjoint(x, 2, -1)", x=normal(2))
helper("srcad.axis_sum", "rt.axis_sum(x, 0) + rt.axis_sum(x, 1)[0]", x=normal(12, 6))
helper("srcad.axis_sum", "np.cos(rt.axis_sum(x, $k))",
       x=normal(2, 3, 4, 5), alts={"k": ["0", "1", "2", "-1", "-3"]}, note="a rank-4 array, each axis")
helper("srcad.average_weights", "rt.average_weights(x, np.zeros((2, 3)), 1)", x=V3)
helper("srcad.average_weights_adjoint", "rt.average_weights_adjoint(x, np.zeros(3), 1)", x=normal(2, 3))
helper("srcad.tensordot_adjoint", "rt.tensordot_adjoint(x, y, (2, 3), 1, 0)", x=normal(2, 4), y=normal(3, 4))
helper("srcad.tensordot_adjoint", "rt.tensordot_adjoint(x, y, (3, 4), 1, 1)", x=normal(2, 4), y=normal(2, 3),
       note="the adjoint for the second operand")
helper("srcad.kron_adjoint", "rt.kron_adjoint(x, y, (2, 1, 3), 0)", x=normal(2, 3, 6), y=normal(3, 2))
helper("srcad.kron_adjoint", "rt.kron_adjoint(x, y, (3,), 1)", x=normal(2, 6), y=normal(2, 2),
       note="the adjoint for the second operand, of lower rank")
helper("srcad.from_triangle", "rt.from_triangle(x, $u)", x=normal(2, 3, 3), alts={"u": ["False", "True"]})
helper("srcad.to_triangle", "rt.to_triangle(x, $u)", x=normal(3, 3), alts={"u": ["True", "False"]})
helper("srcad.einsum_spec", "x * len(rt.einsum_spec(np.zeros(2), [0], [0]))", x=V3)
helper("srcad.einsum_call", "rt.einsum_call('ij,jk->ik', x, y)", x=normal(2, 3), y=normal(3, 2))
helper("srcad.einsum_vjp", "rt.einsum_vjp('ij,jk->ik', 0, x, (2, 3), y)", x=normal(2, 4), y=normal(3, 4))
helper("srcad.einsum_vjp", "rt.einsum_vjp('ii,i->i', 1, x, y, (3,))", x=V3, y=normal(3, 3),
       note="a repeated index in another operand")
helper("srcad.without_key", "rt.without_key({'a': x, 'b': y}, 'b')['a']", x=V3, y=V3)
helper("srcad.adjugate", "rt.adjugate(x)", x=well_conditioned(3))
helper("srcad.adjugate", "rt.adjugate(x)", x=normal(3, 3), note="any matrix: the SVD form")
helper("srcad.adjugate_jvp", "rt.adjugate_jvp(x, y)", x=well_conditioned(3), y=normal(3, 3), wrt=("y",))
helper("srcad.adjugate_vjp", "rt.adjugate_vjp(x, y)", x=well_conditioned(3), y=normal(3, 3), wrt=("y",))
helper("srcad.inverse_or_inf", "rt.inverse_or_inf(x)", x=well_conditioned(3))
helper("srcad.tie_div", "rt.tie_div(x, y, 1e-9)", x=normal(3), y=uniform(0.5, 1.5, 3))
helper("srcad.unique_tangent", "rt.unique_tangent(x, np.array([2.0, 1.0, 2.0, 3.0]))", x=normal(4))
helper("srcad.unique_adjoint", "rt.unique_adjoint(x, np.array([2.0, 1.0, 2.0, 3.0]))", x=normal(3))
helper("srcad.prod_partials", "rt.prod_partials(x, (0, 2))", x=normal(2, 3, 2))
helper("srcad.prod_partials", "rt.prod_partials(x) * x", x=normal(2, 3), note="all axes")
helper("srcad.prod_hvp", "rt.prod_hvp(x, y, (0, 2))", x=normal(2, 3, 2), y=uniform(0.5, 1.5, 2, 3, 2))
helper("srcad.prod_hvp", "rt.prod_hvp(x, y) * y", x=normal(2, 3), y=normal(2, 3), note="all axes")
helper("srcad.prod_third", "rt.prod_third(x, y, np.array([[0.5, 0.0], [1.5, -2.0], [0.0, 0.0]]), 0)",
       x=normal(3, 2), y=normal(3, 2), note="with zeros; no fourth derivative in a")
helper("srcad.cumprod_hvp", "rt.cumprod_hvp(x, y, z, 1)", x=normal(2, 3), y=normal(2, 3),
       z=uniform(0.5, 1.5, 2, 3))
helper("srcad.cumprod_hvp", "rt.cumprod_hvp(x, y, z)", x=normal(2, 2), y=normal(2, 2),
       z=uniform(0.5, 1.5, 2, 2), note="axis=None: flattened")
helper("srcad.cumprod_hvp_adjoint", "rt.cumprod_hvp_adjoint(x, y, z, 0)", x=normal(3, 2), y=normal(3, 2),
       z=uniform(0.5, 1.5, 3, 2))
helper("srcad.cumprod_hvp_adjoint", "rt.cumprod_hvp_adjoint(x, y, z)", x=normal(4), y=normal(2, 2),
       z=uniform(0.5, 1.5, 2, 2), note="axis=None: flattened")
helper("srcad.cumprod_tangent", "rt.cumprod_tangent(x, y, 1)", x=normal(2, 3), y=uniform(0.5, 1.5, 2, 3))
helper("srcad.cumprod_tangent", "rt.cumprod_tangent(x, y)", x=normal(2, 2), y=uniform(0.5, 1.5, 2, 2),
       note="axis=None: flattened")
helper("srcad.cumprod_adjoint", "rt.cumprod_adjoint(x, y, 0)", x=normal(3, 2), y=uniform(0.5, 1.5, 3, 2))
helper("srcad.cumprod_adjoint", "rt.cumprod_adjoint(x, y)", x=normal(4), y=uniform(0.5, 1.5, 2, 2),
       note="axis=None: flattened")
helper("srcad.qr_square_r", "rt.qr_square_r(x) * x", x=normal(3, 3))
helper("srcad.sinc_slope", "rt.sinc_slope(x)", x=uniform(0.2, 2.0, 3))
helper("srcad.sinc_slope", "rt.sinc_slope(x) * x", x=uniform(-1.5, -0.2), note="a float")
helper("srcad.log_or_zero", "rt.log_or_zero(x)", x=uniform(0.5, 2.0, 3))
helper("srcad.log_or_zero", "rt.log_or_zero(x) * x", x=uniform(0.5, 2.0), note="a float")
helper("srcad.cross2_adjoint", "rt.cross2_adjoint(x, y, 1)", x=normal(3), y=normal(3, 2))
helper("srcad.cross2_adjoint", "rt.cross2_adjoint(x, y, 0)", x=normal(), y=normal(2), note="one pair")
row("builtins.dict", "dict({'a': x, 'b': y})['a'] * y + dict(a=x)['a']", x=V3, y=V3)
helper("srcad.dict_values", "rt.dict_values({'a': x, 'b': y})[1] * x", x=V3, y=V3)
helper("srcad.dict_items", "rt.dict_items({'a': x, 'b': y})[0][1] * y", x=V3, y=V3)
helper("srcad.dict_like", "rt.dict_like({'a': 0.0, 'b': 0.0}, (x, y))['b'] * x", x=V3, y=V3)
helper("srcad.items_cotangent", "rt.items_cotangent({'a': 0.0}, (('a', x),))['a'] * x", x=V3)
helper("srcad.trapezoid_weights", "x * rt.trapezoid_weights(np.zeros(3), np.array([0.0, 1.0, 3.0]))", x=V3)
helper("srcad.polyval_adjoint", "rt.polyval_adjoint(x, np.zeros(3), np.array([0.5, -1.0]))", x=normal(2))
helper("srcad.interp_fp_adjoint", "rt.interp_fp_adjoint(x, np.array([0.2, 1.6]), np.array([0.0, 1.0, 2.0]))",
       x=normal(2))
helper("srcad.interp_slope", "rt.interp_slope(np.array([0.2, 1.6]), np.array([0.0, 1.0, 2.0]), x)", x=V3)
helper("srcad.interp_slope_adjoint",
       "rt.interp_slope_adjoint(x, np.array([0.2, 1.6]), np.array([0.0, 1.0, 2.0]))", x=normal(2))
helper("srcad.list_unrepeat", "np.array(rt.list_unrepeat([x[0], x[1], x[2], x[0] * x[1]], [0.0, 0.0]))", x=V3)
helper("srcad.list_unextend", "np.array(rt.list_unextend([x[0], x[1] * x[2], x[2]], [0.0, 0.0])[1])", x=V3)
helper("srcad.iter_adjoint", "np.array(rt.iter_adjoint((x[0], x[1] * x[2]), [0.0, 0.0]))", x=V3)
helper("srcad.write_winners", "x * rt.write_winners(np.zeros(3), np.array([0, 0, 2]))", x=V3)
helper("srcad.svd_rank", "x * rt.svd_rank(np.zeros((3, 2)), False)", x=V3)
helper("srcad.loop_trips", "x * rt.loop_trips(0, 7, 2)", x=V3)
helper("srcad.segment_count", "x * rt.segment_count(10, 3)", x=V3)
helper("srcad.segment_length", "x * rt.segment_length(100, 1000, 32, 64)", x=V3)
helper("srcad.segment_bound", "x * rt.segment_bound(1, 2, 3, 10, 2)", x=V3)
helper("srcad.require_scalar", "x * rt.require_scalar(2.0)", x=V3)
helper("srcad.assigned", "rt.assigned(x, 'x') * x", x=V3)
helper("srcad.bound", "rt.bound(x, 'x') * x", x=V3)
helper("srcad.zero_item", "x + rt.zero_item([x, x], 1)", x=V3)
INTERNAL["srcad.unbound"] = "reads of unassigned variables raise: tests/test_regressions_raising.py"
helper("srcad.copy_value", "rt.copy_value(x) * x", x=V3)
helper("srcad.sum_to_shape", "rt.sum_to_shape(x, (3,))", x=normal(2, 3))
helper("srcad.broadcast_to", "rt.broadcast_to(x, (2, 3))", x=V3)
helper("srcad.data_only", "rt.data_only(k, 'k') * x", k=const(np.array([1.0, 2.0, 3.0])), x=V3, wrt=("x",))
INTERNAL["srcad.custom"] = "custom_vjp/custom_jvp calls: tests/test_transforms.py"
INTERNAL["srcad.custom_cotangents"] = "custom_vjp backward results: tests/test_transforms.py"
helper("srcad.domain_checked", "rt.domain_checked(x * x, x) * x", x=V3)
INTERNAL["srcad.batch_copies"] = "srcad.vmap's vectorised code (refuses a derivative): test_vmap_vectorised"
INTERNAL["srcad.example_of"] = "srcad.vmap's vectorised code (refuses a derivative): test_vmap_vectorised"

# the numpy and scipy rows (importing them appends to ROWS)
import rule_specs_complex  # noqa: E402
import rule_specs_convolution  # noqa: E402
import rule_specs_integrate  # noqa: E402
import rule_specs_linalg  # noqa: E402
import rule_specs_matrices  # noqa: E402
import rule_specs_more  # noqa: E402
import rule_specs_numpy  # noqa: E402
import rule_specs_order  # noqa: E402
import rule_specs_special  # noqa: E402
import rule_specs_statistics  # noqa: E402
import rule_specs_stats  # noqa: E402

FAMILY_MODULES = (rule_specs_numpy, rule_specs_linalg, rule_specs_order, rule_specs_more, rule_specs_stats,
                  rule_specs_special, rule_specs_integrate, rule_specs_matrices, rule_specs_convolution,
                  rule_specs_complex, rule_specs_statistics)

row("srcad.max_of", "max(list(x)) * x", x=V3)
row("srcad.max_of", "max(x) + x", x=V3, note="the builtin over a 1-d array")
row("srcad.min_of", "min(list(x * x)) * x", x=V3)
