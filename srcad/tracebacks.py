"""Tracebacks that show the user's frames: srcad's own frames are taken out of the traceback
of an exception that leaves srcad (as JAX filters its internal frames).

An error srcad raises about the user's code (`srcad.SrcadError`), and an error the user's
code or the generated code raises while srcad runs it, passes through 7-20 frames of
srcad's dispatcher, pipeline and transforms. Each public entry point (the call of a
transformed function, `jvp`, `vjp`, `jacfwd`, ...) is an *API boundary*: an exception leaving
it keeps the frames of every file but srcad's package: the user's call, the user's
function, the generated code (whose notes name the user's lines), NumPy. A note says how
many frames were hidden. `srcad.config.traceback = "full"` (or SRCAD_TRACEBACK=full) keeps
them all: for reporting a bug in srcad.

The boundary costs nothing until an exception passes (a try statement is free in CPython
3.11 when nothing raises).
"""

from __future__ import annotations

import functools
import os
import sys
import types

from .errors import add_note
from .settings import config

_SRCAD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NOTE = ("srcad: frames inside srcad were hidden from this traceback; "
         "SRCAD_TRACEBACK=full (or srcad.config.traceback = 'full') shows them")


def internal(filename: str) -> bool:
    """A frame of srcad's own code (not generated code, not the user's)."""
    return filename.startswith(_SRCAD_DIR)


def filtered(tb: types.TracebackType | None) -> tuple[types.TracebackType | None, int]:
    """The traceback without srcad's frames, and how many were dropped."""
    kept, dropped = [], 0
    while tb is not None:
        if internal(tb.tb_frame.f_code.co_filename):
            dropped += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out, dropped


def hide_internal_frames(exc: BaseException) -> BaseException:
    """exc with its traceback filtered (once: an outer boundary finds nothing more to drop)."""
    if config.traceback == "full":
        return exc
    tb, dropped = filtered(exc.__traceback__)
    if dropped:
        exc.__traceback__ = tb
        if not exc.__dict__.get("__srcad_hidden__"):
            add_note(exc, _NOTE)
        exc.__srcad_hidden__ = exc.__dict__.get("__srcad_hidden__", 0) + dropped
    return exc


def api_boundary(fn):
    """Decorator: exceptions leaving `fn` lose srcad's frames."""

    @functools.wraps(fn)
    def boundary(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            hide_internal_frames(e)
            if sys.version_info >= (3, 11):
                raise  # (re-raised with its filtered traceback, adding no frame of this one)
            raise e  # (Python 3.10: a bare raise would restore the unfiltered traceback)

    return boundary
