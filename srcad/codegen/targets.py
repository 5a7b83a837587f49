"""Code-generation targets: "python" (CPython: emit.py, compile.py) and "numba"
(numba_emit.py, numba_target.py). The pipeline renders and compiles through these two
functions; both targets print the same optimised IR."""

from __future__ import annotations

from . import compile as cpython
from .emit import CodeEmitter, Rendered, _render
from .numba_emit import NumbaEmitter
from .numba_target import compile_numba


def render(fn, name: str, header=(), comments: bool = True, target: str = "python",
           planned=None) -> Rendered:
    """The source of `fn` as a function called `name` for `target`; the numba target's
    Rendered holds the CPython target's as `.python` (its fallback). `planned` is fn with
    its buffers planned (passes/pipeline.finish), which only the CPython printer uses: numba
    writes no `out=` and no `del`."""
    python = _render(CodeEmitter(planned if planned is not None else fn, comments), name, header)
    if target == "numba":
        rendered = _render(NumbaEmitter(fn, comments), name, header)
        rendered.python = python
        return rendered
    return python


def compile_function(rendered: Rendered, name: str):
    """The callable for rendered code: compiled by CPython, or for the numba target the
    jitted function with the CPython target's function as its fallback."""
    if rendered.python is not None:
        return compile_numba(rendered, cpython.compile_function(rendered.python, name), name, name)
    return cpython.compile_function(rendered, name)
