"""A nested def or lambda given to a solver that calls it with extra arguments (odeint's and
solve_ivp's `args=`), reading variables of the function being transformed: lifted into a
Python function that takes those variables as parameters after its own, so that the solver
gets them through `args` and their derivatives flow like those of `args` (lambda lifting).

    def loss(k):                                   def rhs(y, t, k):       (made by srcad,
        def rhs(y, t):                  ->             return -k * y        its source in
            return -k * y                          odeint(rhs, y0, ts, args=(k,))   linecache)
        return odeint(rhs, y0, ts)[-1, 0]

The variables are read where the solver is called (the function runs during that call, so
this is when Python would read them). Refused (the caller's error): parameters with defaults,
*args, **kwargs or keyword-only ones, and captured values that are nested functions.
"""

from __future__ import annotations

import ast
import os
import types
import zlib

import gast

from ..codegen.compile import register_source
from ..identifiers import identifier
from ..ir.nodes import Const, Ext
from .resolve import LocalFunction, local_names


def captured_names(lowerer, closure) -> list:
    """(a lowerer of `closure`'s body, the variables of the enclosing scopes srcad is lowering
    that it reads, sorted)."""
    inner = lowerer.lowerer_of(closure)
    own = local_names(closure.node) | {a.id for a in closure.node.args.args}
    reads = {n.id for n in gast.walk(closure.node)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return inner, sorted(n for n in reads - own if inner.enclosing(n) is not None)


def liftable(closure) -> bool:
    a = closure.node.args
    return not (a.vararg or a.kwarg or a.kwonlyargs or a.defaults or getattr(a, "posonlyargs", None)
                or closure.defaults)


def lift(lowerer, closure, node):
    """(the lifted Python function, the captured values' atoms), or None when not liftable."""
    if not liftable(closure):
        return None
    inner, names = captured_names(lowerer, closure)
    values = [inner.read_free(n, node) for n in names]
    if any(isinstance(v, Const) and isinstance(v.value, Ext) and isinstance(v.value.obj, LocalFunction)
           for v in values):
        return None
    function = _function(closure, names)
    return None if function is None else (function, values)


def _function(closure, names):
    """The nested function with `names` as extra parameters, compiled in a factory whose
    closure cells are those of the user function holding it (its other free names)."""
    fdef = gast.gast_to_ast(closure.node)
    name = identifier(closure.name if closure.name != "<lambda>" else "rhs", "rhs")
    fdef.name = name
    fdef.args.args += [ast.arg(arg=n) for n in names]
    fdef.decorator_list = []
    outer = closure.parsed.fn
    cells = dict(zip(outer.__code__.co_freevars, outer.__closure__ or ()))
    factory = ast.FunctionDef(name="_factory", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=c) for c in cells], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=name, ctx=ast.Load()))], decorator_list=[])
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    source = ast.unparse(module) + "\n"
    where = f"{os.path.basename(closure.loc.file)}:{closure.loc.line}" if closure.loc is not None else "?"
    # (errors name it; the same text gives the same name, so generated code stays deterministic)
    filename = f"<srcad: {closure.qualname} of {where}, lifted {zlib.crc32(source.encode()):08x}>"
    register_source(filename, source)
    code = compile(source, filename, "exec")
    inner = next(c for c in next(c for c in code.co_consts if isinstance(c, types.CodeType)).co_consts
                 if isinstance(c, types.CodeType))
    if any(v not in cells for v in inner.co_freevars):
        return None
    return types.FunctionType(inner, outer.__globals__, name, None,
                              tuple(cells[v] for v in inner.co_freevars) or None)
