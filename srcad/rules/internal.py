"""srcad's own primitives: containers, run-time helpers, and the operations the frontend
emits for things it resolves later (globals, attributes, methods of values of unknown type).
"""

import functools

from .. import runtime as rt
from ..ir import types as T
from ..ir.values import of_value
from . import batching as bt
from . import shapes as sh
from . import typefns as ty
from . import vmaps as vm
from . import vmaps_items as vmi
from .registry import alias, defrule, family, nondiff

family("internal")


def _tuple_type(sig):
    return T.Tuple(tuple(sig.types[k] for k in sorted(sig.types, key=int)))


def _list_type(sig):
    elt = T.BOTTOM
    for t in sig.types.values():
        elt = T.join(elt, t)
    return T.List(elt)


# containers are handled structurally by the transforms (a tuple's cotangent is a tuple)
nondiff("srcad.tuple", "*args", out=_tuple_type, structural=True, cheap="always", objects="any", holds="all",
        vmap=vmi.tuple_)
def _named_tuple_type(sig):
    cls = getattr(sig.const("0"), "obj", None)
    items = tuple(sig.types[k] for k in sorted(sig.types, key=int) if k != "0")
    return T.Tuple(items, tuple(cls._fields), cls) if isinstance(cls, type) else T.UNKNOWN


# A @ x and A.dot(x) of a scipy.sparse matrix A, not differentiated (typed_args.sparse),
# and an array x; and A.T @ g, its adjoint
defrule("srcad.sparse_dot", "a, x", vjp={"x": "srcad.sparse_dot_t(a, g)"}, out=ty.same("x"),
        linear=("x",), refuses=("a",), foreign=("a",), fn=rt.sparse_dot)
defrule("srcad.sparse_dot_t", "a, y", vjp={"y": "srcad.sparse_dot(a, g)"}, out=ty.same("y"),
        linear=("y",), refuses=("a",), foreign=("a",), fn=rt.sparse_dot_t)
alias("srcad.sparse.dot", "srcad.sparse_dot", fn=rt.sparse_dot)  # (A.dot(x): specialize.py)
# an object of a named tuple class (its first operand) made in the function: a tuple, item by item
nondiff("srcad.named_tuple", "*args", out=_named_tuple_type, structural=True, fn=rt.named_tuple,
        objects="any", holds="all", vmap=vmi.named_tuple)
nondiff("srcad.list", "*args", out=_list_type, structural=True, allocates=True, blank=True, list_shapes="*",
        objects="any", holds="all", vmap=vmi.batched_items())
nondiff("srcad.dict", "*args", out=ty.unknown, structural=True, allocates=True, blank=True,
        objects="any", holds="all", vmap=vmi.batched_items())
nondiff("srcad.slice", "start, stop, step", out=ty.opaque("slice"), cheap="always")

# resolved while types are inferred, or opaque (no derivative) when they cannot be
nondiff("srcad.global", "module, name", out=ty.unknown)
nondiff("srcad.cell", "cell", out=ty.unknown)
# the k-th captured value of a function given as an argument (frontend/lower.py cell_sources)
nondiff("srcad.arg_cell", "f, k", out=ty.unknown, fn=rt.arg_cell, objects="any")


def _partial_item_type(sig):
    f, key = sig.type("f"), sig.const("key")
    obj = getattr(f, "obj", None)
    if obj is None:
        return T.UNKNOWN
    value = obj.args[key] if isinstance(key, int) else obj.keywords.get(key)
    return of_value(value)


# an argument bound by a functools.partial given as an argument: f.args[key] or f.keywords[key]
nondiff("srcad.arg_partial", "f, key", out=_partial_item_type, fn=rt.arg_partial, objects="any")
nondiff("srcad.call", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
# f(*v) with v's length known once types are: the call with v's items (specialize.py)
nondiff("srcad.star_call", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
# f(*v) of a user function srcad inlined: v has as many items as the parameters it fills
nondiff("srcad.check_length", "xs, n", out=ty.none, fn=rt.check_length, impure=True, nouts=0, raises="always",
        vmap=vmi.length_checks)
# a, b = v (a, *rest = v): v has that many items (checked while specialising when its length is known)
nondiff("srcad.check_unpack", "xs, n, starred", out=ty.none, fn=rt.check_unpack, impure=True, nouts=0,
        raises="always", objects="items", holds="length", vmap=vmi.length_checks)
# x[k] += v, x[k][j] = v: the item changed in place is held by the container only once
# np.fill_diagonal(y, v) on a local array: y[srcad.diagonal_index(y, v, where)] = v
nondiff("srcad.diagonal_index", "a, val, where", out=ty.unknown, fn=rt.diagonal_index, raises="always")
# an iterable iterated again during an iteration of it: not an iterator (frontend/loops.py)
nondiff("srcad.check_reiterable", "x, where", out=ty.none, fn=rt.check_reiterable, impure=True, nouts=0,
        raises="always", objects="any", vmap=vmi.length_checks)
nondiff("srcad.check_unshared", "xs, item, where", out=ty.none, fn=rt.check_unshared, impure=True, nouts=0,
        raises="always", objects="items", vmap=vmi.length_checks)
nondiff("srcad.getattr", "*args", out=ty.unknown, opaque=True, objects="any")  # (p.w: a child)
nondiff("srcad.method", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
nondiff("srcad.mutate", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
# v.update(...) as written: srcad.mutate of a local list or dict, or a method of the user's class
nondiff("srcad.mutate_call", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
# x[k] += v as written: the item changed in place (an array or list in a list or dict, as
# Python's __iadd__ does) or replaced (an item of an array, a number): which one is known once
# types are (transforms/sequences.py item_update)
nondiff("srcad.item_update", "*args", out=ty.unknown, opaque=True, vmap=vm.repeats)
# a parameter an inlined function changed by `a += v`, as the caller's variable sees it: the
# new value or the old one, by type (transforms/sequences.py written_back)
nondiff("srcad.written_back", "old, new", out=ty.unknown, opaque=True, vmap=vm.repeats)
# the container of an item given to an inlined function that changed it (`apply_bc(u[1:-1])`):
# the item stored back if the container holds the object itself (transforms/sequences.py)
nondiff("srcad.written_back_item", "base, index, old, new", out=ty.unknown, opaque=True, vmap=vm.repeats)
# (f"l{i}" of a constant folds: a dict key)
nondiff("srcad.format", "*args", out=lambda sig: T.STR, fn=str.format, foldable=True)
nondiff("srcad.assert", "test, msg", out=ty.none, impure=True, nouts=0)
nondiff("srcad.raise", "exc", out=ty.none, impure=True, nouts=0)

nondiff("srcad.stop_gradient", "x", out=ty.same("x"), fn=rt.stop_gradient, fresh=False,
        shape=sh.first, kind="elementwise")
# a max subtracted for stability that no output depends on (passes/shifts.py), until transformed
nondiff("srcad.shift_invariant", "x", out=ty.same("x"), fn=rt.stop_gradient, fresh=False,
        shape=sh.first, kind="elementwise")
# a value of a type unknown while transforming, checked where it meets a differentiated one
nondiff("srcad.known", "x, where", out=ty.none, fn=rt.known, impure=True, nouts=0, shift="check",
        numba="known")
# SRCAD_DEBUG=types: a value checked to be of its inferred type (codegen/typechecks.py)
nondiff("srcad.check_type", "v, expect, name, where", out=ty.none, fn=rt.check_type, impure=True, nouts=0,
        shift="check")
# a value's structure, always folded while transforming (forms.py: vmap's results stacked as vmap does)
nondiff("srcad.structure_of", "x", out=lambda sig: T.STR, fn=rt.structure_of, objects="any")
nondiff("srcad.check_leaf", "v, what", out=ty.none, fn=rt.check_leaf, impure=True, nouts=0, shift="check")
nondiff("srcad.shape_error", "where, message", out=ty.none, fn=rt.shape_error, impure=True, nouts=0)
# an argument the function writes into, copied first (transforms/owning.py), checked against the others
defrule("srcad.own_argument", "x, others, where", jvp={"x": "t"}, vjp={"x": "g"}, diff=("x",),
        out=ty.same("x"), fn=rt.own_argument, linear=("x",), impure=True, allocates=True, complex="keeps",
        vmap=vmi.owned, numba="own_argument")
# grad's output, checked when its type is not known while transforming
defrule("srcad.scalar_output", "x, where", jvp={"x": "t"}, vjp={"x": "g"}, out=ty.same("x"),
        fn=rt.scalar_output, fresh=False, linear=("x",), impure=True, vmap=vmi.scalar_checked, shift="same")
nondiff("srcad.zeros_like", "x", out=ty.same("x"), fn=rt.zeros_like, numba="zeros_like",
        shape=sh.first, allocates=True, blank=True, vmap=vm.first_example)
nondiff("srcad.clip_mask", "x, lo, hi", out=ty.array_like("x", kind="b"), fn=rt.clip_mask,
        vmap=vm.broadcasting("x", "lo", "hi"))
# scipy.stats' discrete distributions (rules/stats_discrete.py): where a count is not one
nondiff("srcad.not_a_count", "k", out=ty.compare("k"), fn=rt.not_a_count, shape=sh.first, python="negative",
        vmap=vm.broadcasting("k"))
nondiff("srcad.inverse_axes", "axes", out=ty.unknown, fn=rt.inverse_axes, foldable=True)

def _unbroadcast_type(sig) -> T.Type:
    """x's type, read as an array, except that the cotangent of a list, tuple or dict that is
    itself a container comes back as it is (runtime.unbroadcast returns it unchanged)."""
    c, x = sig.type("c"), sig.type("x")
    if isinstance(x, (T.List, T.Tuple, T.Dict)) and not isinstance(c, T.Array):
        if isinstance(c, (T.List, T.Tuple, T.Dict)):
            return c
        return x if isinstance(c, (T.Float, T.Int, T.Bool)) else T.UNKNOWN
    return ty.same_array("x")(sig)


defrule("srcad.unbroadcast", "c, x", numba="unbroadcast",
        vjp={"c": "srcad.broadcast_like(g, c)"}, out=_unbroadcast_type, fn=rt.unbroadcast,
        fresh=False, linear=("c",), shape=sh.second, complex="keeps", vmap=vmi.summed_to)
defrule("srcad.broadcast_like", "v, like",
        vjp={"v": "srcad.unbroadcast(g, v)"}, out=ty.same("like"), fn=rt.broadcast_like,
        fresh=False, linear=("v",), shape=sh.second,
        readonly=True, complex="keeps", vmap=vmi.broadcast_up)  # (v itself when it has the shape already)
def _added(sig) -> T.Type:
    """srcad.add: containers of the same structure, leaf by leaf; a sequence and an array, or
    numbers and arrays, as NumPy adds them (a float tangent plus an array one is an array)."""
    x, y = sig.type("x"), sig.type("y")
    if isinstance(x, (T.List, T.Tuple, T.Dict)) and isinstance(y, (T.List, T.Tuple, T.Dict)):
        return x
    if isinstance(x, T.NoneT):
        return y
    if isinstance(y, T.NoneT) or x == y:
        return x
    out = ty.arith("x", "y")(sig)
    for t, other in ((x, y), (y, x)):  # (an array and a number: the array's type, shape and all)
        if isinstance(t, T.Array) and not isinstance(other, T.Array) and isinstance(out, T.Array) \
                and t.ndim == out.ndim and t.kind == out.kind:
            return t
    return out


defrule("srcad.add", "x, y", jvp=("t", "t"), vjp=("g", "g"), out=_added, fn=rt.add,
        linear=("x", "y"), complex="keeps", vmap=vmi.added)
defrule("srcad.scatter_add", "acc, idx, v",
        jvp={"acc": "t", "v": "srcad.scatter_add(srcad.zeros_like(acc), idx, t)"},
        vjp={"acc": "g", "v": "g[idx]"}, jvp_all="srcad.scatter_add(t_acc, idx, t_v)",
        out=ty.same("acc"), fn=rt.scatter_add, updates=0, broadcasts=("v",), linear=("acc", "v"),
        shape=sh.first, stores=2, scatters=True, complex="keeps", vmap=vmi.scatter_add)
# np.add.at(y, idx, v) on a local array, as the user wrote it (checked like y[idx] += v)
alias("srcad.add_at", "srcad.scatter_add", fn=rt.scatter_add, user_write=True, stores=None)
defrule("srcad.T", "x", vjp="srcad.T(g)", out=ty.same("x"), fn=rt.T,
        fresh=False, linear=("x",), shape=sh.swap_last, kind="view", complex="keeps", vmap=vm.same,
        numba="contiguous")
defrule("srcad.sum_adjoint", "v, x", vjp={"v": "sum(g)"},
        out=ty.list_cotangent("x", "v"), fn=rt.sum_adjoint, fresh=False, linear=("v",), readonly=True,
        complex="keeps", vmap=vmi.broadcast_up)
defrule("srcad.expand_reduced", "v, x, axis=None, keepdims=False", numba="expand_reduced",
        vjp={"v": "np.sum(g, axis=axis, keepdims=keepdims) if axis is not None else np.sum(g)"},
        out=ty.same_array("x"), fn=rt.expand_reduced, fresh=False, linear=("v",),
        shape=sh.second, readonly=True, complex="keeps", vmap=vmi.broadcast_up)

# lists as values: append and pop are each other's adjoint
def _appended(sig):
    xs = sig.type("xs")
    return T.List(T.join(xs.elt if isinstance(xs, T.List) else T.BOTTOM, sig.type("v")))


defrule("srcad.list_append", "xs, v", jvp_all="srcad.list_append(t_xs, t_v)",
        vjp_all="srcad.list_pop(g)", diff=("xs", "v"), out=_appended, fn=rt.list_append,
        updates=0, stores=1, objects="store", holds="all", complex="keeps", vmap=vmi.batched_items("xs", "v"),
        numba="push", list_shapes="xs+v")


def _extended(sig):
    xs, ys = sig.type("xs"), sig.type("ys")
    elt = xs.elt if isinstance(xs, T.List) else T.BOTTOM
    for e in ys.elts if isinstance(ys, T.Tuple) else (ys.elt,) if isinstance(ys, T.List) else (T.UNKNOWN,):
        elt = T.join(elt, e)
    return T.List(elt)


# xs.extend(ys): the adjoint splits the cotangent list back into xs's part and ys's part
defrule("srcad.list_extend", "xs, ys", jvp_all="srcad.list_extend(t_xs, t_ys)",
        vjp_all="srcad.list_unextend(g, ys)", diff=("xs", "ys"), out=_extended, fn=rt.list_extend,
        updates=0, stores=1, objects="items", complex="keeps", vmap=vmi.batched_items("xs", "ys"))
defrule("srcad.list_unextend", "c, ys",
        vjp={"c": "srcad.list_extend(list(g[0]), g[1])"},
        out=lambda sig: T.Tuple((sig.type("c"), sig.type("ys"))), fn=rt.list_unextend, linear=("c",),
        complex="keeps")
defrule("srcad.list_pop", "xs", jvp_all="srcad.list_pop(t_xs)",
        vjp_all="(srcad.list_append(g0, g1),)", diff=("xs",), nouts=2,
        out=lambda sig: (sig.type("xs"), getattr(sig.type("xs"), "elt", T.UNKNOWN)),
        fn=rt.list_pop, updates=0, raises="always", objects="items", complex="keeps",
        vmap=vmi.batched_items("xs"), numba="pop")  # an empty list
# xs.insert(i, v) and xs.pop(i): each is the other's adjoint
defrule("srcad.list_insert", "xs, i, v", jvp_all="srcad.list_insert(t_xs, i, t_v)",
        vjp_all="srcad.list_pop_at(g, i)", diff=("xs", "v"), out=_appended, fn=rt.list_insert, updates=0,
        stores=2, objects="store", complex="keeps", vmap=vmi.batched_items("xs", "v"))
defrule("srcad.list_pop_at", "xs, i", jvp_all="srcad.list_pop_at(t_xs, i)",
        vjp_all="(srcad.list_insert(g0, i, g1),)", diff=("xs",), nouts=2,
        out=lambda sig: (sig.type("xs"), getattr(sig.type("xs"), "elt", T.UNKNOWN)),
        fn=rt.list_pop_at, updates=0, raises="always", user_write=True, objects="items", complex="keeps",
        vmap=vmi.batched_items("xs"))
# xs.sort() (transforms/sequences.py): the items put in a stable sort's order, in place; the
# order is a constant, so each is linear and the other's adjoint
defrule("srcad.list_permute", "xs, order", jvp_all="srcad.list_permute(t_xs, order)",
        vjp_all="(srcad.list_unpermute(g, order),)", diff=("xs",), out=ty.same("xs"), fn=rt.list_permute,
        updates=0, objects="items", user_write=True, complex="keeps", vmap=vmi.same_items)
defrule("srcad.list_unpermute", "xs, order", jvp_all="srcad.list_unpermute(t_xs, order)",
        vjp_all="(srcad.list_permute(g, order),)", diff=("xs",), out=ty.same("xs"), fn=rt.list_unpermute,
        updates=0, objects="items", complex="keeps", vmap=vmi.same_items)
alias("srcad.setitem", "operator.setitem", fn=rt.setitem, user_write=False, cheap="", foldable=False)
defrule("srcad.array_adjoint", "v, x",
        vjp={"v": "np.array(g)"}, out=ty.list_cotangent("x"), fn=rt.array_adjoint, fresh=False, linear=("v",),
        complex="keeps", list_shapes="v")

# list methods (the receiver is the first parameter)
alias("list.append", "srcad.list_append", attr=True, fn=None, user_write=True)
alias("list.pop", "srcad.list_pop", attr=True, fn=None, user_write=True)
alias("list.extend", "srcad.list_extend", attr=True, fn=None, user_write=True)
alias("list.insert", "srcad.list_insert", attr=True, fn=None, user_write=True)
defrule("list.copy", "xs", jvp="list(t)", vjp="g", out=ty.same("xs"), attr=True, linear=("xs",), fn=list.copy,
        copies=(0,), allocates=True, objects="items", vmap=vmi.container_copy)
# dict(d): a copy of a dict (the frontend writes dict(a=x) as a display; specialisation refuses
# dict of anything that is not a dict, whose keys it could not know)
defrule("builtins.dict", "x", jvp="srcad.copy_value(t)", vjp="g", out=ty.same("x"), fn=dict, linear=("x",),
        copies=(0,), allocates=True, objects="items", vmap=vmi.container_copy)
defrule("dict.copy", "d", jvp="srcad.copy_value(t)", vjp="g", out=ty.same("d"), attr=True, linear=("d",),
        fn=dict.copy, copies=(0,), objects="items", vmap=vmi.container_copy)
nondiff("list.index", "xs, v", out=ty.scalar_int, attr=True, fn=list.index, raises="always")
nondiff("list.count", "xs, v", out=ty.scalar_int, attr=True, fn=list.count)
def _list_type(sig) -> T.Type:
    """list(x): a list of x's elements (rows of an array)."""
    x = sig.type("x")
    if isinstance(x, T.List):
        return x
    if isinstance(x, T.Tuple):
        elt = T.BOTTOM
        for e in x.elts:
            elt = T.join(elt, e)
        return T.List(elt)
    if isinstance(x, T.Array) and x.ndim:
        if x.ndim == 1:
            return T.List({"f": T.FLOAT, "i": T.INT, "u": T.INT, "b": T.BOOL}.get(x.kind, T.UNKNOWN))
        return T.List(T.Array(x.ndim - 1, x.kind))
    return T.UNKNOWN


defrule("builtins.tuple", "x=()", vjp="srcad.sequence_adjoint(g, x)",
        out=lambda sig: (T.Tuple(sig.type("x").elts) if isinstance(sig.type("x"), T.Tuple)
                         else T.UNKNOWN), linear=("x",), copies=(0,), objects="items", holds="first",
        vmap=vmi.container_copy)
defrule("builtins.list", "x=()", vjp="srcad.sequence_adjoint(g, x)",
        out=_list_type, linear=("x",), copies=(0,), allocates=True, objects="items", holds="first",
        vmap=vmi.container_copy)
defrule("srcad.list_concat", "x, y", jvp=("t + srcad.zeros_like(y)", "srcad.zeros_like(x) + t"),
        vjp=("g[:len(x)]", "g[len(x):]"), out=lambda sig: T.join(sig.type("x"), sig.type("y")),
        linear=("x", "y"), copies=(0, 1), objects="items", complex="keeps", vmap=vmi.batched_items("x", "y"))
defrule("srcad.list_repeat", "x, n", vjp={"x": "srcad.list_unrepeat(g, x)"},
        out=ty.same("x"), fn=rt.list_repeat, linear=("x",), copies=(0,), objects="items", complex="keeps")
defrule("srcad.list_unrepeat", "c, x",
        vjp={"c": "srcad.list_repeat(g, len(c) // len(g))"}, out=ty.same("x"), fn=rt.list_unrepeat,
        linear=("c",), complex="keeps")
defrule("srcad.copy_value", "x", vjp="g", out=ty.same("x"),
        fn=rt.copy_value, linear=("x",), shape=sh.first, copies=(0,), objects="items", complex="keeps",
        vmap=vmi.copied)

# a call to a function with user-given rules (srcad.custom_vjp / custom_jvp): the transforms
# call its fwd/bwd/jvp functions; results are (output, residuals)
nondiff("srcad.custom", "*args", out=ty.unknown, nouts=2, differentiable=True, custom=True)


def _custom_cts(sig) -> T.Type:
    cts, args = sig.type("cts"), sig.type("args")
    if not (isinstance(cts, T.Tuple) and isinstance(args, T.Tuple) and len(cts.elts) == len(args.elts)):
        return T.UNKNOWN
    return T.Tuple(tuple(a if isinstance(c, T.NoneT) else c for c, a in zip(cts.elts, args.elts)))


# (linear in the cotangents: a custom rule's backward can be differentiated again)
defrule("srcad.custom_cotangents", "cts, args",
        vjp={"cts": "g"}, out=_custom_cts, fn=rt.custom_cotangents, linear=("cts",))

# shape-specialised helpers (simplify turns shape-only work into these)
defrule("srcad.sum_to_shape", "v, shape",
        vjp={"v": "srcad.broadcast_like(g, v)"}, out=ty.unknown, fn=rt.sum_to_shape, linear=("v",),
        shape=sh.literal, complex="keeps", vmap=vmi.summed_to)
defrule("srcad.broadcast_to", "v, shape", numba="broadcast_to",
        vjp={"v": "srcad.sum_to_shape(g, np.shape(v))"}, out=ty.from_shape(), fn=rt.broadcast_to,
        fresh=False, linear=("v",), shape=sh.literal, readonly=True, complex="keeps", batch=bt.broadcast,
        vmap=vmi.broadcast_up)

# srcad.vmap's vectorised code (rules/vmaps.py): copies of a value for every example of a batch
# and one example of a batched value (vmap's code is not differentiated again: srcad reads vmap's
# form, so a derivative reaching them is an error), math's domain errors where NumPy gives nan or inf
nondiff("srcad.batch_copies", "x, n", out=ty.unknown, fn=rt.batch_copies, allocates=True, refuses=("x",))
nondiff("srcad.example_of", "x, b", out=ty.unknown, fn=rt.example_of, fresh=False, refuses=("x",))
defrule("srcad.domain_checked", "y, x, x2=None", jvp={"y": "t"}, vjp={"y": "g"}, out=ty.same("y"),
        fn=rt.domain_checked, fresh=False, linear=("y",), raises="always")

# max/min of an iterable: the derivative goes to the selected element, shared among ties;
# select_adjoint and select_tangent are each other's transposes
_SELECT = {"jvp": "srcad.select_tangent(t, xs, ans)", "vjp": "srcad.select_adjoint(g, xs, ans)"}
# (a parameter may not be called ans, g or t: those names mean the result and derivatives)
defrule("srcad.max_of", "xs", **_SELECT, out=lambda sig: getattr(sig.type("xs"), "elt", T.FLOAT),
        fn=rt.max_of, raises="always")  # an empty sequence
defrule("srcad.min_of", "xs", **_SELECT, out=lambda sig: getattr(sig.type("xs"), "elt", T.FLOAT),
        fn=rt.min_of, raises="always")
defrule("srcad.select_adjoint", "v, xs, best",
        vjp={"v": "srcad.select_tangent(g, xs, best)"}, out=ty.same("xs"), fn=rt.select_adjoint,
        linear=("v",))
defrule("srcad.select_tangent", "v, xs, best",
        vjp={"v": "srcad.select_adjoint(g, xs, best)"}, out=ty.same("best"), fn=rt.select_tangent,
        linear=("v",))


# iterating dicts: d.values() and d.items() as tuples (keys known while transforming)
def _dict_parts(pairs: bool):
    def out(sig) -> T.Type:
        d = sig.type("d")
        if not isinstance(d, T.Dict):
            return T.UNKNOWN
        return T.Tuple(tuple(T.Tuple((of_value(k), t)) if pairs else t for k, t in d.items))
    return out


defrule("srcad.dict_values", "d", vjp="srcad.dict_like(d, g)",
        out=_dict_parts(False), fn=rt.dict_values, fresh=False, linear=("d",), objects="items")
defrule("srcad.dict_items", "d", vjp="srcad.items_cotangent(d, g)",
        out=_dict_parts(True), fn=rt.dict_items, fresh=False, linear=("d",), objects="items")
def _dict_with_values(sig) -> T.Type:
    """d's keys with the values v (a tuple, in the order of d's keys)."""
    d, v = sig.type("d"), sig.type("v")
    if isinstance(d, T.Dict) and isinstance(v, T.Tuple) and len(v.elts) == len(d.items):
        return T.Dict(tuple((k, t) for (k, _), t in zip(d.items, v.elts)))
    return d


def _dict_with_pairs(sig) -> T.Type:
    """d's keys, each value the zero of d's or one of the (key, value) pairs' values."""
    d, pairs = sig.type("d"), sig.type("pairs")
    if not isinstance(d, T.Dict) or not isinstance(pairs, T.Tuple):
        return d
    values = [p.elts[1] for p in pairs.elts if isinstance(p, T.Tuple) and len(p.elts) == 2]
    if len(values) != len(pairs.elts):
        return T.UNKNOWN
    return T.Dict(tuple((k, functools.reduce(T.join, values, t)) for k, t in d.items))


defrule("srcad.dict_like", "d, v", vjp={"v": "srcad.dict_values(g)"},
        out=_dict_with_values, fn=rt.dict_like, linear=("v",))
defrule("srcad.items_cotangent", "d, pairs",
        vjp={"pairs": "srcad.dict_items(g)"}, out=_dict_with_pairs, fn=rt.items_cotangent, linear=("pairs",))
# sorted(xs, key=k), min and max with key=: the order of the keys (frontend/higher_order.py)
nondiff("srcad.sort_order", "keys, reverse=False", out=lambda sig: T.List(T.INT), fn=rt.sort_order)
# `for x in seq`: the sequence itself, or a dict's keys (resolved while specialising)
# (allocates: two iterations of an iterator are two tuples, the second empty; never one, by cse)
defrule("srcad.iter", "x", jvp="srcad.iter_items(t)", vjp="srcad.iter_adjoint(g, x)", out=ty.unknown,
        fn=rt.iter_items, linear=("x",), objects="items", holds="first", allocates=True)
defrule("srcad.iter_adjoint", "c, x", vjp={"c": "srcad.iter_items(g)"},
        out=lambda sig: sig.type("x") if isinstance(sig.type("x"), T.Dict) else sig.type("c"),
        fn=rt.iter_adjoint, fresh=False, linear=("c",))
