"""Rules of the run-time helpers that the numpy families' templates call (srcad/runtime/).

Most helpers are the adjoint of a numpy function, and that numpy function is their adjoint
in turn (split_like/join_like, untile/np.tile, take_adjoint/np.take...), so derivative code
can be differentiated again to any order. Parameters named like the operand whose adjoint
a helper computes (`a`, `arr`, `shape`) only give shapes: no derivative flows through them.

A note for rule authors: a `let` is computed where a template first uses it and then
reused. Branches on static facts (`np.ndim(b) == 1`, `axis is None`) fold away when types
are known, but stay run-time branches in the generic version srcad builds for unknown
types (nested transforms use it). So a let must not be used first inside such a branch
and again outside it; splice the sub-expression in as text instead (numpy_norms.py does).
"""

from .. import runtime as rt
from ..ir import types as T
from . import batching as bt
from . import shapes as sh
from . import shapes_numpy as shn
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .numpy_products import einsum_view
from .registry import conjugated, defrule, family, nondiff

family("internal")


def _pieces(sig) -> T.Type:
    if isinstance(sig.type("arrays"), T.Array):
        return T.Array(sig.type("arrays").ndim, "f")
    if not isinstance(sig.type("arrays"), (T.List, T.Tuple)):
        return T.UNKNOWN  # (an array, a list or a tuple: the pieces are an array for an array)
    elt = ty._elements(sig.type("arrays"))
    if isinstance(elt, T.Array):
        return T.List(T.Array(elt.ndim, "f"))
    return T.List(T.FLOAT if isinstance(elt, T.Float) else T.NUM)


def linear(name, params, adjoint, out, fresh=True, **flags):
    """A helper linear in its first parameter `c` with the given adjoint template (its tangent
    rule is itself, applied to the tangent)."""
    return defrule(f"srcad.{name}", params, vjp={"c": adjoint}, out=out, fn=getattr(rt, name), fresh=fresh,
                   linear=("c",), **flags)


linear("split_like", "c, arrays, axis=0, ndmin=1", "srcad.join_like(g, arrays, axis, ndmin)", _pieces,
       fresh=False, complex="keeps", list_shapes="arrays")
linear("join_like", "c, arrays, axis=0, ndmin=1", "srcad.split_like(g, arrays, axis, ndmin)",
       ty.array(None), complex="keeps")
linear("unstack_like", "c, arrays, axis=0", "np.stack(g, axis=axis)", _pieces, fresh=False, complex="keeps",
       list_shapes="arrays")
defrule("srcad.sequence_adjoint", "c, x", vjp={"c": "list(g)"},
        out=ty.same("x"), fn=rt.sequence_adjoint, fresh=False, linear=("c",))
linear("untile", "c, a, reps", "np.tile(g, reps)", ty.array_like("a"))
linear("unrepeat", "c, a, repeats, axis=None", "np.repeat(g, repeats, axis)", ty.array_like("a"))
linear("pad_adjoint", "c, array, pad_width, mode='constant'", "np.pad(g, pad_width, mode=mode)",
       ty.array_like("array"))
linear("take_adjoint", "c, a, indices, axis=None", "np.take(g, indices, axis)", ty.array_like("a"))
linear("take_along_adjoint", "c, arr, indices, axis=-1", "np.take_along_axis(g, indices, axis)",
       ty.array_like("arr"))
linear("diag_adjoint", "c, v, k=0", "np.diag(g, k)", ty.array_like("v"))
linear("diagonal_adjoint", "c, a, offset=0, axis1=0, axis2=1", "np.diagonal(g, offset, axis1, axis2)",
       ty.array_like("a"))
linear("unique_tangent", "c, ar, axis=None, equal_nan=True", "srcad.unique_adjoint(g, ar, axis, equal_nan)",
       ty.array(None))
linear("unique_adjoint", "c, ar, axis=None, equal_nan=True", "srcad.unique_tangent(g, ar, axis, equal_nan)",
       ty.array_like("ar"))
# np.sum(c, axis) of a float array as a matrix-vector product with ones (passes/axis_sums.py)
linear("axis_sum", "c, axis", "srcad.expand_reduced(g, c, axis, False)", ty.reduce_("c"), shape=sh.reduction,
       batch=bt.reduction, complex="keeps")
linear("diff_adjoint", "c, n=1, axis=-1", "np.diff(g, n, axis)", ty.same("c"))
linear("average_weights", "c, a, axis=None", "srcad.average_weights_adjoint(g, c, axis)",
       ty.array_like("a"), fresh=False, readonly=True)
linear("average_weights_adjoint", "c, w, axis=None", "srcad.average_weights(g, c, axis)",
       ty.array_like("w"), fresh=False)

# bilinear helpers: the adjoints of tensordot and einsum (see runtime/products.py)
defrule("srcad.tensordot_adjoint", "c, x, shape, axes, which",
        vjp={"c": "np.tensordot(g, x, axes) if which == 0 else np.tensordot(x, g, axes)",
             "x": "srcad.tensordot_adjoint(c, g, np.shape(x), axes, 1 - which)"},
        out=ty.from_shape("shape"), shape=sh.literal, fn=rt.tensordot_adjoint, multilinear=("c", "x"))

defrule("srcad.kron_adjoint", "c, x, shape, which",
        vjp={"c": "np.kron(g, x) if which == 0 else np.kron(x, g)",
             "x": "srcad.kron_adjoint(c, g, np.shape(x), 1 - which)"},
        out=ty.from_shape("shape"), fn=rt.kron_adjoint, multilinear=("c", "x"))

# einsum with up to six operands; einsum_vjp gets operand k as its shape
_OPS = ("a", "b", "c", "d", "e", "f")


def _ops_with(j: int, value: str) -> str:
    return ", ".join(value if i == j else name for i, name in enumerate(_OPS))


_CALL_VJP = {name: f"srcad.einsum_vjp(subscripts, {j}, g, {_ops_with(j, f'np.shape({name})')})"
             for j, name in enumerate(_OPS)}
defrule("srcad.einsum_call", "subscripts, a, b=None, c=None, d=None, e=None, f=None", vjp=_CALL_VJP,
        out=ty.num, fn=rt.einsum_call, multilinear=_OPS, view_of=einsum_view, complex="keeps",
        complex_vjp={p: conjugated(v) for p, v in _CALL_VJP.items()})
# <g, einsum_vjp_k(h, ops)> = <h, einsum(ops with g at k)>: linear in h and in each operand
# j != k, whose adjoint is einsum_vjp_j with g in place of operand k.


def _with(j: int, value: str, k: str) -> list[str]:
    """The operand list for operand j's adjoint: operand j as its shape, operand k (a run-time
    index) replaced by `value`."""
    out = []
    for i, name in enumerate(_OPS):
        if i == j:
            out.append(f"np.shape({name})")
        else:
            out.append(f"({value} if {k} == {i} else {name})")
    return out


def _h_adjoint(j: int = 0) -> str:
    """The adjoint in h: einsum of the operands with g in place of operand k."""
    call = f"srcad.einsum_call(subscripts, {_ops_with(j, 'g')})"
    return call if j == len(_OPS) - 1 else f"({call} if k == {j} else {_h_adjoint(j + 1)})"


_VJP_VJP = {"h": _h_adjoint(),
            **{name: f"srcad.einsum_vjp(subscripts, {j}, h, {', '.join(_with(j, 'g', 'k'))})"
               for j, name in enumerate(_OPS)}}
defrule("srcad.einsum_vjp", "subscripts, k, h, a, b=None, c=None, d=None, e=None, f=None", vjp=_VJP_VJP,
        out=ty.array(None), shape=shn.einsum_vjp, fn=rt.einsum_vjp, fresh=False, multilinear=("h",) + _OPS,
        complex="keeps",
        complex_vjp={p: conjugated(v) for p, v in _VJP_VJP.items()})

# prod_partials(a)_i = prod_{j != i} a_j in each group; its Jacobian is the Hessian of the
# product, symmetric, applied by prod_hvp (exact at zeros); prod_hvp's derivative in a is the
# product's third derivative, symmetric too, applied by prod_third (exact at zeros); a fourth
# derivative is refused (no rule for prod_third's a).
defrule("srcad.prod_partials", "a, axis=None", jvp={"a": "srcad.prod_hvp(t, a, axis)"},
        vjp={"a": "srcad.prod_hvp(g, a, axis)"}, out=ty.floating("a"), fn=rt.prod_partials,
        shape=shn.same("a"))
defrule("srcad.prod_hvp", "v, a, axis=None", out=ty.floating("a"), fn=rt.prod_hvp, linear=("v",),
        jvp={"a": "srcad.prod_third(v, t, a, axis)"},
        vjp={"v": "srcad.prod_hvp(g, a, axis)", "a": "srcad.prod_third(g, v, a, axis)"})
defrule("srcad.prod_third", "v, w, a, axis=None", out=ty.floating("a"), fn=rt.prod_third,
        multilinear=("v", "w"), refuses=("a",),
        vjp={"v": "srcad.prod_third(g, w, a, axis)", "w": "srcad.prod_third(v, g, a, axis)"})
# np.linalg.qr's R where its derivative exists (square: a tall or square a; a wide a is refused)
defrule("srcad.qr_square_r", "r", jvp="t", vjp="g", out=ty.same("r"), fn=rt.qr_square_r, fresh=False,
        linear=("r",))
# np.sinc's first, second and third derivatives, exact at 0 (where the quotients are limits);
# a fourth derivative is refused
defrule("srcad.sinc_slope", "x", jvp="t * srcad.sinc_curvature(x)", vjp="g * srcad.sinc_curvature(x)",
        out=ty.floating("x"), fn=rt.sinc_slope)
defrule("srcad.sinc_curvature", "x", jvp="t * srcad.sinc_third(x)", vjp="g * srcad.sinc_third(x)",
        out=ty.floating("x"), fn=rt.sinc_curvature)
defrule("srcad.sinc_third", "x", out=ty.floating("x"), fn=rt.sinc_third, refuses=("x",))
# log_or_zero: log(x) with 0 at x == 0; its derivative is 1 / x (infinite at 0)
defrule("srcad.log_or_zero", "x", jvp="t / x", vjp="g / x", out=ty.floating("x"), fn=rt.log_or_zero)
# cross2_adjoint(c, o, which) = (1 - 2 which) [c o1, -c o0]: bilinear in c and o
defrule("srcad.cross2_adjoint", "c, o, which", fn=rt.cross2_adjoint, out=ty.array(None), multilinear=("c",
        "o"),
        vjp={"c": "srcad.unbroadcast((1 - 2 * which) * (g[..., 0] * o[..., 1] - g[..., 1] * o[..., 0]), c)",
             "o": "srcad.unbroadcast((1 - 2 * which) "
                  "* np.stack([-g[..., 1] * c, g[..., 0] * c], axis=-1), o)"})
nondiff("srcad.einsum_spec", "subscripts, a=None, b=None, c=None, d=None, e=None, f=None",
        out=lambda sig: T.STR, fn=rt.einsum_spec)
# the symmetric matrix read from one triangle, and its adjoint (the linalg rules)
defrule("srcad.from_triangle", "x, upper=False",
        vjp={"x": "srcad.to_triangle(g, upper)"}, out=ty.same("x"), fn=rt.from_triangle, linear=("x",))
defrule("srcad.to_triangle", "c, upper=False",
        vjp={"c": "srcad.from_triangle(g, upper)"}, out=ty.same("c"), fn=rt.to_triangle, linear=("c",))


def _winners_type(sig) -> T.Type:
    """True for a basic key (ints, slices: each position written once), else a mask shaped
    like x[idx]."""
    idx, x = sig.type("idx"), sig.type("x")
    parts = idx.elts if isinstance(idx, T.Tuple) else (idx,)
    if isinstance(x, (T.List, T.Tuple, T.Dict)) or all(isinstance(p, (T.Int, T.Bool, T.NoneT)) or (
            isinstance(p, T.Opaque) and p.what in ("slice", "ellipsis")) for p in parts):
        return T.BOOL
    if not isinstance(x, T.Array):  # (an array whose type is not known here: a mask, 14000:631)
        return T.UNKNOWN
    sel = ty.getitem(sig)
    return T.Array(sel.ndim, "b", sel.shape) if isinstance(sel, T.Array) else T.Array(None, "b")


# the adjugate (the derivative of det) and its derivatives; a third derivative of det is refused
defrule("srcad.adjugate", "a", jvp="srcad.adjugate_jvp(a, t)", vjp="srcad.adjugate_vjp(a, g)",
        out=ty.rank("a"), fn=rt.adjugate)
defrule("srcad.adjugate_jvp", "a, v",
        vjp={"v": "srcad.adjugate_vjp(a, g)"}, out=ty.rank("a"), fn=rt.adjugate_jvp, linear=("v",),
        refuses=("a",))
defrule("srcad.adjugate_vjp", "a, c",
        vjp={"c": "srcad.adjugate_jvp(a, g)"}, out=ty.rank("a"), fn=rt.adjugate_vjp, linear=("c",),
        refuses=("a",))
# inv(a), or adj(a) / 0 at a singular a (the derivative of slogdet)
defrule("srcad.inverse_or_inf", "a", jvp="-(ans @ t @ ans)", vjp="-(srcad.T(ans) @ g @ srcad.T(ans))",
        out=ty.rank("a"), fn=rt.inverse_or_inf)
# num / d with 0 / 0 = 0 and x / 0 = NaN where |d| <= tol (the spectral rules)
defrule("srcad.tie_div", "num, d, tol", fn=rt.tie_div, out=ty.floating("num", "d"), broadcasts=("num", "d"),
        jvp={"num": "srcad.tie_div(t, d, tol)", "d": "srcad.tie_div(-(t * ans), d, tol)"},
        vjp={"num": "srcad.tie_div(g, d, tol)", "d": "srcad.tie_div(-(g * ans), d, tol)"})
nondiff("srcad.write_winners", "x, idx", out=_winners_type, fn=rt.write_winners)
nondiff("srcad.rolled_axis", "ndim, axis, start=0", out=ty.scalar_int, fn=rt.rolled_axis)
# checkpointed loops (passes/checkpointing.py): iterations per segment, a segment's first index
nondiff("srcad.loop_trips", "start, stop, step", out=ty.scalar_int, fn=rt.loop_trips)
nondiff("srcad.segment_count", "n, k", out=ty.scalar_int, fn=rt.segment_count)
nondiff("srcad.segment_length", "n, budget, iter_bytes, carry_bytes", out=ty.scalar_int, fn=rt.segment_length)
nondiff("srcad.segment_bound", "start, step, k, n, s", out=ty.scalar_int, fn=rt.segment_bound)
nondiff("srcad.svd_rank", "a, full_matrices=True", out=ty.scalar_int, fn=rt.svd_rank)
defrule("srcad.assigned", "x, name", jvp={"x": "t"}, vjp={"x": "g"}, out=ty.same("x"), fn=rt.assigned,
        fresh=False, linear=("x",), raises="always", complex="keeps", vmap=vmi.checked)
# a dict's cotangent without the key a write added (operator.setitem's vjp)
defrule("srcad.without_key", "c, key",
        vjp={"c": "srcad.setitem(g, key, srcad.zeros_like(c[key]))"}, out=ty.unknown, fn=rt.without_key,
        linear=("c",), vmap=vmi.same_items)
# the zero of a list or dict item a write replaces (operator.setitem's `old`)
nondiff("srcad.zero_item", "x, idx", out=ty.getitem, fn=rt.zero_item, raises="index", objects="items",
        vmap=vm.shape_of_operand("x"))
# reads of a local variable that may be unassigned (frontend/definite.py): kept, so that
# derivatives raise UnboundLocalError where the function does
defrule("srcad.bound", "x, name", jvp={"x": "t"}, vjp={"x": "g"}, out=ty.same("x"), fn=rt.bound,
        fresh=False, linear=("x",), raises="always", objects="any", holds="first", complex="keeps",
        vmap=vmi.checked)
nondiff("srcad.unbound", "name", out=lambda sig: T.BOTTOM, fn=rt.unbound, raises="always")
# a parameter a source implementation (rules/scipy_stats.py) treats as data: an error if differentiated
nondiff("srcad.data_only", "x, what=''", out=lambda sig: sig.type("x"), fn=rt.data_only, refuses=("x",),
        shape=shn.same("x"), foldable=True)
nondiff("srcad.require_scalar", "x, what=''", out=ty.scalar_float, fn=rt.require_scalar, raises="always")
