"""Arrays of other libraries as differentiated values: which ones, and the guard their
derivative code runs under.

srcad's generated code calls NumPy functions (np.exp, np.sum, np.where, x @ y, x.T...). NumPy
hands such a call to the array library of its arguments through its dispatch protocols
(`__array_ufunc__`, `__array_function__`, NEP 13 and 18), so the same code runs on the
arrays of the libraries that implement them, and builds their arrays:

    library        arrays                       derivative code
    dask           dask.array.Array             lazy: a dask array, nothing computed
    CuPy           cupy.ndarray                 on the GPU
    array API      array_api_strict (any        on `Lent` views of its arrays (lending.py),
                   `__array_namespace__` array  which implement NumPy's protocols by calling
                   without NumPy's protocols)   the namespace; results are its arrays
    JAX            jax.Array                    refused (TypeSupportError): immutable, and
                                                never converted
    torch...       (no __array_namespace__)     refused (TypeSupportError)

Supported arrays are typed like NumPy arrays of their dtype and shape (ir/values.py), so the
code srcad builds for them is the code it builds for NumPy arrays; the dispatcher keeps their
calls apart (the key of its fast path names the library, also inside containers) and runs their
code under `guard`: a dask array the code would compute (float(x), a NumPy array assigned into,
np.asarray, a branch on a traced value) raises a TypeSupportError at the user's line instead of
computing behind the user's back; for an array-API namespace, whatever the code needs that the
namespace lacks (lending.Lacks: np.add.at, a NumPy array mixed in, np.einsum) is one too. Only
grad, value_and_grad, jvp, vjp and hvp take them (the type gate refuses them elsewhere); any other error the
code raises on them (NumPy refusing a dask array where it writes into its own: np.add.at, item
assignment) is a TypeSupportError at the user's line too. Runtime helpers make their zeros with
np.zeros_like of the array they stand for, never a full-size NumPy array
(runtime/broadcasting.py, runtime/cotangents.py); for an array-API namespace, the code's own
np.zeros, np.ones... make the namespace's arrays (lending.rebound).
"""

from __future__ import annotations

import contextlib
import sys

from . import runtime
from .codegen.compile import user_location
from .errors import Diagnostic, SrcadError, TypeSupportError
from .ir.kinds import array_library as library
from .lending import Lacks, lend, rebound, unlend
from .rebinding import numpy_with, with_numpy


def libraries(args) -> tuple:
    """The supported array libraries among the (top-level, tuple, list and dict) leaves of args."""
    import numpy as np

    found = set()
    stack = list(args)
    while stack:
        a = stack.pop()
        t = type(a)
        if t is np.ndarray or t is float or t is int:
            continue
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
    at the user's line (the code would compute the user's lazy array); for an array-API namespace,
    whatever the code needs that the namespace lacks (lending.py)."""
    if set(names) <= {"cupy"}:
        yield
        return
    try:
        with _no_computing(names):
            yield
    except _Computes:
        raise _computes_error(what, sys.exc_info()[2]) from None
    except Lacks as e:
        raise _lacks_error(what, names, e.__traceback__, e.what) from None
    except SrcadError:
        raise
    except Exception as e:  # (NumPy refusing a dask array where it wants its own: np.add.at, a write)
        if "dask" not in names:
            raise _lacks_error(what, names, e.__traceback__, "", f"{type(e).__name__}: {e}"[:200]) from e
        raise _computes_error(what, e.__traceback__, f"{type(e).__name__}: {e}") from e


def _no_computing(names: tuple):
    if "dask" not in names:
        return contextlib.nullcontext()
    import dask

    _register_dask()
    return dask.config.set(scheduler=_refuse)


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


def _namespace_of(x):
    """The array-API namespace of x when srcad lends it to NumPy code (lending.py)."""
    name = library(x)
    return x.__array_namespace__() if name is not None and name not in _PROTOCOLS else None


_PROTOCOLS = ("dask", "cupy")  # (the libraries whose arrays implement NumPy's protocols themselves)


def guarded(built, args, what: str):
    """`built` (pipeline.Built) for a call with args: itself when they hold no array of another
    library; else a copy whose function runs under `guard` (guarded_function)."""
    names = libraries(args)
    if not names:
        return built
    cache = built.__dict__.setdefault("_guarded", {})
    if names not in cache:
        import dataclasses

        cache[names] = dataclasses.replace(built, function=guarded_function(built.function, names, what))
    return cache[names]


def guarded_function(function, names: tuple, what: str, namespace=None):
    """`function` (generated code) run under `guard` for arrays of the libraries `names`: arrays of
    an array-API namespace lent to it (lending.py), with `np` bound to make the namespace's arrays
    (those of its arguments, or `namespace`: vjp's backward sweep may be given numbers alone), and
    its results the namespace's own again."""
    if all(n in _PROTOCOLS for n in names):
        bound = _dask_bound(function) if "dask" in names else function

        def run_guarded(*args):
            with guard(names, what):
                return bound(*args)
        return run_guarded
    bound: dict = {}

    def run_lent(*args):
        with guard(names, what):
            numpy_given, xp = _holds_numpy(args), _first_namespace(args) or namespace
            if xp is None:
                return function(*args)
            if id(xp) not in bound:
                bound[id(xp)] = rebound(function, xp)
            return unlend(bound[id(xp)](*lend(args, _namespace_of)), numpy_given)
    return run_lent


def _dask_bound(function):
    """The generated `function` with `np` bound to NumPy whose np.zeros, np.ones, np.empty and
    np.full make dask arrays (of rank >= 1): the cotangent buffers reverse mode writes slices and
    items of dask arrays into (`x_bar[1:] += g`) are dask arrays then, written lazily (dask's
    __setitem__), not NumPy arrays a dask array cannot be written into."""
    if "dask" not in _SHIMS:
        import dask.array as da
        import numpy as np

        makers = ("zeros", "ones", "empty", "full")
        _SHIMS["dask"] = numpy_with("numpy for dask", {
            **{name: _made_lazily(getattr(np, name), getattr(da, name)) for name in makers},
            "where": _where_fresh})
    return with_numpy(function, _SHIMS["dask"], _broadcast_lazily)


_SHIMS: dict = {}


def _broadcast_lazily(v, shape):
    """srcad.broadcast_to(v, shape) for the derivative code of dask arrays: a number broadcast
    to a shape is a dask array (a NumPy one would be the gradient of a dask array)."""
    if tuple(shape) == () or not isinstance(v, (float, int)) and not (
            type(v).__module__ == "numpy" and getattr(v, "ndim", 1) == 0):
        return runtime.broadcast_to(v, shape)
    import dask.array as da

    return da.broadcast_to(v, tuple(shape))


def _where_fresh(*args, **kwargs):
    """np.where for the derivative code of dask arrays: a new array object, as NumPy's is.
    dask's np.where(True, a, b) is `a` itself, and a dask array written into (`a[...] = 0.0`,
    dask's __setitem__ changes the object) would change it too (fuzz 12500:663)."""
    import numpy as np

    out = np.where(*args, **kwargs)
    return out.copy() if any(out is a for a in args[1:]) else out


def _made_lazily(numpy_make, dask_make):
    """numpy_make (np.zeros, np.ones, np.empty, np.full) making a dask array for shapes of rank
    >= 1 (NumPy's positional parameters passed to dask by name: da.full ignores a positional
    dtype)."""
    names = ("fill_value", "dtype", "order") if numpy_make.__name__ == "full" else ("dtype", "order")

    def make(shape, *args, **kwargs):
        if len(args) > len(names) or set(kwargs) - set(names) - {"like"}:
            return numpy_make(shape, *args, **kwargs)
        named = dict(kwargs, **dict(zip(names, args)))
        if shape == () or named.get("like") is not None or named.pop("order", "C") != "C":
            return numpy_make(shape, *args, **kwargs)
        return dask_make(shape, **named)

    make.__name__ = numpy_make.__name__
    return make


def first_namespace(args):
    """The array-API namespace of the first array of one among args (None if none)."""
    return _first_namespace(args)


def _first_namespace(args):
    found = []
    lend(args, lambda x: found.append(_namespace_of(x)))
    return next((xp for xp in found if xp is not None), None)


def _holds_numpy(args) -> bool:
    import numpy as np

    stack = list(args)
    while stack:
        a = stack.pop()
        if isinstance(a, (tuple, list)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
        elif isinstance(a, np.ndarray) and a.ndim:
            return True
    return False


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
    return _located(msg, hint, where)


def _lacks_error(what: str, names, tb, lacks: str, raised: str = ""):
    where = None
    while tb is not None:
        where = user_location(tb.tb_frame.f_code.co_filename, tb.tb_lineno) or where
        tb = tb.tb_next
    spaces = " and ".join(n for n in names if n not in _PROTOCOLS)
    msg = f"{what}: the derivative code for {spaces} arrays needs {lacks}, which {spaces} lacks here"
    if raised:
        msg = (f"{what}: the derivative code for {spaces} arrays is outside what {spaces} offers here "
               f"(it raised {raised})")
    hint = ("the array-API subset is elementwise arithmetic and functions, reductions, matrix "
            "products, reshapes, transposes, concatenation and slicing without loops that write "
            "into slices (docs/scaling.md); srcad never converts the arrays: convert them yourself "
            "(np.asarray(x)) to differentiate with NumPy")
    return _located(msg, hint, where)


def _located(msg: str, hint: str, where):
    diagnostics = [Diagnostic(where[0], where[1], 0, msg, hint)] if where else []
    return TypeSupportError(msg if diagnostics else f"{msg}; {hint}", diagnostics)


def as_float(x):
    """An int or bool array of another library as a float64 array of it (never computed)."""
    xp = _namespace_of(x)
    return x.astype("float64") if xp is None else xp.astype(x, xp.float64)


def zeros_of(x):
    """Float64 zeros of the shape of x, an array of another library, in that library."""
    xp = _namespace_of(x)
    if xp is None:
        import numpy as np

        return np.zeros_like(x, dtype=np.float64)
    return xp.zeros(x.shape, dtype=xp.float64)


def refusal_hint(x) -> str:
    """Why an array of another library is not differentiated (for the type gate's error)."""
    module = type(x).__module__.split(".")[0]
    if library(x) is not None:
        return ("arrays of this library are differentiated by srcad.grad, value_and_grad, jvp, vjp and "
                "hvp only: use one of those, or convert it first (x.compute() for dask)")
    if module in ("jax", "jaxlib"):
        return ("JAX arrays are immutable, and srcad's derivative code writes into the arrays it makes "
                "(cotangent buffers of loops and slices), so srcad does not run it on them and never "
                "converts them: use jax.grad, or convert it yourself (np.asarray(x))")
    return ("srcad differentiates NumPy, dask, CuPy and array-API (array_api_strict) arrays: convert it "
            "first (np.asarray(x)), or pass it as an argument that is not differentiated")
