"""Transforms of functions whose parameters each call decides.

A function with `*args` or `**kwargs`, or a library callable with optional parameters
(`scipy.stats.norm.pdf(x, *args, **kwds)`, `np.linalg.norm(x, ord=None, ...)`), binds
different parameters from call to call: `grad(f)(x, y)` and `grad(f)(x, y, z)` differentiate
different functions. srcad transforms one *call shape* at a time: for each number of
positional arguments and set of keyword names, a one-line wrapper with exactly those
parameters calls the function (`def f(x, args0, *, scale): return _target(x, args0,
scale=scale)`, spelt with plain parameters), and the transformation is that wrapper's. The
user's function is inlined into it, so its `*args` and `**kwargs` bind while srcad lowers it,
as for any call inside a differentiated function.

`argnums` counts the wrapper's parameters: the call's positional arguments in order, then its
keyword arguments (those naming a parameter of the function in the function's order, then
the others sorted by name), as srcad counts a fixed function's parameters however they are
passed.
"""

from __future__ import annotations

import functools
import inspect
import types

from . import sharing
from .codegen.compile import register_source
from .custom import CustomRule
from .errors import ArgumentError
from .identifiers import identifier, is_identifier
from .rules.registry import rule_for_object
from .tracebacks import api_boundary

_VARIADIC_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def variadic(fun) -> bool:
    """Whether the parameters a call of fun binds depend on the call (see the module docstring)."""
    if getattr(fun, "__srcad_for_call__", None) is not None:
        return True
    fun = getattr(fun, "__srcad_made__", fun)
    if (hasattr(fun, "__srcad_transform__") or getattr(fun, "__srcad_inline__", None) is not None
            or isinstance(fun, CustomRule)):
        return False
    if isinstance(fun, functools.partial) and sharing.partial_wrapper(fun) is not None:
        return False  # (a partial of a function with fixed parameters: sharing.py's wrapper)
    if isinstance(fun, types.FunctionType) and (fun.__module__ or "").startswith("srcad."):
        return False  # (srcad's own functions: api.as_python_function names what to do instead)
    if isinstance(fun, types.FunctionType) and rule_for_object(fun) is None:
        return bool(fun.__code__.co_flags & _VARIADIC_FLAGS)
    signature = call_signature(fun)
    if signature is None:
        return True
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty
               for p in signature.parameters.values())


def for_call(fun, nargs: int, kwnames: tuple = ()):
    """What srcad transforms for a call of fun with `nargs` positional arguments and keyword
    arguments `kwnames`: fun itself when its parameters are fixed, else the wrapper with
    exactly those parameters (made once per call shape and remembered)."""
    pick = getattr(fun, "__srcad_for_call__", None)
    if pick is not None:  # (a transform of a variadic function: the one for this call shape)
        return pick(nargs, kwnames)
    if not variadic(fun):
        return fun
    key = (_identity(fun), nargs, tuple(kwnames))  # (in the call's order: **kwargs keeps it)
    got = _MADE.get(key)
    if got is None or not _same(got[0], fun):
        if len(_MADE) >= _LIMIT:  # (a bound: the oldest goes first)
            del _MADE[next(iter(_MADE))]
        got = _MADE[key] = (fun, _wrapper(fun, nargs, kwnames))
    _LATEST[_identity(fun)] = got[1]
    return got[1]


def latest_wrapper(fun):
    """The wrapper of fun that for_call gave last (srcad.source of srcad.jvp(f, ...)), or None."""
    return _LATEST.get(_identity(fun))


def by_call(make, fun, kind: str):
    """The transform `kind` of a variadic fun, as a function: each call shape gets
    make(wrapper) (api.grad, compose.jacfwd...), made on its first call and kept."""
    made: dict = {}
    signature = call_signature(fun)  # (once: as_positional runs on every call with keywords)

    def for_shape(nargs: int, kwnames: tuple = ()):
        key = (nargs, tuple(kwnames))
        got = made.get(key)
        if got is None:
            got = made[key] = make(for_call(fun, nargs, kwnames))
        return got

    def as_positional(args: tuple, kwargs: dict) -> tuple:
        """The call's arguments in the order of its wrapper's parameters (which are all
        positional: a keyword may have been renamed there, and jacfwd(f) takes no keywords)."""
        return args + tuple(kwargs[k] for k in _keyword_order(signature, kwargs)) if kwargs else args

    @api_boundary
    def transformed(*args, **kwargs):
        return for_shape(len(args), tuple(kwargs))(*as_positional(args, kwargs))

    transformed.__name__ = transformed.__qualname__ = f"{kind}_{wrapper_name(fun)}"
    transformed.__doc__ = getattr(fun, "__doc__", None)
    transformed.__wrapped__ = fun
    transformed.__srcad_for_call__ = for_shape
    transformed.__srcad_resolve__ = lambda args, kwargs: (for_shape(len(args), tuple(kwargs)),
                                                          as_positional(args, kwargs))
    return transformed


# -- the wrappers --------------------------------------------------------------------------------

_LIMIT = 512
_MADE: dict = {}  # (fun's identity, nargs, keyword names) -> (fun, its wrapper for that call shape)
_LATEST: dict = {}  # fun's identity -> the wrapper made or found last


def _identity(fun):
    """A key for fun that outlives it being looked up again (`stats.norm.pdf` is a new bound
    method each time it is read)."""
    if isinstance(fun, types.MethodType):
        return ("method", id(fun.__self__), id(fun.__func__))
    return ("object", id(fun))


def _same(a, b) -> bool:
    if isinstance(a, types.MethodType) and isinstance(b, types.MethodType):
        return a.__self__ is b.__self__ and a.__func__ is b.__func__
    return a is b


def call_signature(fun):
    """fun's signature (of a custom rule's function), or None when inspect cannot tell."""
    try:
        return inspect.signature(getattr(fun, "fun", fun))
    except (TypeError, ValueError):
        return None


def wrapper_name(fun) -> str:
    raw = getattr(fun, "__name__", None)
    name = identifier(raw.strip("<>") if isinstance(raw, str) else None, "f")
    return "f" if name == "_target" else name


def _keyword_order(signature, kwnames) -> list:
    """The call's keyword names: those naming a parameter in the function's order, then the
    others (bound by **kwargs) sorted."""
    named = [p.name for p in signature.parameters.values()] if signature is not None else []
    bad = [k for k in kwnames if not is_identifier(k)]
    if bad:
        raise ArgumentError(f"keyword argument {bad[0]!r}: srcad transforms calls whose keyword names are "
                            "identifiers")
    return [k for k in named if k in kwnames] + sorted(k for k in kwnames if k not in named)


def _positional_names(signature, nargs: int) -> list:
    """Names for a call's positional parameters: the function's own, then its *args name
    numbered (`args0`, `args1`...)."""
    if signature is None:
        return [f"x{i}" for i in range(nargs)]
    params = list(signature.parameters.values())
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
    return [positional[i] if i < len(positional) else f"{star}{i - len(positional)}" for i in range(nargs)]


def _wrapper(fun, nargs: int, kwnames: tuple):
    """`def name(p0, p1, k1, k2): return _target(p0, p1, k1=k1, k2=k2)`. Its text is srcad's
    template filled with identifiers only: names are data (anyone can set them) and are
    sanitised."""
    signature = call_signature(fun)
    used, params, call = {"_target"}, [], []
    for i, raw in enumerate(_positional_names(signature, nargs)):
        params.append(fresh_name(used, raw, f"x{i}"))
        call.append(params[-1])
    named = {k: fresh_name(used, k, k) for k in _keyword_order(signature, kwnames)}  # (argnums' order)
    params += named.values()
    call += [f"{k}={named[k]}" for k in kwnames]  # (the call: its own order, which **kwargs keeps)
    name = wrapper_name(fun)
    filename = f"<srcad: wrapper of {name}, {nargs} positional{''.join(', ' + k for k in kwnames)}>"
    wrapper = compile_wrapper(fun, name, params, call, filename, {"_target": fun})
    wrapper.__doc__ = getattr(fun, "__doc__", None)
    return wrapper


def fresh_name(used: set, raw, default: str) -> str:
    """An identifier made from `raw` (data: sanitised) that is not in `used`, added to it."""
    name = identifier(raw, default)
    while name in used:
        name += "_"
    used.add(name)
    return name


def compile_wrapper(fun, name: str, params: list, call: list, filename: str, namespace: dict):
    """`def name(params): return _target(call)`, compiled in `namespace` (which holds _target)
    with its text registered for srcad to read; its transforms pickle as transforms of fun."""
    source = f"def {name}({', '.join(params)}):\n    return _target({', '.join(call)})\n"
    register_source(filename, source)
    exec(compile(source, filename, "exec"), namespace)
    namespace[name].__srcad_original__ = fun  # (dispatch.Transformed._recipe)
    return namespace[name]
