"""Generated code shared by function objects made from the same code.

A lambda or closure made anew on every call (`srcad.grad(lambda c: cost(c, pts))` inside a
loop, a nested `def` in a solver step) is a new function object each time, with the code
object, the globals and the captured functions of the one before; only the cells that hold
its captured data differ. Its transform borrows the code of the first transform made from
that code (its *twin*): the same generated functions with the names that hold the twin's cells
bound to its own cells. Captured data is read from the cells when the code runs, never baked
in, and its types are part of the key the code is looked up by, as for any transform; what
the transform baked in (the functions and other static values the cells held) is part of
the share key, compared by identity.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types

from .codegen.compile import register_source
from .identifiers import identifier, is_identifier
from .ir.kinds import is_static

_TWINS: dict = {}  # share key -> (the first transform made with it, its static captured values)
_LIMIT = 512


def share_key(fn, config):
    """The key under which transforms of function objects made from the same code share
    code (`config`: the transform's kind and options), with the static values it depends on
    (None: fn cannot share)."""
    if type(fn) is not types.FunctionType:
        return None
    code = fn.__code__
    statics, cells = [], fn.__closure__ or ()
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:  # (an empty cell: a name bound after the def)
            return None
        statics.append(value if is_static(value) and not isinstance(value, (list, dict)) else None)
    return (code, id(fn.__globals__), config), tuple(statics)


def twin_of(transform, fn, config):
    """The earlier transform whose code `transform` may share, and the map from the twin's
    cells to fn's; or (None, None), after recording `transform` as the twin of later ones."""
    got = share_key(fn, config)
    if got is None:
        return None, None
    key, statics = got
    entry = _TWINS.get(key)
    if entry is not None and entry[0].fn.__globals__ is fn.__globals__ and len(entry[1]) == len(statics) \
            and all(a is b for a, b in zip(entry[1], statics)):
        twin = entry[0]
        return twin, {id(old): new for old, new in zip(twin.fn.__closure__ or (), fn.__closure__ or ())}
    if len(_TWINS) >= _LIMIT:
        _TWINS.pop(next(iter(_TWINS)))
    _TWINS[key] = (transform, statics)
    return None, None


def rebind_entry(entry, cells: dict):
    """A read (analysis/reads.py) of the twin's cell as the same read of ours."""
    prim, ext, name = entry
    if prim == "srcad.cell" and id(ext.obj) in cells:
        return (prim, dataclasses.replace(ext, obj=cells[id(ext.obj)]), name)
    if prim == "srcad.getattr" and ext[0] != "srcad.static":
        return (prim, rebind_entry(ext, cells), name)
    return entry


def rebind(built, cells: dict):
    """`built` (pipeline.Built) with its generated functions reading our cells."""
    ns = built.function.__globals__
    if not any(id(v) in cells for v in ns.values()):
        return built
    new_ns = {k: cells.get(id(v), v) for k, v in ns.items()}
    clones = {}
    for k, v in ns.items():
        if isinstance(v, types.FunctionType) and v.__globals__ is ns:
            clones[id(v)] = new_ns[k] = _clone(v, new_ns)

    def clone_of(f):
        return None if f is None else clones.get(id(f)) or _clone(f, new_ns)

    return dataclasses.replace(built, function=clone_of(built.function), backward=clone_of(built.backward))


def _clone(f, namespace: dict):
    g = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__, g.__qualname__ = f.__kwdefaults__, f.__qualname__
    g.__dict__.update(f.__dict__)
    return g


_PARTIALS: dict = {}  # (params, number of bound positions, bound keywords) -> a factory of wrappers


def partial_wrapper(p: functools.partial):
    """`functools.partial(f, *args, **kw)` as a closure over f, args and kw, whose code is the
    same for every partial of that shape: transforms of the partials made on every call share
    their code, and the bound values are read when the code runs (their types are in its key)."""
    if type(p) is not functools.partial or type(p.func) is not types.FunctionType:
        return None
    try:
        sig = inspect.signature(p)
    except (TypeError, ValueError):
        return None
    params = [q for q in sig.parameters.values() if q.name not in p.keywords]  # (bound: keyword-only now)
    if any(q.kind not in (q.POSITIONAL_OR_KEYWORD, q.POSITIONAL_ONLY) or q.default is not q.empty
           or not is_identifier(q.name) or q.name.startswith("_") for q in params):
        return None  # (keyword-only, defaulted, starred or oddly named remaining parameters)
    if not all(isinstance(k, str) and is_identifier(k) for k in p.keywords):
        return None
    names = tuple(q.name for q in params)
    shape = (names, len(p.args), tuple(p.keywords))
    make = _PARTIALS.get(shape)
    if make is None:
        call = [f"_args[{i}]" for i in range(len(p.args))] + list(names)
        call += [f"{k}=_kw[{k!r}]" for k in p.keywords]
        name = identifier(getattr(p.func, "__name__", None), "f")
        source = (f"def _make(_func, _args, _kw):\n    def {name}({', '.join(names)}):\n"
                  f"        return _func({', '.join(call)})\n    return {name}\n")
        filename = f"<srcad: wrapper of partial({name}, ...) {len(_PARTIALS)}>"
        register_source(filename, source)
        namespace: dict = {}
        exec(compile(source, filename, "exec"), namespace)
        make = _PARTIALS[shape] = namespace["_make"]
    return make(p.func, p.args, p.keywords)
