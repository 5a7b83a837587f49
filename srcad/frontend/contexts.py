"""`with` statements whose context manager changes no value: their bodies, spliced in place
while parsing (frontend/source.py), so that every later stage sees plain statements.

One such manager is known: `np.errstate(...)` with every setting 'ignore' or 'warn', which
only decides whether NumPy warns about floating-point errors. The generated code runs the
body without it, so NumPy's warnings may show where the function silenced them. Any other
`with` stays, and is refused by the fence (frontend/fence.py)."""

from __future__ import annotations

import builtins

import gast
import numpy as np

_SETTINGS = {"all", "divide", "over", "under", "invalid"}
_QUIET = {"ignore", "warn"}


def unwrap_contexts(node, fn):
    """`node` (a function's gast tree) with the `with` statements of silent managers replaced
    by their bodies (nested functions included: they see the same globals)."""
    scope = _scope(fn)
    for parent in gast.walk(node):
        for field in ("body", "orelse"):
            stmts = getattr(parent, field, None)
            if isinstance(stmts, list) and any(_silent(s, scope) for s in stmts):
                setattr(parent, field, _spliced(stmts, scope))
    return node


def _spliced(stmts, scope) -> list:
    out = []
    for s in stmts:
        out.extend(_spliced(s.body, scope) if _silent(s, scope) else [s])
    return out


def _silent(s, scope: dict) -> bool:
    return isinstance(s, gast.With) and bool(s.items) and all(
        item.optional_vars is None and _errstate_quiet(item.context_expr, scope) for item in s.items)


def _errstate_quiet(e, scope: dict) -> bool:
    if not (isinstance(e, gast.Call) and not e.args and _resolve(e.func, scope) is np.errstate):
        return False
    return all(k.arg in _SETTINGS and isinstance(k.value, gast.Constant) and k.value.value in _QUIET
               for k in e.keywords)


def _resolve(e, scope: dict):
    if isinstance(e, gast.Name):
        return scope.get(e.id, getattr(builtins, e.id, None))
    if isinstance(e, gast.Attribute):
        base = _resolve(e.value, scope)
        return getattr(base, e.attr, None) if base is not None else None
    return None


def _scope(fn) -> dict:
    """The names fn reads from outside (its closure's cells, then its globals)."""
    scope = dict(getattr(fn, "__globals__", {}))
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    for name, cell in zip(code.co_freevars if code else (), cells):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    return scope
