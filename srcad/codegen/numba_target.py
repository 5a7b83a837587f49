"""The numba target: generated code compiled by `numba.njit(cache=True, nogil=True)`.

The numba printer (numba_emit.py) prints the optimised IR; this module makes a module of it,
writes it to a file named by the hash of its text (numba caches machine code only for
functions defined in real files, next to them in `__pycache__`), imports it and wraps the
jitted function:

- srcad's run-time helpers the code calls are copied into the module, each jitted too;
- the user's globals the code reads (`_m_model.W`) become extra arguments, read when the
  function is called (numba would freeze a global's value into the machine code, and its
  disk cache would serve a stale value to the next process);
- the CPython target's function of the same IR is the fallback: when numba cannot compile
  the code (a typing error at the first call), it runs instead, with one
  `TargetFallbackWarning` naming the construct and the user's line (a `TargetError` under
  `srcad.config.strict_target`); a call that raises in compiled code, or whose result is
  not finite, runs again in CPython, so errors and infinities are exactly the CPython
  target's (docs/numba.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import types
import warnings

import numpy as np

from ..errors import SrcadError
from ..settings import config
from ..version import __version__
from . import numba_emit
from .standalone import _RUNTIME_FUNCS, runtime_deps

#: the names of module attributes the generated numba code may keep as globals
_LIBRARY_MODULES = ("numpy", "math", "cmath")


class TargetError(SrcadError):
    """target="numba" cannot be used: numba is not installed, or (strict_target) the code
    does not compile."""


class TargetFallbackWarning(UserWarning):
    """The numba target's code did not compile; the CPython target's code runs instead."""


TARGETS = ("python", "numba")


def check_target(target, what: str) -> str:
    """`target` if it is a known target and usable here, else a srcad error."""
    if target not in TARGETS:
        from ..errors import ArgumentError
        raise ArgumentError(f"{what}: target must be 'python' or 'numba', got {target!r}")
    if target == "numba":
        numba_module()
    return target


def numba_module():
    try:
        import numba
    except ImportError as e:
        raise TargetError(f"target='numba' needs numba, which cannot be imported here ({e}): "
                          "pip install 'srcad[numba]', or use target='python'") from None
    return numba


def module_dir() -> str:
    """Where numba-target modules are written (numba caches their machine code beside them)."""
    base = os.environ.get("SRCAD_NUMBA_DIR") or (
        os.path.join(config.cache_dir, "numba") if config.cache_dir else
        os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                     "srcad", "numba"))
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        user = os.getuid() if hasattr(os, "getuid") else 0
        base = os.path.join(tempfile.gettempdir(), f"srcad-numba-{user}")
        os.makedirs(base, exist_ok=True)
    return base


# -- the module text ------------------------------------------------------------------------------


def _outside(source: str, namespace: dict):
    """The source with each attribute of a user module it reads (`_m_model.W`) replaced by a
    parameter `_m_model_W`: (source, [(parameter, module, attribute)])."""
    extras: dict = {}
    for key, obj in sorted(namespace.items()):
        if _user_module(obj):
            for attr in sorted(set(re.findall(rf"\b{re.escape(key)}\.(\w+)\b", source))):
                extras[f"{key}_{attr}"] = (obj, attr)
                source = re.sub(rf"\b{re.escape(key)}\.{attr}\b", f"{key}_{attr}", source)
    if extras:
        head, sep, rest = source.partition("):\n")
        joiner = ", " if not head.endswith("(") else ""
        source = head + joiner + ", ".join(extras) + sep + rest
    return source, [(p, m, a) for p, (m, a) in extras.items()]


def _user_module(obj) -> bool:
    return isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] not in _LIBRARY_MODULES


def _imports(namespace: dict, text: str, helpers: set) -> list[str]:
    from .standalone import _import_line
    lines = {"import math", "import numba", "import numpy as np"}
    for name, obj in sorted(namespace.items()):
        if name in ("np", "math") or name in helpers or not re.search(rf"\b{re.escape(name)}\b", text):
            continue
        if _user_module(obj):
            continue  # (read through extra arguments)
        try:
            lines.add(_import_line(name, obj))
        except SrcadError:
            lines.add(f"{name} = None  # srcad: {type(obj).__name__} object not importable")
    return sorted(lines, key=lambda line: (not line.startswith("import "), line))


def _decorator(nogil: bool = True) -> str:
    return f"@numba.njit(cache=True{', nogil=True' if nogil else ''})"


def module_text(rendered, name: str) -> tuple[str, list, int]:
    """(text of the module defining `name`, extra parameters, line of the function's def)."""
    source, extras = _outside(rendered.source, rendered.namespace)
    helpers = {}
    for key, obj in rendered.namespace.items():
        if inspect.isfunction(obj) and _RUNTIME_FUNCS.get(obj.__name__) is obj:
            helpers[key] = obj.__name__
        elif obj is numba_emit.grow or obj is numba_emit.reserve_stack:
            helpers[key] = obj.__name__
    lines = [f"# Generated by srcad {__version__} for the numba target -- do not edit",
             '"""Derivatives generated by srcad for the numba target."""', ""]
    lines += _imports(rendered.namespace, rendered.source, set(helpers))
    for own in (numba_emit.grow, numba_emit.reserve_stack):
        if own.__name__ in helpers.values():
            lines += ["", "", _decorator(), inspect.getsource(own).rstrip()]
    for dep in runtime_deps({orig for orig in helpers.values() if orig not in ("grow", "reserve_stack")}):
        lines += ["", "", _decorator(), inspect.getsource(_RUNTIME_FUNCS[dep]).rstrip()]
    lines += [f"{key} = {orig}" for key, orig in sorted(helpers.items()) if key != orig]
    lines += ["", "", _decorator()]
    offset = len(lines)  # (the def line, 0-based: the source's line 1 is lines[offset])
    text = "\n".join(lines + [source]).rstrip() + "\n"
    return text, extras, offset


# -- loading --------------------------------------------------------------------------------------


def load(text: str, name: str):
    """The jitted function `name` of the module `text` (written to a file named by its hash)."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    modname = f"srcad_numba_{name}_{digest}"
    mod = sys.modules.get(modname)
    if mod is None:
        path = os.path.join(module_dir(), modname + ".py")
        if not os.path.exists(path):  # (an existing file keeps its time stamp: numba's cache stays valid)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[modname]
            raise
    return getattr(mod, name), mod.__file__


class NumbaFunction:
    """Calls the jitted function, or the CPython target's function when numba cannot
    compile the code, the compiled code raises, or its result is not finite."""

    def __init__(self, jitted, python, extras, what: str, path: str, offset: int, line_map: dict,
                 source: str):
        self.jitted, self.python, self.extras = jitted, python, tuple(extras)
        self.what, self.path, self.offset, self.line_map = what, path, offset, line_map
        self.failed = None  # the reason numba could not compile the code, once known
        self.__srcad_source__ = source
        self.__name__ = getattr(python, "__name__", "f")
        self.__wrapped__ = python

    def __call__(self, *args):
        if self.failed is None:
            try:
                if not self.jitted.signatures:  # (compiling: numba's notes on reflected lists are its own)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", _numba_warning())
                        out = self._run(args)
                else:
                    out = self._run(args)
            except Exception as e:
                if _compile_error(e):
                    self._give_up(e)
                return self.python(*args)  # (raises what the CPython target raises, or gives its result)
            if _finite(out):
                return out
        return self.python(*args)

    def _run(self, args):
        if self.extras:
            return self.jitted(*args, *[getattr(m, a) for _, m, a in self.extras])
        return self.jitted(*args)

    def compiled(self) -> bool:
        """Has numba compiled the code (for the signatures called so far)?"""
        return self.failed is None and bool(self.jitted.signatures)

    def _give_up(self, e: Exception) -> None:
        construct, where = describe_failure(str(e), self.path, self.offset, self.line_map)
        self.failed = f"{construct}{where}"
        msg = (f"srcad: numba cannot compile the {self.what}: {construct}{where}; running the CPython "
               "target's code instead (srcad.config.strict_target = True makes this an error)")
        if config.strict_target:
            raise TargetError(msg.replace("; running the CPython target's code instead", "")
                              .split(" (srcad.config")[0]) from None
        warnings.warn(msg, TargetFallbackWarning, stacklevel=4)


def _numba_warning():
    from numba.core.errors import NumbaPendingDeprecationWarning
    return NumbaPendingDeprecationWarning


def _compile_error(e: Exception) -> bool:
    try:
        from numba.core.errors import NumbaError
    except ImportError:
        return False
    return isinstance(e, NumbaError)


def describe_failure(message: str, path: str, offset: int, line_map: dict) -> tuple[str, str]:
    """(the construct numba refused, ' at FILE:LINE' of the user's line) from numba's message."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    reason = next((ln for ln in lines if not ln.startswith(("Failed in", "During:", "File ", "<source"))),
                  lines[0] if lines else "unknown error")
    reason = re.sub(r"\x1b\[[0-9;]*m", "", reason)[:200]
    where, construct = "", ""
    for m in re.finditer(r'File "([^"]+)", line (\d+)', message):
        if os.path.abspath(m.group(1)) == os.path.abspath(path):
            gen_line = int(m.group(2)) - offset
            user = line_map.get(gen_line)
            if user is not None:
                where = f" at {user[0]}:{user[1]}"
            try:
                with open(path) as f:
                    construct = f.read().splitlines()[int(m.group(2)) - 1].strip()
            except (OSError, IndexError):
                pass
    text = f"`{construct}` ({reason})" if construct else reason
    return text, where


def _finite(out) -> bool:
    """No inf or nan in a result (a tuple of floats and arrays, usually)."""
    if type(out) is tuple:
        for x in out:
            if type(x) is float:
                if x - x != 0.0:
                    return False
            elif not _finite(x):
                return False
        return True
    if type(out) is float:
        return out - out == 0.0
    if type(out) is np.ndarray:
        return out.dtype.kind not in "fc" or bool(np.isfinite(out).all())
    if type(out) is list:
        return all(_finite(x) for x in out)
    if isinstance(out, (np.floating, np.complexfloating)):
        return bool(np.isfinite(out))
    return True


def compile_numba(rendered, python_fn, name: str, what: str):
    """The numba target's callable for `rendered` (NumbaEmitter's output), falling back to
    `python_fn` (the CPython target's function of the same IR)."""
    text, extras, offset = module_text(rendered, name)
    jitted, path = load(text, name)
    fn = NumbaFunction(jitted, python_fn, extras, what, path, offset, rendered.line_map, rendered.source)
    return fn


def standalone_units(units, namespace: dict) -> tuple[set, list[str]]:
    """For a standalone numba module: (the numba target's own helpers the units call, each
    unit's text jitted; one reading user globals becomes a jitted `_nb_NAME` taking them as
    extra arguments, and a plain `NAME` that reads them when called)."""
    own = {obj.__name__ for obj in namespace.values()
           if obj is numba_emit.grow or obj is numba_emit.reserve_stack}
    texts = []
    for rendered, name in units:
        source, extras = _outside(rendered.source, rendered.namespace)
        if not extras:
            texts.append(_decorator() + "\n" + source.rstrip())
            continue
        source = source.replace(f"def {name}(", f"def _nb_{name}(", 1)
        reads = ", ".join(_module_name(rendered.namespace, mod) + "." + a for _, mod, a in extras)
        texts.append(_decorator() + "\n" + source.rstrip() + f"\n\n\ndef {name}(*args):\n"
                     f"    return _nb_{name}(*args, {reads})")
    return own, texts


def _module_name(namespace: dict, mod) -> str:
    return next(k for k, v in namespace.items() if v is mod)
