"""The persistent cache (opt-in): generated modules on disk, so a new process gets its
derivatives without transforming again.

Turn it on with the environment variable `SRCAD_CACHE_DIR=/some/dir` or in code with
`srcad.config.cache_dir = "/some/dir"`. An entry is a standalone module (the same form as
`srcad codegen` writes) in `<dir>/<key[:2]>/<key>.py`; the key hashes everything the
generated code depends on: srcad's own source files, the Python, NumPy, gast and astor
versions, the rules registered with `srcad.defrule`, the function's source text, file, name
and compiled code, the transformation and its options, and the argument and global types.

An entry also records what it assumed about other user code: the functions it inlined and
the user functions, classes, modules and transforms the function reaches by global names,
each with a fingerprint of its compiled code (or attributes), and the hashes of the source
files. It is used only if they all still resolve, by module and name, to the same thing.
How entries are kept safe from other users and from damage is cache_files.py's job; every
problem is a miss (or an uncached run) with a `CacheWarning`, never an exception.

Functions whose generated code refers to something a module cannot import (closures,
functions made by exec, code that inlines another derivative) are not cached; they are
transformed as usual.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
import types

import astor
import gast
import numpy

from . import runtime
from .cache_files import bad_entry, folder_of, read_entry, usable_root, writable, write_entry
from .codegen.compile import register_source, register_source_map
from .codegen.standalone import module_text, stale_sources_in
from .custom import CustomRule
from .errors import CodegenError, SrcadError
from .frontend.resolve import is_library_object
from .frontend.source import code_names, source_text
from .frontend.staleness import code_fingerprint
from .identifiers import is_identifier
from .ir import types as T
from .ir.nodes import Ext
from .rules.registry import RULES
from .settings import config
from .transforms.saved import saved_to_json
from .version import __version__


def cache_root() -> str | None:
    """The cache directory if the cache is on and the directory is usable."""
    return usable_root(config.cache_dir) if config.cache_dir else None


# -- what generated code depends on ------------------------------------------------------------

_SRCAD_FINGERPRINT: list = []


def srcad_fingerprint() -> str | None:
    """A hash of srcad's own source files and of the versions of Python and of the libraries
    that shape generated code (computed once per process; None when srcad's source files
    cannot be read, which turns the cache off)."""
    if not _SRCAD_FINGERPRINT:
        h = hashlib.sha256()
        root = os.path.dirname(os.path.abspath(__file__))
        try:
            files = _package_files(root)
            for path in files:
                with open(path, "rb") as f:
                    data = f.read()
                h.update(f"{os.path.relpath(path, root)}\0{len(data)}\0".encode() + data)
        except OSError:
            files = []
        if not files:
            _SRCAD_FINGERPRINT.append(None)
            return None
        versions = [__version__, sys.version, sys.implementation.cache_tag or "", numpy.__version__,
                    getattr(gast, "__version__", ""), getattr(astor, "__version__", "")]
        h.update("\0".join(versions).encode())
        _SRCAD_FINGERPRINT.append(h.hexdigest())
    return _SRCAD_FINGERPRINT[0]


def _package_files(root: str) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return out


if config.cache_dir:  # (read while srcad is being imported: the files of the code that runs)
    srcad_fingerprint()


_RULES_FINGERPRINT: list = []


def rules_fingerprint() -> str:
    """A hash of the rules registered with srcad.defrule (srcad's own rules are part of its
    source files): names, parameters, templates, flags and type functions."""
    snapshot = tuple(RULES.values())
    if _RULES_FINGERPRINT and len(_RULES_FINGERPRINT[0]) == len(snapshot) and all(
            a is b for a, b in zip(_RULES_FINGERPRINT[0], snapshot)):
        return _RULES_FINGERPRINT[1]
    h = hashlib.sha256()
    for rule in snapshot:
        if rule.user:
            h.update(_rule_text(rule).encode())
    _RULES_FINGERPRINT[:] = [snapshot, h.hexdigest()]
    return _RULES_FINGERPRINT[1]


def _rule_text(rule) -> str:
    templates = {kind: {p: t.source for p, t in getattr(rule, kind).items()}
                 for kind in ("jvp", "vjp", "let", "cjvp", "cvjp")}
    alls = [t.source if t is not None else "" for t in (rule.jvp_all, rule.vjp_all)]
    flags = [rule.nouts, rule.differentiable, rule.broadcasts, rule.fresh, rule.updates, rule.scatter,
             rule.linear, rule.impure, rule.diff, rule.structural, rule.opaque, rule.attr, rule.refuses,
             rule.complex, _describe(rule.view_of) if rule.view_of else ""]
    names = {k: _describe(v) for t in _templates(rule) for k, v in sorted(t.namespace.items())}
    functions = [_describe(x) if x is not None else "" for x in (rule.out, rule.fn)]
    return repr([rule.name, rule.params, sorted(map(repr, rule.defaults.items())), templates, alls, flags,
                 names, functions])


def _templates(rule) -> list:
    out = [t for kind in ("jvp", "vjp", "let", "cjvp", "cvjp") for t in getattr(rule, kind).values()]
    return out + [t for t in (rule.jvp_all, rule.vjp_all) if t is not None]


def _describe(obj, depth: int = 0) -> str:
    """What generated code assumed about a user object it reaches by name: the fingerprint of
    a function's compiled code, a class's attributes, a transform's spec and function."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, types.FunctionType):
        return "code " + code_fingerprint(obj.__code__)
    transform = getattr(type(obj), "__srcad_transform__", None) and obj.__srcad_transform__
    if transform:
        return f"transform {transform.spec!r} of {_describe(transform.fn, depth)}"
    if isinstance(obj, CustomRule):
        return "custom " + ", ".join(_describe(x, depth) for x in (obj.fun, obj.fwd, obj.bwd, obj.jvp))
    if isinstance(obj, type) and depth < 3:  # (class attributes can be baked into the code)
        return "class " + repr([[k, _describe(v, depth + 1)] for klass in obj.__mro__
                                if not is_library_object(klass) for k, v in sorted(vars(klass).items())])
    if isinstance(obj, types.ModuleType):
        return "module " + obj.__name__
    if _is_literal(obj):
        return repr(obj)
    return "object " + type(obj).__qualname__


def _is_literal(obj) -> bool:
    if isinstance(obj, tuple):
        return all(_is_literal(x) for x in obj)
    return obj is None or isinstance(obj, (bool, int, float, complex, str, bytes))


def entry_key(fn, spec, arg_types, free_types) -> str | None:
    """The cache key of a build, or None when the function cannot be cached."""
    if getattr(fn, "__closure__", None) or not isinstance(fn, types.FunctionType):
        return None
    if any(isinstance(t, T.Fn) for t in arg_types):  # (code specialised on a function object)
        return None
    try:
        source = source_text(fn)
    except SrcadError:
        return None
    if srcad_fingerprint() is None:
        return None
    # (srcad's generated code, transformed again, has a file name that depends on whether it
    # came from the cache; its text says it all)
    file = "" if fn.__globals__.get("__name__") in _GENERATED else fn.__code__.co_filename
    classes = [_classes_in(t) for t in tuple(arg_types) + tuple(free_types.values())]
    if None in classes:
        return None
    parts = [srcad_fingerprint(), rules_fingerprint(), file, fn.__qualname__, source,
             code_fingerprint(fn.__code__), repr(spec), repr(tuple(str(t) for t in arg_types)),
             repr(sorted((k[0], k[2], str(t)) for k, t in free_types.items())), repr(classes)]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def _classes_in(t) -> str | None:
    """The classes and functions a type names (the code inlines their methods or calls them),
    by module and qualified name; None when one cannot be found again by name."""
    if isinstance(t, T.Function):
        return _named(t.fn)
    if isinstance(t, T.Object):
        if t.cls is None:
            return None
        inner = [_classes_in(a) for _, a in t.attrs]
        name = _named(t.cls)
        return None if None in inner or name is None else f"{name}({','.join(inner)})"
    elems = t.elts if isinstance(t, T.Tuple) else (t.elt,) if isinstance(t, T.List) else (
        tuple(v for _, v in t.items) if isinstance(t, T.Dict) else ())
    inner = [_classes_in(e) for e in elems]
    if None in inner:
        return None
    own = ""
    if isinstance(t, T.Tuple) and t.cls is not None:
        struct = getattr(t.cls, "__srcad_struct__", None)
        if struct is not None and not _is_literal(struct.aux):
            return None
        name = _named(struct.cls if struct else t.cls)
        if name is None:
            return None
        own = name + (repr((t.fields, struct.aux)) if struct else "")
    return own + ("(" + ",".join(inner) + ")" if any(inner) else "")


def _named(obj) -> str | None:
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or _resolve(module, qualname) is not obj:
        return None
    return f"{module}.{qualname}"


def dependencies(functions) -> list | None:
    """What an entry assumes about user code: [module, attribute path, description] for each
    function the code inlined (after the first, the function itself, whose code is in the
    key) and for each user function, class, module or transform the functions reach by a
    global name (also through user modules); None when one of them cannot be found again by
    name in a new process (the build is then not cacheable). The function's own module is
    written "" (the same file imported under another name, as `__main__`, is the same code)."""
    deps, home = [], functions[0].__module__
    for g in functions[1:]:
        module, path = getattr(g, "__module__", None), getattr(g, "__qualname__", "")
        if not isinstance(module, str) or _resolve(module, path) is not g:
            return None  # (also srcad's own generated code: its sources are not recorded)
        deps.append(["" if module == home else module, path, _describe(g)])
    names = set().union(*(code_names(g.__code__) for g in functions))
    todo, seen = [g.__globals__ for g in functions], set()
    while todo:
        namespace = todo.pop()
        if id(namespace) in seen:
            continue
        seen.add(id(namespace))
        module = namespace.get("__name__")
        if module in _GENERATED:
            continue  # srcad's code being transformed again: what it names is in its text (the key)
        if not isinstance(module, str) or getattr(sys.modules.get(module), "__dict__", None) is not namespace:
            return None
        for name in sorted(names & namespace.keys()):
            value = namespace[name]
            where = "" if module == home else module
            if _user_object(value) and [where, name] not in [d[:2] for d in deps]:
                deps.append([where, name, _describe(value)])
                if isinstance(value, types.ModuleType):
                    todo.append(vars(value))
    return deps


_GENERATED = ("srcad.generated", "srcad.cached")


def _user_object(value) -> bool:
    if getattr(type(value), "__srcad_transform__", None) is not None or isinstance(value, CustomRule):
        return True
    return isinstance(value, (types.FunctionType, type, types.ModuleType)) and not is_library_object(value)


def _resolve(module: str, path: str):
    obj = sys.modules.get(module)
    for part in path.split("."):
        if obj is None or part == "<locals>":
            return None
        obj = inspect.getattr_static(obj, part, None)
        obj = obj.__func__ if isinstance(obj, staticmethod) else obj
    return obj


def _dependencies_hold(deps, fn) -> bool:
    home = getattr(fn, "__module__", None)
    try:
        return all(_describe(_resolve(module or home, path)) == want for module, path, want in deps)
    except (TypeError, ValueError):
        return False


# -- generated modules --------------------------------------------------------------------------

def load(key: str | None, fn=None):
    """(namespace dict of the cached module, metadata, the generated functions' source) or
    None (a miss). `fn` is the function the code is for (its module stands for the module
    recorded as "" in the dependencies)."""
    root = cache_root() if key else None
    folder = folder_of(root, key, create=False) if root else None
    if folder is None:
        return None
    path = os.path.join(folder, key + ".py")
    got = read_entry(path, key)
    if got is None:
        return None
    meta, body, text = got
    try:
        if not _dependencies_hold(meta["deps"], fn) or stale_sources_in(body):
            return None  # (an edited helper or file: rebuilt and rewritten, no warning)
        register_source(path, text)
        namespace = {"__name__": "srcad.cached"}
        exec(compile(text, path, "exec"), namespace)
        if not all(callable(namespace.get(name)) for name in meta["names"]):
            raise ValueError("its module lacks the functions it should define")
        lines = text.split("\n")
        sources = ["\n".join(lines[first: first + n]) + "\n" for first, n, _ in meta["units"]]
        for first, _, line_map in meta["units"]:
            register_source_map(path, {line: where for line, where in line_map}, first)
    except Exception as e:  # a module that fails to run is a miss too
        bad_entry(path, f"does not run ({type(e).__name__}: {e})")
        return None
    for name, value in list(namespace.items()):  # srcad's own helpers, not the module's copies,
        real = getattr(runtime, getattr(value, "__name__", ""), None)  # so that transforming
        if inspect.isfunction(value) and value.__module__ == "srcad.cached" and inspect.isfunction(real):
            namespace[name] = real  # this code again finds their rules (stop_gradient...)
    return namespace, meta, "\n\n".join(sources)


def store(key: str | None, built, functions) -> None:
    """Write a build's generated code as a cache entry (skipped if not possible).
    `functions` are the user functions the code inlined, the function itself first."""
    root = cache_root() if key else None
    if root is None or not writable(root):
        return
    deps = dependencies(functions)
    if deps is None:
        return
    files = [f for f in (_source_file(g) for g in functions) if f and os.path.isfile(f)]
    try:
        text = module_text(built.rendered, [(f, f) for f in files], "(srcad persistent cache)", "")
    except CodegenError:
        return
    folder = folder_of(root, key, create=True)
    if folder is not None:
        meta = {"names": [name for _, name in built.rendered], "name": built.name, "deps": deps,
                "units": [_unit(text, rendered) for rendered, _ in built.rendered],
                "saved": saved_to_json(built.saved)}
        write_entry(root, folder, os.path.join(folder, key + ".py"), key, meta, text)


def _unit(text: str, rendered) -> list:
    """[first line, number of lines, source map] of a generated function in a module's text
    (the entry's own first line included), so that a loaded entry shows the same source and
    names the same user lines in tracebacks as freshly generated code."""
    source = rendered.source.rstrip("\n")
    first = text[: text.index(source)].count("\n") + 1
    line_map = sorted([line, list(where)] for line, where in rendered.line_map.items())
    return [first, source.count("\n") + 1, line_map]


def _source_file(fn) -> str | None:
    try:
        return inspect.getsourcefile(fn)
    except TypeError:
        return None


# the globals a function reads, remembered so that a warm start need not parse it

def _reads_key(fn) -> str | None:
    if not config.cache_dir or getattr(fn, "__closure__", None) or not isinstance(fn, types.FunctionType):
        return None
    try:
        source = source_text(fn)
    except SrcadError:
        return None
    if srcad_fingerprint() is None:
        return None
    parts = ["reads", srcad_fingerprint(), fn.__code__.co_filename, fn.__qualname__, source,
             code_fingerprint(fn.__code__)]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def load_reads(fn):
    """The free reads of `fn` as (prim, Ext, name) triples, or None if not cached."""
    key = _reads_key(fn)
    root = cache_root() if key else None
    folder = folder_of(root, key, create=False) if root else None
    got = read_entry(os.path.join(folder, key + ".reads"), key) if folder else None
    if got is None:
        return None
    meta, body, _ = got
    try:
        rows = json.loads(body)
        if not _dependencies_hold(meta["deps"], fn):
            return None
        modules = [sys.modules[mod] for _, mod, _ in rows]  # (never imported because of the cache)
        if not all(is_identifier(ext_name) and isinstance(name, str) for ext_name, _, name in rows):
            raise ValueError("bad names")
        return tuple(("srcad.global", Ext(ext_name, module), name)
                     for (ext_name, _, name), module in zip(rows, modules))
    except (ValueError, KeyError, TypeError) as e:
        bad_entry(os.path.join(folder, key + ".reads"), f"is damaged ({e})")
        return None


def store_reads(fn, reads, functions=()) -> None:
    """Remember the free reads of `fn` (see load_reads); `functions` as for `store`."""
    key = _reads_key(fn)
    root = cache_root() if key else None
    if root is None or not writable(root):
        return
    if any(prim != "srcad.global" or not isinstance(ext.obj, types.ModuleType) or not is_identifier(ext.name)
           for prim, ext, _ in reads):
        return
    deps = dependencies(tuple(functions) or (fn,))
    folder = folder_of(root, key, create=True) if deps is not None else None
    if folder is not None:
        rows = [(ext.name, ext.obj.__name__, name) for _, ext, name in reads]
        write_entry(root, folder, os.path.join(folder, key + ".reads"), key, {"deps": deps}, json.dumps(rows))
