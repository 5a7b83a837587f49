"""Exact array shapes, when the arguments' shapes are known (code specialised on shapes).

`refine(rule, sig, out)` adds a shape to an array result type whose rank the rule's type
function gave: elementwise operations broadcast their operands' shapes, reductions drop
axes, indexing with ints and constant slices keeps what it selects, products follow the
matrix rules. Anything else stays rank-only — never a guess. The transforms and
`simplify` use shapes to drop run-time shape work: a cotangent that already has its
input's shape needs no reduction, and an operand used only for its shape need not be
computed at all.
"""

from __future__ import annotations

from ..ir import types as T
from . import shape_rules

_ELEMENTWISE_FAMILIES = ("numpy elementwise", "math")
_ARITH = {f"operator.{n}" for n in ("add", "sub", "mul", "truediv", "pow", "mod", "floordiv", "neg",
                                      "pos", "lt", "le", "gt", "ge", "eq", "ne", "and_", "or_", "xor",
                                      "invert")}
_ARITH |= {f"operator.i{n}" for n in ("add", "sub", "mul", "truediv", "pow", "mod", "floordiv")}
_REDUCTIONS = {"numpy.sum", "numpy.mean", "numpy.prod", "numpy.max", "numpy.min", "numpy.amax",
               "numpy.amin", "numpy.ndarray.sum", "numpy.ndarray.mean", "numpy.ndarray.prod",
               "numpy.ndarray.max", "numpy.ndarray.min", "numpy.std", "numpy.var", "numpy.ndarray.std",
               "numpy.ndarray.var", "numpy.nansum", "numpy.nanmean", "numpy.nanprod", "numpy.nanmax",
               "numpy.nanmin", "numpy.nanstd", "numpy.nanvar", "numpy.ptp", "numpy.average"}


def broadcast(*shapes):
    """NumPy broadcasting of known shapes; None if any is unknown or they do not broadcast."""
    if any(s is None for s in shapes):
        return None
    n = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(n):
        dims = {s[len(s) - n + i] for s in shapes if len(s) - n + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _arg_shapes(sig, names):
    return [T.shape_of(sig.type(n)) for n in names if n in sig.types]


def _elementwise(rule, sig):
    if any(isinstance(t, (T.List, T.Tuple)) for t in sig.types.values()):
        return None  # (a list of numbers is an array of a shape its type does not give)
    names = [n for n in rule.params if n in sig.types and isinstance(
        sig.type(n), (T.Array, T.Float, T.Int, T.Bool, T.Num, T.Unknown))]
    if rule.name == "numpy.where":
        names = ["condition", "x", "y"]
    return broadcast(*_arg_shapes(sig, names))


def _reduction(rule, sig):
    x = T.shape_of(sig.type(rule.params[0]))
    if x is None or not sig.is_const("axis"):
        return None
    axis, keep = sig.const("axis"), sig.const("keepdims", False)
    if axis is None:
        axes = set(range(len(x)))
    else:
        axes = {a % len(x) for a in (axis if isinstance(axis, tuple) else (axis,))} if x else set()
    if keep:
        return tuple(1 if i in axes else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in axes)


def _slice_len(n, sl):
    try:
        return len(range(n)[sl])
    except (TypeError, ValueError):
        return None


def _key_part(t: T.Type):
    """A subscript part from its type: an int, None, a constant slice, an integer array's
    shape (as a list), or "?" (unknown)."""
    if isinstance(t, T.Int):
        return 0
    if isinstance(t, T.NoneT):
        return None
    if isinstance(t, T.Opaque) and t.what == "slice" and t.value is not None:
        return slice(*t.value)
    if isinstance(t, T.Array) and t.kind in ("i", "u") and t.shape is not None:
        return list(t.shape)
    return "?"


def _index(sig):
    x, key = T.shape_of(sig.type("x")), sig.const("idx", NotImplemented)
    if key is NotImplemented:  # a key built from variables: ints, constant slices, int arrays
        t = sig.type("idx")
        key = tuple(_key_part(e) for e in t.elts) if isinstance(t, T.Tuple) else _key_part(t)
    if x is None:
        return None
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(p, list) for p in parts):
        return _advanced_index(x, parts)
    out, axis = [], 0
    for p in parts:
        if p is None:
            out.append(1)
        elif isinstance(p, bool) or not isinstance(p, (int, slice)):
            return None
        elif axis >= len(x):
            return None
        elif isinstance(p, int):
            axis += 1
        else:
            n = _slice_len(x[axis], p)
            if n is None:
                return None
            out.append(n)
            axis += 1
    return tuple(out) + tuple(x[axis:])


def _advanced_index(x, parts):
    """NumPy's rule for integer-array indices (with ints and slices, no newaxis): the
    broadcast shape of the array and int parts replaces their axes when they are adjacent,
    and comes first otherwise."""
    if len(parts) > len(x) or any(p is None or isinstance(p, (bool, str)) for p in parts):
        return None
    advanced = [k for k, p in enumerate(parts) if isinstance(p, (list, int))]
    adv_shape = broadcast(*[tuple(p) if isinstance(p, list) else ()
                            for p in parts if isinstance(p, (list, int))])
    if adv_shape is None:
        return None
    sliced = []
    for k, p in enumerate(parts):
        if isinstance(p, slice):
            n = _slice_len(x[k], p)
            if n is None:
                return None
            sliced.append((k, n))
    rest = tuple(x[len(parts):])
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        before = tuple(n for k, n in sliced if k < advanced[0])
        after = tuple(n for k, n in sliced if k > advanced[-1])
        return before + adv_shape + after + rest
    return adv_shape + tuple(n for _, n in sliced) + rest


def _matmul(a, b):
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return () if a == b else None
    if len(a) == 1:
        return b[:-2] + b[-1:] if b[-2] == a[0] else None
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    batch = broadcast(a[:-2], b[:-2])
    if batch is None or a[-1] != b[-2]:
        return None
    return batch + (a[-2], b[-1])


def _reshape(sig, name):
    x = T.shape_of(sig.type(name))
    target = sig.const("shape", None)
    if target is None:
        return None
    target = target if isinstance(target, tuple) else (target,)
    if not all(isinstance(d, int) for d in target):
        return None
    if x is None:
        return target if -1 not in target else None
    size = 1
    for d in x:
        size *= d
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if target.count(-1) == 1 and known:
        target = tuple(size // known if d == -1 else d for d in target)
    return target if -1 not in target else None


def _transpose(sig, rule):
    x, axes = _first(sig, rule), sig.const("axes", "?")
    if x is None or axes == "?":
        return None
    if axes is None:
        return tuple(reversed(x))
    return tuple(x[a] for a in axes)


def _first(sig, rule):
    return T.shape_of(sig.type(rule.params[0]))


_SPECIAL = {
    "operator.getitem": lambda rule, sig: _index(sig),
    "operator.matmul": lambda rule, sig: _matmul(T.shape_of(sig.type("x")), T.shape_of(sig.type("y"))),
    "numpy.matmul": lambda rule, sig: _matmul(T.shape_of(sig.type("x")), T.shape_of(sig.type("y"))),
    "numpy.dot": lambda rule, sig: _matmul(T.shape_of(sig.type("a")), T.shape_of(sig.type("b")))
    if len(T.shape_of(sig.type("a")) or (0, 0, 0)) <= 2 and len(T.shape_of(sig.type("b")) or (0, 0, 0)) <= 2
    else None,
    "numpy.ndarray.dot": lambda rule, sig: _SPECIAL["numpy.dot"](rule, sig),
    "numpy.ndarray.T": lambda rule, sig: (tuple(reversed(_first(sig, rule)))
                                          if _first(sig, rule) is not None else None),
    "numpy.transpose": lambda rule, sig: _transpose(sig, rule),
    "numpy.ndarray.transpose": lambda rule, sig: _transpose(sig, rule),
    "numpy.reshape": lambda rule, sig: _reshape(sig, "a"),
    "numpy.ndarray.reshape": lambda rule, sig: _reshape(sig, "a"),
    "numpy.ravel": lambda rule, sig: ((_size(_first(sig, rule)),) if _first(sig, rule) is not None else None),
    "numpy.ndarray.ravel": lambda rule, sig: ((_size(_first(sig, rule)),)
                                              if _first(sig, rule) is not None else None),
    "numpy.ndarray.flatten": lambda rule, sig: ((_size(_first(sig, rule)),)
                                                if _first(sig, rule) is not None else None),
    "numpy.outer": lambda rule, sig: ((_size(T.shape_of(sig.type("a"))), _size(T.shape_of(sig.type("b"))))
                                      if None not in (T.shape_of(sig.type("a")), T.shape_of(sig.type("b")))
                                      else None),
}
def _const_shape(sig, name="shape"):
    s = sig.const(name, None)
    if isinstance(s, int) and not isinstance(s, bool):
        return (s,)
    if isinstance(s, tuple) and all(isinstance(d, int) for d in s):
        return s
    return None


for _name in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"):
    _SPECIAL[_name] = lambda rule, sig: _const_shape(sig)
_SPECIAL["srcad.broadcast_to"] = lambda rule, sig: _const_shape(sig)
_SPECIAL["srcad.sum_to_shape"] = lambda rule, sig: _const_shape(sig)

_SAME_AS_FIRST = {"numpy.copy", "numpy.ndarray.copy", "numpy.zeros_like", "numpy.ones_like",
                  "numpy.empty_like", "numpy.full_like", "srcad.zeros_like", "srcad.stop_gradient",
                  "srcad.copy_value", "numpy.array", "numpy.asarray", "srcad.setitem", "operator.setitem",
                  "srcad.scatter_add", "numpy.clip", "numpy.ndarray.clip"}
_SAME_AS_SECOND = {"srcad.unbroadcast", "srcad.expand_reduced", "srcad.broadcast_like"}


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def infer(rule, sig):
    """The exact shape of the result of `rule` on arguments of known shapes, or None."""
    name = rule.name
    try:
        if name in _SPECIAL:
            return _SPECIAL[name](rule, sig)
        if name in shape_rules.SHAPES:
            return shape_rules.SHAPES[name](lambda p: T.shape_of(sig.type(p)) if p in sig.types else None,
                                            lambda p, default: sig.const(p, shape_rules.NO))
        if name in _REDUCTIONS:
            return _reduction(rule, sig)
        if name in _SAME_AS_FIRST:
            return T.shape_of(sig.type(rule.params[0])) if rule.params else None
        if name in _SAME_AS_SECOND:
            return T.shape_of(sig.type(rule.params[1]))
        if name == "srcad.T":
            s = _first(sig, rule)
            return s[:-2] + s[-1:] + s[-2:-1] if s is not None and len(s) >= 2 else s
        if name in _ARITH or rule.family in _ELEMENTWISE_FAMILIES:
            return _elementwise(rule, sig)
    except (TypeError, IndexError, ZeroDivisionError):
        return None
    return None


def refine(rule, sig, out: T.Type) -> T.Type:
    """`out` with the exact shape (and an int or bool input's dtype kind) added when they can
    be inferred."""
    if rule.name in shape_rules.KEEPS_KIND and rule.params and isinstance(out, T.Array) and out.kind == "f":
        first = sig.type(rule.params[0])
        if isinstance(first, T.Array) and first.kind in ("i", "u", "b", None):  # (None: unknown)
            out = T.Array(out.ndim, first.kind, out.shape)
    if rule.name == "srcad.array_adjoint" and isinstance(out, T.List):
        x = sig.type("x")  # the cotangent of a list has the list's element type
        return T.List(x.elt) if isinstance(x, T.List) else out
    if not isinstance(out, (T.Array, T.Float)) or (isinstance(out, T.Array) and out.shape is not None):
        return out
    shape = infer(rule, sig)
    if shape is None:
        return out
    if isinstance(out, T.Float):
        return out  # a scalar result: shape () is implied
    if out.ndim is not None and out.ndim != len(shape):
        return out  # the type function knows better (e.g. a 0-d result typed as a float)
    return T.Array(len(shape), out.kind, shape)

