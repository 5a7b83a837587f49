"""`python -m srcad report [TARGET]`: what a bug report needs, in one paste.

Prints the versions of Python, srcad and its dependencies (required and optional), the
platform, srcad's settings and SRCAD_* environment variables; given a function
(`path/to/file.py:loss` or `package.module:loss`), the code srcad generates for it, or the
error it raises. Versions are read from the installed distributions' metadata, without
importing the packages (importing jax or torch takes seconds).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import sys

from . import offline
from .errors import CodegenError, SrcadError
from .settings import config
from .version import __version__

REQUIRED = ("numpy", "gast", "astor")
OPTIONAL = ("scipy", "numba", "dask", "array-api-strict", "matplotlib", "jax", "torch", "autograd")


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment_lines() -> list[str]:
    """The versions, platform, settings and environment, one fact a line."""
    here = os.path.dirname(os.path.abspath(__file__))
    lines = [f"srcad {__version__} ({here})",
             f"python {platform.python_version()} ({platform.python_implementation()}, {sys.executable})",
             f"platform {platform.platform()} ({platform.machine()})"]
    lines += [f"{name} {_version(name)}" for name in REQUIRED]
    lines += [f"{name} {_version(name)} (optional)" for name in OPTIONAL]
    settings = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(config).items()))
    lines.append(f"srcad.config: {settings}")
    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("SRCAD_"))
    lines.append("environment: " + (" ".join(env) if env else "(no SRCAD_ variables)"))
    return lines


def load_function(target: str):
    """The function `file.py:name` or `package.module:name` names."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise CodegenError(f"expected FILE.py:FUNC or MODULE:FUNC, got {target!r}")
    if where.endswith(".py") or os.path.sep in where:
        module = offline.load_module(where)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise CodegenError(f"cannot import {where}: {e}") from e
    return offline.get_function(module, name)


def generated_lines(target: str, mode: str = "reverse", argnums=None, types: str | None = None) -> list[str]:
    """The code srcad generates for `target`, or the error srcad raises for it."""
    fn = load_function(target)
    lines = [f"--- {mode} mode code for {target} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno})"]
    try:
        built = offline.build(fn, mode, argnums, offline.parse_types(types, fn))
    except SrcadError as e:
        return lines + [f"srcad raises {type(e).__name__}:", str(e)]
    return lines + built.source.rstrip("\n").splitlines()


def main(target: str | None = None, mode: str = "reverse", argnums=None, types: str | None = None) -> int:
    print("\n".join(environment_lines()))
    if target:
        print()
        print("\n".join(generated_lines(target, mode, argnums, types)))
    print("\nPaste this, the smallest code that shows the problem, what you expected and what you got "
          "into an issue: https://github.com/srcad/srcad/issues")
    return 0
