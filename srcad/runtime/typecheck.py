"""SRCAD_DEBUG=types (or `srcad.config.debug = "types"`): generated code checks, after each
statement, that the values it made are of the types srcad inferred for them, and raises
AssertionError naming the generated value, the inferred type and the user's line where they
differ. For srcad's own tests and fuzzer: a wrong type is where printing, constant folding
and the choice of what is differentiated go wrong (a list typed as an array gets `x.T`; an
integer type for a float value would make its derivative zero)."""

import numpy as np

__all__ = ["check_type", "structure_of"]


def check_type(v, expect, name, where):
    """Is v of the type `expect` describes: ("array", ndim, shape or None, kind or None),
    ("list",), ("tuple", n or None) or ("number",)? Else AssertionError."""
    what = expect[0]
    if v is None or type(v) is np.ndarray and v.dtype == object and v.shape == ():
        return v  # (a loop variable not assigned before the loop's first iteration, its zero cotangent)
    if what == "list":
        ok = isinstance(v, list)
    elif what == "tuple":
        # (a tuple's cotangent may be a list of its items' cotangents: indexed alike)
        ok = isinstance(v, (tuple, list)) and (expect[1] is None or len(v) == expect[1])
    elif what == "number":
        ok = not isinstance(v, (list, tuple, dict, str)) and np.ndim(v) == 0
    else:
        ok = _array_ok(v, *expect[1:])
    if not ok:
        shown = f"{type(v).__name__} of shape {np.shape(v)}" if not isinstance(v, (list, tuple, dict)) \
            else type(v).__name__
        kind = getattr(getattr(v, "dtype", None), "kind", None)
        raise AssertionError(f"srcad inferred {expect} for {name} ({where}), but the value is a {shown}"
                             + (f" of dtype kind {kind!r}" if kind else ""))
    return v


def _array_ok(v, ndim, shape, kind) -> bool:
    if isinstance(v, (list, tuple, dict, str)):
        return False
    if ndim > 0 and getattr(v, "ndim", None) != ndim:  # (x.T, x.sum(): a NumPy or foreign array)
        return False
    if ndim == 0 and np.ndim(v) != 0:
        return False
    if shape is not None and tuple(np.shape(v)) != tuple(shape):
        return False
    actual = getattr(getattr(v, "dtype", None), "kind", None)
    if actual is None:
        actual = "c" if isinstance(v, complex) else "f" if isinstance(v, float) else "i"
    if kind in ("i", "u", "b") and actual in ("f", "c"):
        return False  # (a float typed as an integer would get no derivative)
    return not (kind == "f" and actual == "c")  # (a complex value typed real loses its imaginary part)


def structure_of(v) -> str:
    """"tuple", "list", "dict", or "leaf" (a number or an array): what srcad's forms branch on
    (srcad/forms.py). Folded while transforming (passes/fold.py), "unknown" for a value of a
    type or rank not known then; this runs only where the code is not transformed."""
    for kind in (tuple, list, dict):
        if isinstance(v, kind):
            return kind.__name__
    return "leaf"

