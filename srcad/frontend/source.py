"""Read a function's source and parse it with gast, keeping user line and column numbers.

The source is that of the code the function runs (`fn.__code__`; never the function a
decorator's `__wrapped__` names), and it is checked to still be that code: a file edited
after the module was imported is a `StaleSourceError` (see staleness.py).
"""

from __future__ import annotations

import inspect
import linecache
import sys
import types
import weakref
from dataclasses import dataclass

import gast

from ..errors import Diagnostic, SourceUnavailableError, StaleSourceError, UnsupportedSyntaxError
from .contexts import unwrap_contexts
from .outs import rewrite_outs
from .planned import generated_file, undo_memory_planning
from .staleness import def_matches, lambda_matches

#: code object -> the source text found to compile to it (checked once per text)
_VERIFIED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    code = getattr(fn, "__code__", None)
    try:
        if inspect.isfunction(fn) and isinstance(code, types.CodeType) and fn.__module__ in sys.modules:
            # (findsource of the function, not of its code or inspect.getsourcelines: no unwrapping of
            # __wrapped__, and its module found by name, where a code object's module is searched
            # for among all of sys.modules, tenths of a second once numba or jax is imported)
            every, start = inspect.findsource(fn)
            lines, first = inspect.getblock(every[start:]), start + 1
        else:
            lines, first = inspect.getsourcelines(code if isinstance(code, types.CodeType) else fn)
    except (OSError, TypeError) as e:
        name = getattr(fn, "__qualname__", repr(fn))
        raise SourceUnavailableError(
            f"cannot read the source of {name} ({_where(fn)}): {e}. srcad transforms source "
            "code, so the function must be defined in a file (a module, a script, or a "
            "notebook cell); functions typed at the plain Python prompt, built-ins and "
            "functions created by exec() without a linecache entry have no source to read."
        ) from None
    return lines, max(first, 1)


def source_text(fn) -> str:
    """The source text of `fn` as srcad reads it (raises SourceUnavailableError)."""
    return "".join(_source_lines(fn)[0])


def _check_fresh(fn, text: str, first: int, matches) -> None:
    """Refuse source text that does not compile to the code `fn` runs."""
    code = fn.__code__
    if _VERIFIED.get(code) == text:
        return
    if not matches():
        file = code.co_filename
        name = getattr(code, "co_qualname", None) or fn.__qualname__
        msg = (f"the source of {name} in {file} changed since the function was defined: srcad "
               "reads the file, but the function runs the code compiled from the old text")
        hint = ("reload the module (importlib.reload) or re-run the cell or script that defines "
                "the function, then transform it again")
        raise StaleSourceError(msg, [Diagnostic(file, first, 0, "this text is not the code that runs", hint)])
    _VERIFIED[code] = text


def _qualname(fn) -> str:
    return getattr(fn.__code__, "co_qualname", None) or fn.__qualname__


def _dedent(lines: list[str]) -> tuple[str, int]:
    """Remove the first line's indentation from every line that has it."""
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    prefix = first[:indent]
    out = [ln[indent:] if ln.startswith(prefix) else ln.lstrip() for ln in lines]
    return "".join(out), indent


def _find_lambda(tree: gast.AST, fn, in_file: bool = False) -> gast.Lambda | None:
    """The lambda of `fn` in `tree`: the one with its parameters; when several have them
    (`[lambda x: 2 * x, lambda x: 3 * x]`) and `tree` is the whole file (`in_file`), the one
    whose body spans the positions of the code's instructions (Python 3.11+)."""
    code = fn.__code__
    wanted = _code_parameters(code)
    found = [n for n in gast.walk(tree) if isinstance(n, gast.Lambda) and _parameters(n) == wanted]
    if len(found) == 1 or not in_file:
        return found[0] if len(found) == 1 else None
    span = _instruction_span(code)
    if span is None:
        return None
    found = [n for n in found if n.lineno == code.co_firstlineno and _body_span(n)[0] <= span[0]
             and span[1] <= _body_span(n)[1]]
    if not found:
        return None
    return min(found, key=_body_span, default=None) if len({_body_span(n) for n in found}) == len(found) \
        else None


def _parameters(lam: gast.Lambda) -> tuple:
    """(the names of a lambda's parameters, its *args name, its **kwargs name)."""
    star, stars = lam.args.vararg, lam.args.kwarg
    params = list(getattr(lam.args, "posonlyargs", None) or []) + lam.args.args + lam.args.kwonlyargs
    return (tuple(a.id for a in params), star.id if star else None,
            stars.id if stars else None)


def _code_parameters(code) -> tuple:
    """_parameters of the lambda that compiled to `code`."""
    n = code.co_argcount + code.co_kwonlyargcount
    star = code.co_varnames[n] if code.co_flags & inspect.CO_VARARGS else None
    stars = code.co_varnames[n + (star is not None)] if code.co_flags & inspect.CO_VARKEYWORDS else None
    return code.co_varnames[:n], star, stars


def _body_span(lam: gast.Lambda) -> tuple:
    b = lam.body
    return (b.lineno, b.col_offset), (b.end_lineno, b.end_col_offset)


def _instruction_span(code) -> tuple | None:
    """((line, col), (end line, end col)) covering a code object's instructions (its body),
    or None before Python 3.11 (no column positions)."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return None
    spans = [p for p in positions() if None not in p and (p[0], p[2]) != (p[1], p[3])]
    if not spans:
        return None
    return min((p[0], p[2]) for p in spans), max((p[1], p[3]) for p in spans)


def _lambda_node(fn, lam: gast.Lambda) -> gast.FunctionDef:
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    node = gast.FunctionDef(
        name="lambda", args=lam.args, body=[ret], decorator_list=[],
        returns=None, type_comment=None, type_params=[],
    )
    return gast.copy_location(node, lam)


def _parse_lambda(fn, lines: list[str], first: int) -> tuple[gast.FunctionDef, int]:
    text, indent = _dedent(lines)
    for candidate in (text, text.strip().rstrip(",;"), "(" + text.strip().rstrip(",;") + ")"):
        try:
            tree = gast.parse(candidate)
        except SyntaxError:
            continue
        lam = _find_lambda(tree, fn)
        if lam is not None:
            # _check_fresh calls the lambda at once: the loop variables are current
            _check_fresh(fn, candidate, first, lambda: lambda_matches(
                fn.__code__, candidate, lam, _qualname(fn), fn.__globals__))  # noqa: B023
            node = _lambda_node(fn, lam)
            gast.increment_lineno(node, first - 1)
            return node, indent
    found = _lambda_in_file(fn, first)
    if found is not None:
        return found, 0
    raise SourceUnavailableError(
        f"cannot isolate the lambda at {_where(fn)} in its source line; give it a name with "
        "`def` (srcad needs to find exactly one lambda with these parameters on that line)"
    )


def _lambda_in_file(fn, first: int) -> gast.FunctionDef | None:
    """The lambda found in its whole file, told apart from the others on its line by the
    columns of its code (when its own lines do not parse, or hold several such lambdas)."""
    text = "".join(linecache.getlines(fn.__code__.co_filename))
    try:
        tree = gast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lam = _find_lambda(tree, fn, in_file=True)
    if lam is None:
        return None
    _check_fresh(fn, text, first, lambda: lambda_matches(fn.__code__, text, lam, _qualname(fn),
                                                         fn.__globals__))
    return _lambda_node(fn, lam)


def parse_function(fn) -> ParsedFunction:
    """Parse the source of `fn` into a gast FunctionDef with decorators removed."""
    lines, first = _source_lines(fn)
    file = fn.__code__.co_filename
    if fn.__code__.co_name == "<lambda>":
        node, indent = _parse_lambda(fn, lines, first)
        return ParsedFunction(fn, node, file, indent)
    _check_fresh(fn, "".join(lines), first,
                 lambda: def_matches(fn.__code__, lines, first, _qualname(fn), fn.__globals__))
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
    node = unwrap_contexts(node, fn)
    if generated_file(file):
        node = undo_memory_planning(node)
    else:
        node = rewrite_outs(node, fn)  # (np.exp(x, out=y): y[...] = np.exp(x))
    return ParsedFunction(fn, node, file, indent)


_SIGNATURES: dict = {}  # (code, defaults, keyword defaults) -> signature, for functions without defaults


def code_signature(fn) -> inspect.Signature:
    """The signature of the code that runs when fn is called: a `__signature__` or
    `__wrapped__` attribute (which may describe another function) is not followed."""
    if isinstance(fn, types.FunctionType):
        plain = not (fn.__defaults__ or fn.__kwdefaults__)
        key = (fn.__code__, None, None) if plain else None  # (a lambda made anew on every call: once)
        got = _SIGNATURES.get(key) if key else None
        if got is None:
            clone = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                       fn.__closure__)
            clone.__kwdefaults__ = fn.__kwdefaults__
            got = inspect.signature(clone)
            if key and len(_SIGNATURES) < 4096:
                _SIGNATURES[key] = got
        return got
    return inspect.signature(fn)


def code_names(code) -> set:
    """The global and attribute names a code object (and the code nested in it) reads."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= code_names(c)
    return out


def source_line(file: str, line: int) -> str:
    """The text of a line of the user's file, stripped (for comments in generated code)."""
    return linecache.getline(file, line).strip()
