"""Name resolution: what each name in a function refers to, by object rather than spelling.

A name assigned anywhere in the function is local (Python's rule). Any other name is looked
up, at transform time, in the function's closure cells, then its module globals, then the
builtins. Modules, functions, classes and module-level constants of libraries (np.pi) are
*static*: the transform works with the object itself, so `import numpy as onp` and
`from math import sin` need nothing special. Other globals and closure variables are data
that may change between calls: generated code reads them when it runs.
"""

from __future__ import annotations

import builtins
import os
import sys
import sysconfig
import types
from dataclasses import dataclass

import gast

from ..ir.kinds import is_static
from ..ir.nodes import Ext
from ..rules import registry


@dataclass(frozen=True)
class Static:
    """A value known at transform time (a module, a function, a library constant...)."""

    obj: object


@dataclass(frozen=True)
class LiveGlobal:
    """A data global of a module: read from `module` (an Ext) by attribute `name` at run time."""

    module: Ext
    name: str


@dataclass(frozen=True)
class LiveCell:
    """A closure variable: read from the cell at run time."""

    cell: Ext
    name: str


class LocalFunction:
    """A function value that exists only while srcad lowers code: a nested `def` or `lambda`,
    or a `functools.partial` of one made inside the function (frontend/closures.py). Calls
    of it are inlined; it never reaches generated code. Subclasses have `name` (what error
    messages call it) and `loc` (the IR Loc where it was made)."""

    def __repr__(self) -> str:
        where = f" (line {self.loc.line})" if getattr(self, "loc", None) is not None else ""
        return f"<srcad nested function {getattr(self, 'name', '?')}{where}>"


_LIBRARY_PREFIXES = ("numpy", "math", "scipy", "cmath", "builtins", "operator", "srcad")


def own_nodes(node: gast.FunctionDef):
    """The nodes of a function's own scope, below `node`: a nested `def` or `lambda`
    contributes itself, its decorators and its default values, not its parameters or body
    (their names belong to the nested function's scope)."""
    stack = list(gast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            args = n.args
            stack.extend(args.defaults + [d for d in args.kw_defaults if d is not None])
            stack.extend(getattr(n, "decorator_list", []))
            continue
        stack.extend(gast.iter_child_nodes(n))


def parameter_names(args: gast.arguments) -> list[str]:
    """Every parameter name, in order: positional, *args, keyword-only, **kwargs."""
    out = [a.id for a in getattr(args, "posonlyargs", []) + args.args]
    out += [args.vararg.id] if args.vararg is not None else []
    out += [a.id for a in args.kwonlyargs]
    out += [args.kwarg.id] if args.kwarg is not None else []
    return out


def local_names(node: gast.FunctionDef) -> set[str]:
    """Names bound in the function body (params, assignment and loop targets, nested defs);
    names bound only inside a nested function or a comprehension are not the function's."""
    own = list(own_nodes(node))
    comps, stored = set(), set()
    for n in own:
        if isinstance(n, gast.comprehension):
            comps.update(t.id for t in gast.walk(n.target) if isinstance(t, gast.Name))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stored.add(n.id)
    targets = {n.name for n in own if isinstance(n, gast.FunctionDef)}
    targets.update(name for n in own for name in import_names(n))
    for n in own:
        if isinstance(n, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For)):
            for t in (n.targets if isinstance(n, gast.Assign) else [n.target]):
                targets.update(x.id for x in gast.walk(t)
                               if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Store))
    # (comprehension targets are local to the comprehension, not to the function)
    return set(parameter_names(node.args)) | targets | (stored - comps)


def import_names(node) -> list[str]:
    """The local names an Import or ImportFrom statement binds."""
    if isinstance(node, gast.Import):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, gast.ImportFrom):
        return [a.asname or a.name for a in node.names]
    return []


def is_library_object(obj: object) -> bool:
    mod = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    if isinstance(obj, types.ModuleType):
        mod = obj.__name__
    return isinstance(mod, str) and mod.split(".")[0] in _LIBRARY_PREFIXES


_LIBRARY_DIRS = ("site-packages", "dist-packages")
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep


def library_code(fn) -> bool:
    """Is fn a Python function of a library (the standard library, NumPy, SciPy, srcad, or a
    package installed in site-packages)? srcad does not differentiate through library code:
    a call to it is a constant, and a differentiated value reaching it is a NoRuleError at
    the user's call (give it a rule with srcad.defrule, or wrap it with srcad.custom_vjp)."""
    if hasattr(fn, "__srcad_transform__"):
        return False
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if not isinstance(func, types.FunctionType) or code is None:
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    if module in _LIBRARY_PREFIXES:
        return True
    if code.co_filename.startswith("<frozen "):  # (os.path, codecs...: stdlib modules frozen into Python)
        return True
    file = os.path.abspath(code.co_filename)
    if file.startswith(_STDLIB):
        return True
    return any(d in file.replace("\\", "/").split("/") for d in _LIBRARY_DIRS)


def _is_literal(obj: object) -> bool:
    return obj is None or obj is Ellipsis or isinstance(obj, (bool, int, float, str))


def module_ext(fn) -> Ext:
    """An Ext for the module whose globals `fn` reads (a proxy when it has no module)."""
    mod = sys.modules.get(getattr(fn, "__module__", None) or "")
    if mod is not None and getattr(mod, "__dict__", None) is fn.__globals__:
        name = mod.__name__.split(".")[-1]
        return Ext("_m_" + name.replace("-", "_").lstrip("_"), mod)
    return Ext("_m_" + fn.__name__.strip("<>"), GlobalsProxy(fn.__globals__))


class GlobalsProxy:
    """Attribute access on a globals dict that belongs to no module (exec'd code)."""

    def __init__(self, namespace: dict):
        object.__setattr__(self, "_ns", namespace)

    def __getattr__(self, name: str):
        try:
            return self._ns[name]
        except KeyError:
            raise AttributeError(name) from None


class Scope:
    """Resolve the free names of one user function."""

    def __init__(self, fn, node: gast.FunctionDef):
        self.fn = fn
        self.locals = local_names(node)
        code = fn.__code__
        cells = fn.__closure__ or ()
        self.cells = dict(zip(code.co_freevars, cells))
        self.module = module_ext(fn)

    def resolve(self, name: str):
        """Static, LiveGlobal, LiveCell, or None when the name is not found anywhere."""
        if name in self.cells:
            cell = self.cells[name]
            try:
                value = cell.cell_contents
            except ValueError:
                return None
            if is_static(value) and not isinstance(value, (list, dict)):
                return Static(value)
            return LiveCell(Ext(f"_cell_{name}", cell), name)
        g = self.fn.__globals__
        if name in g:
            value = g[name]
            if is_static(value) and not isinstance(value, (list, dict)):
                return Static(value)
            return LiveGlobal(self.module, name)
        if hasattr(builtins, name):
            return Static(getattr(builtins, name))
        return None


def array_api_function(module: types.ModuleType, attr: str) -> object | None:
    """NumPy's function for `module.attr`, when `module` is an array-API namespace other than NumPy
    (`__array_api_version__`; or its linalg or fft extension) and NumPy's function of the same name
    has a rule. NumPy >= 2 is itself a namespace of the standard, so the standard's `exp`, `concat`,
    `permute_dims` or `linalg.norm` is NumPy's function of that name: the namespace's functions
    share NumPy's rules by the standard's names, with no list of them (srcad/namespaces.py)."""
    root = sys.modules.get(module.__name__.split(".")[0])
    if root is None or root.__name__ == "numpy" or not hasattr(root, "__array_api_version__"):
        return None
    path = "numpy"
    if module is not root:
        ext = next((e for e in ("linalg", "fft") if getattr(root, e, None) is module), None)
        if ext is None:
            return None
        path += "." + ext
    target = registry.resolve_path(f"{path}.{attr}")
    return target if target is not None and registry.rule_for_object(target) is not None else None


def static_attr(obj: object, attr: str):
    """Resolve `obj.attr` for a static `obj`: Static for library constants and callables (for a
    function of an array-API namespace, NumPy's function of its name: array_api_function)."""
    value = getattr(obj, attr)
    if isinstance(obj, types.ModuleType) and (paired := array_api_function(obj, attr)) is not None:
        return Static(paired)
    if is_static(value) or (_is_literal(value) and is_library_object(obj)):
        return Static(value)
    if is_library_object(obj):
        return Static(value)
    return None  # data of a user's class or object (Cfg.scale): read when the code runs
