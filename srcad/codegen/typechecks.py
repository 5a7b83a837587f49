"""SRCAD_DEBUG=types: a check after each statement that the values it made are of the types
srcad inferred (runtime/typecheck.py). Debugging code for srcad's own tests and fuzzer, not
for users' programs: it slows generated code down several times."""

from __future__ import annotations

import gast

from .. import runtime
from ..ir import types as T
from ..ir.nodes import Apply
from ..logs import debugging
from .syntax import _call, _name


def checking() -> bool:
    return debugging("types")


def expected(t: T.Type) -> tuple | None:
    """What runtime.check_type is told to expect of a value of type t (None: nothing)."""
    if isinstance(t, T.Array) and t.ndim is not None:
        shape = t.shape if t.shape is not None and None not in t.shape else None
        return ("array", t.ndim, shape, t.kind)
    if isinstance(t, T.List):
        return ("list",)
    if isinstance(t, T.Tuple) and t.fields is None:
        return ("tuple", len(t.elts))
    if isinstance(t, (T.Float, T.Complex)):
        return ("number",)
    if isinstance(t, T.Int):
        return ("array", 0, None, "i")
    if isinstance(t, T.Bool):
        return ("array", 0, None, "b")
    return None


def checks(em, op) -> list:
    """`_check_type(v, ...)` for each value op makes that is used later."""
    out = []
    if not isinstance(op, Apply) or op.prim == "srcad.list_pop":
        return out  # (the outputs of branches and loops: their parts are checked; a loop's stack
        # holds None for a variable not yet assigned in its first iteration, typed as its later values)
    for v in op.outs:
        expect = expected(v.type)
        if expect is None or not em.uses.get(v) or v in em.inline:
            continue
        loc = op.loc
        where = f"{loc.file}:{loc.line}" if loc is not None else "?"
        name = em.name(v)
        args = [_name(name), gast.Constant(value=expect, kind=None), gast.Constant(value=name, kind=None),
                gast.Constant(value=where, kind=None)]
        call = _call(_name(em.ns.ref(runtime.check_type, "_check_type")), args)
        out.append(gast.Expr(value=call))
    return out
