"""Does the source text srcad read for a function still describe the code that runs?

srcad reads a function's source from its file (through `inspect` and `linecache`), but the
function runs the code object Python compiled when the module was imported. If the file was
edited since, the two differ: a gradient of the new text for a function that runs the old
code. The check compiles the text srcad read the way Python compiled the original: the same
`__future__` flags, inside synthetic enclosing functions and classes of the same names
(rebuilt from the qualified name; the innermost function binds the free variables, so that
they compile as cell reads), at the same line numbers, with the module's imports declared.
(A function in a test module that pytest rewrote has its asserts rewritten the same way.)
It compares the result with the function's code object, ignoring line numbers and file names:

    def f(x):                    # file edited after import: `x * 3` is now `x * 4`
        return x * 4             # compile(...) of this text != f.__code__  -> stale

`code_fingerprint` is the comparison key (a hash of the bytecode, names, flags and constants,
nested code objects included); the persistent cache records it too.

This module uses the standard library only (no other srcad module), so that it can be checked
on every Python version srcad supports.
"""

from __future__ import annotations
import __future__

import ast
import hashlib
import linecache
import symtable
import types
import weakref

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize",
           "co_flags", "co_name", "co_names", "co_varnames", "co_freevars", "co_cellvars")
_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
_FINGERPRINTS: weakref.WeakKeyDictionary[types.CodeType, str] = weakref.WeakKeyDictionary()
_IMPORTS: dict = {}  # file name -> (its lines as linecache has them, names its module imports)


def code_fingerprint(code: types.CodeType) -> str:
    """A hash of what a code object does: bytecode, names, flags, constants (nested code
    objects by their own fingerprint); not its line numbers, file name or qualified name.
    The same in every process of the same Python version."""
    got = _FINGERPRINTS.get(code)
    if got is None:
        parts = (tuple(getattr(code, f, None) for f in _FIELDS), code.co_code.hex(),
                 getattr(code, "co_exceptiontable", b"").hex(), tuple(_const_key(c) for c in code.co_consts))
        got = _FINGERPRINTS[code] = hashlib.sha256(repr(parts).encode()).hexdigest()
    return got


def _const_key(c) -> tuple:
    if isinstance(c, types.CodeType):
        return ("code", code_fingerprint(c))
    if isinstance(c, tuple):
        return ("tuple",) + tuple(_const_key(x) for x in c)
    if isinstance(c, frozenset):  # (sorted: a set's order changes with the hash seed)
        return ("frozenset",) + tuple(sorted(repr(_const_key(x)) for x in c))
    if isinstance(c, float):
        return ("float", c.hex())  # (-0.0 and nan told apart)
    if isinstance(c, complex):
        return ("complex", c.real.hex(), c.imag.hex())
    return (type(c).__name__, repr(c))


def def_matches(code: types.CodeType, lines: list[str], first: int, qualname: str, namespace=None) -> bool:
    """Does the `def` in `lines` (from line `first` of its file, decorators included, with
    their original indentation) compile to `code`? (`namespace`: the function's globals.)"""
    first_line = lines[0]
    prefix = first_line[: len(first_line) - len(first_line.lstrip())]
    heads = _heads(code, qualname)
    if not heads and prefix:
        heads = ["if 1:"]
    if len(heads) > len(prefix):  # (no room to nest: cannot happen for real source)
        return False
    head_lines = [prefix[:k] + h + "\n" for k, h in enumerate(heads)]
    padding = "\n" * max(first - 1 - len(head_lines), 0)  # the def at its own line number
    text = padding + "".join(head_lines) + "".join(lines)
    want = code_fingerprint(code)
    return _compiles_to(code, text, namespace, lambda compiled: any(
        code_fingerprint(c) == want for c in _shallowest(compiled, code.co_name)))


def lambda_matches(code: types.CodeType, text: str, node, qualname: str, namespace=None) -> bool:
    """Does the lambda `node` (an ast/gast node with positions in `text`) compile to `code`?"""
    segment = ast.get_source_segment(text, node)
    if segment is None:
        return False
    heads = _heads(code, qualname)
    head_lines = [" " * k + h + "\n" for k, h in enumerate(heads)]
    body = " " * len(heads) + "__srcad_value__ = (\n" + segment + "\n)\n"
    want, names = code_fingerprint(code), _arg_names(code)
    return _compiles_to(code, "".join(head_lines) + body, namespace, lambda compiled: any(
        code_fingerprint(c) == want for c in _all_codes(compiled)
        if c.co_name == "<lambda>" and _arg_names(c) == names))


def _compiles_to(code: types.CodeType, text: str, namespace, found) -> bool:
    """Compile `text` with the module's imports declared: since Python 3.11 `m.f(x)` compiles
    differently when `m` is bound by an import in the module (a statement at the end is
    enough: the symbol table is the module's). First guess: the global names that are
    modules; then, if that does not match, the module's imports read from its file (a
    symbol table of the whole file: slower)."""
    tried = set()
    guesses = (lambda: _module_names(code, namespace),
               lambda: _module_imports(code.co_filename) & _all_names(code),
               # (an import inside the function of a name the module imports too: `np` local)
               lambda: _module_imports(code.co_filename) & (_all_names(code) | _all_locals(code)))
    for guess in guesses:
        names = frozenset(guess())
        if names in tried:
            continue
        tried.add(names)
        imports = "\nimport " + ", ".join(sorted(names)) + "\n" if names else "\n"
        compiled = _compile(text + imports, code)
        if compiled is not None and found(compiled):
            return True
    return False


def _module_names(code: types.CodeType, namespace) -> set:
    namespace = namespace if isinstance(namespace, dict) else {}
    return {n for n in _all_names(code) if isinstance(namespace.get(n), types.ModuleType)}


def _module_imports(filename: str) -> frozenset:
    lines = linecache.getlines(filename)
    got = _IMPORTS.get(filename)
    if got is None or got[0] is not lines:
        try:
            table = symtable.symtable("".join(lines), filename, "exec")
            names = frozenset(s.get_name() for s in table.get_symbols() if s.is_imported())
        except (SyntaxError, ValueError):
            names = frozenset()
        got = _IMPORTS[filename] = (lines, names)
    return got[1]


def _all_names(code: types.CodeType) -> set:
    out = set(code.co_names)
    for c in _children(code):
        out |= _all_names(c)
    return out


def _all_locals(code: types.CodeType) -> set:
    out = set(code.co_varnames) | set(code.co_cellvars)
    for c in _children(code):
        out |= _all_locals(c)
    return out


def _heads(code: types.CodeType, qualname: str) -> list[str]:
    """The blocks enclosing the function, rebuilt from its qualified name ('f.<locals>.C.m':
    a function f, then a class C), so that the qualified names of nested functions, name
    mangling and the nested flag come out the same; the innermost function binds the free
    variables."""
    parts = qualname.split(".")[:-1] if isinstance(qualname, str) else []
    levels = []  # (kind, name), outermost first
    for i, part in enumerate(parts):
        if part != "<locals>":  # (a comprehension's scope, '<listcomp>' before Python 3.12: a def)
            kind = "def" if i + 1 < len(parts) and parts[i + 1] == "<locals>" or part in _COMPREHENSIONS \
                else "class"
            levels.append((kind, part if part.isidentifier() else "__srcad_outer__"))
    free = list(code.co_freevars)
    last_def = max((i for i, (kind, _) in enumerate(levels) if kind == "def"), default=-1)
    if "__class__" in free and any(kind == "class" for kind, _ in levels[last_def + 1:]):
        free.remove("__class__")  # (the class provides it)
    if free and last_def < 0:
        levels.insert(0, ("def", "__srcad_outer__"))
        last_def = 0
    return [f"def {name}({', '.join(free) if i == last_def else ''}):" if kind == "def" else f"class {name}:"
            for i, (kind, name) in enumerate(levels)]


def _compile(text: str, like: types.CodeType):
    flags = like.co_flags & _FUTURE_FLAGS
    try:
        if _pytest_rewritten(like):
            return _compile_like_pytest(text, like.co_filename, flags)
        return compile(text, like.co_filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):  # (ValueError: NUL bytes)
        return None


def _pytest_rewritten(code: types.CodeType) -> bool:
    """Was `code` compiled by pytest's assertion rewriting (a function in a test module)?"""
    return any(n.startswith("@py") for n in code.co_varnames + tuple(_all_names(code)))


def _compile_like_pytest(text: str, filename: str, flags: int):
    """Compile `text` with its asserts rewritten as pytest rewrites a test module's."""
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
    except ImportError:
        return None
    try:
        tree = ast.parse(text, filename)
        rewrite_asserts(tree, text.encode(), filename)
        return compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    except Exception:  # (pytest internals: anything that fails means "cannot tell")
        return None


def _children(code: types.CodeType):
    return [c for c in code.co_consts if isinstance(c, types.CodeType)]


def _shallowest(code: types.CodeType, name: str) -> list:
    """The code objects called `name` nearest to the top of `code`."""
    level = _children(code)
    while level:
        found = [c for c in level if c.co_name == name]
        if found:
            return found
        level = [c for parent in level for c in _children(parent)]
    return []


def _all_codes(code: types.CodeType):
    for c in _children(code):
        yield c
        yield from _all_codes(c)


def _arg_names(code: types.CodeType) -> tuple:
    return code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
