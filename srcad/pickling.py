"""Pickling srcad's transformations, so that multiprocessing, concurrent.futures and
dask.distributed workers can receive them.

A transformation pickles as the call that made it (a *recipe*: `srcad.grad(f, argnums=1)`,
`srcad.jacfwd(srcad.grad(f))`, ...), never as its generated code: the code is specialised per
argument kinds and shapes when it is first called, so the receiver builds (or finds in its
cache) the code for the arguments it is given. What the recipe needs travels with it:

- the user's function by reference (module and name) when the receiver can import it;
- otherwise (a function of `__main__`, of a notebook, made by exec(), a lambda, a nested
  function) by value with cloudpickle, and with the text of the file it was defined in, which
  srcad reads on the receiver (registered in `linecache` where the file is missing or differs).
  cloudpickle is an optional dependency (dask.distributed installs it); pickling such a function
  without it is a clear PicklingError.

The pickle's outer layer is an expression of the standard library alone (an `eval` of
`_LOADER`): on a receiver without srcad, unpickling gives a function that raises a
ModuleNotFoundError naming what to install when it is called, so the error travels back to the
caller like any other task error instead of killing the worker that unpickles it.
"""

from __future__ import annotations

import functools
import importlib
import linecache
import pickle
import sys

from .tracebacks import api_boundary
from .version import __version__

#: The outer layer of every pickle (standard library only: see the module docstring).
_LOADER = (
    "__import__('srcad.pickling', fromlist=['load']).load(payload) "
    "if __import__('importlib.util', fromlist=['find_spec']).find_spec('srcad') is not None "
    "else (lambda *args, **kwargs: (_ for _ in ()).throw(ModuleNotFoundError(message)))"
)


def reduce_recipe(what: str, maker, *args, **kwargs):
    """The __reduce__ value of a transformation made by `maker(*args, **kwargs)`; `what` names
    it in the error a receiver without srcad raises. `maker`: a function, or the (module, name)
    of one (for modules that cannot import it)."""
    payload = pickle.dumps((maker, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    message = (f"{what} was pickled by srcad {__version__} and needs srcad where it is unpickled: "
               f"install it there (pip install srcad=={__version__})")
    return eval, (_LOADER, {"payload": payload, "message": message})


def load(payload: bytes):
    """The transformation a pickle's recipe makes: the same object for the same pickle, so that a
    worker receiving it with every task builds its code once (a function travelling by value
    would otherwise be a new function, and get new code, each time)."""
    got = _LOADED.get(payload)
    if got is None:
        maker, args, kwargs = pickle.loads(payload)
        if isinstance(maker, tuple):
            maker = getattr(importlib.import_module(maker[0]), maker[1])
        got = maker(*args, **kwargs)
        if len(_LOADED) >= 256:  # (a bound: the oldest goes first)
            del _LOADED[next(iter(_LOADED))]
        _LOADED[payload] = got
    return got


_LOADED: dict = {}  # pickle payload -> the transformation it made (in this process)


# -- the user's functions ----------------------------------------------------------------------


class UserFunction:
    """A user's function inside a recipe: by reference when the receiver can import it, else by
    value with its file's text (see the module docstring)."""

    def __init__(self, fn):
        self.fn = fn

    def __reduce__(self):
        if _importable(self.fn):
            return _identity, (self.fn,)
        try:
            import cloudpickle
        except ImportError:
            raise pickle.PicklingError(
                f"srcad: {getattr(self.fn, '__qualname__', self.fn)!r} is defined in __main__, a notebook "
                "or by exec(), so it travels by value, which needs cloudpickle: pip install cloudpickle "
                "(or define the function in a module the receiver imports)") from None
        files, texts = {}, {}
        for f in _functions_of(self.fn):  # (cloudpickle renames their files: <dynamic-code>)
            file = f.__code__.co_filename
            files[f.__qualname__] = file
            texts.setdefault(file, "".join(linecache.getlines(file)))
        return _by_value, (cloudpickle.dumps(self.fn), files, texts)


def carry(fn):
    """fn wrapped for a recipe: user functions as UserFunction, a method of a library's module-
    level object (`scipy.stats.norm.pdf`) by reference, srcad's own objects as they are (they
    pickle themselves)."""
    import types

    if isinstance(fn, types.FunctionType):
        return UserFunction(fn)
    if isinstance(fn, types.MethodType):
        return _LibraryMethod.of(fn) or fn
    if type(fn) is functools.partial and isinstance(fn.func, types.MethodType):
        method = _LibraryMethod.of(fn.func)
        return _LibraryPartial(method, fn.args, fn.keywords) if method is not None else fn
    return fn


class _LibraryPartial:
    """functools.partial of a _LibraryMethod's method (pickled with the method by name)."""

    def __init__(self, method, args: tuple, keywords: dict):
        self.method, self.args, self.keywords = method, args, keywords

    def __reduce__(self):
        return _library_partial, (self.method.where, self.args, self.keywords)


def _library_partial(where: tuple, args: tuple, keywords: dict):
    return functools.partial(_library_method(*where), *args, **keywords)


class _LibraryMethod:
    """A method bound to an object a module holds by name (scipy.stats' distributions): it
    pickles as that name and the method's, so the receiver gets the same object, which
    srcad's rules know, rather than a copy (pickle's default), which they do not."""

    def __init__(self, module: str, name: str, method: str):
        self.where = (module, name, method)

    @classmethod
    def of(cls, fn):
        owner = fn.__self__
        module = getattr(type(owner), "__module__", None)
        holder = sys.modules.get(module) if isinstance(module, str) else None
        name = next((k for k, v in vars(holder).items() if v is owner), None) if holder is not None else None
        method = getattr(fn.__func__, "__name__", None)
        if name is None or not method or getattr(owner, method, None) != fn:
            return None
        return cls(module, name, method)

    def __reduce__(self):
        return _library_method, self.where


def _library_method(module: str, name: str, method: str):
    return getattr(getattr(importlib.import_module(module), name), method)


def _identity(x):
    return x


def _importable(fn) -> bool:
    """Can a receiver import fn by its module and qualified name (pickle's way)?"""
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in name:
        return False
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return False
    return obj is fn


def _functions_of(fn) -> list:
    """fn and the functions of its module it reads as globals (travelling by value with it)."""
    import types

    module = fn.__module__
    found = [fn] + [g for g in fn.__globals__.values()
                    if isinstance(g, types.FunctionType) and g is not fn and g.__module__ == module]
    return found + [c.cell_contents for c in fn.__closure__ or () if _filled(c)
                    and isinstance(c.cell_contents, types.FunctionType)]


def _filled(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def _by_value(data: bytes, files: dict, texts: dict):
    """A function pickled by value: its code (and that of the functions it travelled with) gets
    its file's name back, and the file's text is registered for srcad to read where the
    receiver's copy of the file is missing or differs."""
    for file, text in texts.items():
        if file and text and "".join(linecache.getlines(file)) != text:
            lines = text.splitlines(keepends=True)
            linecache.cache[file] = (len(text), None, lines, file)  # (mtime None: checkcache keeps it)
    fn = pickle.loads(data)
    for f in _functions_of(fn):
        file = files.get(f.__qualname__)
        if file and f.__code__.co_filename != file:
            f.__code__ = _renamed(f.__code__, file)
    return fn


def _renamed(code, file: str):
    """code, and the code objects nested in it, with co_filename `file`."""
    consts = tuple(_renamed(c, file) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=file, co_consts=consts)


class Made:
    """A function a transformation returns (jacfwd, jacrev, hessian, vmap, a vjp's vjp_fn):
    calls `function`, shows its attributes, and pickles as the call that made it."""

    def __init__(self, function, what: str, maker, *args, **kwargs):
        self.__dict__.update(function.__dict__)  # (__srcad_inline__, __srcad_code__, __wrapped__...)
        self.__srcad_made__ = function
        self.__name__ = self.__qualname__ = function.__name__
        self.__module__, self.__doc__ = function.__module__, function.__doc__
        self._recipe = (what, maker, tuple(carry(a) for a in args), kwargs)

    @api_boundary  # (this frame too leaves the traceback of an error raised inside)
    def __call__(self, *args, **kwargs):
        return self.__srcad_made__(*args, **kwargs)

    def __reduce__(self):
        what, maker, args, kwargs = self._recipe
        return reduce_recipe(what, maker, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<srcad {self.__name__}>"


def pickles_as_call(maker):
    """Decorate a public maker (jacfwd, jacrev, hessian, vmap) so that the function it returns
    pickles as this call."""
    import functools

    @functools.wraps(maker)
    def make(fun, *args, **kwargs):
        what = f"srcad.{maker.__name__} of {getattr(fun, '__qualname__', 'a function')}"
        return Made(maker(fun, *args, **kwargs), what, make, fun, *args, **kwargs)

    return make
