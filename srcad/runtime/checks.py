"""Run-time checks generated code makes where types did not settle the question while
transforming: a value of unknown type, grad's scalar output, variables that may be
unassigned, scalars a rule needs, and the cotangents custom backward rules return.

They raise srcad's errors (srcad.errors, imported when they raise; ValueError or
TypeError in code written by `srcad codegen`, which runs without srcad). Their rules:
srcad/rules/internal.py and helpers.py.
"""

import numpy as np

from .cotangents import zeros_like

__all__ = ["scalar_output", "known", "check_leaf", "assigned", "bound", "unbound", "require_scalar",
           "custom_cotangents", "check_length", "check_unpack", "check_unshared", "arg_cell", "arg_partial",
           "data_only", "shape_error", "diagonal_index", "own_argument", "check_reiterable"]


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


def check_unshared(container, item, where):
    """Raise where `item`, which `x[k] op= v` or `x[k][j] = v` changes in place, is held more than
    once by `container` (in two slots, or also inside a list, dict or tuple it holds): Python's
    change shows in every slot, srcad's in the one written."""
    if isinstance(container, (list, tuple, dict)) and _count_held(container, item, set()) > 1:
        raise _error_at("UnsafeMutationError", ValueError, where,
                        "this changes in place an object held more than once by the list or dict",
                        "give each slot its own object (a copy), or build the new value and assign it")


def check_reiterable(x, where):
    """Raise where x, iterated again while an iteration of it runs (`zip(it, it)`, a loop
    over it inside a loop over it), is an iterator: Python's iterations share its items, where
    srcad takes them all when an iteration starts."""
    if iter(x) is x:
        raise _error_at("UnsupportedSyntaxError", ValueError, where,
                        "an iterator iterated again while an iteration of it runs",
                        "make a list of it first: xs = list(it)")


def own_argument(x, others, where):
    """A copy of the argument x that the function writes into (an array, a list or a dict),
    for the generated code to write into: the caller's object is left as it was. Raises where
    another argument is x or shares its memory (or holds it), as Python's write would show
    through that one too."""
    for o in _leaves(others, set()):
        if o is x or (type(o) is np.ndarray and type(x) is np.ndarray and np.may_share_memory(o, x)):
            raise _error_at("UnsafeMutationError", ValueError, where,
                            "this writes into an argument that another argument also refers to (the same "
                            "array, a view of it, or a list holding it): srcad writes into its own copy",
                            "pass separate arrays (x.copy()), or copy inside the function before writing")
    if type(x) is np.ndarray and not x.flags.writeable:  # (f itself raises there: so does its derivative)
        raise ValueError("assignment destination is read-only")
    return x.copy() if type(x) is np.ndarray else type(x)(x) if type(x) in (list, dict) else np.array(x)


def _leaves(tree, seen: set):
    if isinstance(tree, (list, tuple, dict)) and id(tree) not in seen:
        seen.add(id(tree))
        yield tree
        for v in (tree.values() if isinstance(tree, dict) else tree):
            yield from _leaves(v, seen)
    elif not isinstance(tree, (list, tuple, dict)):
        yield tree


def _count_held(container, item, seen: set) -> int:
    if id(container) in seen:
        return 0
    seen.add(id(container))
    found = 0
    for v in (container.values() if isinstance(container, dict) else container):
        if v is item or type(v) is np.ndarray and type(item) is np.ndarray and np.may_share_memory(v, item):
            found += 1  # (the item, or an array overlapping it: [a[:3], a[1:]])
        elif isinstance(v, (list, tuple, dict)):
            found += _count_held(v, item, seen)
    return found


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


def check_length(xs, n):
    """f(*xs) into n parameters: the TypeError Python raises when xs has another length."""
    if len(xs) != n:
        raise TypeError(f"takes {n} positional arguments but {len(xs)} were given")


def arg_cell(f, k):
    """The k-th value the function f captured (f a function given as an argument, or a
    functools.partial of one)."""
    return getattr(f, "func", f).__closure__[k].cell_contents


def arg_partial(f, key):
    """An argument a functools.partial f binds: f.args[key] (an int) or f.keywords[key]."""
    return f.args[key] if type(key) is int else f.keywords[key]


def check_unpack(xs, n, starred=False):
    """a, b = xs (n targets; `starred`: a, *rest = xs, n targets besides the starred one): the
    ValueError Python raises when xs has another length."""
    m = len(xs)
    if m < n if starred else m != n:
        if m > n and not starred:
            raise ValueError(f"too many values to unpack (expected {n})")
        least = "at least " if starred else ""
        raise ValueError(f"not enough values to unpack (expected {least}{n}, got {m})")


def require_scalar(x, what="this argument"):
    """1.0 when x is a scalar; raises otherwise (guards rules that hold for scalars only)."""
    if np.ndim(x) != 0:
        raise ValueError(f"srcad: the derivative with respect to {what} needs a scalar, "
                         f"got shape {np.shape(x)}")
    return 1.0


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


def data_only(x, what=""):
    """x itself: a parameter a source implementation treats as data (a count, an integer size),
    whose derivative srcad does not compute; differentiating it is a NoRuleError (its rule)."""
    return x


def check_leaf(v, where):
    """A value whose type srcad did not know while transforming must be a number or an array
    here (a result of vmap called inside a differentiated function: `where`)."""
    if isinstance(v, (tuple, list, dict)):
        raise _error_at("ArgumentError", TypeError, where, f"a {type(v).__name__} where srcad needs an "
                        "array (a container nested in the result, or a result whose structure is not "
                        "known while transforming)", "return arrays, or a tuple, list or dict of arrays")
    return v


def shape_error(where, message):
    """Raise ShapeError at the user's line `where`: the operation there combines shapes
    NumPy refuses (srcad saw it while transforming; it raises only when the line runs)."""
    raise _error_at("ShapeError", ValueError, where, message,
                    "check the shapes of the operands on this line")


def diagonal_index(a, val, where):
    """The index of the entries np.fill_diagonal(a, val) writes (a[i, i, ...] for i below the
    shortest side of a 2-D array; every side equal otherwise, as NumPy requires), for the write
    `a[index] = val`; a value NumPy would repeat along the diagonal (neither one number nor
    one per entry) raises at the user's line."""
    shape = np.shape(a)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) > 1):
        raise ValueError("array must be at least 2-d" if len(shape) < 2 else
                         "All dimensions of input must be of equal length")
    n = min(shape)
    if np.ndim(val) > 1 or np.size(val) not in (1, n):
        raise _error_at("TypeSupportError", ValueError, where,
                        "np.fill_diagonal with a value NumPy repeats along the diagonal",
                        "give one number, or one value per diagonal entry")
    return (np.arange(n),) * len(shape)

