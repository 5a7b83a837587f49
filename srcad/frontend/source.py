"""Read a function's source and parse it with gast, keeping user line and column numbers."""

from __future__ import annotations

import inspect
import linecache
from dataclasses import dataclass

import gast

from ..errors import Diagnostic, SourceUnavailableError, UnsupportedSyntaxError


@dataclass(frozen=True)
class ParsedFunction:
    """A function definition node whose line numbers are those of `file`.

    Column offsets in `node` are relative to the dedented text; add `col_offset` to get the
    column in the file.
    """

    fn: object
    node: gast.FunctionDef
    file: str
    col_offset: int


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(fn)
    return f"{code.co_filename}:{code.co_firstlineno}"


def _source_lines(fn) -> tuple[list[str], int]:
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        name = getattr(fn, "__qualname__", repr(fn))
        raise SourceUnavailableError(
            f"cannot read the source of {name} ({_where(fn)}): {e}. srcad transforms source "
            "code, so the function must be defined in a file (a module, a script, or a "
            "notebook cell); functions typed at the plain Python prompt, built-ins and "
            "functions created by exec() without a linecache entry have no source to read."
        ) from None
    return lines, max(first, 1)


def _dedent(lines: list[str]) -> tuple[str, int]:
    """Remove the first line's indentation from every line that has it."""
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    prefix = first[:indent]
    out = [ln[indent:] if ln.startswith(prefix) else ln.lstrip() for ln in lines]
    return "".join(out), indent


def _find_lambda(tree: gast.AST, fn) -> gast.Lambda | None:
    code = fn.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    found = [
        n
        for n in gast.walk(tree)
        if isinstance(n, gast.Lambda) and tuple(a.id for a in n.args.args + n.args.kwonlyargs) == names
    ]
    return found[0] if len(found) == 1 else None


def _parse_lambda(fn, lines: list[str], first: int) -> tuple[gast.FunctionDef, int]:
    text, indent = _dedent(lines)
    for candidate in (text, text.strip().rstrip(",;"), "(" + text.strip().rstrip(",;") + ")"):
        try:
            tree = gast.parse(candidate)
        except SyntaxError:
            continue
        lam = _find_lambda(tree, fn)
        if lam is not None:
            ret = gast.Return(value=lam.body)
            gast.copy_location(ret, lam.body)
            node = gast.FunctionDef(
                name="lambda", args=lam.args, body=[ret], decorator_list=[],
                returns=None, type_comment=None, type_params=[],
            )
            gast.copy_location(node, lam)
            gast.increment_lineno(node, first - 1)
            return node, indent
    raise SourceUnavailableError(
        f"cannot isolate the lambda at {_where(fn)} in its source line; give it a name with "
        "`def` (srcad needs to find exactly one lambda with these parameters on that line)"
    )


def parse_function(fn) -> ParsedFunction:
    """Parse the source of `fn` into a gast FunctionDef with decorators removed."""
    lines, first = _source_lines(fn)
    file = fn.__code__.co_filename
    if fn.__name__ == "<lambda>":
        node, indent = _parse_lambda(fn, lines, first)
        return ParsedFunction(fn, node, file, indent)
    text, indent = _dedent(lines)
    try:
        tree = gast.parse(text)
    except SyntaxError as e:
        line = first + (e.lineno or 1) - 1
        raise UnsupportedSyntaxError(
            f"cannot parse the source of {fn.__qualname__}",
            [Diagnostic(file, line, (e.offset or 1) - 1 + indent, str(e.msg))],
        ) from None
    defs = [n for n in tree.body if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))]
    if len(defs) != 1:
        raise SourceUnavailableError(f"expected one function definition in the source of {fn.__qualname__}")
    node = defs[0]
    gast.increment_lineno(node, first - 1)
    node.decorator_list = []
    return ParsedFunction(fn, node, file, indent)


def source_line(file: str, line: int) -> str:
    """The text of a line of the user's file, stripped (for comments in generated code)."""
    return linecache.getline(file, line).strip()
