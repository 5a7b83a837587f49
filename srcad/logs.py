"""What srcad tells a user who asks: the `srcad` logger, the IR dump, slow first calls.

    import logging
    logging.basicConfig()
    logging.getLogger("srcad").setLevel(logging.INFO)    # one line per transformation
    logging.getLogger("srcad").setLevel(logging.DEBUG)   # and code reused, IR after each pass

INFO names each transformation srcad builds: which (grad of loss), for which argument
types, how long it took, and whether its code came from the persistent cache; and when a
function has seen `config.shape_variants` shapes of the same ranks and gets rank-only code.
DEBUG adds code reused for a new argument signature and, with `SRCAD_DEBUG=ir` (or
`srcad.config.debug = "ir"`), the IR after each optimisation pass. A transformation slower
than `config.slow_call_seconds` warns with `SlowFirstCallWarning`. All of this happens
where code is built, never on a call that finds its code: with logging off a call costs
what it did.
"""

from __future__ import annotations

import inspect
import linecache
import logging
import os
import sys
import time
import warnings
from contextlib import contextmanager

from .ir import verify as _verify
from .ir.printer import format_function
from .settings import config

logger = logging.getLogger("srcad")
clock = time.perf_counter
_SRCAD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class SlowFirstCallWarning(UserWarning):
    """Building a transformation's code (on a first call with new argument types) took more
    than `srcad.config.slow_call_seconds` (1 s by default). Later calls with arguments of
    the same types reuse the code; `srcad.config.cache_dir` keeps it across processes."""


def describe(spec, fn, arg_types) -> str:
    """'grad of loss (model.py:12) for x: float[3], y: float'."""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "f"))  # (grad_f: a transformation of f)
    name = name.rpartition("<locals>.")[2]
    inner = getattr(fn, "__srcad_transform__", None)
    code = getattr(inner._base() if inner is not None else fn, "__code__", None)
    where = f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})" if code is not None else ""
    if inner is not None:  # (never inspect.signature: it follows __wrapped__, which builds code)
        params = list(inner._names)
    else:
        try:
            params = list(inspect.signature(fn, follow_wrapped=False).parameters)
        except (TypeError, ValueError):
            params = []
    params += [f"arg{k}" for k in range(len(params), len(arg_types))]
    types = ", ".join(f"{p}: {t}" for p, t in zip(params, arg_types))
    target = "" if spec.target == "python" else f" [target {spec.target}]"
    return f"{spec.kind} of {name}{where}{target} for {types or 'no arguments'}"


def built(spec, fn, arg_types, seconds: float, origin: str) -> None:
    """One transformation built (`origin`: 'built', 'persistent cache hit', ...)."""
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s: %s in %.1f ms", describe(spec, fn, arg_types), origin, seconds * 1e3)
    limit = config.slow_call_seconds
    if limit is not None and seconds > limit:
        warnings.warn_explicit(SlowFirstCallWarning(
            f"srcad: building {describe(spec, fn, arg_types)} took {seconds:.1f} s (once per "
            "argument types; srcad.config.cache_dir keeps the code across processes)"),
            SlowFirstCallWarning, *_user_site())


def rank_only(spec, fn, shapes: int) -> None:
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s: %d shapes of the same ranks (srcad.config.shape_variants = %d): building "
                    "rank-only code that serves every shape", describe(spec, fn, ()).rsplit(" for ", 1)[0],
                    shapes, config.shape_variants)


def reused(spec, fn, arg_types, what: str) -> None:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: memory cache hit (%s)", describe(spec, fn, arg_types), what)


def _user_site() -> tuple[str, int]:
    """(file, line) of the innermost frame outside srcad: where the user's call is."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith(_SRCAD_DIR)
                                 or frame.f_code.co_filename.startswith("<srcad ")):
        frame = frame.f_back
    if frame is None:
        return "<srcad>", 0
    return frame.f_code.co_filename, frame.f_lineno


def debugging(topic: str) -> bool:
    """Is `topic` ('ir') among config.debug's comma-separated words?"""
    return topic in {w.strip() for w in (config.debug or "").split(",")}


def _dump_ir(fn) -> None:
    """The IR after a pass, labelled with the pipeline line that ran it."""
    caller = sys._getframe(2)  # (verify's caller: the pipeline line, e.g. verify(cse(licm(fn))))
    line = linecache.getline(caller.f_code.co_filename, caller.f_lineno).strip()
    label = line.removeprefix("return ").removeprefix("fn = ")
    where = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
    logger.debug("IR of %s after %s (%s):\n%s", fn.name, label, where, format_function(fn))


@contextmanager
def transformation(spec, fn, arg_types):
    """Around building one transformation: the IR dump when asked for, the time taken."""
    dump = debugging("ir") and logger.isEnabledFor(logging.DEBUG)
    if dump:
        logger.debug("%s: building", describe(spec, fn, arg_types))
        previous, _verify.after_pass = _verify.after_pass, _dump_ir
    try:
        yield
    finally:
        if dump:
            _verify.after_pass = previous
