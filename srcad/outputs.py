"""Checks and rewrites of a typed function's outputs and differentiated arguments before a
transform: has_aux's pair split, grad's scalar output, the type policy on the arguments, and
the activity analysis (with shift-invariant maxima marked first: passes/shifts.py)."""

from __future__ import annotations

import dataclasses

from .errors import NonScalarOutputError, TypeSupportError, diagnostic
from .ir import types as T
from .ir.builder import Builder
from .ir.nodes import Apply, Const, Function, Var, max_var_id
from .ir.values import of_value
from .passes.pipeline import cleanup
from .passes.shifts import mark_shifts
from .transforms.activity import analyze
from .transforms.policy import guard_unknown


def split_aux(fn: Function, spec) -> Function:
    """With has_aux the function returns (output, aux): make those two separate results."""
    out = fn.body.yields[0]
    if not spec.has_aux:
        return fn
    b = Builder(first_id=max_var_id(fn) + 1)
    t = out.type if not isinstance(out, Const) else of_value(out.value)
    if not isinstance(t, (T.Tuple, T.Unknown)) or (isinstance(t, T.Tuple) and len(t.elts) != 2):
        msg = f"with has_aux=True, {fn.name} must return a pair (output, aux); it returns {t}"
        raise NonScalarOutputError(msg, [diagnostic(fn.loc, msg, "return (value, aux), e.g. "
                                                    "return loss, {'accuracy': acc}")])
    elts = t.elts if isinstance(t, T.Tuple) else (T.UNKNOWN, T.UNKNOWN)
    v0 = b.fresh("value", elts[0])
    v1 = b.fresh("aux", elts[1])
    ops = fn.body.ops + (Apply((v0,), "operator.getitem", (out, Const(0)), (), fn.loc),
                         Apply((v1,), "operator.getitem", (out, Const(1)), (), fn.loc))
    body = dataclasses.replace(fn.body, ops=ops, yields=(v0, v1))
    return cleanup(dataclasses.replace(fn, body=body))


def check_scalar(fn: Function, spec) -> Function:
    """grad's output must be a real scalar: refused when its type says otherwise, checked
    when the generated code runs when its type leaves it open (srcad.scalar_output)."""
    out = fn.body.yields[0]
    t = out.type if not isinstance(out, Const) else of_value(out.value)
    if isinstance(t, (T.Float, T.Int, T.Bool)) or (
            isinstance(t, T.Array) and t.ndim == 0 and t.kind in "fiub"):
        return fn
    if isinstance(t, (T.Array, T.Num, T.Unknown)) and (not isinstance(t, T.Array) or t.ndim is None) and (
            not isinstance(t, T.Array) or t.kind in ("f", "i", "u", "b", None)):
        where = return_loc(fn)
        text = f"{where.file}:{where.line}:{where.col}" if where else fn.name
        v = T.FLOAT if isinstance(t, T.Num) else t
        checked = Var(max_var_id(fn) + 1, "", v)
        op = Apply((checked,), "srcad.scalar_output",
                   (out, Const(f"{spec.kind} of {fn.qualname or fn.name} ({text})")), (), where)
        body = dataclasses.replace(fn.body, ops=fn.body.ops + (op,), yields=(checked,) + fn.body.yields[1:])
        return dataclasses.replace(fn, body=body)
    if isinstance(t, T.Array) and t.ndim not in (0, None):
        what = f"an array of rank {t.ndim}" + (f" (shape {t.shape})" if t.shape is not None else "")
    elif T.is_complex(t) or isinstance(t, T.Opaque) and t.kind == "complex":
        analyzed(fn, spec.argnums, (out,))  # (a function that cannot take complex values, first)
        where, what = return_loc(fn), "a complex value"
        raise TypeSupportError(f"{spec.kind} of a function whose output is {what}", [diagnostic(
            where or fn.loc, f"{fn.name} returns {what}", "a differentiated output is real: return "
            "np.real(...), np.imag(...) or np.abs(...) of it (docs/subset.md, complex intermediate values)")])
    else:
        what = {T.NoneT: "None", T.Str: "a string"}.get(type(t), f"a {t}")
    hint = ("grad needs a real scalar output (a float, or an array of shape ()); use srcad.jacrev or "
            "srcad.vjp for other outputs, has_aux=True to return extra values, or index/sum the result")
    where = return_loc(fn)
    raise NonScalarOutputError(f"{spec.kind} of a function whose output is {what}",
                               [diagnostic(where or fn.loc, f"{fn.name} returns {what}", hint)])


def return_loc(fn: Function):
    """The user's return statement (the last one, when there are several), or None."""
    return fn.returns[-1] if fn.returns else None


def analyzed(f: Function, positions, outputs):
    """Activity of f's values for derivatives with respect to the parameters at `positions`
    (the type policy checked on the way), and f with run-time checks of values whose type
    is unknown where they meet differentiated ones."""
    for i in positions:  # (a pytree object differentiated is a node here: gate.py)
        t = f.body.params[i].type
        if isinstance(t, T.Object) and not t.nodes:
            name = f.signature[i].name
            raise TypeSupportError(f"argument {name} is a {t.what} object", [diagnostic(
                f.loc, f"{f.name} is differentiated with respect to {name}, given as a {t.what} object "
                "itself (a transformation of srcad.grad(f, argnums=...) passes an argument it does not "
                "differentiate on as is), which srcad cannot differentiate through",
                f"give {name} a tangent too, or pass its arrays as arguments")])
    f = mark_shifts(f, outputs)  # (a max subtracted for stability: no derivative flows through it)
    act = analyze(f.body, tuple(f.body.params[i] for i in positions), outputs)
    return guard_unknown(f, act.varied), act
