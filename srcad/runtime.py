"""The few helpers generated code may call. Each is a primitive with rules of its own, so
derivative code that calls them can be differentiated again; offline code generation copies
their source into the generated module so it does not import srcad.

The transforms emit these only where types cannot settle the question statically (for
example an operand whose shape is unknown until run time).
"""

import numpy as np

from . import adjoints as _adjoints


def stop_gradient(x):
    """Return x unchanged; derivatives do not flow through it (at any order)."""
    return x


def unbroadcast(g, x):
    """Sum the cotangent g of a broadcast result down to the shape of x."""
    if isinstance(x, (list, tuple, dict)):  # an item of a dict or list written over: its
        if isinstance(g, (list, tuple, dict)):  # cotangent, or the 0.0 that zeroed it
            return g
        if np.ndim(g) == 0:
            return zeros_like(x)
    shape = np.shape(x)
    if np.shape(g) == shape:
        return g
    if np.ndim(g) < len(shape):  # (the 0.0 that zeroes a dict or list item written over)
        return g + np.zeros(shape)
    if not shape:
        total = np.sum(g)
        return total.reshape(()) if isinstance(x, np.ndarray) else total
    lead = np.ndim(g) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and np.shape(g)[lead + i] != 1
    )
    return np.sum(g, axis=axes).reshape(shape) if axes else np.reshape(g, shape)


def broadcast_like(t, ans):
    """Broadcast the tangent t to the shape of ans (where an input was broadcast)."""
    shape = np.shape(ans)
    if np.shape(t) == shape:
        return t
    return t + np.zeros(shape)


def zeros_like(x):
    """A zero cotangent or tangent for x: 0.0 for scalars, zeros for arrays and containers
    (None for None, which carries no derivative)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    if isinstance(x, (list, tuple)):
        items = [zeros_like(e) for e in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)  # (named tuples too)
    if isinstance(x, dict):
        return {k: zeros_like(v) for k, v in x.items()}
    return None if x is None else 0.0


def add(a, b):
    """Sum two cotangents elementwise, also for lists, tuples and dicts of them (a list or
    tuple and an array: as NumPy adds them, the tangent of xs - x)."""
    if isinstance(a, (list, tuple)) != isinstance(b, (list, tuple)) and a is not None \
            and b is not None:
        return np.add(a, b)
    if isinstance(a, (list, tuple)):
        items = [add(x, y) for x, y in zip(a, b)]
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
    if isinstance(a, dict):
        return {k: add(a[k], b[k]) for k in a}
    if a is None or b is None:  # the cotangent of a None leaf
        return b if a is None else a
    return a + b


def scatter_add(acc, idx, g):
    """acc[idx] += g, accumulating repeated indices; returns acc (changed in place; a new
    tuple for tuples)."""
    if isinstance(acc, tuple):
        items = list(acc)
        items[idx] = add(items[idx], g)
        return type(acc)(*items) if hasattr(acc, "_fields") else tuple(items)
    if isinstance(acc, (list, dict)):
        acc[idx] = add(acc[idx], g)
        return acc
    np.add.at(acc, idx, g)
    return acc


def setitem(x, idx, v, old=None, added=False):
    """A copy of x with x[idx] = v (the functional form of item assignment; `old`, the zero
    of the item replaced, and `added`, whether the write adds a key, only serve derivatives)."""
    x = x.copy()
    x[idx] = v
    return x


def without_key(d, key):
    """A copy of the dict d without `key` (the cotangent of a dict before a write added it)."""
    return {k: v for k, v in d.items() if k != key}


def zero_item(x, idx):
    """The zero of the item x[idx] of a list or dict that a write replaces, which its
    derivative puts in its place (0.0 for a new key)."""
    return zeros_like(x[idx]) if not isinstance(x, dict) or idx in x else 0.0


def list_unrepeat(c, x):
    """The adjoint of xs * n (a list repeated): the cotangents of the copies of each item, added."""
    k = len(x)
    out = list(c[:k])
    for i in range(k, len(c)):
        out[i % k] = add(out[i % k], c[i])
    return out


def list_extend(xs, ys):
    """Extend xs by the items of ys and return xs."""
    xs.extend(ys)
    return xs


def list_unextend(c, ys):
    """The adjoint of xs.extend(ys): (the cotangents of xs's items, those of ys's items)."""
    k = len(c) - len(ys)
    part = c[k:]
    return list(c[:k]), (tuple(part) if isinstance(ys, tuple) else np.array(part) if isinstance(
        ys, np.ndarray) else list(part))


def iter_items(x):
    """What `for v in x` goes through: a dict's keys (as a tuple), anything else itself."""
    return tuple(x) if isinstance(x, dict) else x


def iter_adjoint(c, x):
    """The adjoint of iter_items: a dict's keys carry no derivative (zeros for its values)."""
    return zeros_like(x) if isinstance(x, dict) else c


def list_insert(xs, i, v):
    """Insert v at position i of xs and return xs."""
    xs.insert(i, v)
    return xs


def list_pop_at(xs, i):
    """Remove item i of xs: (xs, the item)."""
    v = xs.pop(i)
    return xs, v


def list_pop(xs):
    """Remove and return the last element of xs: (xs, element)."""
    v = xs.pop()
    return xs, v


def list_append(xs, v):
    """Append v to xs and return xs."""
    xs.append(v)
    return xs


def T(x):
    """Swap the last two axes (the transpose of a stack of matrices)."""
    return np.swapaxes(x, -1, -2)


def sum_to_shape(g, shape):
    """Sum g down to the given shape (the adjoint of broadcast_to)."""
    return unbroadcast(g, np.zeros(shape))


def sum_adjoint(g, x):
    """The adjoint of builtins.sum(x): g for every element (row) of x."""
    if isinstance(x, (list, tuple)):
        return [g] * len(x)
    return np.broadcast_to(g, np.shape(x))


def expand_reduced(v, x, axis=None, keepdims=False):
    """Broadcast v, the result of reducing x over `axis`, back to the shape of x (a read-only
    view; a number when x is a number, as the type says: codegen may add to it in place)."""
    if not isinstance(x, np.ndarray) and np.ndim(x) == 0 and np.ndim(v) == 0:
        return v[()] if isinstance(v, np.ndarray) else v
    if axis is not None and not keepdims and np.ndim(x) > 0:  # (a 0-d x may have axis 0 or -1)
        v = np.expand_dims(v, axis)
    return np.broadcast_to(v, np.shape(x))


def clip_mask(x, lo, hi):
    """True where lo <= x <= hi (bounds may be None): where clip passes x's derivative."""
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside = inside & (x >= lo)
    if hi is not None:
        inside = inside & (x <= hi)
    return inside


def inverse_axes(axes):
    """The inverse of a transpose permutation (None stays None)."""
    return None if axes is None else tuple(np.argsort([a % len(axes) for a in axes]))


def array_adjoint(g, x):
    """The adjoint of np.array(x) for x a (nested) list or tuple: g split the same way."""
    if isinstance(x, (list, tuple)):
        if isinstance(g, (float, int, np.number)) or type(g) is np.ndarray and g.ndim == 0:
            # a scalar cotangent (a zero) stands for the whole array
            return [array_adjoint(g, xi) for xi in x]
        return [array_adjoint(gi, xi) for gi, xi in zip(g, x)]
    return g


def copy_value(x):
    """A shallow copy of a mutable container (arrays, lists, dicts); tuples and numbers as is."""
    if isinstance(x, (np.ndarray, list, dict)):
        return x.copy()
    return x


# -- helpers of the numpy rule families (srcad/rules/numpy_*.py) -------------------------------
# Each is a primitive with rules of its own; most are the adjoint of a numpy function and
# that function is their adjoint in turn. They use only numpy, so they can be copied into
# generated modules.


def split_like(g, arrays, axis=0, ndmin=1):
    """Split g, the cotangent of joining `arrays` along `axis`, into pieces shaped like them.

    ndmin says how the arrays were promoted before joining: 1, 2 or 3 as np.atleast_1d/2d/3d,
    -2 for np.column_stack (1-d arrays become columns); axis None means flattened."""
    if axis is None:
        sizes = [np.size(x) for x in arrays]
        pieces = np.split(np.ravel(g), np.cumsum(sizes)[:-1])
    else:
        shapes = [np.shape(x) for x in arrays]
        if ndmin == -2:
            shapes = [s + (1,) if len(s) < 2 else s for s in shapes]
            shapes = [(1,) * (2 - len(s)) + s for s in shapes]
        else:
            promote = (np.atleast_1d, np.atleast_2d, np.atleast_3d)[ndmin - 1]
            shapes = [promote(np.empty(s, dtype=bool)).shape for s in shapes]
        sizes = [s[axis] for s in shapes]
        pieces = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    return _items_like([float(np.reshape(p, ())) if isinstance(x, float)
                        else np.reshape(p, np.shape(x)) for p, x in zip(pieces, arrays)], arrays)


def _items_like(pieces, arrays):
    """The cotangents of the items of `arrays` as the cotangent of `arrays`: a list, or one
    array shaped like it when `arrays` is an array (a sequence of its rows)."""
    if isinstance(arrays, np.ndarray):
        return np.reshape(np.array(pieces, dtype=float), np.shape(arrays))
    return pieces


def join_like(pieces, arrays, axis=0, ndmin=1):
    """The adjoint of split_like: join pieces shaped like `arrays` as split_like cut them."""
    if axis is None:
        return np.concatenate([np.ravel(p) for p in pieces])
    out = []
    for p in pieces:
        s = np.shape(p)
        if ndmin == -2:
            s = s + (1,) if len(s) < 2 else s
            s = (1,) * (2 - len(s)) + s
        else:
            s = (np.atleast_1d, np.atleast_2d, np.atleast_3d)[ndmin - 1](np.empty(s, dtype=bool)).shape
        out.append(np.reshape(p, s))
    return np.concatenate(out, axis=axis)


def unstack_like(c, arrays, axis=0):
    """The adjoint of np.stack(arrays, axis): the slices of c along `axis`, one per item of
    `arrays` (a float for a float), in a list (an array when `arrays` is an array)."""
    pieces = list(np.moveaxis(np.asarray(c), axis, 0))
    return _items_like([float(p) if isinstance(x, float) else np.reshape(p, np.shape(x))
                        for p, x in zip(pieces, arrays)], arrays)


def untile(g, a, reps):
    """The adjoint of np.tile(a, reps): sum the tiles of g into the shape of a."""
    shape = np.shape(a)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(reps)
    n = max(len(shape), len(reps))
    full = (1,) * (n - len(shape)) + tuple(shape)
    reps = (1,) * (n - len(reps)) + reps
    paired = [d for pair in zip(reps, full) for d in pair]
    return np.reshape(np.sum(np.reshape(g, paired), axis=tuple(range(0, 2 * n, 2))), shape)


def unrepeat(g, a, repeats, axis=None):
    """The adjoint of np.repeat(a, repeats, axis): sum the copies of each element."""
    shape = np.shape(a)
    out = np.zeros(shape)
    if axis is None or not shape:  # (a 0-d a is repeated as a 1-d array)
        flat = out.reshape(-1)
        np.add.at(flat, np.repeat(np.arange(flat.size), repeats), np.ravel(g))
        return out
    axis = axis % len(shape)
    src = np.repeat(np.arange(shape[axis]), repeats)
    np.add.at(np.moveaxis(out, axis, 0), src, np.moveaxis(g, axis, 0))
    return out


def pad_adjoint(g, array, pad_width, mode="constant"):
    """The adjoint of np.pad(array, pad_width, mode) for the index-based modes (constant,
    edge, reflect, symmetric, wrap): every padded element sends its cotangent to its source."""
    shape = np.shape(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (len(shape), 2))
    if mode == "constant":
        return np.array(g[tuple(slice(lo, lo + n) for (lo, _), n in zip(widths, shape))])
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"srcad: no derivative for np.pad with mode={mode!r} "
                         "(supported: constant, edge, reflect, symmetric, wrap)")
    src = np.pad(np.arange(int(np.prod(shape))).reshape(shape), widths, mode=mode)
    out = np.zeros(int(np.prod(shape)))
    np.add.at(out, np.ravel(src), np.ravel(g))
    return out.reshape(shape)


def take_adjoint(g, a, indices, axis=None):
    """The adjoint of np.take(a, indices, axis): scatter-add g back (repeats accumulate)."""
    shape = np.shape(a)
    out = np.zeros(shape)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)
        return out
    axis = axis % len(shape)
    k = np.ndim(indices)
    np.add.at(np.moveaxis(out, axis, 0), indices,
              np.moveaxis(g, tuple(range(axis, axis + k)), tuple(range(k))))
    return out


def take_along_adjoint(g, arr, indices, axis=-1):
    """The adjoint of np.take_along_axis(arr, indices, axis) (repeats accumulate)."""
    shape = np.shape(arr)
    out = np.zeros(shape)
    if axis is None:
        np.add.at(out.reshape(-1), np.ravel(indices), np.ravel(g))
        return out
    axis = axis % len(shape)
    index = list(np.indices(np.shape(g), sparse=True))
    for d, n in enumerate(shape):
        if n == 1 and d != axis:
            index[d] = 0
    index[axis] = indices
    np.add.at(out, tuple(index), g)
    return out


def diag_adjoint(g, v, k=0):
    """The adjoint of np.diag(v, k): the k-th diagonal of g when v is a vector, else a
    matrix shaped like v holding g on its k-th diagonal."""
    if np.ndim(v) == 1:
        return np.diag(g, k)
    out = np.zeros(np.shape(v))
    i = np.arange(np.shape(g)[0])
    if k >= 0:
        out[i, i + k] = g
    else:
        out[i - k, i] = g
    return out


def diagonal_adjoint(g, a, offset=0, axis1=0, axis2=1):
    """The adjoint of np.diagonal(a, offset, axis1, axis2): g written on that diagonal of
    an array of zeros shaped like a."""
    shape = np.shape(a)
    out = np.zeros(shape)
    view = np.moveaxis(out, (axis1 % len(shape), axis2 % len(shape)), (-2, -1))
    i = np.arange(np.shape(g)[-1])
    if offset >= 0:
        view[..., i, i + offset] = g
    else:
        view[..., i - offset, i] = g
    return out


def diff_adjoint(g, n=1, axis=-1):
    """The adjoint of np.diff(a, n, axis)."""
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g


def average_weights(w, a, axis=None):
    """The weights of np.average(a, axis, weights=w) broadcast to the shape of a."""
    shape = np.shape(a)
    if np.shape(w) == shape:
        return w
    axis = axis % len(shape)
    return np.broadcast_to(np.reshape(w, [-1 if d == axis else 1 for d in range(len(shape))]), shape)


def average_weights_adjoint(g, w, axis=None):
    """The adjoint of average_weights: sum g down to the shape of the weights w."""
    if np.shape(g) == np.shape(w):
        return g
    axis = axis % np.ndim(g)
    return np.sum(g, axis=tuple(d for d in range(np.ndim(g)) if d != axis))


def svd_rank(a, full_matrices=True):
    """min(m, n) for the SVD of a. Raises for full_matrices=True on a non-square matrix: its
    extra singular vectors are not unique, so they have no derivative."""
    m, n = np.shape(a)[-2:]
    if full_matrices and m != n:
        raise ValueError("srcad: differentiating np.linalg.svd of a non-square matrix needs "
                         "full_matrices=False")
    return min(m, n)


def custom_cotangents(cts, args):
    """Check a custom backward rule's result (one real cotangent per argument, of its shape)
    and turn None entries into zeros."""
    if not isinstance(cts, (tuple, list)) or len(cts) != len(args):
        raise ValueError(f"a custom backward rule must return a tuple of {len(args)} cotangents "
                         f"(one per argument; None for zero), got {cts!r}")
    for i, (c, a) in enumerate(zip(cts, args)):
        _check_cotangent(c, a, f"cotangent {i}")
    return tuple(zeros_like(a) if c is None else c for c, a in zip(cts, args))


def _check_cotangent(c, a, what):
    """A custom rule's cotangent c for the argument a: None, or real numbers shaped like a."""
    if c is None or isinstance(a, (bool, np.bool_, str)) or a is None:
        return
    if isinstance(a, (list, tuple, dict)):
        if isinstance(c, dict) and isinstance(a, dict):
            for k in a:
                _check_cotangent(c.get(k), a[k], f"{what}[{k!r}]")
        elif isinstance(c, (list, tuple)) and len(c) == len(a):
            for k, (ci, ai) in enumerate(zip(c, a)):
                _check_cotangent(ci, ai, f"{what}[{k}]")
        elif np.shape(c) != np.shape(a):
            _bad_cotangent(f"{what} has shape {np.shape(c)}, but its argument has shape {np.shape(a)}")
        return
    if np.iscomplexobj(c) or not isinstance(c, (int, float, np.number, np.ndarray)):
        _bad_cotangent(f"{what} is a {type(c).__name__}"
                       f"{' of complex numbers' if np.iscomplexobj(c) else ''}; "
                       "cotangents must be real floats")
    if np.shape(c) != np.shape(a):
        _bad_cotangent(f"{what} has shape {np.shape(c)}, but its argument has shape {np.shape(a)}")


def _bad_cotangent(message):
    try:
        from srcad.errors import TypeSupportError as error
    except ImportError:  # (generated code written by `srcad codegen` runs without srcad)
        error = ValueError
    raise error(f"srcad: a custom_vjp backward rule returned a bad cotangent: {message}")


def broadcast_to(v, shape):
    """v broadcast to a known shape (a read-only view; a number for shape (), as its type
    says: the cotangent of a float seeds a loop that adds to it in place)."""
    if shape == () and np.ndim(v) == 0:
        return v[()] if isinstance(v, np.ndarray) else v
    return np.broadcast_to(v, shape)


def _error_at(kind, fallback, where, message, hint):
    """The error `kind` of srcad.errors (or `fallback` when srcad is not installed, as for
    code written by `srcad codegen`), with a Diagnostic at the user's line when `where` ends
    in FILE:LINE:COL (optionally in parentheses, as "grad of f (model.py:7:4)")."""
    try:
        from srcad import errors
    except ImportError:
        return fallback(f"{where}: {message}; {hint}")
    import re

    m = re.fullmatch(r"(?:(.*) \()?([^()]*):(\d+):(\d+)(\))?", where)
    if m is None or bool(m.group(1)) != bool(m.group(5)):
        return getattr(errors, kind)(f"{where}: {message}; {hint}")
    diag = errors.Diagnostic(m.group(2), int(m.group(3)), int(m.group(4)), message, hint)
    return getattr(errors, kind)(f"{m.group(1)}: {message}" if m.group(1) else message, [diag])


def scalar_output(x, where):
    """x when it is a real scalar (the output grad differentiates); raises otherwise."""
    if type(x) is float or isinstance(x, (int, float, np.floating, np.integer, np.bool_)) or (
            np.shape(x) == () and getattr(getattr(x, "dtype", None), "kind", "") in "fiub" and
            hasattr(x, "dtype")):  # (0-d arrays, also of other array libraries)
        return x
    what = f"shape {np.shape(x)}" if isinstance(x, np.ndarray) else f"a value of type {type(x).__name__}"
    raise _error_at("NonScalarOutputError", ValueError, where,
                    f"the differentiated output must be a real scalar, got {what}",
                    "use srcad.jacrev or srcad.vjp for other outputs, or has_aux=True for extra values")


def known(x, where):
    """Check a value whose type srcad did not know while transforming, where it meets a
    differentiated value: numbers, NumPy arrays, containers and arrays of other libraries
    are fine; complex values, ndarray subclasses and other objects are refused."""
    t = type(x)
    if t is float or t is int or t is np.ndarray and x.dtype.kind in "fiub" or x is None:
        return
    if isinstance(x, (bool, int, float, np.integer, np.floating, np.bool_, str, list, tuple, dict)):
        return
    module = t.__module__.split(".")[0]
    foreign = hasattr(x, "__array_namespace__") or module in ("dask", "cupy", "jax", "jaxlib", "torch")
    if foreign and not isinstance(x, np.ndarray) and not np.iscomplexobj(x):
        return
    what = "a complex value" if np.iscomplexobj(x) else f"a {t.__module__}.{t.__qualname__} object"
    raise _error_at("TypeSupportError", TypeError, where,
                    f"a differentiated value meets {what}, which srcad cannot differentiate through",
                    "read plain numbers or NumPy arrays out of it first")


def assigned(x, name):
    """x, which must have been assigned: a loop's variable that reverse mode starts as None
    (the loop stores it before its first assignment) after zero iterations raises the error
    the user's function raises there."""
    if x is None:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                                "with a value")
    return x


def bound(x, name):
    """x: reading the local variable x, which may be unassigned, raises UnboundLocalError
    where the user's function does (also when nothing uses its value)."""
    return x


def unbound(name):
    """The UnboundLocalError of reading a local variable that no path has assigned."""
    raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                            "with a value")


def require_scalar(x, what="this argument"):
    """1.0 when x is a scalar; raises otherwise (guards rules that hold for scalars only)."""
    if np.ndim(x) != 0:
        raise ValueError(f"srcad: the derivative with respect to {what} needs a scalar, "
                         f"got shape {np.shape(x)}")
    return 1.0


def _ties(xs, ans):
    """Where xs equals its max/min ans, and how many times."""
    mask = np.asarray([x == ans for x in xs] if isinstance(xs, (list, tuple)) else xs == ans)
    return mask, np.sum(mask)


def max_of(xs):
    """max(xs) of an iterable (the builtin with one argument)."""
    return max(xs)


def min_of(xs):
    """min(xs) of an iterable (the builtin with one argument)."""
    return min(xs)


def select_adjoint(g, xs, ans):
    """The cotangent of xs for ans = max(xs) or min(xs): g shared equally among ties, and
    exactly 0 elsewhere (also where g is inf)."""
    mask, k = _ties(xs, ans)
    w = np.where(mask, g / k, 0.0)
    return list(w) if isinstance(xs, (list, tuple)) else w


def select_tangent(t, xs, ans):
    """The tangent of ans = max(xs) or min(xs) from the tangent t of xs: the mean of the
    selected tangents (the others may be inf or NaN)."""
    mask, k = _ties(xs, ans)
    if isinstance(xs, (list, tuple)):
        return sum(ti for ti, m in zip(t, mask) if m) / k
    return np.sum(np.where(mask, t, 0.0)) / k


# the helpers of particular rules live in adjoints.py; they are run-time helpers all the same
# (the rules call them as srcad.<name>, and offline codegen copies them from here)
globals().update({name: f for name, f in vars(_adjoints).items()
                  if callable(f) and getattr(f, "__module__", None) == _adjoints.__name__})
