"""Evaluate an operation at transform time when its result is already known.

Used by constant folding and while rule templates are instantiated, so that a template
such as `g * y if np.ndim(y) == 1 else g @ srcad.T(y)` leaves only the branch that applies
to the argument types at hand.

    >>> from srcad.ir import types as T
    >>> from srcad.ir.nodes import Const, Var
    >>> fold_apply("numpy.ndim", (Var(0, "x", T.Array(2, "f")),), ())
    2
    >>> fold_apply("operator.is_", (Var(1, "w", T.NONE), Const(None)), ())
    True
    >>> fold_apply("math.log", (Const(2.0),), ())
    0.693...
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np

from ..ir import types as T
from ..ir.nodes import UNDEF, Atom, Const, Ext, atom_type, ext_object
from ..rules import registry

_NUMBER = (bool, int, float)
_CLASSES = {list: T.List, tuple: T.Tuple, dict: T.Dict, float: T.Float, int: T.Int, bool: T.Bool,
            str: T.Str, np.ndarray: T.Array, type(None): T.NoneT}


def _const(a: Atom):
    return a.value if isinstance(a, Const) and a.value is not UNDEF and not isinstance(
        a.value, Ext) else NotImplemented


def _is_none_type(t: T.Type) -> bool | None:
    """True if the value is certainly None, False if certainly not, None if unknown."""
    if isinstance(t, T.NoneT):
        return True
    if isinstance(t, (T.Float, T.Int, T.Bool, T.Array, T.Num, T.Tuple, T.List, T.Dict, T.Str)):
        return False
    return None


_SINGLETONS = (None, Ellipsis, True, False)


def _identical(args, types) -> bool | None:
    """`a is b` when the types or values decide it: a singleton constant against a constant
    (`None is ...`, as templates may test optional arguments) or against a value of a
    known type (`w is None` with w an array)."""
    a, b = args
    if isinstance(a, Const) and isinstance(b, Const) and any(
            a.value is v or b.value is v for v in _SINGLETONS):
        return a.value is b.value
    for x, other in ((a, types[1]), (b, types[0])):
        if isinstance(x, Const) and x.value is None:
            return _is_none_type(other)
        if isinstance(x, Const) and x.value is Ellipsis and _is_none_type(other) is False:
            return False  # (a number, array or container is never ...)
    return None


def basic_key(t: T.Type) -> bool:
    """Ints, slices, None, `...`, dict keys and tuples of them: each selected element once (of an
    array, a view of it, not a copy)."""
    if isinstance(t, T.Tuple):
        return all(basic_key(e) for e in t.elts)
    return isinstance(t, (T.Int, T.Str, T.NoneT)) or (
        isinstance(t, T.Opaque) and t.what in ("slice", "ellipsis"))


def _fold_typed(prim: str, args: tuple[Atom, ...]):
    """Folds that need only the arguments' types."""
    types = [atom_type(a) for a in args]
    if prim == "numpy.ndim" and len(args) == 1:
        t = types[0]
        if isinstance(t, T.Array) and t.ndim is not None:
            return t.ndim
        if isinstance(t, (T.Float, T.Int, T.Bool)):
            return 0
    if prim in ("operator.is_", "operator.is_not") and len(args) == 2:
        known = _identical(args, types)
        if known is not None:
            return known if prim == "operator.is_" else not known
    if prim == "builtins.isinstance" and len(args) == 2 and isinstance(args[1], Const) and \
            type(args[1].value) is tuple:  # (a tuple of classes: any of them, when each is known)
        each = [_fold_typed(prim, (args[0], Const(c))) for c in args[1].value]
        return any(each) if all(type(v) is bool for v in each) else NotImplemented
    if prim == "builtins.isinstance" and len(args) == 2:
        cls = ext_object(args[1]) if ext_object(args[1]) is not None else _const(args[1])
        want = _CLASSES.get(cls) if isinstance(cls, type) else None
        t = types[0]
        owner = T.class_of(t)
        if owner is not None and isinstance(cls, type):  # an object, a named tuple, a differentiated object
            return issubclass(owner, cls)
        if want in (T.List, T.Tuple, T.Dict, T.Str, T.NoneT) and isinstance(t, T.Num):
            return False  # (a number or an array, of a rank not known)
        if want is not None and not isinstance(t, (T.Unknown, T.Num, T.Opaque, T.Bottom)):
            if want is T.Float and isinstance(t, T.Float):
                return NotImplemented  # np.float64 vs float: leave to run time
            return isinstance(t, want)
    if prim == "srcad.structure_of" and len(args) == 1:
        return _structure(types[0])
    if prim == "srcad.write_winners" and len(args) == 2 and (
            isinstance(types[0], (T.List, T.Tuple, T.Dict)) or basic_key(types[1])):
        return True  # (a list's or dict's item, or ints and slices: each position written once)
    if prim == "builtins.len" and isinstance(types[0], T.Tuple):
        return len(types[0].elts)
    if prim == "builtins.len" and isinstance(types[0], T.List) and types[0].items is not None:
        return len(types[0].items)
    return NotImplemented


def isinstance_of_items(args, tuples_built: dict) -> Const | None:
    """isinstance(x, (A, B)) with the tuple of classes built in the code (`tuples_built`: a
    tuple's value -> its items), folded where the classes and x's type decide it, else None."""
    items = tuples_built.get(args[1]) if len(args) == 2 else None
    if items is None or not all(isinstance(a, Const) for a in items):
        return None
    return fold_apply("builtins.isinstance", (args[0], Const(tuple(a.value for a in items))))


def _structure(t: T.Type) -> str:
    """What srcad.structure_of gives a value of type t: "leaf" for a number or an array of a
    known rank (np.shape of it is known: forms.py's Jacobian shape)."""
    for kind, name in ((T.Tuple, "tuple"), (T.List, "list"), (T.Dict, "dict")):
        if isinstance(t, kind):
            return name
    if isinstance(t, T.Array):  # (a number or an array of a rank not known: "unknown")
        return "leaf" if t.ndim is not None else "unknown"
    return "leaf" if isinstance(t, (T.Float, T.Int, T.Bool, T.Complex)) else "unknown"


def _evaluate(prim: str, values: list, kw: dict):
    rule = registry.lookup(prim)
    if rule is None or rule.impure or not rule.foldable:
        return NotImplemented
    if prim.startswith("operator."):  # (the in-place ones have no rule.fn: they are updates)
        fn = getattr(operator, prim.split(".", 1)[1], None)
    else:
        fn = rule.fn
    if fn is None:
        return NotImplemented
    try:
        out = fn(*values, **kw)
    except Exception:  # leave errors to run time, where the user will see them
        return NotImplemented
    if prim == "operator.truediv" and values[0] == 1 and isinstance(values[1], (int, float)) and isinstance(
            out, float) and math.isfinite(out) and Fraction(out) * Fraction(values[1]) != 1:
        return NotImplemented  # kept so that `x * (1 / 3)` becomes `x / 3`: exact, and reads better
    if isinstance(out, np.bool_):  # (np.isinf(4.0): a NumPy bool, as good as a Python one)
        out = bool(out)
    return out if _literal(out) else NotImplemented


def _literal(x) -> bool:
    """A number, None, a string, or a tuple of them (`x.shape[:1]`)."""
    if isinstance(x, tuple):
        return all(_literal(e) for e in x)
    return isinstance(x, _NUMBER + (type(None), str))


def fold_apply(prim: str, args: tuple[Atom, ...], kw: tuple[tuple[str, Atom], ...] = ()) -> Const | None:
    """The constant result of `prim(*args, **kw)`, or None when it must run."""
    if prim == "srcad.slice" and all(isinstance(a, Const) and isinstance(a.value, (int, type(None)))
                                     and not isinstance(a.value, bool) for a in args):
        return Const(slice(*(a.value for a in args)))
    if prim == "srcad.tuple" and all(isinstance(a, Const) and isinstance(a.value, slice) or (
            isinstance(a, Const) and isinstance(a.value, (int, type(None))) and not isinstance(a.value, bool))
            for a in args) and args:
        return Const(tuple(a.value for a in args))
    out = _fold_typed(prim, args)
    if out is NotImplemented:
        values = [_const(a) for a in args]
        kwv = {k: _const(a) for k, a in kw}
        if NotImplemented in values or NotImplemented in kwv.values():
            return None
        if not all(isinstance(v, _NUMBER + (type(None), str, tuple)) for v in values):
            return None
        out = _evaluate(prim, values, kwv)
    if out is NotImplemented:
        return None
    if isinstance(out, float) and not math.isfinite(out):
        return None
    return Const(out)

