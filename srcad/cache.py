"""The persistent cache (opt-in): generated modules on disk, so a new process gets its
derivatives without transforming again.

Turn it on with the environment variable `SRCAD_CACHE_DIR=/some/dir` or in code with
`srcad.config.cache_dir = "/some/dir"`. An entry is a standalone module (the same form as
`srcad codegen` writes), named by a hash of everything the generated code depends on: the
function's source, file and name, the transformation and its options, the argument and
global types, the srcad version and a fingerprint of the rule tables. Its header also lists
every source file that was inlined, with its hash; an entry whose sources changed is
ignored and rewritten. Entries are written to a temporary file and renamed into place, so
two processes writing at once never leave a broken entry.

Functions whose generated code refers to something a module cannot import (closures,
functions made by exec) are not cached; they are transformed as usual.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os

from . import __version__, runtime
from .codegen.compile import register_source
from .codegen.standalone import module_text, stale_sources
from .errors import CodegenError
from .rules.registry import RULES


class Config:
    """Settings.

    - `cache_dir`: a directory for the persistent cache of generated code (None: off; the
      environment variable SRCAD_CACHE_DIR sets it too);
    - `shape_variants`: how many distinct argument shapes (per rank signature) get code
      specialised on their exact shapes before srcad builds one rank-only version that
      serves every shape (default 8; 0: rank-only code from the first call).
    """

    def __init__(self):
        self.cache_dir = os.environ.get("SRCAD_CACHE_DIR") or None
        self.shape_variants = 8


config = Config()
_FINGERPRINT: list = []


def rules_fingerprint() -> str:
    """A hash of the registered rules' names (srcad's own templates change only with its
    version, which is part of every key; a rule you register adds a name)."""
    if not _FINGERPRINT or _FINGERPRINT[0][0] != len(RULES):
        digest = hashlib.sha256("|".join(sorted(RULES)).encode()).hexdigest()[:16]
        _FINGERPRINT[:] = [(len(RULES), digest)]
    return _FINGERPRINT[0][1]


def entry_key(fn, spec, arg_types, free_types) -> str | None:
    """The cache key of a build, or None when the function cannot be cached."""
    try:
        source = inspect.getsource(fn)
        file = inspect.getsourcefile(fn) or ""
    except (OSError, TypeError):
        return None
    if fn.__closure__:
        return None
    parts = [__version__, rules_fingerprint(), file, fn.__qualname__, source, repr(spec),
             repr(tuple(str(t) for t in arg_types)),
             repr(sorted((k[0], k[2], str(t)) for k, t in free_types.items()))]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def _paths(key: str) -> tuple[str, str]:
    base = os.path.join(config.cache_dir, key[:2])
    return os.path.join(base, key + ".py"), os.path.join(base, key + ".json")


def load(key: str):
    """(namespace dict of the cached module, metadata) or None."""
    if not config.cache_dir or key is None:
        return None
    module_path, meta_path = _paths(key)
    try:
        if stale_sources(module_path):
            return None
        with open(meta_path) as f:
            meta = json.load(f)
        with open(module_path) as f:
            text = f.read()
    except (OSError, ValueError, CodegenError):
        return None
    register_source(module_path, text)
    namespace = {"__name__": "srcad.cached"}
    exec(compile(text, module_path, "exec"), namespace)
    for name, value in list(namespace.items()):  # srcad's own helpers, not the module's copies,
        real = getattr(runtime, getattr(value, "__name__", ""), None)  # so that transforming
        if inspect.isfunction(value) and value.__module__ == "srcad.cached" and inspect.isfunction(real):
            namespace[name] = real  # this code again finds their rules (stop_gradient...)
    return namespace, meta, text


def store(key: str, built, files: list[str]) -> None:
    """Write a build's generated code as a cache entry (silently skipped if not possible)."""
    if not config.cache_dir or key is None:
        return
    module_path, meta_path = _paths(key)
    files = [f for f in files if os.path.isfile(f)]  # (not the names of generated code)
    try:
        text = module_text(built.rendered, [(f, f) for f in files], "(srcad persistent cache)", "")
    except CodegenError:
        return
    meta = {"names": [name for _, name in built.rendered], "name": built.name}
    os.makedirs(os.path.dirname(module_path), exist_ok=True)
    for path, data in ((module_path, text), (meta_path, json.dumps(meta))):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, path)


# the globals a function reads, remembered so that a warm start need not parse it

def _reads_path(fn) -> str | None:
    if not config.cache_dir or fn.__closure__:
        return None
    try:
        source = inspect.getsource(fn)
        file = inspect.getsourcefile(fn) or ""
    except (OSError, TypeError):
        return None
    key = hashlib.sha256("\x00".join([__version__, file, fn.__qualname__, source]).encode()).hexdigest()[:32]
    return os.path.join(config.cache_dir, "reads", key + ".json")


def load_reads(fn):
    """The free reads of `fn` as (prim, Ext, name) triples, or None if not cached."""
    import importlib

    from .ir.nodes import Ext

    path = _reads_path(fn)
    if path is None or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            rows = json.load(f)
        return tuple(("srcad.global", Ext(ext_name, importlib.import_module(mod)), name)
                     for ext_name, mod, name in rows)
    except (OSError, ValueError, ImportError):
        return None


def store_reads(fn, reads) -> None:
    path = _reads_path(fn)
    if path is None or any(prim != "srcad.global" or not hasattr(ext.obj, "__name__") for prim, ext, _ in reads):
        return
    rows = [(ext.name, ext.obj.__name__, name) for _, ext, name in reads]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(rows, f)
    os.replace(tmp, path)
