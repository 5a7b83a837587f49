"""The parameters a function may change in place, read off its source: `p[k] = v`, `p[k] += v`,
`p += v` (in place for an array, list or dict), `p.append(v)` and the other mutating methods,
and a helper of the same module given `p` that does one of these.

Generated code calls a function with its own derivative rules (srcad.custom_vjp, custom_jvp,
checkpoint) as it is, on the caller's objects: a change it makes there is invisible to the
derivative srcad computes around it. Such a call is refused when the code runs and the
argument is an array, list or dict (frontend/closures.py call_custom).
"""

from __future__ import annotations

import types

import gast

from ..errors import SrcadError
from .source import parse_function

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "sort", "reverse", "fill",
                       "update", "setdefault", "clear", "popitem", "resize", "itemset", "put",
                       "partition", "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"})


def written_parameters(fn, depth: int = 2) -> dict:
    """{parameter name: (line, col) of a change in place}, for the parameters of `fn` (a plain
    Python function with source) that its body may change; {} when its source is not available."""
    if not isinstance(fn, types.FunctionType) or depth < 0:
        return {}
    try:
        parsed = parse_function(fn)
    except SrcadError:
        return {}
    node = parsed.node
    a = node.args
    params = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs if isinstance(p, gast.Name)}
    out: dict = {}
    for n in gast.walk(node):
        name = _changed(n, fn, depth)
        if name in params and name not in out:
            out[name] = (getattr(n, "lineno", node.lineno), getattr(n, "col_offset", 0) + parsed.col_offset)
    return out


def _base(e) -> str | None:
    while isinstance(e, (gast.Subscript, gast.Attribute)) and not isinstance(e, gast.Name):
        e = e.value
    return e.id if isinstance(e, gast.Name) else None


def _changed(n, fn, depth: int) -> str | None:
    """The name whose object `n` changes in place, if it is a change of one."""
    if isinstance(n, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
        targets = n.targets if isinstance(n, gast.Assign) else [n.target]
        for t in targets:
            for e in gast.walk(t):
                if isinstance(e, gast.Subscript) and isinstance(e.ctx, gast.Store):
                    return _base(e.value)
            if isinstance(n, gast.AugAssign) and isinstance(t, gast.Name):
                return t.id
    if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _MUTATORS:
        return _base(n.func.value)
    if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
        helper = fn.__globals__.get(n.func.id)
        if isinstance(helper, types.FunctionType) and helper is not fn:
            written = written_parameters(helper, depth - 1)
            names = list(helper.__code__.co_varnames[:helper.__code__.co_argcount])
            for i, arg in enumerate(n.args):
                if isinstance(arg, gast.Name) and i < len(names) and names[i] in written:
                    return arg.id
            for k in n.keywords:
                if isinstance(k.value, gast.Name) and k.arg in written:
                    return k.value.id
    return None
