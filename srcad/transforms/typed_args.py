"""Questions the specialiser asks about an operation's typed arguments (transforms/specialize.py)."""

from __future__ import annotations

from ..errors import TypeSupportError, diagnostic
from ..ir import types as T
from ..ir.nodes import UNDEF, Apply, Const, Var, atom_type
from ..rules import registry


def taken_value(block, a):
    """What the branch `block` an if on a constant takes gives its result: None for a value it
    leaves undefined when it raises (the function's result: what follows never runs)."""
    if isinstance(a, Const) and a.value is UNDEF and any(
            isinstance(o, Apply) and o.prim == "srcad.raise" for o in block.ops):
        return Const(None)
    return a


def literal(atom):
    """An argument's literal value (registry.literal_value), also None for a value whose type
    is None (a parameter of a wrapper that the call gave None: srcad/arity.py)."""
    if isinstance(atom, Var) and isinstance(atom.type, T.NoneT):
        return None
    return registry.literal_value(atom)


def float_operand(prim: str, args) -> bool:
    if prim == "builtins.range":
        return any(isinstance(atom_type(a), T.Float) for a in args)
    base, idx = atom_type(args[0]), atom_type(args[1])
    if not isinstance(base, (T.Array, T.List, T.Tuple)):
        return False
    parts = idx.elts if isinstance(idx, T.Tuple) else (idx,)
    return any(isinstance(p, T.Float) for p in parts)


def float_list_depth(t: T.Type) -> int:
    """The rank of the array NumPy makes of a (nested) list or tuple of numbers with a float
    among them; 0 for anything else."""
    if isinstance(t, T.List):
        if isinstance(t.elt, T.Float):
            return 1
        inner = float_list_depth(t.elt)
        return inner + 1 if inner else 0
    if isinstance(t, T.Tuple) and t.elts:
        if all(e.is_scalar for e in t.elts):
            return 1 if any(isinstance(e, T.Float) for e in t.elts) else 0
        depths = {float_list_depth(e) for e in t.elts}
        return depths.pop() + 1 if len(depths) == 1 and 0 not in depths else 0
    return 0


def iterates_dict(args) -> bool:
    """d[i] for a run-time int i, on a dict without int keys (a KeyError when it runs)."""
    d, key = atom_type(args[0]), args[1]
    return isinstance(d, T.Dict) and not isinstance(key, Const) and isinstance(atom_type(key), T.Int) \
        and not any(isinstance(k, int) for k, _ in d.items)


def adds_key(args) -> bool:
    """Does `d[k] = v` add the key k to the dict d?"""
    t = atom_type(args[0])
    return isinstance(t, T.Dict) and isinstance(args[1], Const) and t.get(args[1].value) is None


def item_structured(args) -> bool:
    """Is the item x[idx] that `x[idx] = v` replaces in a list or dict maybe not a number?"""
    t, idx = atom_type(args[0]), atom_type(args[1])
    if isinstance(t, T.List) and isinstance(idx, T.Opaque) and idx.what == "slice":
        return True  # (xs[a:b] = v replaces a list)
    if isinstance(t, T.List):
        item = t.elt
    elif isinstance(t, T.Dict) and isinstance(args[1], Const):
        item = dict(t.items).get(args[1].value, T.NONE)
    else:
        return False
    return not isinstance(item, (T.Float, T.Int, T.Bool, T.NoneT, T.Bottom))


def iterated_when_run(t: T.Type) -> bool:
    """Does `for v in x` (srcad.iter) over a value of this type stay for the code to run,
    which takes the items iteration gives (runtime/containers.py iter_items)? For values whose
    items are not x[0], x[1]...: a pandas Series (indexed by labels), an object with its own
    __iter__, a set, an iterator; and values of unknown type. Arrays, lists, tuples, strings
    and ranges are indexed by position."""
    return isinstance(t, T.Unknown) or (isinstance(t, T.Opaque) and t.what != "range")


def sparse(t: T.Type) -> bool:
    """Is a value of this type a scipy.sparse matrix or array (`A @ x` is srcad.sparse_dot)?"""
    return isinstance(t, T.Opaque) and t.owner.startswith("scipy.sparse")


def vanishes(prim: str, args) -> bool:
    """An operation the types make unneeded: a length check of a value of known length that
    fits; srcad.as_numeric (anything but a list of numbers goes in as it is)."""
    if prim in ("srcad.check_unpack", "srcad.check_length"):
        return length_fits(args)
    return prim == "srcad.as_numeric"


def length_fits(args) -> bool:
    """check_unpack(xs, n, starred) / check_length(xs, n) of an xs whose length is known while
    transforming and fits."""
    t = atom_type(args[0])
    if isinstance(t, T.Tuple):
        m = len(t.elts)
    elif isinstance(t, T.Array) and t.shape:
        m = t.shape[0]
    else:
        return False
    n = args[1].value
    starred = len(args) > 2 and args[2].value
    return m >= n if starred else m == n


def _holds_containers(t: T.Type) -> bool:
    """Does a list or tuple hold tuples, lists or dicts (which max() compares item by item)?"""
    items = getattr(t, "elts", None) or getattr(t, "items", None) or ()
    elts = tuple(items) + ((t.elt,) if isinstance(t, T.List) else ())
    return any(isinstance(e, (T.Tuple, T.List, T.Dict)) for e in elts)


def check_keys_and_ints(rule, prim: str, args, op: Apply) -> None:
    """Refuse a dict key known only at run time (a loop with a known trip count is unrolled
    instead: specialize.op), a float where ints are needed, a dict indexed by a run-time int."""
    if prim in ("operator.setitem", "srcad.setitem") and isinstance(atom_type(args[0]), T.Dict) \
            and not isinstance(args[1], Const):
        err = TypeSupportError("a dict key computed at run time", [diagnostic(
            op.loc, "a dict filled with keys known only at run time",
            "srcad tracks a dict's keys while transforming: build it with constant keys "
            "(d = {'a': ..., 'b': ...}, or in a loop of at most 32 iterations over a range or constant "
            "keys), or keep the values in a list")])
        err.unrolling_helps = True
        raise err
    if rule.int_operands and float_operand(prim, args):
        raise TypeSupportError(f"{prim} of a float", [diagnostic(
            op.loc, f"{rule.int_operands} needs ints, and a float is given here",
            "an int argument you differentiate is promoted to a float: leave it out of argnums "
            "(or give it a jvp tangent of None), or convert with int(...)")])
    if prim in ("srcad.max_of", "srcad.min_of") and _holds_containers(atom_type(args[0])):
        raise TypeSupportError(f"{prim[6:9]}() of tuples", [diagnostic(
            op.loc, f"{prim[6:9]}() of tuples or lists (compared item by item) is not supported",
            "take the max of the numbers you compare, then pick the item with an if")])
    if prim == "operator.getitem" and iterates_dict(args):
        raise TypeSupportError("a dict indexed by a run-time int", [diagnostic(
            op.loc, "a dict indexed by an int computed at run time (its keys are not ints)",
            "index it by its keys: for k in d: ... d[k], or for k, v in d.items()")])

