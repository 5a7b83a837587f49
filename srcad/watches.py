"""What a transform watches to know that its code is stale: the global names through which
the code reaches functions (a helper, a transform, np.exp bound to a name), the functions'
default values, and the methods of the user's classes it inlines. Each is a triple (mapping,
name, object) that dispatch.Transformed._refresh checks by identity on every call."""

from __future__ import annotations

import dataclasses
import sysconfig
import types

from .frontend.source import code_names
from .ir import types as T
from .pipeline import depended_functions, lowered


def user_function_globals(fn, *more, statics: tuple = ()) -> tuple:
    """(globals dict, name, object) for every global name through which fn, or a function
    it inlines, reaches a callable (a helper, a transform, a class, np.exp bound to a name: code
    is built with it resolved, so rebinding the name changes it), and for the default values
    of those functions that have them;
    `more`: the functions inlined while specialising (Built.inlined), which count too;
    `statics`: fn's arguments that are functions (static_arguments)."""
    out = []
    inlined = tuple(g for f in more for g in lowered(f).functions)
    functions = dict.fromkeys(depended_functions(fn, statics) + inlined)
    for g in functions:
        if (getattr(g, "__module__", None) or "").startswith("srcad."):
            continue  # (srcad's own source rules, scipy.stats' logpdf: its globals do not change)
        ns, names = getattr(g, "__globals__", {}), sorted(code_names(g.__code__))
        for name in names:
            value = ns.get(name)
            if callable(value) or isinstance(value, types.ModuleType):  # (resolved when built:
                out.append((ns, name, value))  # a helper, a transform, np.exp or `be = np`)
            if _user_module(value):  # (`mylib.act(x)`: mylib.act replaced, or the module reloaded)
                out.extend((vars(value), a, vars(value)[a]) for a in names if callable(vars(value).get(a)))
        for name, cell in zip(g.__code__.co_freevars, getattr(g, "__closure__", None) or ()):
            value = _Cell(cell).get(name, MISSING)  # (a closure's function: resolved, as a global's)
            if callable(value) or isinstance(value, types.ModuleType):
                out.append((_Cell(cell), name, value))
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):  # (read when built)
            if getattr(g, attr, None) is not None:
                out.append((_Attributes(g), attr, getattr(g, attr)))
        out.extend((g.__kwdefaults__, k, v) for k, v in (getattr(g, "__kwdefaults__", None) or {}).items())
    return tuple(out)  # (the dict of keyword defaults changes in place: `f.__kwdefaults__["p"] = 3`)


def _user_module(value) -> bool:
    """A module of the user's (not a library's: numpy's attributes are not watched, as they do
    not change and every function reads some), whose functions code resolves when built."""
    if not isinstance(value, types.ModuleType):
        return False
    file = getattr(value, "__file__", None) or ""
    return bool(file) and not any(part in file for part in _LIBRARY_PATHS) and \
        value.__name__.split(".")[0] not in _LIBRARIES


_LIBRARY_PATHS = ("site-packages", "dist-packages", sysconfig.get_paths()["stdlib"])
_LIBRARIES = {"numpy", "scipy", "math", "cmath", "srcad", "jax", "torch", "autograd", "dask", "numba"}


class _Attributes:
    """An object's attributes as user_function_globals' (mapping, name, value) triples read them."""

    def __init__(self, obj):
        self.obj = obj

    def get(self, name, default=None):
        return getattr(self.obj, name, default)


class _Cell:
    """A closure cell as user_function_globals' (mapping, name, value) triples read it."""

    def __init__(self, cell):
        self.cell = cell

    def get(self, name, default=None):
        try:
            return self.cell.cell_contents
        except ValueError:  # (an empty cell: a name not bound yet, or deleted)
            return default


#: What a watched name is bound to when it is not bound (class_watches).
MISSING = object()


def fresh_check(deps: tuple):
    """A function of no arguments that is true while every watched name of `deps` is bound to
    the object it was bound to: one compiled expression, as it runs on every call (a loop over
    the triples costs several times as much)."""
    tests = [f"getattr(m{i}.obj, {n!r}, MISSING) is v{i}" if isinstance(m, _Attributes)
             else f"m{i}.get({n!r}, MISSING) is v{i}" for i, (m, n, _) in enumerate(deps)]
    params = ", ".join(f"m{i}, v{i}" for i in range(len(deps)))
    namespace = {"MISSING": MISSING}
    exec(f"def make({params}):\n    return lambda: {' and '.join(tests) or 'True'}\n", namespace)
    return namespace["make"](*(x for m, _, v in deps for x in (m, v)))


def class_watches(*type_groups) -> tuple:
    """(class dict, name, object) for every method, property, staticmethod and classmethod of
    the user's classes that values of these types are instances of (their bases too, and the
    subclasses' dicts as MISSING where an override would change the method): code inlines
    them, so replacing one (`Model.loss = other`) must build the code again."""
    classes: dict = {}
    for group in type_groups:
        for t in group:
            _classes_in(t, classes)
    out = []
    for cls in classes:
        mro = [k for k in cls.__mro__ if k is not object and T.user_class(k)]
        for i, klass in enumerate(mro):
            for name, value in vars(klass).items():
                if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
                    out.append((vars(klass), name, value))
                    out.extend((vars(k), name, MISSING) for k in mro[:i] if name not in vars(k))
    return tuple(out)


def _classes_in(t, out: dict) -> None:
    if isinstance(t, T.Type):
        cls = T.class_of(t)
        if isinstance(cls, type) and T.user_class(cls):
            out[cls] = None
        for f in dataclasses.fields(t):
            _classes_in(getattr(t, f.name), out)
    elif isinstance(t, tuple):
        for x in t:
            _classes_in(x, out)
