"""NumPy products beyond dot/matmul/outer: vdot, inner, tensordot, einsum, kron, cross,
vecdot, and their numpy.linalg (array API) versions.

Each product is linear in each operand; adjoints are products of the cotangent with the
other operand (summed over the dimensions NumPy broadcast). Limits: einsum takes at most
three operands, in the string form (np.einsum('ij,jk->ik', x, y)) or the sublist form
(np.einsum(x, [0, 1], y, [1, 2], [0, 2])), and no `optimize=`; cross takes 3-vectors, and
2-vectors along the last axis (deprecated in NumPy 2).
"""

import re

from .. import runtime as rt
from ..ir import types as T
from ..ir.nodes import Const
from . import shapes_numpy as shn
from . import typefns as ty
from .operators import _MATMUL_X, _MATMUL_Y
from .registry import conjugated, defrule, family

family("numpy products")


def _tensordot_type(x: str, y: str):
    def out(sig) -> T.Type:
        na, nb = ty._ndim_of(sig.type(x)), ty._ndim_of(sig.type(y))
        axes = sig.const("axes", "?")
        if na is None or nb is None or axes == "?":
            return T.Array(None, "f")
        n = axes if isinstance(axes, int) else len(axes[0]) if isinstance(axes[0], (tuple, list)) else 1
        return T.Array(na + nb - 2 * n, "f")
    return out


def _contract_type(x: str, y: str):
    """inner/vecdot: the last axis of both is contracted (scalars multiply)."""
    def out(sig) -> T.Type:
        na, nb = ty._ndim_of(sig.type(x)), ty._ndim_of(sig.type(y))
        if na is None or nb is None:
            return T.NUM
        if 0 in (na, nb):
            return ty._arith([sig.type(x), sig.type(y)])
        nd = na + nb - 2
        return T.FLOAT if nd == 0 else T.Array(nd, "f")
    return out


def _vecdot_type(sig) -> T.Type:
    na, nb = ty._ndim_of(sig.type("x1")), ty._ndim_of(sig.type("x2"))
    if na is None or nb is None:
        return T.NUM
    nd = max(na, nb) - 1
    return T.FLOAT if nd == 0 else T.Array(nd, "f")


for _path, (_a, _b) in {"numpy.tensordot": ("a", "b"), "numpy.linalg.tensordot": ("x1", "x2")}.items():
    _call = "np.tensordot" if _path == "numpy.tensordot" else "np.linalg.tensordot"
    defrule(_path, f"{_a}, {_b}, axes=2",
            jvp={_a: f"{_call}(t, {_b}, axes=axes)", _b: f"{_call}({_a}, t, axes=axes)"},
            vjp={_a: f"srcad.tensordot_adjoint(g, {_b}, np.shape({_a}), axes, 0)",
                 _b: f"srcad.tensordot_adjoint(g, {_a}, np.shape({_b}), axes, 1)"},
            out=_tensordot_type(_a, _b), multilinear=(_a, _b),
            shape=shn.tensordot if _path == "numpy.tensordot" else None, numba="tensordot")

defrule("numpy.vdot", "a, b",
        vjp=("np.reshape(g * b, np.shape(a))", "np.reshape(g * a, np.shape(b))"),
        out=ty.scalar_float, multilinear=("a", "b"))
defrule("numpy.inner", "a, b",
        vjp=("np.sum(g * b) if np.ndim(a) == 0 else (g * b if np.ndim(b) == 0 else "
             "srcad.tensordot_adjoint(g, b, np.shape(a), (-1, -1), 0))",
             "np.sum(g * a) if np.ndim(b) == 0 else (g * a if np.ndim(a) == 0 else "
             "srcad.tensordot_adjoint(g, a, np.shape(b), (-1, -1), 1))"),
        out=_contract_type("a", "b"), multilinear=("a", "b"), shape=shn.inner)
# vecdot is a generalised ufunc: `axis` is each operand's own contracted axis, and the
# other axes broadcast (summed in the adjoint with the contracted axis last)
_VECDOT_VJP = ("np.expand_dims(g, -1) * {y} if axis == -1 else np.moveaxis(srcad.unbroadcast("
               "np.expand_dims(g, -1) * np.moveaxis({y}, axis, -1), np.moveaxis({x}, axis, -1)), -1, axis)")
for _path in ("numpy.vecdot", "numpy.linalg.vecdot"):
    _call = _path.replace("numpy.", "np.")
    defrule(_path, "x1, x2, axis=-1",
            jvp=(f"{_call}(t, x2, axis=axis)", f"{_call}(x1, t, axis=axis)"),
            vjp=(_VECDOT_VJP.format(x="x1", y="x2"), _VECDOT_VJP.format(x="x2", y="x1")),
            out=_vecdot_type, broadcasts=("x1", "x2"), multilinear=("x1", "x2"))
defrule("numpy.linalg.outer", "x1, x2",
        vjp=("np.dot(g, x2)", "np.dot(x1, g)"), out=ty.array(2), multilinear=("x1", "x2"))
defrule("numpy.linalg.matmul", "x1, x2",
        vjp=tuple(re.sub(r"\b[xy]\b", lambda m: {"x": "x1", "y": "x2"}[m.group()], v)
                  for v in (_MATMUL_X, _MATMUL_Y)),
        out=ty.matmul("x1", "x2"), broadcasts=("x1", "x2"), multilinear=("x1", "x2"))

# einsum: srcad.einsum_call drops absent operands; srcad.einsum_vjp is the adjoint for one
# operand (given as its shape), itself differentiable (rules in helpers.py). The sublist form
# np.einsum(x, [0, 1], y, [1, 2], [0, 2]) has its operands at even positions (subscripts, b,
# d); srcad.einsum_spec turns its sublists into a subscripts string.


def einsum_view(bound: dict):
    """np.einsum of a single operand ('ji->ij', 'ii->i', 'ij->ij') returns a writable view of
    it; of several, a new array. The operands are the arguments that are not subscripts
    strings, sublists or absent."""
    operands = [v for v in bound.values() if not (isinstance(v, Const) and (
        v.value is None or isinstance(v.value, (str, list, tuple))))
        and not isinstance(getattr(v, "type", None), (T.List, T.Tuple, T.Str, T.NoneT))]
    return operands[0] if len(operands) == 1 else None


def _einsum_type(sig) -> T.Type:
    """A float array of the rank the subscripts give ('ij,jk->ik': 2), when they are a literal
    without '...'; a float or an array of unknown rank otherwise."""
    spec = sig.const("subscripts")
    if not isinstance(spec, str) or "." in spec:
        return T.NUM
    spec = spec.replace(" ", "")
    if "->" in spec:
        out = spec.split("->")[1]
    else:
        letters = spec.replace(",", "")
        out = [c for c in letters if letters.count(c) == 1]
    return T.Array(len(out), "f") if out else T.NUM


_SPEC = "srcad.einsum_spec(subscripts, a, b, c, d, e, f)"
_IS_STR = "isinstance(subscripts, str)"
_B, _D = "(b if c is not None else None)", "(d if e is not None else None)"  # an operand, not the output
# the string form takes up to six operands a..f; the sublist form (operands at even positions:
# np.einsum(x, [0, 1], y, [1, 2], [0, 2])) up to three: subscripts, b and d
_OPS = ("a", "b", "c", "d", "e", "f")


def _operands(j: int, value: str) -> str:
    """The string form's operands, with `value` in place of operand j."""
    return ", ".join(value if i == j else name for i, name in enumerate(_OPS))


def _jvp(j: int) -> str:
    return f"srcad.einsum_call(subscripts, {_operands(j, 't')})"


def _vjp(j: int) -> str:
    return f"srcad.einsum_vjp(subscripts, {j}, g, {_operands(j, f'np.shape({_OPS[j]})')})"


_EINSUM_VJP = {"a": _vjp(0),
               "b": (f"{_vjp(1)} if {_IS_STR} else "
                     f"srcad.einsum_vjp({_SPEC}, 1, g, subscripts, np.shape(b), {_D})"),
               "c": _vjp(2),
               "subscripts": f"srcad.einsum_vjp({_SPEC}, 0, g, np.shape(subscripts), {_B}, {_D})",
               "d": (f"{_vjp(3)} if {_IS_STR} else "
                     f"srcad.einsum_vjp({_SPEC}, 2, g, subscripts, b, np.shape(d))"),
               "e": _vjp(4), "f": _vjp(5)}
defrule("numpy.einsum", "subscripts, a=None, b=None, c=None, d=None, e=None, f=None, optimize=False",
        jvp={"a": _jvp(0),
             "b": f"{_jvp(1)} if {_IS_STR} else srcad.einsum_call({_SPEC}, subscripts, t, {_D})",
             "c": _jvp(2),
             "subscripts": f"srcad.einsum_call({_SPEC}, t, {_B}, {_D})",
             "d": f"{_jvp(3)} if {_IS_STR} else srcad.einsum_call({_SPEC}, subscripts, b, t)",
             "e": _jvp(4), "f": _jvp(5)},
        vjp=_EINSUM_VJP, complex="keeps", complex_vjp={p: conjugated(v) for p, v in _EINSUM_VJP.items()},
        out=_einsum_type, multilinear=("subscripts",) + _OPS, view_of=einsum_view,
        shape=shn.einsum, positional=7, runs=rt.einsum)

# kron of operands of any ranks (padded with leading 1s to the same rank); a scalar operand
# simply scales the other
defrule("numpy.kron", "a, b",
        vjp=("np.sum(g * b) if np.ndim(a) == 0 else srcad.kron_adjoint(g, b, np.shape(a), 0)",
             "np.sum(g * a) if np.ndim(b) == 0 else srcad.kron_adjoint(g, a, np.shape(b), 1)"),
        out=lambda sig: T.Array(None if None in (ty._ndim_of(sig.type("a")), ty._ndim_of(sig.type("b")))
                                else max(ty._ndim_of(sig.type("a")), ty._ndim_of(sig.type("b"))), "f"),
        multilinear=("a", "b"), shape=shn.kron)

# cross products of 3-vectors: <g, a x b> = <a, b x g> = <b, g x a>; 2-vectors (last axis,
# deprecated in NumPy 2) have a scalar result a0 b1 - a1 b0
_CROSS2 = ("({1} if np.shape(a)[-1] == 2 and np.shape(b)[-1] == 2 and axis is None and axisa == -1 "
           "and axisb == -1 else {0})")
defrule("numpy.cross", "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
        vjp=(_CROSS2.format("np.cross(b, g, axisb, axisc, axisa, axis)", "srcad.cross2_adjoint(g, b, 0)"),
             _CROSS2.format("np.cross(g, a, axisc, axisa, axisb, axis)", "srcad.cross2_adjoint(g, a, 1)")),
        out=lambda sig: T.Array(None, "f"), broadcasts=("a", "b"), multilinear=("a", "b"))
defrule("numpy.linalg.cross", "x1, x2, axis=-1",
        jvp=("np.linalg.cross(t, x2, axis=axis)", "np.linalg.cross(x1, t, axis=axis)"),
        vjp=("np.linalg.cross(x2, g, axis=axis)", "np.linalg.cross(g, x1, axis=axis)"),
        out=lambda sig: T.Array(None, "f"), broadcasts=("x1", "x2"), multilinear=("x1", "x2"))
