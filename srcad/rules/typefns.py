"""Type functions: the abstract result type of a primitive from its arguments' types.

Each takes a `Sig` (argument types and literal values by parameter name) and returns a Type,
or a tuple of Types for primitives with several results. Imprecision is always safe: an
unknown rank only costs a run-time shape check in generated code.
"""

from __future__ import annotations

from ..ir import types as T

_NUMERIC = (T.Float, T.Int, T.Bool, T.Array, T.Num, T.Complex)
_SCALARS = (T.Float, T.Int, T.Bool)


def as_array(t: T.Type) -> T.Type:
    """The type NumPy sees for an argument: a (nested) list or tuple of numbers is an array
    (of unknown rank if its items are not all alike); other types are themselves."""
    if not isinstance(t, (T.List, T.Tuple)):
        return t
    items = [as_array(e) for e in ((t.elt,) if isinstance(t, T.List) else t.elts)]
    if items and all(isinstance(e, _SCALARS) for e in items):
        kinds = {{T.Float: "f", T.Int: "i", T.Bool: "b"}[type(e)] for e in items}
        return T.Array(1, "f" if "f" in kinds else ("i" if "i" in kinds else "b"))
    ndims = {e.ndim for e in items if isinstance(e, T.Array)}
    if items and all(isinstance(e, T.Array) for e in items) and len(ndims) == 1 and None not in ndims:
        return T.Array(ndims.pop() + 1, "f")
    return T.Array(None, None) if items else t


def _arith(types, true_div: bool = False) -> T.Type:
    """NumPy/Python promotion of the operands of an arithmetic operation."""
    types = [as_array(t) for t in types]
    arrays = [t for t in types if isinstance(t, T.Array)]
    if any(isinstance(t, (T.Unknown,)) for t in types):
        return T.UNKNOWN if not arrays else T.Array(None, None)
    if any(not isinstance(t, _NUMERIC) for t in types):
        return T.UNKNOWN
    if any(T.is_complex(t) for t in types):  # (NumPy's promotion: complex wins)
        return T.as_complex(_arith([T.FLOAT if isinstance(t, T.Complex) else
                                    T.Array(t.ndim, "f", t.shape) if T.is_complex(t) else t for t in types]))
    if any(isinstance(t, T.Num) for t in types):
        return T.NUM
    if arrays:
        ndims = [t.ndim for t in arrays]
        ndim = None if None in ndims else max(ndims)
        kinds = {t.kind for t in arrays}
        floats = any(isinstance(t, T.Float) for t in types) or "f" in kinds or None in kinds or true_div
        kind = "f" if floats else ("i" if kinds - {"b"} or any(isinstance(t, T.Int) for t in types) else "b")
        return T.Array(ndim, kind)
    if true_div or any(isinstance(t, T.Float) for t in types):
        return T.FLOAT
    return T.INT


def arith(*names: str):
    def out(sig) -> T.Type:
        return _arith([sig.type(n) for n in names])
    return out


def true_div(*names: str):
    def out(sig) -> T.Type:
        return _arith([sig.type(n) for n in names], true_div=True)
    return out


def floating(*names: str):
    """A NumPy ufunc with float results: the arguments' shape, float kind (arguments that are
    None, like the absent bound of np.clip(x, None, 1.0), take no part)."""
    def out(sig) -> T.Type:
        return _arith([sig.type(n) for n in names if not isinstance(sig.type(n), T.NoneT)], true_div=True)
    return out


def scalar_float(sig) -> T.Type:
    return T.FLOAT


def scalar_int(sig) -> T.Type:
    return T.INT


def scalar_bool(sig) -> T.Type:
    return T.BOOL


def same(name: str = "x"):
    def out(sig) -> T.Type:
        return sig.type(name)
    return out


def same_array(name: str = "x"):
    """The type of `name`, a list or tuple of numbers read as an array (for helpers that
    return an array shaped like their argument)."""
    def out(sig) -> T.Type:
        return as_array(sig.type(name))
    return out


def compare(*names: str):
    def out(sig) -> T.Type:
        types = [sig.type(n) for n in names]
        arrays = [t for t in types if isinstance(t, T.Array)]
        if arrays:
            ndims = [t.ndim for t in arrays]
            return T.Array(None if None in ndims else max(ndims), "b")
        if all(isinstance(t, (T.Float, T.Int, T.Bool, T.Str, T.NoneT)) for t in types):
            return T.BOOL
        return T.UNKNOWN
    return out


def _axis_count(axis, ndim):
    if axis is None:
        return ndim
    return len(axis) if isinstance(axis, tuple) else 1


def reduce_(name: str = "x", axis: str = "axis", keepdims: str = "keepdims"):
    """A reduction: a scalar when axis is None, else one rank less (or equal with keepdims)."""
    def out(sig) -> T.Type:
        t = as_array(sig.type(name))
        if isinstance(t, (T.Float, T.Int, T.Bool)):
            return T.FLOAT
        ax = sig.const(axis, "?") if axis in sig.rule.params else None
        keep = sig.const(keepdims, False) if keepdims in sig.rule.params else False
        if not isinstance(t, T.Array):
            return T.NUM if ax is None and not keep else T.Array(None, "f")
        if keep is True:
            return T.Array(t.ndim, "f")
        if ax is None:
            return T.FLOAT
        if ax == "?" or t.ndim is None:
            return T.Array(None, "f")
        nd = max(t.ndim - _axis_count(ax, t.ndim), 0)  # (NumPy takes axis 0 or -1 of a 0-d array)
        return T.FLOAT if nd == 0 else T.Array(nd, "f")
    return out


def array(ndim=None, kind="f"):
    def out(sig) -> T.Type:
        return T.Array(ndim, kind)
    return out


def from_shape(name: str = "shape", kind: str | None = "f"):
    """An array whose rank is the length of a shape argument (an int means rank 1)."""
    def out(sig) -> T.Type:
        t = sig.type(name)
        if isinstance(t, (T.Int, T.Bool)):
            return T.Array(1, kind)
        if isinstance(t, T.Tuple):
            return T.Array(len(t.elts), kind)
        return T.Array(None, kind)
    return out


def array_like(name: str = "x", kind: str | None = "f"):
    """An array of the same rank as `name` (a scalar for a scalar)."""
    def out(sig) -> T.Type:
        t = as_array(sig.type(name))
        if isinstance(t, T.Array):
            return T.Array(t.ndim, kind or t.kind)
        if isinstance(t, (T.Float, T.Int, T.Bool)):
            return T.Array(0, kind) if kind else t
        return T.Array(None, kind)
    return out


def unknown(sig) -> T.Type:
    return T.UNKNOWN


def num(sig) -> T.Type:
    return T.NUM


def none(sig) -> T.Type:
    return T.NONE


def opaque(what: str = "object"):
    def out(sig) -> T.Type:
        return T.Opaque(what)
    return out


def getitem(sig) -> T.Type:
    """x[idx] for arrays, tuples, lists and dicts."""
    x, idx = sig.type("x"), sig.type("idx")
    key = sig.const("idx", NotImplemented)
    if isinstance(x, T.Tuple):
        if isinstance(key, int) and -len(x.elts) <= key < len(x.elts):
            return x.elts[key]
        if isinstance(key, slice):  # (t[1:]: a tuple of those items)
            return T.Tuple(x.elts[key])
        if isinstance(idx, T.Opaque) and idx.what == "slice":
            return T.UNKNOWN
        elts = [e for e in x.elts]
        out = T.BOTTOM
        for e in elts:
            out = T.join(out, e)
        return out
    if isinstance(x, T.List):
        if isinstance(idx, T.Opaque) and idx.what == "slice":
            return T.List(x.elt)
        if x.items is not None and isinstance(key, int) and -len(x.items) <= key < len(x.items):
            return x.items[key]
        if x.shapes is not None and isinstance(key, int) and -len(x.shapes) <= key < len(x.shapes) \
                and isinstance(x.elt, T.Array):
            return T.Array(len(x.shapes[key]), x.elt.kind, x.shapes[key])
        return x.elt
    if isinstance(x, T.Dict):
        got = x.get(key) if key is not NotImplemented else None
        return got if got is not None else T.UNKNOWN
    if isinstance(x, T.Array):
        return _array_index(x, idx, key)
    if isinstance(x, T.Num):
        return T.NUM
    if isinstance(x, T.Opaque) and x.what == "range" and isinstance(idx, (T.Int, T.Bool)):
        return T.INT
    return T.UNKNOWN


def _array_index(x: T.Array, idx: T.Type, key) -> T.Type:
    kind = x.kind
    parts = idx.elts if isinstance(idx, T.Tuple) else (idx,)
    # (an index that may be an array: one of another rank, or a value whose rank is not known,
    # Num for an element of an array of unknown rank, makes the result's rank unknown too)
    if len(parts) == 1 and isinstance(idx, T.Array) and idx.ndim is not None and x.ndim is not None and \
            idx.kind in ("i", "u", "b"):  # (x[order] of int arrays, x[mask] of a bool array)
        nd = x.ndim - 1 + idx.ndim if idx.kind != "b" else x.ndim - idx.ndim + 1
        return T.Array(nd, kind) if nd > 0 or idx.kind == "b" else T.Array(None, kind)
    if any(isinstance(p, (T.Array, T.Unknown, T.List, T.Num, T.Float)) for p in parts):
        return T.Array(None, kind)
    if x.ndim is None:
        if any(not isinstance(p, (T.Int, T.Bool)) for p in parts) or kind not in ("f", None):
            return T.Array(None, kind)  # (Num is a float or a float array: not an int's)
        return T.NUM
    added = sum(1 for p in parts if isinstance(p, T.NoneT))
    ints = sum(1 for p in parts if isinstance(p, (T.Int, T.Bool)))
    nd = x.ndim - ints + added
    if nd == 0 and any(isinstance(p, T.Opaque) and p.what == "ellipsis" for p in parts):
        return T.Array(0, kind)  # (A[1, 2, ...]: a 0-d view of A, not a number)
    if nd <= 0:
        scalars = {"f": T.FLOAT, None: T.FLOAT, "i": T.INT, "u": T.INT, "c": T.COMPLEX}
        return scalars.get(kind, T.BOOL)
    return T.Array(nd, kind)


def _is_none(t: T.Type) -> bool:
    return isinstance(t, T.NoneT)


def matmul(x: str = "x", y: str = "y", dot: bool = False):
    """numpy.matmul / numpy.dot result rank from the operands' ranks."""
    def out(sig) -> T.Type:
        a, b = sig.type(x), sig.type(y)
        nd = []
        for t in (a, b):
            if isinstance(t, T.Array) and t.ndim is not None:
                nd.append(t.ndim)
            elif isinstance(t, (T.Float, T.Int, T.Bool)):
                nd.append(0)
            else:
                return T.UNKNOWN
        if 0 in nd:
            return _arith([a, b]) if dot else T.UNKNOWN
        if nd == [1, 1]:
            return T.FLOAT
        if 1 in nd:
            return T.Array(max(nd) - 1, "f")
        if dot:
            return T.Array(nd[0] + nd[1] - 2, "f")
        return T.Array(max(nd), "f")
    return out


# -- shapes of the numpy array families (numpy_shape, numpy_products, numpy_linalg) ----------

def _ndim_of(t: T.Type) -> int | None:
    """The rank of a numeric value's type: 0 for scalars, None when not known."""
    t = as_array(t)
    if isinstance(t, T.Array):
        return t.ndim
    if isinstance(t, (T.Float, T.Int, T.Bool)):
        return 0
    return None


def rank(name: str = "x", delta: int = 0, at_least: int = 0, kind: str | None = "f"):
    """An array of the rank of `name` plus `delta` (never below `at_least`)."""
    def out(sig) -> T.Type:
        nd = _ndim_of(sig.type(name))
        return T.Array(None if nd is None else max(nd + delta, at_least), kind)
    return out


def solved(a: str = "a", b: str = "b"):
    """The solution x of a x = b for a stack of square matrices `a` (numpy.linalg.solve and
    scipy.linalg's triangular and banded solvers): a 1-d b is one vector, solved against every
    matrix of the stack (rank of a minus 1); otherwise the stacks of a and b broadcast."""
    def out(sig) -> T.Type:
        na, nb = _ndim_of(sig.type(a)), _ndim_of(sig.type(b))
        if na is None or nb is None:
            return T.Array(None, "f")
        return T.Array(max(na - 1, 1) if nb == 1 else max(na, nb), "f")
    return out


def ranks(*names: str):
    """A float array of the largest rank of `names` (their stacks broadcast)."""
    def out(sig) -> T.Type:
        nds = [_ndim_of(sig.type(n)) for n in names]
        return T.Array(None if None in nds else max(nds), "f")
    return out


def _elements(t: T.Type) -> T.Type:
    if isinstance(t, T.List):
        return t.elt
    if isinstance(t, T.Tuple):
        elt = T.BOTTOM
        for e in t.elts:
            elt = T.join(elt, e)
        return elt
    if isinstance(t, T.Array) and t.ndim:
        return T.Array(t.ndim - 1, t.kind)
    return T.UNKNOWN


def joined(name: str = "arrays", delta: int = 0, at_least: int = 1, flat_axis: str | None = "axis"):
    """Joining a sequence of arrays (concatenate, stack, hstack...): the elements' rank plus
    `delta`, at least `at_least`; rank 1 when `flat_axis` is None (concatenate(axis=None))."""
    def out(sig) -> T.Type:
        if flat_axis is not None and flat_axis in sig.rule.params and sig.is_const(flat_axis) \
                and sig.const(flat_axis) is None:
            return T.Array(1, "f")
        nd = _ndim_of(_elements(sig.type(name)))
        return T.Array(None if nd is None else max(nd + delta, at_least), "f")
    return out


def pieces(name: str = "ary"):
    """Splitting an array: a list of arrays of its rank."""
    def out(sig) -> T.Type:
        return T.List(T.Array(_ndim_of(sig.type(name)), "f"))
    return out


def list_cotangent(name: str = "x", elt: str | None = None):
    """The cotangent of a list or tuple argument `name`: a list (of `elt`'s type, or of
    name's element type); unknown when the argument is not a list or tuple."""
    def out(sig) -> T.Type:
        t = sig.type(name)
        if isinstance(t, (T.List, T.Tuple)):
            return T.List(sig.type(elt) if elt else _elements(t))
        return T.UNKNOWN
    return out
