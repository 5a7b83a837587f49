"""Exact array shapes, when the arguments' shapes are known (code specialised on shapes).

`refine(rule, sig, out)` adds a shape to an array result type whose rank the rule's type
function gave, from the rule's `shape=` function (srcad/rules/shapes.py): elementwise
operations broadcast their operands' shapes, reductions drop axes, indexing with ints and
constant slices keeps what it selects, products follow the matrix rules. Anything else stays
rank-only — never a guess. The transforms and
`simplify` use shapes to drop run-time shape work: a cotangent that already has its
input's shape needs no reduction, and an operand used only for its shape need not be
computed at all.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Const, atom_type


def shape_query(rule, args, kw) -> Const | None:
    """The value of a query of an array's shape (np.shape, x.ndim, len...: rules with
    `of_shape`) when the array's shape is known, or None."""
    if rule is None or rule.of_shape is None or len(args) != 1 or kw:
        return None
    t = atom_type(args[0])
    if isinstance(t, T.Array) and t.shape is not None:
        value = rule.of_shape(t.shape)
        return Const(value) if value is not None else None
    return None


def axes_key(key) -> tuple | None:
    """The key as a tuple when indexing with it only moves axes (whole slices `:`, new axes
    None, at most one Ellipsis: `x[:, None]`, `x[None, ...]`), else None (it selects elements)."""
    parts = key if isinstance(key, tuple) else (key,)
    if not parts or parts.count(Ellipsis) > 1 or not all(
            k is None or k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in parts):
        return None
    return parts


def infer(rule, sig):
    """The exact shape of the result of `rule` on arguments of known shapes, or None."""
    if rule.shape is None:
        return None
    try:
        return rule.shape(rule, sig)
    except (TypeError, IndexError, ZeroDivisionError):
        return None


def _kept_kind(rule, sig, out: T.Type) -> T.Type:
    """`out` (a float or float array) of the dtype kind of an int or bool first argument, for
    rules that keep it (a bool's sum counts: keeps_kind "int"); not with a dtype= given."""
    first = sig.type(rule.params[0])
    if not isinstance(first, T.Array) or first.kind not in ("i", "u", "b", None) or \
            "dtype" in rule.params and not (sig.is_const("dtype") and sig.const("dtype") is None):
        return out
    kind = "i" if first.kind == "b" and rule.keeps_kind == "int" else first.kind  # (None: unknown)
    if isinstance(out, T.Array):
        return T.Array(out.ndim, kind, out.shape)
    return {"i": T.INT, "u": T.INT, "b": T.BOOL}.get(kind, out)


def refine(rule, sig, out: T.Type) -> T.Type:
    """`out` with the exact shape (and an int or bool input's dtype kind) added when they can
    be inferred."""
    if rule.keeps_kind and rule.params and (type(out) is T.Float or
                                            isinstance(out, T.Array) and out.kind == "f"):
        out = _kept_kind(rule, sig, out)
    if rule.name == "srcad.array_adjoint" and isinstance(out, T.List):
        x = sig.type("x")  # the cotangent of a list has the list's element type
        return T.List(x.elt) if isinstance(x, T.List) else out
    if not isinstance(out, (T.Array, T.Float, T.Num)) or (isinstance(out, T.Array) and out.shape is not None):
        return out
    shape = infer(rule, sig)
    if shape is None:
        return out
    if isinstance(out, T.Float) or (isinstance(out, T.Num) and not shape):
        return out  # a scalar result: shape () is implied (a float or a 0-d array: Num says which)
    if isinstance(out, T.Num):
        return T.Array(len(shape), "f", shape)  # (a float array of rank unknown to the type function)
    if out.ndim is not None and out.ndim != len(shape):
        return out  # the type function knows better (e.g. a 0-d result typed as a float)
    return T.Array(len(shape), out.kind, shape)

