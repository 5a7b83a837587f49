"""The fence: every gast node type is either handled or rejected with a reason and a hint.

`check(parsed)` walks the whole function and reports *every* unsupported construct in one
`UnsupportedSyntaxError`, each with file, line and column. A test fails if gast gains a node
type that is not listed here.
"""

from __future__ import annotations

import gast

from ..errors import Diagnostic, UnsupportedSyntaxError
from . import oneshot
from .dict_views import stale_key_views
from .resolve import own_nodes
from .source import ParsedFunction

#: Node types lowered by srcad (statements, expressions, and their helper nodes).
HANDLED = frozenset(
    """
    Module Expression FunctionDef Return Assign AugAssign AnnAssign For While If Expr Pass
    Break Continue Assert Raise Import ImportFrom alias
    BoolOp BinOp UnaryOp IfExp Dict Compare Call Constant Attribute Subscript Name List Tuple
    Slice ListComp GeneratorExp DictComp JoinedStr FormattedValue Starred Lambda Yield YieldFrom
    Load Store Param Add Sub Mult MatMult Div Mod Pow FloorDiv BitAnd BitOr BitXor LShift
    RShift And Or Invert Not UAdd USub Eq NotEq Lt LtE Gt GtE Is IsNot In NotIn
    arguments keyword comprehension
    mod stmt expr expr_context boolop operator unaryop cmpop
    """.split()
)

_HINT_MOVE_OUT = "move it outside the differentiated function and pass the result in as an argument"

#: Node types srcad rejects: message and what to do instead.
REJECTED: dict[str, tuple[str, str]] = {
    "AsyncFunctionDef": ("async functions are not supported", "differentiate a plain def"),
    "AsyncFor": ("'async for' is not supported", "use a plain for loop"),
    "AsyncWith": ("'async with' is not supported", _HINT_MOVE_OUT),
    "Await": ("'await' is not supported", _HINT_MOVE_OUT),
    "ClassDef": ("class definitions inside a differentiated function are not supported",
                 "define the class at module level"),
    "Delete": ("'del' is not supported", "rebind the name instead, or let it go out of scope"),
    "With": ("'with' statements are not supported (except np.errstate(...) set to 'ignore' or 'warn')",
             _HINT_MOVE_OUT),
    "Try": ("'try' statements are not supported",
            "move the error handling outside the differentiated function"),
    "TryStar": ("'try/except*' is not supported",
                "move the error handling outside the differentiated function"),
    "ExceptHandler": ("'except' clauses are not supported",
                      "move the error handling outside the differentiated function"),
    "Global": ("'global' declarations are not supported",
               "return the new value instead of writing a global"),
    "Nonlocal": ("'nonlocal' declarations are not supported",
                 "return the new value instead of writing an enclosing variable"),
    "NamedExpr": ("assignment expressions (:=) are not supported", "assign on a separate line"),
    "Set": ("sets are not supported", "use a list or a tuple"),
    "SetComp": ("set comprehensions are not supported", "use a list comprehension"),
    "Match": ("'match' statements are not supported", "use if/elif/else"),
    "match_case": ("'match' statements are not supported", "use if/elif/else"),
    "pattern": ("'match' statements are not supported", "use if/elif/else"),
    "withitem": ("'with' statements are not supported", _HINT_MOVE_OUT),
    "TypeAlias": ("'type' aliases are not supported here", "define the alias at module level"),
    "Exec": ("exec is not supported", "write the code directly"),
    "Print": ("the print statement is not supported", "call print()"),
    "Repr": ("backquote repr is not supported", "call repr()"),
    "Interactive": ("interactive input is not supported", "define the function in a file"),
    "FunctionType": ("function type comments are not supported", "remove the type comment"),
    "Suite": ("suites are not supported", "define the function in a file"),
    "AugLoad": ("augmented load contexts are not supported", "rewrite the statement"),
    "AugStore": ("augmented store contexts are not supported", "rewrite the statement"),
    "Del": ("'del' is not supported", "rebind the name instead"),
    "Interpolation": ("template strings are not supported", "use an f-string or str.format"),
    "TemplateStr": ("template strings are not supported", "use an f-string or str.format"),
    "TypeVar": ("type parameters are not supported", "remove the type parameters"),
    "TypeVarTuple": ("type parameters are not supported", "remove the type parameters"),
    "ParamSpec": ("type parameters are not supported", "remove the type parameters"),
    "type_param": ("type parameters are not supported", "remove the type parameters"),
    "type_ignore": ("type-ignore comments are not supported here", "remove them"),
    "TypeIgnore": ("type-ignore comments are not supported here", "remove them"),
    **{name: ("'match' statements are not supported", "use if/elif/else") for name in (
        "MatchAs", "MatchClass", "MatchMapping", "MatchOr", "MatchSequence", "MatchSingleton",
        "MatchStar", "MatchValue")},
    "slice": ("old-style slices are not supported", "use plain slices"),
    "excepthandler": ("'except' clauses are not supported", "move the error handling outside"),
}

_CALLS_REJECTED = {
    "eval": "eval() is not supported: write the expression directly",
    "exec": "exec() is not supported: write the code directly",
    "globals": "globals() is not supported: refer to the global by name",
    "locals": "locals() is not supported: refer to the variable by name",
    "setattr": "setattr() is not supported: build a new value and return it",
    "delattr": "delattr() is not supported",
    "vars": "vars() is not supported: refer to the variable by name",
}


def _diag(parsed: ParsedFunction, node: gast.AST, message: str, hint: str) -> Diagnostic:
    line = getattr(node, "lineno", None) or parsed.node.lineno
    col = getattr(node, "col_offset", None)
    col = parsed.col_offset + (col if col is not None else 0)
    return Diagnostic(parsed.file, line, col, message, hint)


def _decorated(node: gast.AST, top: gast.FunctionDef) -> bool:
    return isinstance(node, gast.FunctionDef) and node is not top and bool(node.decorator_list)


def problems(parsed: ParsedFunction, top_level: bool = True) -> list[Diagnostic]:
    """Every unsupported construct of the function, in source order (`top_level`: the
    function srcad was asked to transform, rather than a helper it inlines)."""
    out: list[Diagnostic] = []
    top = parsed.node
    args = top.args
    if top_level and (args.vararg is not None or args.kwarg is not None):
        out.append(_diag(parsed, top, "*args and **kwargs parameters are not supported",
                         "give the function explicit parameters"))
    if top_level:
        for node in own_nodes(top):
            if isinstance(node, (gast.Yield, gast.YieldFrom)):
                out.append(_diag(parsed, node, "the function srcad transforms is a generator",
                                 "differentiate a function that consumes it: return sum(gen(x)), "
                                 "or build and return a list"))
    for node in gast.walk(top):
        name = type(node).__name__
        if _decorated(node, top):
            out.append(_diag(parsed, node, "decorators on nested functions are not supported",
                             "define the decorated function at module level, or call the "
                             "decorator explicitly where you need it"))
        elif name in REJECTED:
            if getattr(node, "lineno", None) is None or name == "alias":
                continue  # a part of a rejected statement (withitem, alias...): reported with it
            msg, hint = REJECTED[name]
            out.append(_diag(parsed, node, msg, hint))
        elif name not in HANDLED:
            out.append(_diag(parsed, node, f"'{name}' is not supported", "rewrite this construct"))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            if node.func.id in _CALLS_REJECTED:
                out.append(_diag(parsed, node, _CALLS_REJECTED[node.func.id], ""))
        elif isinstance(node, gast.AnnAssign) and node.value is None:
            continue
    for node in oneshot.misuses(top):
        what = "a generator expression" if isinstance(node, gast.GeneratorExp) else f"{node.func.id}()"
        out.append(_diag(parsed, node, f"{what} may be consumed more than once here (srcad reads it "
                         "as a list, where Python's iterator would be found empty the second time)",
                         "consume it once, where it is made (for v in ...:, sum(...), list(...)), or "
                         "make a list of it first: xs = list(...)"))
    for node in stale_key_views(top):
        out.append(_diag(parsed, node, "d.keys() kept in a variable while the function changes d: Python's "
                         "view shows keys added later, srcad's keys are those d has here",
                         "iterate d (or d.keys()) where you use the keys, or take list(d.keys()) if "
                         "the keys of this moment are meant"))
    seen, unique = set(), []
    for d in out:
        key = (d.line, d.col, d.message)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return sorted(unique, key=lambda d: (d.line, d.col))


def check(parsed: ParsedFunction, top: bool = True) -> None:
    found = problems(parsed, top)
    if found:
        n = len(found)
        what = "construct" if n == 1 else "constructs"
        raise UnsupportedSyntaxError(
            f"{n} unsupported {what} in {parsed.node.name} (srcad transforms a subset of Python; "
            "see docs/subset.md)",
            found,
        )
