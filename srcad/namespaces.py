"""Arrays of other libraries as differentiated values: which ones, and the guard their
derivative code runs under.

srcad's generated code calls NumPy functions (np.exp, np.sum, np.where, x @ y, x.T...). NumPy
hands such a call to the array library of its arguments through its dispatch protocols
(`__array_ufunc__`, `__array_function__`, NEP 13 and 18), so the same code runs on the
arrays of the libraries that implement them, and builds their arrays:

    library        arrays                       derivative code
    dask           dask.array.Array             lazy: a dask array, nothing computed
    CuPy           cupy.ndarray                 on the GPU
    array API      array_api_strict, JAX,       refused (TypeSupportError): they implement
                   torch...                     only `__array_namespace__`, and NumPy would
                                                convert them, so they are never passed through

Supported arrays are typed like NumPy arrays of their dtype and shape (ir/values.py), so the
code srcad builds for them is the code it builds for NumPy arrays; the dispatcher keeps their
calls apart (the key of its fast path names the library) and runs their code under `guard`:
a dask array the code would compute (float(x), a NumPy array assigned into, np.asarray, a
branch on a traced value) raises a TypeSupportError at the user's line instead of computing
behind the user's back. Only grad and value_and_grad take them (the type gate refuses them
elsewhere); any other error the code raises on them (NumPy refusing a dask array where it
writes into its own: np.add.at, item assignment) is a TypeSupportError at the user's line too.
Runtime helpers make their zeros with np.zeros_like of the array they stand for, never a
full-size NumPy array (runtime/broadcasting.py, runtime/cotangents.py).
"""

from __future__ import annotations

import contextlib
import sys

from .codegen.compile import user_location
from .errors import Diagnostic, SrcadError, TypeSupportError
from .ir.kinds import array_library as library


def libraries(args) -> tuple:
    """The supported array libraries among the (top-level, tuple, list and dict) leaves of args."""
    found = set()
    stack = list(args)
    while stack:
        a = stack.pop()
        if isinstance(a, (tuple, list)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
        else:
            name = library(a)
            if name is not None:
                found.add(name)
    return tuple(sorted(found))


class _Computes(BaseException):
    """Raised by the scheduler `guard` installs (turned into a TypeSupportError); a BaseException,
    so that no `except Exception` on the way (NumPy falling back to iterating an array whose
    __array__ raised) swallows it."""


def _refuse(*args, **kwargs):
    raise _Computes()


@contextlib.contextmanager
def guard(names: tuple, what: str):
    """Run derivative code on arrays of `names`: for dask, any computation is a TypeSupportError
    at the user's line (the code would compute the user's lazy array)."""
    if "dask" not in names:
        yield
        return
    import dask

    _register_dask()
    try:
        with dask.config.set(scheduler=_refuse):
            yield
    except _Computes:
        raise _computes_error(what, sys.exc_info()[2]) from None
    except SrcadError:
        raise
    except Exception as e:  # (NumPy refusing a dask array where it wants its own: np.add.at, a write)
        raise _computes_error(what, e.__traceback__, f"{type(e).__name__}: {e}") from e


def _register_dask() -> None:
    """np.size and np.copy of a dask array without computing it (dask does not implement them,
    and falls back to computing the array; srcad's code calls them for np.mean, x.size and the
    gradients of arguments used as they are)."""
    global _REGISTERED
    if _REGISTERED:
        return
    import numpy as np
    from dask.array.core import implements

    @implements(np.size)
    def _dask_size(a, axis=None):
        return a.size if axis is None else a.shape[axis]

    @implements(np.copy)
    def _dask_copy(a, order="K", subok=False):
        return a.copy()  # (a new lazy array: dask arrays are never written in place by srcad's code)

    _REGISTERED = True


_REGISTERED = False


def guarded(built, args, what: str):
    """`built` (pipeline.Built) for a call with args: itself when they hold no dask or CuPy array;
    else a copy whose function runs under `guard`."""
    names = libraries(args)
    if not names:
        return built
    cache = built.__dict__.setdefault("_guarded", {})
    if names not in cache:
        import dataclasses

        function = built.function

        def run_guarded(*args):
            with guard(names, what):
                return function(*args)

        cache[names] = dataclasses.replace(built, function=run_guarded)
    return cache[names]


def _computes_error(what: str, tb, raised: str = ""):
    where = None
    while tb is not None:
        code = tb.tb_frame.f_code
        where = user_location(code.co_filename, tb.tb_lineno) or where
        tb = tb.tb_next
    msg = (f"{what}: the derivative code for dask arrays would compute a dask array here (a NumPy "
           "function dask does not implement lazily, a Python number or branch made from an array, "
           "or a NumPy array written into), so srcad does not run it on dask arrays")
    if raised:
        msg = (f"{what}: the derivative code for dask arrays is outside srcad's dask subset here (it "
               f"raised {raised[:200]})")
    hint = ("the dask subset is elementwise arithmetic and ufuncs, reductions, matrix products, "
            "reshapes and concatenation (docs/scaling.md); compute the value first (x.compute()) "
            "or use NumPy arrays")
    diagnostics = [Diagnostic(where[0], where[1], 0, msg, hint)] if where else []
    return TypeSupportError(msg if diagnostics else f"{msg}; {hint}", diagnostics)


def refusal_hint(x) -> str:
    """Why an array of another library is not differentiated (for the type gate's error)."""
    module = type(x).__module__.split(".")[0]
    if library(x) is not None:
        return ("arrays of this library are differentiated by srcad.grad and srcad.value_and_grad "
                "only: use one of those, or convert it first (x.compute() for dask)")
    if hasattr(x, "__array_namespace__") and not hasattr(x, "__array_function__"):
        return (f"{module} arrays implement only the array API (__array_namespace__), not NumPy's "
                "dispatch protocols, so srcad's NumPy-based derivative code cannot run on them and "
                "never converts them: convert it yourself (np.asarray(x)); dask and CuPy arrays "
                "are supported (docs/scaling.md)")
    return ("srcad differentiates NumPy, dask and CuPy arrays: convert it first (np.asarray(x)), "
            "or pass it as an argument that is not differentiated")
