"""The user's functions with their own derivative rules (srcad.custom_vjp, custom_jvp,
checkpoint), as generated code calls them: on read-only views of the arrays they are given.

Generated code calls such a function as it is, on the caller's objects, so a change it made
in place (`u[0] = 0.0`, `np.add.at(u, i, v)`, `out=u`, a helper doing so, through any alias or
view) was invisible to the derivative srcad computes around the call: a silently wrong result.
Python's call would change the caller's array; srcad refuses instead. Arrays (also inside
tuples, lists and dicts) go in as read-only views, which NumPy refuses to write through, at
any depth of calls; lists and dicts go in as copies, compared item by item afterwards. A
library that asks for a writable buffer without writing (Cython memoryviews) fails on a
read-only view too: then the call runs again on writable copies, which must come back equal.
A change is an `UnsafeMutationError` at the line that made it.
"""

from __future__ import annotations

import functools
import os
import traceback

import numpy as np

from .errors import Diagnostic, UnsafeMutationError

_HINT = "change a copy inside it (u = u.copy()) and return the new value"


#: NumPy's messages for a write into a read-only array (others: a library asking for a writable
#: buffer it may not write, Cython's "buffer source array is read-only")
_WRITES = ("assignment destination is read-only", "output array is read-only")


def guarded(fn, what: str, owner=None):
    """fn, called on read-only views of its arrays and copies of its lists and dicts; `owner`
    (the user's function of the rule) is named where the write is not found."""
    @functools.wraps(fn)
    def call(*args):
        watched: list = []
        frozen = tuple(_frozen(a, watched) for a in args)
        try:
            out = fn(*frozen)
        except ValueError as e:
            if "read-only" not in str(e):
                raise
            if any(m in str(e) for m in _WRITES):
                raise _error(owner or fn, what, e) from None
            return _again(fn, args, what, e, owner)
        for copy, items in watched:
            if _changed(copy, items):
                raise _error(owner or fn, what, None)
        return out
    call.__srcad_guarded__ = fn
    return call


def _frozen(x, watched: list):
    if type(x) is np.ndarray:
        if not x.flags.writeable:
            return x
        view = x.view()
        view.flags.writeable = False
        return view
    if type(x) is tuple:
        return tuple(_frozen(v, watched) for v in x)
    if type(x) is list:
        copy = [_frozen(v, watched) for v in x]
        watched.append((copy, list(copy)))
        return copy
    if type(x) is dict:
        copy = {k: _frozen(v, watched) for k, v in x.items()}
        watched.append((copy, dict(copy)))
        return copy
    return x


def _changed(copy, items) -> bool:
    if len(copy) != len(items):
        return True
    if type(copy) is list:
        return any(a is not b for a, b in zip(copy, items))
    return copy.keys() != items.keys() or any(copy[k] is not items[k] for k in items)


def _again(fn, args, what: str, error: ValueError, owner):
    """The call on writable copies (a library needing a writable buffer), refused if the
    copies come back changed."""
    copies = tuple(_copied(a) for a in args)
    out = fn(*copies)
    if any(not _same(a, c) for a, c in zip(args, copies)):
        raise _error(owner or fn, what, error) from None
    return out


def _copied(x):
    if type(x) is np.ndarray:
        return x.copy()
    if type(x) in (tuple, list):
        return type(x)(_copied(v) for v in x)
    if type(x) is dict:
        return {k: _copied(v) for k, v in x.items()}
    return x


def _same(a, b) -> bool:
    if type(a) is np.ndarray:
        return type(b) is np.ndarray and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
    if type(a) in (tuple, list):
        return type(b) is type(a) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return True


def _error(fn, what: str, error: ValueError | None) -> UnsafeMutationError:
    """Refusal at the line of the user's code that wrote (from the read-only error), else at
    the function's def."""
    file, line = getattr(fn, "__code__", None) and (fn.__code__.co_filename, fn.__code__.co_firstlineno) \
        or ("<unknown>", 0)
    if error is not None:
        library = (os.path.dirname(np.__file__), os.path.dirname(__file__), "<srcad ")
        frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith(library)]
        if frames:
            file, line = frames[-1].filename, frames[-1].lineno
    name = getattr(fn, "__qualname__", "the function")
    msg = (f"{name}, {what}, changes an argument in place, which the derivative code around its call "
           "would not see (generated code calls it as it is, on the caller's array)")
    return UnsafeMutationError(msg, [Diagnostic(file, line, 0, msg, _HINT)])
