"""Arrays of an array-API namespace (array_api_strict...) seen through NumPy's dispatch protocols.

srcad's derivative code is NumPy code: `np.exp(x)`, `g.sum(axis=1)`, `x.T @ g`. Dask and CuPy
arrays run it by implementing NumPy's `__array_ufunc__` and `__array_function__`; an array that
implements only the array API standard does not, so srcad hands the code a `Lent` array instead:
a thin view of the namespace's array that implements those protocols by calling the namespace
(`np.exp(Lent(a))` is `Lent(xp.exp(a))`). NumPy >= 2 is itself a namespace of the standard, so a
NumPy function is the namespace's function of the same name (`np.concat is np.concatenate`,
`np.pow is np.power`, `np.permute_dims is np.transpose`): the pairing is by the standard's names,
found by identity in NumPy (`counterpart`), with no table of names here.

What the namespace lacks raises `Lacks` (a BaseException, so that no `except Exception` in NumPy
swallows it), which srcad/namespaces.py turns into a TypeSupportError at the user's line: a NumPy
function outside the standard (np.add.at, np.einsum, np.dot), an array method outside it
(`.dot`, `.ravel`), a NumPy array of srcad's mixed with the namespace's (`np.zeros(n)` written
into), a write the namespace's arrays do not take. Nothing is ever converted to NumPy: `__array__`
raises. The one NumPy value taken in is a constant with a single value (a number, a 0-d array, a
read-only broadcast of one number such as np.broadcast_to(1.0, shape)), made in the namespace.
"""

from __future__ import annotations

import inspect
import math
import operator

import numpy as np

from . import runtime
from .rebinding import numpy_with, with_numpy

__all__ = ["Lent", "Lacks", "lend", "unlend", "rebound"]

class Lacks(BaseException):
    """What the derivative code needs and the namespace `xp` lacks."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


_PAIRS: dict = {}  # (id of a namespace, id of a NumPy function) -> the namespace's function


def counterpart(xp, fn):
    """The function of namespace `xp` that is NumPy's `fn` (by the standard's name), or None."""
    key = (id(xp), id(fn))
    if key not in _PAIRS:
        found = None
        for name in dir(xp):
            if not name.startswith("_") and getattr(np, name, None) is fn and callable(getattr(xp, name)):
                found = getattr(xp, name)
                break
        _PAIRS[key] = found
    return _PAIRS[key]


def _dtype_in(xp, dtype):
    """The namespace's dtype of NumPy's `dtype` (by name: "float64")."""
    found = xp.__array_namespace_info__().dtypes().get(np.dtype(dtype).name)
    if found is None:
        raise Lacks(f"the dtype {np.dtype(dtype).name}")
    return found


def _numpy_dtype(xp, dtype):
    for name, d in xp.__array_namespace_info__().dtypes().items():
        if d == dtype:
            return np.dtype(name)
    return np.dtype(object)


def _take(v, xp):
    """An operand for the namespace: a Lent array's own array; a number; a NumPy constant of one
    value made in the namespace; anything else NumPy is refused (never mixed in)."""
    if type(v) is Lent:
        return v.a
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return v.item()
        if v.size and not any(v.strides):  # (a broadcast number: np.broadcast_to(1.0, shape))
            return xp.full(v.shape, v.flat[0].item(), dtype=_dtype_in(xp, v.dtype))
        raise Lacks(f"a NumPy array of shape {v.shape} mixed with its arrays (srcad does not convert "
                    "one into the other)")
    if isinstance(v, (list, tuple)):
        return type(v)(_take(e, xp) for e in v)
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return _dtype_in(xp, v)
    return v


def _give(v, xp):
    """A result of the namespace, as the derivative code sees it."""
    if hasattr(v, "__array_namespace__") and not isinstance(v, np.ndarray):
        return Lent(v, xp)
    if isinstance(v, tuple):
        items = [_give(e, xp) for e in v]
        return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    if isinstance(v, list):
        return [_give(e, xp) for e in v]
    return v


def _key(key, ndim, xp):
    """An index as the standard takes it: a list of ints as an index array, and NumPy's `a[0]` of
    a 3-d array as `a[0, ...]` (the standard wants the trailing ellipsis NumPy implies)."""
    items = key if isinstance(key, tuple) else (key,)
    items = tuple(xp.asarray(k) if isinstance(k, list) else _take(k, xp) for k in items)
    if any(k is Ellipsis for k in items):
        return items
    used = sum(getattr(k, "ndim", 1) if _is_mask(k, xp) else k is not None for k in items)
    return items + (Ellipsis,) if used < ndim else items


def _is_mask(k, xp) -> bool:
    return hasattr(k, "__array_namespace__") and not isinstance(k, np.generic) and xp.isdtype(k.dtype, "bool")


def _call(xp, fn, args, kwargs):
    args = [_take(a, xp) for a in args]
    kwargs = {k: _take(v, xp) for k, v in kwargs.items()}
    return _give(fn(*args, **kwargs), xp)


def _as_keywords(func, fn, args, kwargs):
    """NumPy's arguments for the namespace's `fn`: its positional-only parameters by position, the
    rest by NumPy's names (np.flip(a, None) is xp.flip(a, axis=None): the standard's keyword
    parameters have NumPy's names)."""
    try:
        bound = list(inspect.signature(func).bind(*args, **kwargs).arguments.items())
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # (no signature: called as it is)
        return args, kwargs
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) for p in params)
    if n == 0 or any(v.kind == v.VAR_POSITIONAL for v in params):
        return args, kwargs
    return [v for _, v in bound[:n]], dict(bound[n:])


def _by_shape(xp, fn, args, kwargs):
    """NumPy functions of an array's shape alone, and the few NumPy spellings the standard's
    functions do not take (np.transpose(a) without axes, zeros_like(a, shape=))."""
    a = args[0]
    name = fn.__name__
    if name in ("ndim", "shape", "size") and not kwargs and len(args) == 1:
        return getattr(a, name)
    if name == "size" and len(args) == 2:
        return a.shape[args[1]]
    if name in ("copy", "ravel") and len(args) == 1 and not kwargs:
        return getattr(a, name)()
    if name == "transpose" and len(args) == 1 and not kwargs.get("axes"):
        return Lent(xp.permute_dims(a.a, tuple(range(a.ndim))[::-1]), xp)
    if name in ("zeros_like", "ones_like") and kwargs.get("shape") is not None:
        dtype = _take(kwargs.get("dtype") or a.dtype, xp)
        return Lent(getattr(xp, name[:-5])(kwargs["shape"], dtype=dtype), xp)
    if name == "iscomplexobj":
        return a.dtype.kind == "c"
    if name == "split" and not isinstance(args[1], int) and set(kwargs) <= {"axis"}:
        return _split(a, [int(k) for k in args[1]], args[2] if len(args) > 2 else kwargs.get("axis", 0))
    if name in ("swapaxes", "moveaxis") and len(args) == 3 and not kwargs:
        axes = list(range(a.ndim))
        i, j = (operator.index(k) % a.ndim for k in args[1:])
        if name == "swapaxes":
            axes[i], axes[j] = axes[j], axes[i]
        else:
            axes.insert(j, axes.pop(i))
        return Lent(xp.permute_dims(a.a, tuple(axes)), xp)
    return _spelled(xp, name, args, kwargs)


def _spelled(xp, name, args, kwargs):
    """NumPy's products outside the standard, in its terms (np.dot of vectors and matrices,
    np.vdot and np.outer of real arrays), and NumPy's spellings of np.clip and np.where."""
    if name in ("dot", "vdot", "outer") and len(args) == 2 and not kwargs:
        a, b = (_lent(v, xp) for v in args)
        if name == "vdot" and a.dtype.kind != "c":
            return Lent(xp.sum(xp.reshape(a.a, (-1,)) * xp.reshape(b.a, (-1,))), xp)
        if name == "outer":
            return Lent(xp.reshape(a.a, (-1, 1)) * xp.reshape(b.a, (1, -1)), xp)
        if name == "dot" and 0 < a.ndim <= 2 and 0 < b.ndim <= 2:
            return Lent(xp.matmul(a.a, b.a), xp)
        if name == "dot" and (a.ndim == 0 or b.ndim == 0):
            return a * b
    if name == "clip" and ("a_min" in kwargs or "a_max" in kwargs or len(args) > 1):
        values = dict(zip(("a_min", "a_max"), args[1:]), **kwargs)
        low, high = (v if type(v) is not Lent else v.a for v in (values.get("a_min"), values.get("a_max")))
        return Lent(xp.clip(_lent(args[0], xp).a, low, high), xp)
    if name == "where" and len(args) == 3 and not kwargs and not any(type(v) is Lent for v in args[1:]):
        first = xp.asarray(_take(args[1], xp), dtype=xp.float64)  # (the standard takes one number at most)
        return Lent(xp.where(args[0].a, first, _take(args[2], xp)), xp)
    return NotImplemented


def _lent(v, xp):
    return v if type(v) is Lent else Lent(xp.asarray(_take(v, xp)), xp)


def _split(a, cuts, axis):
    """np.split(a, cuts, axis) as slices of a Lent array."""
    bounds = [0] + cuts + [a.shape[axis]]
    lead = (slice(None),) * (axis % a.ndim)
    return [a[lead + (slice(lo, hi),)] for lo, hi in zip(bounds[:-1], bounds[1:])]


def _out(xp, result, out):
    """Write `result` into the out= buffer the derivative code gave (passes/buffers.py)."""
    (target,) = out if isinstance(out, tuple) else (out,)
    if type(target) is not Lent:
        raise Lacks("a NumPy array written into")
    target[...] = result
    return target


class Lent:
    """An array of namespace `xp`, as NumPy code sees it (module docstring)."""

    __slots__ = ("a", "xp")
    __array_priority__ = 100

    def __init__(self, a, xp):
        self.a, self.xp = a, xp

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = counterpart(self.xp, ufunc)
        if method != "__call__" or fn is None:
            name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
            raise Lacks(f"np.{name} (outside the array API standard)")
        out = kwargs.pop("out", None)
        result = _call(self.xp, fn, inputs, kwargs)
        return result if out is None else _out(self.xp, result, out)

    def __array_function__(self, func, types, args, kwargs):
        got = _by_shape(self.xp, func, args, kwargs)
        if got is not NotImplemented:
            return got
        fn = counterpart(self.xp, func)
        if fn is None:
            raise Lacks(f"np.{func.__name__} (outside the array API standard)")
        if func.__name__ == "reshape" and "newshape" in kwargs:
            kwargs = {**kwargs, "shape": kwargs.pop("newshape")}
        args, kwargs = _as_keywords(func, fn, args, kwargs)
        return _call(self.xp, fn, args, kwargs)

    def __array__(self, *args, **kwargs):
        raise Lacks("a NumPy array made of one of its arrays (srcad never converts them)")

    def __getattr__(self, name):
        if name.startswith("__") or not hasattr(np.ndarray, name):
            raise AttributeError(name)
        raise Lacks(f"the NumPy array method .{name} (outside the array API standard)")

    # -- what NumPy arrays have and the standard's arrays spell differently ----------------------
    shape = property(lambda self: tuple(self.a.shape))
    ndim = property(lambda self: self.a.ndim)
    size = property(lambda self: math.prod(self.a.shape))
    dtype = property(lambda self: _numpy_dtype(self.xp, self.a.dtype))
    T = property(lambda self: Lent(self.a.T if self.a.ndim == 2 else self.xp.permute_dims(
        self.a, tuple(range(self.a.ndim))[::-1]), self.xp))
    mT = property(lambda self: Lent(self.a.mT, self.xp))

    def _reduce(self, name, axis=None, keepdims=False, **kwargs):
        if kwargs.pop("out", None) is not None or kwargs.pop("dtype", None) is not None or kwargs:
            raise Lacks(f".{name}() with arguments other than axis and keepdims")
        return Lent(getattr(self.xp, name)(self.a, axis=axis, keepdims=keepdims), self.xp)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("sum", axis, keepdims, dtype=dtype, out=out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("mean", axis, keepdims, dtype=dtype, out=out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("prod", axis, keepdims, dtype=dtype, out=out)

    def max(self, axis=None, out=None, keepdims=False):
        return self._reduce("max", axis, keepdims, out=out)

    def min(self, axis=None, out=None, keepdims=False):
        return self._reduce("min", axis, keepdims, out=out)

    def reshape(self, *shape, **kwargs):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return Lent(self.xp.reshape(self.a, tuple(shape)), self.xp)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return Lent(self.xp.permute_dims(self.a, tuple(axes) or tuple(range(self.a.ndim))[::-1]), self.xp)

    def astype(self, dtype, copy=True):
        return Lent(self.xp.astype(self.a, _take(dtype, self.xp), copy=copy), self.xp)

    def copy(self):
        return Lent(self.xp.asarray(self.a, copy=True), self.xp)

    def ravel(self):
        return Lent(self.xp.reshape(self.a, (-1,)), self.xp)

    def var(self, axis=None, ddof=0, keepdims=False):
        return Lent(self.xp.var(self.a, axis=axis, correction=ddof, keepdims=keepdims), self.xp)

    def std(self, axis=None, ddof=0, keepdims=False):
        return Lent(self.xp.std(self.a, axis=axis, correction=ddof, keepdims=keepdims), self.xp)

    def __array_namespace__(self, api_version=None):
        return self.xp

    def item(self):
        return self.a[()].__float__() if self.dtype.kind in "fc" else int(self.a)

    # -- indexing, iteration, numbers --------------------------------------------------------
    def __getitem__(self, key):
        return Lent(self.a[_key(key, self.a.ndim, self.xp)], self.xp)

    def __setitem__(self, key, value):
        try:
            self.a[_key(key, self.a.ndim, self.xp)] = _take(value, self.xp)
        except (TypeError, AttributeError, NotImplementedError) as e:
            raise Lacks(f"an item assignment ({type(e).__name__}: {e})") from None

    def __len__(self):
        return self.a.shape[0]

    def __iter__(self):
        return (self[i] for i in range(self.a.shape[0]))

    def __float__(self):
        return float(self.a)

    def __int__(self):
        return int(self.a)

    def __index__(self):
        return operator.index(self.a)

    def __bool__(self):
        return bool(self.a)

    def __repr__(self):
        return f"Lent({self.a!r})"


def _binary(op):
    def forward(self, other):
        return Lent(op(self.a, _take(other, self.xp)), self.xp)

    def backward(self, other):
        return Lent(op(_take(other, self.xp), self.a), self.xp)

    return forward, backward


def _inplace(name):
    op = getattr(operator, f"i{name}")
    plain = getattr(operator, name + "_" if name in ("and", "or") else name)

    def update(self, other):
        value = _take(other, self.xp)
        if self.a.ndim == 0:  # (NumPy's number, np.float64, is immutable: `v *= t` makes a new one)
            return Lent(plain(self.a, value), self.xp)
        if not hasattr(type(self.a), f"__i{name}__"):
            raise Lacks("in-place updates (its arrays are immutable)")
        self.a = op(self.a, value)  # (the namespace's in-place operator: aliases see the change)
        return self

    return update


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
              "lt", "le", "gt", "ge", "eq", "ne"):
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    _f, _b = _binary(_op)
    setattr(Lent, f"__{_name}__", _f)
    if _name not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(Lent, f"__r{_name}__", _b)
        setattr(Lent, f"__i{_name}__", _inplace(_name))
Lent.__hash__ = None
Lent.__neg__ = lambda self: Lent(-self.a, self.xp)
Lent.__pos__ = lambda self: Lent(+self.a, self.xp)
Lent.__abs__ = lambda self: Lent(abs(self.a), self.xp)
Lent.__invert__ = lambda self: Lent(~self.a, self.xp)


def lend(tree, xp_of):
    """The arguments with every array of a namespace (`xp_of(x)` not None) lent to NumPy code."""
    if isinstance(tree, (list, tuple)):
        items = [lend(e, xp_of) for e in tree]
        if all(a is b for a, b in zip(items, tree)):
            return tree
        return list(items) if isinstance(tree, list) else (
            type(tree)(*items) if hasattr(tree, "_fields") else tuple(items))
    if isinstance(tree, dict):
        return {k: lend(v, xp_of) for k, v in tree.items()}
    xp = xp_of(tree)
    return tree if xp is None else Lent(tree, xp)


def unlend(tree, numpy_allowed: bool):
    """The results with every Lent array the namespace's own again; a NumPy array among them (a
    derivative made in NumPy for a namespace's array) is refused unless NumPy arrays were given."""
    if type(tree) is Lent:
        return tree.a
    if isinstance(tree, (list, tuple)):
        items = [unlend(e, numpy_allowed) for e in tree]
        if isinstance(tree, list):
            return items
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    if isinstance(tree, dict):
        return {k: unlend(v, numpy_allowed) for k, v in tree.items()}
    if isinstance(tree, np.ndarray) and tree.ndim and not numpy_allowed:
        raise Lacks(f"a result made as a NumPy array of shape {tree.shape}, which srcad does not convert")
    return tree


def _made_in(xp, make):
    """NumPy's array maker `make` (np.zeros...), making the namespace's array instead (float64
    by default where NumPy's default is; the values' dtype for np.full, np.arange, np.linspace)."""
    floats = make.__name__ in ("zeros", "ones", "empty", "eye")

    def made(*args, dtype=None, **kwargs):
        if kwargs.pop("order", "C") != "C" or kwargs.pop("like", None) is not None:
            raise Lacks(f"np.{make.__name__} with order= or like=")
        if dtype is not None or floats:
            kwargs["dtype"] = _dtype_in(xp, np.dtype(float) if dtype is None else dtype)
        if make.__name__ == "full" and len(args) == 2 and type(args[1]) is Lent:  # (a 0-d array's value)
            fill = args[1].a if "dtype" not in kwargs else xp.astype(args[1].a, kwargs["dtype"])
            return Lent(xp.asarray(xp.broadcast_to(fill, tuple(np.atleast_1d(args[0]))), copy=True), xp)
        return Lent(getattr(xp, make.__name__)(*[_take(a, xp) for a in args], **kwargs), xp)

    made.__name__ = make.__name__
    return made


def _broadcast_in(xp):
    """srcad.broadcast_to(v, shape) for a number v, in the namespace: np.broadcast_to(1.0, shape)
    would be a NumPy array meeting the namespace's."""
    def broadcast_to(v, shape):
        if type(v) is Lent or not isinstance(v, (float, int, np.generic)):
            return runtime.broadcast_to(v, shape)
        if tuple(shape) == ():
            return v
        v = v.item() if isinstance(v, np.generic) else v
        return Lent(xp.broadcast_to(xp.asarray(v), tuple(shape)), xp)

    return broadcast_to


def _as_array_in(xp, copies: bool):
    """np.asarray and np.array in the derivative code: an array of the namespace (a Lent array
    itself, numbers and lists of numbers made in the namespace, as `xp.asarray([0, 2])` in the
    user's code, which srcad reads as NumPy's); a NumPy array is refused (never mixed in)."""
    def as_array(a, dtype=None, copy=copies or None, **kwargs):
        if kwargs.pop("order", None) not in (None, "C", "K", "A") or kwargs:
            raise Lacks("np.asarray with order= or other arguments")
        dtype = None if dtype is None else _dtype_in(xp, dtype)
        if type(a) is Lent:
            return Lent(xp.asarray(a.a, dtype=dtype, copy=copy), xp)
        if isinstance(a, (list, tuple)) and any(type(e) is Lent or isinstance(e, (list, tuple)) for e in a):
            items = [as_array(e, dtype).a for e in a]  # (rows holding the namespace's arrays)
            return Lent(xp.stack(xp.broadcast_arrays(*items)) if items else xp.asarray(a), xp)
        if isinstance(a, np.ndarray) and a.ndim:
            _take(a, xp)  # (refused unless a broadcast number)
        return Lent(xp.asarray(_take(a, xp), dtype=dtype, copy=copy), xp)

    return as_array


_SHIMS: dict = {}  # id of a namespace -> (the namespace, the module the derivative code sees as np)


def rebound(function, xp):
    """The generated `function` with `np` bound to NumPy whose array makers (np.zeros, np.ones,
    np.full, np.empty, np.eye, np.arange, np.linspace, np.asarray, np.array) make arrays of
    namespace `xp`: the cotangent buffers
    reverse mode makes for a loop are the namespace's, not NumPy arrays the namespace's arrays
    would be written into. Every other name is NumPy's own (dispatching to `xp` through Lent)."""
    if id(xp) not in _SHIMS:
        makers = {make.__name__: _made_in(xp, make)
                  for make in (np.zeros, np.ones, np.full, np.empty, np.eye, np.arange, np.linspace)}
        makers.update(asarray=_as_array_in(xp, False), array=_as_array_in(xp, True))  # (np.array copies)
        _SHIMS[id(xp)] = (xp, numpy_with(f"numpy for {xp.__name__}", makers))
    return with_numpy(function, _SHIMS[id(xp)][1], _broadcast_in(xp))

