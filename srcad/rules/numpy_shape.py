"""NumPy shape, joining, splitting and indexing functions.

All of these move elements around, so they are linear and their adjoints put cotangents
back where the elements came from (summing where an element was used several times:
tile, repeat, take, take_along_axis, broadcast_to, pad's edge/reflect/symmetric/wrap modes).

Choices at special points:
- np.r_[a, b] and np.c_[a, b] of values (no slices or strings) are written as np.concatenate
  of np.atleast_1d(a)... along the first axis, or of srcad.c_column(a)... along the last.
- rollaxis, real_if_close (of a real array: the array itself), vstack and row_stack with
  dtype= (an int dtype: no derivative, as the values are truncated) move elements too.
- sort: the derivative follows the permutation of a stable argsort; tied elements are equal,
  so any choice among them is a valid one, and both modes use the same.
- pad: derivatives for the modes constant, edge, reflect, symmetric and wrap; other modes
  raise at run time. With mode='constant', a scalar constant_values is differentiable.
- Functions taking a list or tuple of arrays (concatenate, stack, hstack, vstack, dstack,
  column_stack) give that argument a list of cotangents, one per array; given one array
  (a sequence of its rows), its cotangent is an array of its shape.
"""

import numpy as np

from .. import runtime as rt
from ..ir import types as T
from . import batching as bt
from . import shapes_numpy as shn
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import defrule, family

family("numpy shape", raises="always")  # (shapes that do not fit, an empty list...)


def view(path, params, vjp, out, first, jvp=None, **flags):
    """A function linear in its parameter `first` (its tangent rule: itself, applied to the
    tangent, unless `jvp` says otherwise) whose result may be a view of that argument."""
    return defrule(path, params, jvp={first: jvp}, vjp={first: vjp}, out=out, fresh=False,
                   linear=(first,), **flags)


def move(path, params, vjp, out, first, jvp=None, **flags):
    """A function linear in its parameter `first` that builds a new array."""
    return defrule(path, params, jvp={first: jvp}, vjp={first: vjp}, out=out, linear=(first,), **flags)


def _expand_dims_type(sig) -> T.Type:
    axis = sig.const("axis", "?")
    n = len(axis) if isinstance(axis, tuple) else (1 if axis != "?" else None)
    base = ty._ndim_of(sig.type("a"))
    return T.Array(None if n is None or base is None else base + n, "f")


def _diag_type(sig) -> T.Type:
    nd = ty._ndim_of(sig.type("v"))
    return T.Array({1: 2, 2: 1}.get(nd), "f")


def _trace_type(name):
    def out(sig) -> T.Type:
        nd = ty._ndim_of(sig.type(name))
        if nd == 2:
            return T.FLOAT
        return T.Array(nd - 2, "f") if nd is not None else T.NUM
    return out


def _repeat_type(sig) -> T.Type:
    if sig.is_const("axis") and sig.const("axis") is None:
        return T.Array(1, "f")
    return ty.rank("a", at_least=1)(sig)


SAME = ty.rank("a")

# axes
view("numpy.moveaxis", "a, source, destination", "np.moveaxis(g, destination, source)", SAME, "a",
     shape=shn.moveaxis, keeps_kind=True, kind="view", vmap=vm.moved_axes)
view("numpy.swapaxes", "a, axis1, axis2", "np.swapaxes(g, axis1, axis2)",
     SAME, "a", shape=shn.swapaxes, keeps_kind=True, kind="view", vmap=vm.moved_axes)
view("numpy.expand_dims", "a, axis", "np.reshape(g, np.shape(a))",
     _expand_dims_type, "a", shape=shn.expand_dims, keeps_kind=True, kind="view", complex="keeps",
     batch=bt.reshape, vmap=vm.reshaped, python="newaxis")
view("numpy.squeeze", "a, axis=None", "np.reshape(g, np.shape(a))",
     ty.array(None), "a", shape=shn.squeeze, keeps_kind=True, kind="view", complex="keeps",
     batch=bt.reshape, vmap=vm.reshaped)
view("numpy.broadcast_to", "array, shape", "srcad.unbroadcast(g, array)",
     ty.from_shape("shape"), "array", shape=shn.broadcast_to, keeps_kind=True, readonly=True, kind="view",
     complex="keeps", batch=bt.broadcast, vmap=vmi.broadcast_up)
view("numpy.matrix_transpose", "x", "srcad.T(g)", ty.rank("x"), "x", keeps_kind=True,
     kind="view", jvp="srcad.T(t)", vmap=vm.same)
view("numpy.linalg.matrix_transpose", "x", "srcad.T(g)", ty.rank("x"), "x", jvp="srcad.T(t)", vmap=vm.same)
for _n in (1, 2, 3):
    view(f"numpy.atleast_{_n}d", "arys", "np.reshape(g, np.shape(arys))",
         ty.rank("arys", at_least=_n), "arys",
         shape=(shn.atleast_1d, shn.atleast_2d, shn.atleast_3d)[_n - 1], keeps_kind=True, vmap=vm.reshaped)
view("numpy.real", "val", "g", ty.rank("val"), "val", complex="real")
# the pieces of np.c_[x, y] (frontend/displays.py): np.concatenate(..., axis=-1) of each
view("srcad.c_column", "x", "np.reshape(g, np.shape(x))", ty.rank("x", at_least=2), "x", fn=rt.c_column)
# (srcad's values are real: real_if_close returns its argument, as an array)
view("numpy.real_if_close", "a, tol=100", "g", ty.rank("a"), "a", jvp="np.real_if_close(t)")
# rollaxis(a, axis, start) is moveaxis(a, axis, srcad.rolled_axis(...))
view("numpy.rollaxis", "a, axis, start=0", "np.moveaxis(g, srcad.rolled_axis(np.ndim(a), axis, start), axis)",
     SAME, "a", keeps_kind=True, kind="view")
move("numpy.conjugate", "x", "g", ty.same("x"), "x", shape=shn.same("x"), complex="keeps",
     complex_vjp="np.conj(g)")
for _name in ("ascontiguousarray", "asfortranarray", "asanyarray"):
    view(f"numpy.{_name}", "a, dtype=None", "srcad.array_adjoint(g, a)",
         ty.array(None), "a", shape=shn.same("a") if _name != "asanyarray" else None,
         keeps_kind=_name == "ascontiguousarray", jvp=f"np.{_name}(t, dtype=dtype)")

# joining a list or tuple of arrays (its cotangent is a list, one cotangent per array)
move("numpy.concatenate", "arrays, axis=0", "srcad.split_like(g, arrays, axis)", ty.joined("arrays"),
     "arrays", jvp="np.concatenate(t, axis=axis)", complex="keeps", vmap=vmi.joined,
     shape=shn.joined("arrays", np.concatenate), item_shapes="arrays")
move("numpy.stack", "arrays, axis=0", "srcad.unstack_like(g, arrays, axis)",
     ty.joined("arrays", delta=1, flat_axis=None), "arrays", jvp="np.stack(t, axis=axis)", complex="keeps",
     vmap=vmi.joined, shape=shn.joined("arrays", np.stack), item_shapes="arrays")
move("numpy.hstack", "tup", "srcad.split_like(g, tup, 0 if np.ndim(tup[0]) <= 1 else 1)",
     ty.joined("tup", flat_axis=None), "tup", shape=shn.joined("tup", np.hstack), item_shapes="tup")


def _with_dtype(out):
    """The type `out` gives, of the kind dtype= asks for (an int dtype: no derivative)."""
    def typed(sig) -> T.Type:
        t, dtype = out(sig), sig.const("dtype", _UNKNOWN)
        if dtype is None or not isinstance(t, T.Array):
            return t
        kinds = {"f": "f", "i": "i", "u": "i", "b": "b"}
        kind = None if dtype is _UNKNOWN else kinds.get(np.dtype(dtype).kind)
        return T.Array(t.ndim, kind)
    return typed


_UNKNOWN = object()
_STACKED = _with_dtype(ty.joined("tup", at_least=2, flat_axis=None))
move("numpy.vstack", "tup, dtype=None, casting='same_kind'", "srcad.split_like(g, tup, 0, 2)", _STACKED,
     "tup", jvp="np.vstack(t, dtype=dtype, casting=casting)", positional=1,
     shape=shn.joined("tup", np.vstack), item_shapes="tup")
# (deprecated in NumPy 2.0: vstack itself)
move("numpy.row_stack", "tup, dtype=None, casting='same_kind'", "srcad.split_like(g, tup, 0, 2)", _STACKED,
     "tup", jvp="np.vstack(t, dtype=dtype, casting=casting)", positional=1,
     shape=shn.joined("tup", np.vstack), item_shapes="tup")
move("numpy.dstack", "tup", "srcad.split_like(g, tup, 2, 3)",
     ty.joined("tup", at_least=3, flat_axis=None), "tup", shape=shn.joined("tup", np.dstack),
     item_shapes="tup")
move("numpy.column_stack", "tup", "srcad.split_like(g, tup, 1, -2)",
     ty.joined("tup", at_least=2, flat_axis=None), "tup", shape=shn.joined("tup", np.column_stack),
     item_shapes="tup")
defrule("numpy.append", "arr, values, axis=None", jvp_all="np.append(t_arr, t_values, axis=axis)",
        vjp={"arr": "srcad.split_like(g, [arr, values], axis)[0]",
             "values": "srcad.split_like(g, [arr, values], axis)[1]"},
        out=lambda sig: T.Array(1, "f") if sig.const("axis", "?") is None else ty.rank("arr")(sig),
        linear=("arr", "values"))

# splitting into a list of arrays (the cotangent of the list is a list)
view("numpy.split", "ary, indices_or_sections, axis=0", "np.concatenate(g, axis=axis)", ty.pieces("ary"),
     "ary", splits_lists=True,
     raises="always")  # unequal division
view("numpy.array_split", "ary, indices_or_sections, axis=0", "np.concatenate(g, axis=axis)",
     ty.pieces("ary"), "ary", splits_lists=True)
view("numpy.hsplit", "ary, indices_or_sections", "np.concatenate(g, axis=1 if np.ndim(ary) > 1 else 0)",
     ty.pieces("ary"), "ary", raises="always")
view("numpy.vsplit", "ary, indices_or_sections", "np.concatenate(g, axis=0)", ty.pieces("ary"), "ary",
     raises="always")
view("numpy.dsplit", "ary, indices_or_sections", "np.concatenate(g, axis=2)", ty.pieces("ary"), "ary",
     raises="always")
view("numpy.unstack", "x, axis=0", "np.stack(g, axis=axis)",
     ty.unknown, "x", jvp="np.unstack(t, axis=axis)")

# copies, reversals, rotations
move("numpy.tile", "A, reps", "srcad.untile(g, A, reps)", ty.array(None), "A",
     shape=shn.tile, keeps_kind=True)
move("numpy.repeat", "a, repeats, axis=None", "srcad.unrepeat(g, a, repeats, axis)", _repeat_type, "a",
     shape=shn.repeat, keeps_kind=True)
view("numpy.flip", "m, axis=None", "np.flip(g, axis)", ty.rank("m"), "m",
     shape=shn.same("m"), keeps_kind=True, batch=bt.shifted_axis())
view("numpy.fliplr", "m", "np.fliplr(g)", ty.rank("m"), "m",
     shape=shn.same("m"), keeps_kind=True)
view("numpy.flipud", "m", "np.flipud(g)", ty.rank("m"), "m",
     shape=shn.same("m"), keeps_kind=True)
move("numpy.roll", "a, shift, axis=None", "np.roll(g, np.negative(shift), axis)",
     SAME, "a", shape=shn.same("a"), keeps_kind=True, batch=bt.shifted_axis(none="flat_back"))
view("numpy.rot90", "m, k=1, axes=(0, 1)", "np.rot90(g, -k, axes)", ty.rank("m"), "m",
     keeps_kind=True)
defrule("numpy.pad", "array, pad_width, mode='constant', constant_values=0",
        jvp={"array": "np.pad(t, pad_width, mode=mode)",
             "constant_values": "np.pad(np.zeros(np.shape(array)), pad_width, mode=mode, constant_values=t)"},
        vjp={"array": "srcad.pad_adjoint(g, array, pad_width, mode)",
             "constant_values": "(np.sum(g) - np.sum(srcad.pad_adjoint(g, array, pad_width, mode))) "
                                "* srcad.require_scalar(constant_values, 'constant_values of np.pad')"},
        out=ty.rank("array"), linear=("array", "constant_values"))

# indexing
move("numpy.take", "a, indices, axis=None", "srcad.take_adjoint(g, a, indices, axis)", ty.num, "a",
     keeps_kind=True,
     raises="always")  # out-of-range indices
move("numpy.take_along_axis", "arr, indices, axis=-1", "srcad.take_along_adjoint(g, arr, indices, axis)",
     ty.rank("arr"), "arr", raises="always")
move("numpy.diag", "v, k=0", "srcad.diag_adjoint(g, v, k)", _diag_type, "v",
     shape=shn.diag, keeps_kind=True)
move("numpy.diagflat", "v, k=0", "np.reshape(srcad.diag_adjoint(g, np.ravel(v), k), np.shape(v))",
     ty.array(2), "v")
view("numpy.diagonal", "a, offset=0, axis1=0, axis2=1",
     "srcad.diagonal_adjoint(g, a, offset, axis1, axis2)", ty.rank("a", -1), "a",
     shape=shn.diagonal, keeps_kind=True, complex="keeps")
# (a 1-d m is taken as the rows of a square matrix, each row a copy of m)
move("numpy.tril", "m, k=0", "np.tril(g, k) if np.ndim(m) >= 2 else np.sum(np.tril(g, k), axis=0)",
     ty.rank("m", at_least=2), "m",
     shape=shn.same("m"), keeps_kind=True)
move("numpy.triu", "m, k=0", "np.triu(g, k) if np.ndim(m) >= 2 else np.sum(np.triu(g, k), axis=0)",
     ty.rank("m", at_least=2), "m", shape=shn.same("m"), keeps_kind=True)
move("numpy.trace", "a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
     "srcad.diagonal_adjoint(np.broadcast_to(np.expand_dims(g, -1), "
     "np.shape(np.diagonal(a, offset, axis1, axis2))), a, offset, axis1, axis2)", _trace_type("a"), "a",
     jvp="np.trace(t, offset, axis1, axis2)")
# the array API versions work on the last two axes
view("numpy.linalg.diagonal", "x, offset=0", "srcad.diagonal_adjoint(g, x, offset, -2, -1)", ty.rank("x", -1),
     "x", jvp="np.linalg.diagonal(t, offset=offset)")
move("numpy.linalg.trace", "x, offset=0, dtype=None",
     "srcad.diagonal_adjoint(np.broadcast_to(np.expand_dims(g, -1), "
     "np.shape(np.diagonal(x, offset, -2, -1))), x, offset, -2, -1)",
     _trace_type("x"), "x", jvp="np.linalg.trace(t, offset=offset)")

# sorting: the derivative follows the (stable) sorting permutation
defrule("numpy.sort", "a, axis=-1, kind=None", let={"perm": "np.argsort(a, axis=axis, kind='stable')"},
        jvp={"a": "np.take_along_axis(t, perm, axis)"},
        vjp={"a": "srcad.take_along_adjoint(g, a, perm, axis)"},
        out=lambda sig: T.Array(1, "f") if sig.is_const("axis") and sig.const("axis") is None
        else ty.rank("a", at_least=1)(sig), shape=shn.sort, keeps_kind=True)


# unique: a selection of the elements (or slices along axis) of ar, sorted. Each unique value
# stands for the equal elements of ar and moves with the mean of their derivatives (the
# function jumps where they part; moving them together moves it). The other results
# (return_index, return_inverse, return_counts: ints) have no derivative.
_UNIQUE_FLAGS = ("return_index", "return_inverse", "return_counts")


def _unique_outs(literal: dict, given: set) -> int | None:
    if any(f in given and f not in literal for f in _UNIQUE_FLAGS):
        return None
    return 1 + sum(bool(literal.get(f, False)) for f in _UNIQUE_FLAGS)


def _unique_type(sig):
    ar = ty.as_array(sig.type("ar"))
    kind = ar.kind if isinstance(ar, T.Array) else {T.Float: "f", T.Int: "i", T.Bool: "b"}.get(type(ar))
    values = T.Array(1, kind) if sig.const("axis", "?") is None else ty.rank("ar", kind=kind)(sig)
    ints = [T.Array(1, "i"), T.Array(None, "i"), T.Array(1, "i")]
    extra = [t for f, t in zip(_UNIQUE_FLAGS, ints) if sig.const(f, False)]
    return (values, *extra) if extra else values


_ONE = "not (return_index or (return_inverse or return_counts))"  # (literals: folds)
defrule("numpy.unique", "ar, return_index=False, return_inverse=False, return_counts=False, axis=None, "
        "equal_nan=True", nouts=4, nouts_of=_unique_outs, out=_unique_type,
        jvp={"ar": "srcad.unique_tangent(t, ar, axis, equal_nan)"},
        vjp={"ar": f"srcad.unique_adjoint(g if {_ONE} else g0, ar, axis, equal_nan)"})
