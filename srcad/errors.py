"""User-facing errors. `SrcadError` is the base of all of them.

Errors about the user's code carry one or more `Diagnostic`s, each naming the file, line and
column in the user's source, quoting the line, and saying what to do instead:

    srcad.errors.UnsupportedSyntaxError: 2 unsupported constructs in loss:
      model.py:14:4: 'try' statements are not supported
          try:
          ^
        hint: move the error handling outside the differentiated function
"""

from __future__ import annotations

import linecache
import os
from dataclasses import dataclass

_SRCAD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

#: generated file name -> {generated line: (user file, user line, ...)} (codegen/compile.py fills
#: it): a problem found in srcad's generated code, transformed again, is reported at the user's line
SOURCE_MAPS: dict[str, dict] = {}


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place in the user's source."""

    file: str
    line: int
    col: int
    message: str
    hint: str = ""
    via: tuple = ()  # the calls of yours this line was reached through: (file, line, col), outermost first

    def __post_init__(self):
        """A line of srcad's own source reached through a call of yours (a source implementation
        in srcad/rules/, inlined in place of scipy.stats.norm.logpdf...) is reported at your call,
        naming the line of the implementation; a line of srcad's generated code (transformed
        again: a Hessian) at the line of yours it was generated from."""
        user = SOURCE_MAPS.get(self.file, {}).get(self.line) if self.file.startswith("<srcad ") else None
        if user is not None:
            text = linecache.getline(user[0], user[1])
            set_ = object.__setattr__
            set_(self, "message", f"{self.message} (in srcad's generated code, line {self.line} of "
                 f"{self.file})")
            set_(self, "file", user[0]), set_(self, "line", user[1])
            set_(self, "col", len(text) - len(text.lstrip()))
        if not self.via or not own_source(self.file):
            return
        inner = max((k for k, (f, _, _) in enumerate(self.via) if not own_source(f)), default=None)
        if inner is None:
            return
        where = f"{os.path.relpath(self.file, os.path.dirname(_SRCAD_DIR[:-1]))}:{self.line}"
        file, line, col = self.via[inner]
        set_ = object.__setattr__
        set_(self, "message", f"{self.message} (in srcad's implementation of the call, {where})")
        set_(self, "file", file), set_(self, "line", line), set_(self, "col", col)
        set_(self, "via", tuple(self.via[:inner]))

    def render(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.message}"
        src = linecache.getline(self.file, self.line).rstrip("\n") if self.line else ""
        if src.strip():
            text += f"\n    {src}\n    {' ' * self.col}^"
        for file, line, col in reversed(self.via):
            call = linecache.getline(file, line).strip()
            text += f"\n  called from {file}:{line}:{col}" + (f": {call}" if call else "")
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def own_source(file: str) -> bool:
    """Is `file` one of srcad's own source files?"""
    return os.path.abspath(file).startswith(_SRCAD_DIR)


class SrcadError(Exception):
    """Base class of every error srcad raises about the user's code or call."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] | list = ()):
        self.diagnostics = tuple(diagnostics)
        self.summary = message
        body = "\n".join(d.render() for d in self.diagnostics)
        super().__init__(f"{message}\n{body}" if body else message)

    @property
    def lineno(self) -> int | None:
        return self.diagnostics[0].line if self.diagnostics else None

    @property
    def filename(self) -> str | None:
        return self.diagnostics[0].file if self.diagnostics else None


class SourceUnavailableError(SrcadError):
    """The function's source cannot be read (defined in a REPL, built-in, lambda in eval...)."""


class StaleSourceError(SourceUnavailableError):
    """The function's file changed since the function was defined: the source srcad reads is
    not the code that runs."""


class UnsupportedSyntaxError(SrcadError):
    """The function uses Python constructs srcad does not transform."""


class NoRuleError(SrcadError):
    """A call on a differentiated value has no derivative rule."""


class UnsafeMutationError(SrcadError):
    """Mutation of an array or list srcad cannot prove safe to differentiate."""


class RecursionNotSupportedError(SrcadError):
    """A user function calls itself (directly or not)."""


class NonScalarOutputError(SrcadError):
    """`grad` of a function whose output is not a scalar."""


class ArgumentError(SrcadError):
    """A transformation was called with arguments that do not fit (argnums, tangents...)."""


class TypeSupportError(SrcadError):
    """A value of a type srcad cannot differentiate (complex numbers, objects...)."""


class ShapeError(SrcadError, ValueError):
    """Shapes the user's code combines that NumPy refuses (operands that do not broadcast,
    a matrix product of mismatched sizes, a reshape to another size): raised where the
    operation runs, at its line (a ValueError too, as NumPy's own)."""


class NondeterministicError(SrcadError):
    """A transformation that evaluates the function several times (one jvp per column of a
    Jacobian or Hessian) got different values from evaluations that must agree: the function
    draws random numbers or reads state that changes between calls."""


class RuleError(SrcadError):
    """A derivative rule is malformed (raised when it is registered)."""


class CodegenError(SrcadError):
    """Offline code generation failed (bad FILE:FUNC, unwritable output, ...)."""


#: BaseException.add_note exists (Python 3.11+); tests set it False to check the fallback
HAS_ADD_NOTE = hasattr(BaseException, "add_note")


class SourceNote(Exception):
    """Notes srcad attaches to an exception that cannot carry them in its message (Python 3.10,
    which has no add_note, and an exception type with its own __str__): set as the exception's
    cause, so the traceback prints them just above it."""


def add_note(exc: BaseException, text: str) -> None:
    """exc.add_note(text), also on Python 3.10: there the note is appended to the message of an
    exception that prints its one string argument, or else carried by a `SourceNote` chained
    as the exception's cause (the exception's own context, if any, stays above it)."""
    if HAS_ADD_NOTE:
        exc.add_note(text)
        return
    exc.__dict__.setdefault("__srcad_notes__", []).append(text)
    if len(exc.args) == 1 and isinstance(exc.args[0], str) and type(exc).__str__ is BaseException.__str__:
        exc.args = (f"{exc.args[0]}\n{text}",)
        return
    carrier = exc.__cause__
    if isinstance(carrier, SourceNote):
        carrier.args = (f"{carrier.args[0]}\n{text}",)
        return
    carrier = SourceNote(text)
    if exc.__cause__ is not None:
        carrier.__cause__ = exc.__cause__
    if not exc.__suppress_context__:
        carrier.__context__ = exc.__context__
    exc.__cause__ = carrier


def notes_of(exc: BaseException) -> list[str]:
    """The notes srcad attached to `exc` (by add_note or the fallback)."""
    return list(getattr(exc, "__notes__", None) or exc.__dict__.get("__srcad_notes__", []))


def where_text(loc, fallback: str) -> str:
    """'file:line:col' of an IR `Loc` (the user's call, for a line of a source implementation
    srcad inlined: Diagnostic), for run-time checks that raise there; `fallback` without one."""
    if loc is None:
        return fallback
    site = diagnostic(loc, "")
    return f"{site.file}:{site.line}:{site.col}"


def diagnostic(loc, message: str, hint: str = "") -> Diagnostic:
    """A Diagnostic at an IR `Loc` (or anything with file/line/col), or nowhere."""
    if loc is None:
        return Diagnostic("<unknown>", 0, 0, message, hint)
    return Diagnostic(loc.file, loc.line, loc.col, message, hint, getattr(loc, "via", ()))
