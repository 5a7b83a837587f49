"""The type policy inside a function: what a differentiated value may meet.

srcad/gate.py decides what may enter a transformation; this module applies the same policy
to the values a function meets on the way: globals, closure variables, arguments that are
not differentiated and results of calls. A differentiated value may be combined with floats,
ints, bools, NumPy arrays of those kinds, containers, None, strings, slices and the like.
Combined with a complex value, an ndarray subclass (np.matrix, whose `*` is a matrix
product; a masked array, whose sums skip entries), a pandas or xarray object (which align
by labels) or an object srcad knows nothing about, its derivative rule would not describe
what the operation computes, so that is a `TypeSupportError` at the user's line, for every
transformation (activity.analyze runs it). Arrays of other libraries that follow NumPy's
semantics (dask, CuPy, array-API arrays) may meet differentiated values as constants.

    def f(x, z):            # grad(f)(2.0, 1j)
        return x * z        # TypeSupportError: 'z' is complex
"""

from __future__ import annotations

import dataclasses

from ..errors import NoRuleError, TypeSupportError, diagnostic
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Block, Const, Ext, Function, Var, iter_ops
from ..rules import registry
from .operands import operand_params

_HINTS = {
    "complex": "srcad differentiates real values: keep complex numbers away from differentiated "
               "ones (split them into real and imaginary float parts)",
    "object": "read the numbers out of it (obj.w, np.asarray(m)) before combining them with "
              "differentiated values",
}


def bad_kind(a: Atom) -> str | None:
    """"complex" or "object" for a value a differentiated value may not meet."""
    if isinstance(a, Const):
        if isinstance(a.value, Ext):
            kind = T.value_kind(a.value.obj)
            return kind if kind in _HINTS else None
        return "complex" if isinstance(a.value, complex) else None
    t = a.type
    if isinstance(t, T.Opaque) and t.kind in _HINTS:
        return t.kind
    if isinstance(t, T.Array) and t.kind == "c":
        return "complex"
    return None


def _describe(a: Atom, kind: str) -> str:
    if kind == "complex":
        return "a complex value"
    name = type(a.value.obj).__name__ if isinstance(a, Const) else a.type.what
    return (f"a {name} object, which srcad does not know (ndarray subclasses such as np.matrix, "
            "and pandas or xarray objects, have operators that differ from NumPy's)")


def _meets_varied(op: Apply, varied: set) -> bool:
    """Is op a differentiable operation with a differentiated operand?"""
    rule = registry.lookup(op.prim)
    if rule is None or rule.structural or rule.custom or rule.opaque or not rule.differentiable:
        return False
    return any(isinstance(a, Var) and a in varied for _, a in operand_params(op, rule))


def guard_unknown(fn: Function, varied: set) -> Function:
    """`fn` with a run-time check (srcad.known) before the first operation where a value
    whose type is not known while transforming — the result of a call srcad cannot see
    into, an attribute of an object — meets a differentiated value: when it turns out to be
    complex or an object srcad does not know, the generated code raises TypeSupportError
    there instead of applying a derivative rule that does not hold for it.

        %c: ? = srcad.call(@make_scale)        %c: ? = srcad.call(@make_scale)
        %y = operator.mul(%x, %c)       ->     srcad.known(%c, 'model.py:7:8')
                                               %y = operator.mul(%x, %c)
    """

    def block(b: Block, checked: frozenset) -> Block:
        ops, seen = [], set(checked)
        for op in b.ops:
            if isinstance(op, Apply) and _meets_varied(op, varied):
                for a in op.operands():
                    unknown = isinstance(a, Var) and isinstance(a.type, T.Unknown)
                    if unknown and a not in varied and a not in seen:
                        site = diagnostic(op.loc, "") if op.loc else None  # (the user's call, for
                        # a line of a source implementation srcad inlined: errors.Diagnostic)
                        where = f"{site.file}:{site.line}:{site.col}" if site else fn.name
                        ops.append(Apply((), "srcad.known", (a, Const(where)), (), op.loc))
                        seen.add(a)
            ops.append(op.map(block=lambda inner: block(inner, frozenset(seen))))
        return dataclasses.replace(b, ops=tuple(ops))

    return dataclasses.replace(fn, body=block(fn.body, frozenset()))


def check_types(body: Block, varied: set) -> None:
    """Raise TypeSupportError where a differentiated value meets a value of a kind srcad
    cannot differentiate through (see the module docstring)."""
    for op in iter_ops(body):
        if not isinstance(op, Apply) or not _meets_varied(op, varied):
            continue
        for a in op.operands() + tuple(op.outs):
            kind = bad_kind(a)
            if kind is not None:
                _refuse(op, a, kind)


def _refuse(op: Apply, a: Atom, kind: str) -> None:
    if op.prim == "operator.getitem" and a is op.args[0] and isinstance(a, Const):
        msg = ("indexing with a differentiated value (as np.r_[x, 0:3] and np.c_ with slices do) "
               "has no derivative")
        raise NoRuleError(msg, [diagnostic(op.loc, msg, "build the array with np.concatenate, np.stack "
                                           "or np.column_stack instead")])
    what, hint = _describe(a, kind), _HINTS[kind]
    if isinstance(a, Var) and a in op.outs:
        msg = f"{op.prim} of a differentiated value gives {what} here"
    elif isinstance(a, Var) and a.hint:
        msg = f"a differentiated value meets '{a.hint}', {what}, in {op.prim}"
    else:
        msg = f"a differentiated value meets {what} in {op.prim}"
    raise TypeSupportError(msg, [diagnostic(op.loc, msg, hint)])
