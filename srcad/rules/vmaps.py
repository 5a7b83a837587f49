"""How a primitive runs on operands with a leading batch axis: srcad.vmap's vectorised code.

A rule's `vmap=` function is `(vz, op, rule) -> tuple | None`: for `op`, an operation of the
per-example code some of whose operands differ between examples, one `(atom, form)` per
result of op in the vectorised code. A *form* says which parts of a value carry the batch
axis: False (none: the value is the same for every example), True (the value, or every leaf
of a container, has a leading axis of length B), or a tuple of forms, one per item of a
tuple. None means the primitive has no vectorised form here: it runs once per example in a
loop (transforms/vmapping.py). `vz` is the vectoriser:

    vz.batch              B
    vz.form(a)            the form of an operand a (an atom of op)
    vz.v(a)               a's value in the vectorised code
    vz.type_of(a)         a's per-example type; vz.rank(a), vz.shape(a) its rank and shape
                          (NotVectorizable when they are not known)
    vz.aligned(a, rank)   vz.v(a), a batched array of per-example rank r < rank given rank - r
                          axes of length 1 after the batch axis, so that it broadcasts as one
                          example does: x[:, None]
    vz.emit(prim, args, kw, t)   emit an operation whose result has type t
    vz.batched(t)         the type of a batched value whose examples have type t
    vz.first(a)           a's first example (for what depends only on shapes and dtypes)
    vz.conform(a, form)   vz.v(a) with the leaves `form` names batched (writable copies)
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Const

NUMERIC = (T.Float, T.Int, T.Bool, T.Complex, T.Array)
_NUMPY_OF_MATH = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                  "acosh": "arccosh", "atanh": "arctanh", "pow": "float_power", "atan2": "arctan2"}


class NotVectorizable(Exception):
    """The function cannot run vectorised over the batch (a branch on a value that differs
    between examples, an unknown shape...): vmap runs it once per example instead."""

    def __init__(self, reason: str, loc=None):
        where = f"line {loc.line}: " if loc is not None else ""
        super().__init__(where + reason)
        self.reason, self.loc = reason, loc


# -- forms ------------------------------------------------------------------------------------

def norm(form):
    """A form in its simplest spelling (a tuple of all True is True, of all False False)."""
    if isinstance(form, tuple):
        items = tuple(norm(f) for f in form)
        if all(f is True for f in items):
            return True
        if not any(items):
            return False
        return items
    return bool(form)


def join(a, b):
    """The form of a value that is one of two values of these forms (an `if`, a loop)."""
    if a is True or b is True:
        return True
    if not a or not b:
        return norm(a or b)
    return norm(tuple(join(x, y) for x, y in zip(a, b)))


def item(form, k):
    """The form of item k of a value of this form."""
    return form[k] if isinstance(form, tuple) else form


# -- helpers for the functions below ------------------------------------------------------------

def bound(rule, op) -> dict | None:
    """op's operands by parameter name (None when they do not all bind: *args)."""
    if len(op.args) > len(rule.params) or any(k not in rule.params for k, _ in op.kw):
        return None
    out = dict(zip(rule.params, op.args))
    out.update(op.kw)
    return out


def _numeric_result(vz, op) -> bool:
    return len(op.outs) == 1 and isinstance(op.outs[0].type, NUMERIC)


def _only_batched(vz, op, names, rule) -> dict | None:
    """op's bound operands when the batched ones are all numbers or arrays named in `names`."""
    args = bound(rule, op)
    if args is None:
        return None
    for p, a in args.items():
        if vz.form(a) and (p not in names or not isinstance(vz.type_of(a), NUMERIC)):
            return None
    return args


def _emit_like(vz, op, prim, args, kw, hint_from=True):
    out = op.outs[0]
    return ((vz.emit(prim, args, kw, vz.batched(out.type), out.hint if hint_from else ""), True),)


# -- elementwise ------------------------------------------------------------------------------

def broadcasting(*names):
    """NumPy broadcasting in the parameters `names`: batched operands aligned to the result's
    rank (a per-example scalar times a per-example vector must not meet the batch axis with
    the vector's axis)."""
    def vmap(vz, op, rule):
        if not _numeric_result(vz, op) or _only_batched(vz, op, names, rule) is None:
            return None
        rank = vz.rank(op.outs[0])
        args = [vz.aligned(a, rank) for a in op.args]
        if rule.inplace and not vz.form(op.args[0]):  # (x += y: x gets the batch axis first)
            args[0] = vz.conform(op.args[0], True)
        kw = tuple((k, vz.aligned(a, rank)) for k, a in op.kw)
        return _emit_like(vz, op, op.prim, args, kw)
    vmap.names = names
    return vmap


def elementwise(vz, op, rule):
    """The default of elementwise rules: broadcasting in the parameters the rule says
    broadcast, or else in those without a default (np.round's decimals stays a constant)."""
    names = rule.broadcasts or tuple(p for p in rule.params if p not in rule.defaults) or rule.params[:1]
    return broadcasting(*names)(vz, op, rule)


def numpy_twin(name: str, checked: bool = False, arity: int = 1, numbers: bool = True):
    """A function of numbers (the math module's): the NumPy function `name` on the batch, for
    calls with `arity` positional arguments (of rank 0 with `numbers`); `checked`: where math
    raises ValueError (an argument outside the domain) the results are checked, so that the
    vectorised code raises too (srcad.domain_checked)."""
    def vmap(vz, op, rule):
        if op.kw or len(op.args) != arity or not _numeric_result(vz, op) or any(
                not isinstance(vz.type_of(a), NUMERIC) or (numbers and vz.rank(a)) for a in op.args):
            return None
        args = [vz.v(a) for a in op.args]
        t = vz.batched(op.outs[0].type)
        out = vz.emit(name, args, (), t, "" if checked else op.outs[0].hint)
        if checked:
            out = vz.emit("srcad.domain_checked", [out, *args], (), t, op.outs[0].hint)
        return ((out, True),)
    return vmap


def math_function(name: str, raises: bool, arity: int = 1):
    """vmap= for math.<name>: its NumPy twin (None for erf and erfc, which have none: one
    call per example)."""
    target = _NUMPY_OF_MATH.get(name, name)
    return numpy_twin(f"numpy.{target}", raises, arity) if target not in ("erf", "erfc") else None


def selection(op_name: str):
    """max(x, y) is `y if y > x else x` (min: <), which np.where spells for a batch."""
    def vmap(vz, op, rule):
        if len(op.args) != 2 or op.kw or not _numeric_result(vz, op) or any(
                not isinstance(vz.type_of(a), NUMERIC) for a in op.args):
            return None
        rank = vz.rank(op.outs[0])
        x, y = (vz.aligned(a, rank) for a in op.args)
        t = vz.batched(op.outs[0].type)
        cond = vz.emit(op_name, [y, x], (), T.Array(t.ndim, "b", t.shape))
        return ((vz.emit("numpy.where", [cond, y, x], (), t, op.outs[0].hint), True),)
    return vmap


# -- reductions -------------------------------------------------------------------------------

def reduction(vz, op, rule):
    """A reduction over literal axes of its first argument: the axes moved past the batch
    axis (axis=None: every axis but the batch's)."""
    args = bound(rule, op)
    first = rule.params[0]
    if args is None or not isinstance(vz.type_of(args[first]), T.Array):
        return None
    if any(vz.form(a) for p, a in args.items() if p != first):
        return None
    if any(not _is_const(args.get(p), None) for p in ("out", "where", "weights")):
        return None
    axis = args.get("axis", Const(rule.defaults.get("axis")))
    rank = vz.rank(args[first])
    if not isinstance(axis, Const) or rank == 0:
        return None
    kw = tuple((p, vz.v(a)) for p, a in args.items() if p not in (first, "axis"))
    kw += (("axis", Const(shifted(axis.value, rank))),)
    return _emit_like(vz, op, op.prim, [vz.v(args[first])], kw)


def _is_const(a, value) -> bool:
    return a is None or (isinstance(a, Const) and a.value is value)


def shifted(axis, rank: int):
    """Literal axes of a per-example array of this rank, in the batched array (None: all)."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, tuple):
        return tuple(a % rank + 1 for a in axis)
    return axis % rank + 1


# -- products ---------------------------------------------------------------------------------

_MATMULS = ("operator.matmul", "numpy.matmul")


def matmul(vz, op, rule):
    """x @ y, np.matmul, np.dot of vectors and matrices: one matmul over the batch, batched
    1-d operands made matrices (x[:, None, :], y[:, :, None]) and the axis dropped after,
    the stacks of batched operands aligned."""
    if len(op.args) != 2 or op.kw or not _numeric_result(vz, op):
        return None
    x, y = op.args
    if not all(isinstance(vz.type_of(a), NUMERIC) for a in (x, y)):
        return None
    rx, ry = vz.rank(x), vz.rank(y)
    if op.prim not in _MATMULS and (rx > 2 or ry > 2):
        return None  # (np.dot of higher ranks is not a matmul)
    if not rx or not ry:  # (np.dot with a number multiplies)
        if op.prim in _MATMULS:
            return None
        rank = vz.rank(op.outs[0])
        return _emit_like(vz, op, "operator.mul", [vz.aligned(x, rank), vz.aligned(y, rank)], ())
    fx, fy = bool(vz.form(x)), bool(vz.form(y))
    if fx and not fy and rx == 1 and ry <= 2:  # (B, k) @ (k, m): rows are examples
        return _emit_like(vz, op, "operator.matmul", [vz.v(x), vz.v(y)], ())
    if fy and not fx and ry == 1 and rx <= 2:  # y's rows times x: (B, k) @ x.T
        xt = vz.v(x) if rx == 1 else vz.emit("numpy.ndarray.T", [vz.v(x)], (), vz.type_of(x))
        return _emit_like(vz, op, "operator.matmul", [vz.v(y), xt], ())
    px, py = fx and rx == 1, fy and ry == 1  # (promoted to a row, a column)
    stack = max(rx, ry, 2) - 2
    xs = _expanded(vz, x, stack - max(rx - 2, 0), (None, Ellipsis) if px else ()) if fx else vz.v(x)
    ys = _expanded(vz, y, stack - max(ry - 2, 0), (Ellipsis, None) if py else ()) if fy else vz.v(y)
    t = vz.batched(op.outs[0].type)
    if not (px or py):
        return ((vz.emit("operator.matmul", [xs, ys], (), t, op.outs[0].hint), True),)
    raw = vz.emit("operator.matmul", [xs, ys], (), T.Array(t.ndim + px + py, t.kind))
    drop = (Ellipsis, 0, 0) if px and py else (Ellipsis, 0, slice(None)) if px and ry > 1 else (Ellipsis, 0)
    return ((vz.emit("operator.getitem", [raw, Const(drop)], (), t, op.outs[0].hint), True),)


def _expanded(vz, a, lead: int, tail: tuple):
    """a[:, None * lead, ...] with `tail` ((None, ...) or (..., None)) making a vector a row
    or a column: new axes after the batch axis, around the example's axes."""
    if not lead and not tail:
        return vz.v(a)
    key = (slice(None),) + (None,) * lead + (tail if tail else (Ellipsis,))
    rank = vz.rank(a) + 1 + lead + (1 if tail else 0)
    t = T.Array(rank, vz.batched(vz.type_of(a)).kind)
    return vz.emit("operator.getitem", [vz.v(a), Const(key)], (), t)


def outer(vz, op, rule):
    """np.outer of vectors: a column times a row, per example."""
    if len(op.args) != 2 or op.kw or not _numeric_result(vz, op):
        return None
    a, b = op.args
    if not all(isinstance(vz.type_of(v), T.Array) and vz.rank(v) == 1 for v in (a, b)):
        return None
    col = vz.emit("operator.getitem", [vz.v(a), Const((Ellipsis, None))], (),
                  T.Array(3 if vz.form(a) else 2, "f"))
    row = vz.v(b)
    if vz.form(b):
        row = vz.emit("operator.getitem", [row, Const((slice(None), None))], (), T.Array(3, "f"))
    return _emit_like(vz, op, "operator.mul", [col, row], ())


# -- shapes -----------------------------------------------------------------------------------

def reshaped(vz, op, rule):
    """expand_dims, squeeze, reshape, ravel, atleast_*d: a reshape to (B,) + the per-example
    result's shape (never squeezing the batch axis, whatever its length)."""
    args = bound(rule, op)
    first = rule.params[0]
    if args is None or not isinstance(vz.type_of(args[first]), NUMERIC) or not _numeric_result(vz, op):
        return None
    if any(vz.form(a) for p, a in args.items() if p != first) or not (
            "order" not in args or (isinstance(args["order"], Const) and args["order"].value in ("C", "A"))):
        return None
    if T.shape_of(op.outs[0].type) is None and op.prim == "numpy.expand_dims" and isinstance(
            args.get("axis"), Const):  # (an example's shape unknown: its rank is enough)
        axis = Const(_past_batch(args["axis"].value))
        return _emit_like(vz, op, op.prim, [vz.v(args[first])], (("axis", axis),))
    literal = args.get("shape")
    if T.shape_of(op.outs[0].type) is None and isinstance(literal, Const) and isinstance(
            literal.value, tuple) and all(isinstance(n, int) and n >= 0 for n in literal.value):
        shape = (vz.batch,) + literal.value  # (np.reshape to a literal shape)
    elif T.shape_of(op.outs[0].type) is None and vz.rank(op.outs[0]) == 1:
        shape = (vz.batch, -1)  # (np.ravel: each example's elements in a row)
    else:
        shape = (vz.batch,) + vz.shape(op.outs[0])
    return _emit_like(vz, op, "numpy.reshape", [vz.v(args[first]), Const(shape)], ())


def _past_batch(axes):
    """Axes counted from the front moved past the batch axis (those from the end stay)."""
    if isinstance(axes, tuple):
        return tuple(_past_batch(a) for a in axes)
    return axes + 1 if axes >= 0 else axes


def transposed(vz, op, rule):
    """np.transpose, x.T, x.transpose(axes) with literal axes: the batch axis kept first."""
    args = bound(rule, op)
    if args is None or len(op.args) > 2 or not _numeric_result(vz, op):
        return None
    a = args[rule.params[0]]
    rank = vz.rank(a)
    axes = args.get("axes", Const(None))
    if not isinstance(axes, Const):
        return None
    if rank <= 1 and axes.value is None:
        return ((vz.v(a), True),)  # (the transpose of a vector is itself)
    order = tuple(reversed(range(rank))) if axes.value is None else axes.value
    perm = (0,) + tuple(p % rank + 1 for p in order)
    return _emit_like(vz, op, "numpy.transpose", [vz.v(a), Const(perm)], ())


def moved_axes(vz, op, rule):
    """np.moveaxis, np.swapaxes with literal axes: the non-negative ones shifted by one."""
    args = bound(rule, op)
    if args is None or not _numeric_result(vz, op):
        return None
    first = rule.params[0]
    if any(vz.form(a) or not isinstance(a, Const) for p, a in args.items() if p != first):
        return None

    kw = tuple((p, Const(_past_batch(a.value))) for p, a in args.items() if p != first)
    return _emit_like(vz, op, op.prim if not rule.attr else "numpy." + op.prim.split(".")[-1],
                      [vz.v(args[first])], kw)


def same(vz, op, rule):
    """The primitive as it is: it acts on trailing axes or elementwise and keeps a leading one
    (np.copy, srcad.T, np.matrix_transpose), for array and number operands."""
    if len(op.outs) != 1 or not all(isinstance(vz.type_of(a), NUMERIC) for a in op.operands() if vz.form(a)):
        return None
    rank = vz.rank(op.outs[0])
    if rank < 2 and op.prim in ("srcad.T", "numpy.matrix_transpose"):
        return None
    return _emit_like(vz, op, op.prim, [vz.v(a) for a in op.args], tuple((k, vz.v(a)) for k, a in op.kw))


def first_example(vz, op, rule):
    """A result that depends only on the shapes and dtypes of its batched operands (zeros_like,
    np.shape, len): computed once, from the first example."""
    args = [vz.first(a) if vz.form(a) else vz.v(a) for a in op.args]
    kw = tuple((k, vz.first(a) if vz.form(a) else vz.v(a)) for k, a in op.kw)
    outs = vz.emit_outs(op, args, kw)
    return tuple((o, False) for o in outs)


def shape_of_operand(*names):
    """first_example when only the parameters `names` (whose shape alone the result reads)
    are batched (np.full_like's fill_value must be the same for every example)."""
    def vmap(vz, op, rule):
        args = bound(rule, op)
        if args is None or any(vz.form(a) for p, a in args.items() if p not in names):
            return None
        return first_example(vz, op, rule)
    return vmap


def repeats(vz, op, rule):
    """A call whose effects every example repeats (print, random numbers, a call srcad cannot
    see into): the function runs once per example, in order, as it is written."""
    raise NotVectorizable(f"{op.prim} has effects each example repeats (printing, random numbers, "
                          "a call srcad does not see into)", op.loc)


repeats.every_call = True  # (consulted for every call, not only those with batched operands)


def matrix_or_vector_norm(vz, op, rule):
    """np.linalg.norm: a reduction over the example's axes (axis=None: a vector's or a
    matrix's, which NumPy tells apart by the rank)."""
    args = bound(rule, op)
    if args is None or (_is_const(args.get("axis"), None) and vz.rank(args["x"]) > 2):
        return None
    return reduction(vz, op, rule)
