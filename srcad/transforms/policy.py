"""The type policy inside a function: what a differentiated value may meet.

srcad/gate.py decides what may enter a transformation; this module applies the same policy
to the values a function meets on the way: globals, closure variables, arguments that are
not differentiated and results of calls. A differentiated value may be combined with floats,
ints, bools, NumPy arrays of those kinds, containers, None, strings, slices and the like.
Combined with a complex value (but see below), an ndarray subclass (np.matrix, whose `*` is a matrix
product; a masked array, whose sums skip entries), a pandas or xarray object (which align
by labels) or an object srcad knows nothing about, its derivative rule would not describe
what the operation computes, so that is a `TypeSupportError` at the user's line, for every
transformation (activity.analyze runs it). Arrays of other libraries that follow NumPy's
semantics (dask, CuPy, array-API arrays) may meet differentiated values as constants.

Complex values are the exception when the rule says its templates hold for them
(Rule.complex; docs/subset.md, "Complex intermediate values", has the convention): a
complex value made or met inside the function carries derivatives through those rules, and
is a TypeSupportError at any other one.

    def f(x, z):            # grad(f)(2.0, 1j)
        return np.real(x * z)                   # Re z: operator.mul is complex-correct
    def g(x, z):
        return np.sum(np.real(np.cumsum(x * z)))  # TypeSupportError: np.cumsum cannot take
                                                  # complex values
"""

from __future__ import annotations

import dataclasses

from ..errors import NoRuleError, TypeSupportError, diagnostic, where_text
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Block, Const, Ext, For, Function, If, Var, While, atom_type, iter_ops
from ..rules import registry
from .operands import operand_params

_HINTS = {
    "complex": "srcad differentiates real values: keep complex numbers away from differentiated "
               "ones (split them into real and imaginary float parts)",
    "object": "read the numbers out of it (obj.w, np.asarray(m); a scipy.sparse matrix's: m.toarray(), "
              "or write the product as m @ x outside srcad) before combining them with differentiated values",
}


def bad_kind(a: Atom) -> str | None:
    """"complex" or "object" for a value a differentiated value may not meet."""
    if isinstance(a, Const):
        if isinstance(a.value, Ext):
            kind = T.value_kind(a.value.obj)
            return kind if kind in _HINTS else None
        return "complex" if isinstance(a.value, complex) else None
    t = a.type
    if T.is_complex(t) or holds_complex(t):
        return "complex"
    if isinstance(t, T.Opaque) and t.kind in _HINTS:
        return t.kind
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


def _may_turn_complex(op: Apply, varied: set) -> bool:
    """`x ** y` of Python numbers with a differentiated operand and an exponent that may not be
    an integer: Python makes it complex for x < 0 (NumPy would give nan), so it is checked."""
    if op.prim not in ("operator.pow", "operator.ipow", "builtins.pow") or len(op.args) < 2 or not op.outs:
        return False
    base, exp = op.args[0], op.args[1]
    scalars = (T.Float, T.Int, T.Num)
    if not any(isinstance(a, Var) and a in varied for a in (base, exp)):
        return False
    if not (isinstance(atom_type(base), scalars) and isinstance(atom_type(exp), scalars)):
        return False
    if isinstance(base, Const) and isinstance(base.value, (int, float)) and base.value >= 0:
        return False
    if isinstance(exp, Const) and isinstance(exp.value, (int, float)) and float(exp.value).is_integer():
        return False
    return not isinstance(atom_type(exp), T.Int)


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
                        where = where_text(op.loc, fn.name)
                        ops.append(Apply((), "srcad.known", (a, Const(where)), (), op.loc))
                        seen.add(a)
            ops.append(op.map(block=lambda inner: block(inner, frozenset(seen))))
            if isinstance(op, Apply) and _may_turn_complex(op, varied):
                where = where_text(op.loc, fn.name)
                ops.append(Apply((), "srcad.known", (op.outs[0], Const(where)), (), op.loc))
        return dataclasses.replace(b, ops=tuple(ops))

    return dataclasses.replace(fn, body=block(fn.body, frozenset()))


def check_types(body: Block, varied: set) -> None:
    """Raise TypeSupportError where a differentiated value meets a value of a kind srcad
    cannot differentiate through (see the module docstring).

    Complex values: a rule that is not complex-correct may not meet one; a complex-correct
    rule's results must have types that say whether they are complex (result_types.py makes
    those of a rule that keeps complex values complex), and so must a value joined from a
    complex one where control flow merges. So every value that may be complex has a complex
    type, and a differentiated value of unknown type is real (srcad.known checks, at run
    time, the values of unknown type from outside the function that meet it): the
    transforms rely on this to give the real part of a cotangent to a real operand."""
    for op in iter_ops(body):
        if isinstance(op, Apply):
            rule = registry.lookup(op.prim)
            if rule is not None and rule.custom and _varied_operand(op, varied) and touches_complex(op):
                _refuse_complex(op, "a custom rule (srcad.custom_vjp, custom_jvp)")
            if not _meets_varied(op, varied):
                continue
            complex_ok = rule.complex != ""
            foreign = {id(a) for p, a in registry.bind(rule, op.args, op.kw).items() if p in rule.foreign}
            for a in op.operands() + tuple(op.outs):
                kind = bad_kind(a)
                if kind == "object" and id(a) in foreign:
                    continue
                if kind == "complex" and complex_ok and not _opaque_complex(a):
                    continue
                if kind == "complex" and complex_ok:
                    _refuse(op, a, kind)
                if kind == "complex":
                    _refuse_complex(op, _callee(op))
                if kind is not None:
                    _refuse(op, a, kind)
            if complex_ok and touches_complex(op):
                _check_known_results(op, op.outs)
                _check_written(op, rule)
        else:
            _check_joins(op, varied)


def touches_complex(op: Apply) -> bool:
    """Has op a complex operand or result (by type, or a complex literal)?"""
    return any(_complex_atom(a) for a in op.operands() + tuple(op.outs))


def _complex_atom(a: Atom) -> bool:
    if isinstance(a, Const):
        return isinstance(a.value, complex)
    return T.is_complex(a.type) or holds_complex(a.type)


def holds_complex(t: T.Type) -> bool:
    if isinstance(t, T.Tuple):
        return any(T.is_complex(e) or holds_complex(e) for e in t.elts)
    if isinstance(t, T.List):
        return T.is_complex(t.elt) or holds_complex(t.elt)
    if isinstance(t, T.Dict):
        return any(T.is_complex(v) or holds_complex(v) for _, v in t.items)
    return False


def _opaque_complex(a: Atom) -> bool:
    """A complex value srcad has no type for (an object holding one): never differentiated."""
    if isinstance(a, Const):
        return isinstance(a.value, Ext)
    return isinstance(a.type, T.Opaque)


def _varied_operand(op: Apply, varied: set) -> bool:
    return any(isinstance(a, Var) and a in varied for a in op.operands())


def _known_kind(t: T.Type) -> bool:
    """Does the type say whether a value is real or complex? (A value of unknown type that
    is not the result of an operation on complex values is real: see check_types.)"""
    if isinstance(t, (T.Tuple, T.List)):
        return all(_known_kind(e) for e in (t.elts if isinstance(t, T.Tuple) else (t.elt,)))
    if isinstance(t, T.Array):
        return t.kind is not None
    return isinstance(t, (T.Float, T.Int, T.Bool, T.Complex, T.NoneT, T.Str, T.Bottom)) or (
        isinstance(t, T.Opaque) and t.kind == "inert")


def _check_known_results(op: Apply, outs) -> None:
    for o in outs:
        if not _known_kind(o.type):
            msg = (f"{op.prim} of a complex value meets a value of type {o.type}, which srcad cannot "
                   "tell real or complex")
            raise TypeSupportError(msg, [diagnostic(op.loc, msg, _COMPLEX_HINT)])


def _check_written(op: Apply, rule) -> None:
    """A complex value written into an array must be written into a complex array (NumPy
    would drop its imaginary part)."""
    target = op.args[rule.updates] if rule.updates is not None else None
    arrays = target is not None and not isinstance(atom_type(target), (T.List, T.Dict))
    if arrays and not _complex_atom(target):
        msg = "a complex value is written into an array of real numbers, which keeps only its real part"
        hint = "make the array complex first (np.zeros(n, dtype=complex)), or write np.real(...) into it"
        raise TypeSupportError(msg, [diagnostic(op.loc, msg, hint)])


def _check_joins(op, varied: set) -> None:
    """A value joined where control flow merges (an `if`, a loop's carried values) from a complex
    value must have a type that says it may be complex."""
    if isinstance(op, If):
        pairs = [(o, (a, b)) for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields)]
    elif isinstance(op, (For, While)):
        params = op.body.params[1:] if isinstance(op, For) else op.body.params
        pairs = [(o, (i, y)) for o, i, y in zip(op.outs, op.init, op.body.yields)]
        pairs += [(p, (i, y)) for p, i, y in zip(params, op.init, op.body.yields)]
    else:
        return
    for o, ins in pairs:
        if o in varied and any(_complex_atom(a) for a in ins) and not (
                T.is_complex(o.type) or holds_complex(o.type)):
            msg = f"a complex value is joined with a value of type {o.type} here, which srcad cannot follow"
            raise TypeSupportError(msg, [diagnostic(op.loc, msg, _COMPLEX_HINT)])


_COMPLEX_HINT = ("srcad differentiates through complex intermediate values only with the functions "
                 "docs/subset.md lists as complex-correct: take np.real, np.imag or np.abs of the "
                 "complex value first")


def _callee(op: Apply) -> str:
    name = op.prim
    for prefix, short in (("numpy.", "np."), ("builtins.", "")):
        if name.startswith(prefix):
            return short + name[len(prefix):]
    return name


def _refuse_complex(op: Apply, what: str) -> None:
    msg = f"{what} cannot take complex values (here a complex value meets a differentiated one)"
    raise TypeSupportError(msg, [diagnostic(op.loc, msg, _COMPLEX_HINT)])


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


def jvp_templates(rule, op: Apply) -> dict:
    """The tangent templates of op's rule: its complex ones (Rule.cjvp) in place of the others
    when an operand or result is complex."""
    return {**rule.jvp, **rule.cjvp} if rule.cjvp and touches_complex(op) else rule.jvp


def vjp_templates(rule, op: Apply) -> dict:
    """The adjoint templates of op's rule, as jvp_templates."""
    return {**rule.vjp, **rule.cvjp} if rule.cvjp and touches_complex(op) else rule.vjp
