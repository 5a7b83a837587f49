"""Which operations must run even when nothing reads their result.

An operation has an effect when it is impure (print, random numbers) or marked `keep`.
passes/dce.py marks the user's operations that srcad cannot see into (a call it could not
resolve, a custom rule) and those that may raise, since a derivative raises where the
function raises:

    def f(x):
        unused = math.log(x - 10)      # kept: raises ValueError for x <= 10
        a = np.log(x_array - 10)       # dropped when unused: NumPy only warns
        return x * x

Whether a primitive may raise is its rule's `raises` (rules/registry.py RAISES); this module
reads it against the operation's argument types: Python numbers raise where NumPy arrays
warn, and indexing with a literal key within a known length, shape or set of keys cannot
fail.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, Ext, atom_type
from ..rules import registry
from ..rules.library import freezes_distribution


def has_effect(op) -> bool:
    """Must `op` run even when its results are unused (a region: anything inside it)?"""
    if isinstance(op, Apply):
        if op.keep:
            return True
        rule = registry.lookup(op.prim)
        return rule is None or rule.impure
    return any(has_effect(o) for b in op.blocks() for o in b.ops)


def must_keep(op: Apply) -> bool:
    """Should the user's operation `op` be marked `keep`: unseen code, or it may raise?"""
    rule = registry.lookup(op.prim)
    if op.prim == "srcad.call" and isinstance(op.args[0], Const) and isinstance(op.args[0].value, Ext) and (
            freezes_distribution(op.args[0].value.obj)):
        return False  # (a frozen scipy.stats distribution made: no effect, and slow)
    return rule is None or rule.opaque or rule.custom or may_raise(op, rule)


def may_raise(op: Apply, rule=None) -> bool:
    """Can `op` raise an exception for some values of its arguments' types?"""
    rule = rule or registry.lookup(op.prim)
    if rule.type_errors and _rejected_operands(op, rule):
        return True
    kind = rule.raises
    if kind == "never":
        return False
    if kind == "always":
        return True
    bound = registry.bind(rule, op.args, op.kw)
    if kind == "index":
        return not _key_in_range(*(bound.get(p) for p in rule.params[:2]))
    if any(isinstance(atom_type(a), T.Array) for a in bound.values()):
        return False  # NumPy's rules: a warning and inf or nan
    second = bound.get(rule.params[1]) if len(rule.params) > 1 else None
    if not (isinstance(second, Const) and type(second.value) in (int, float)):
        return True
    if kind == "divide":
        return second.value == 0
    if kind == "power":
        return second.value < 0
    return True


_CONTAINERS = (T.Tuple, T.List, T.Dict)


def _rejected_operands(op: Apply, rule) -> bool:
    """May Python reject the operands of this operator with a TypeError (Rule.type_errors)?
    None, strings and values of unknown type (a helper that returns nothing: `h(x) > 0.5`),
    or an ordering between a container and something else."""
    if rule.type_errors == "never":
        return False
    types = [atom_type(a) for a in op.args]
    if any(isinstance(t, (T.NoneT, T.Str, T.Unknown)) for t in types):
        return True
    return rule.type_errors == "ordering" and any(isinstance(t, _CONTAINERS) for t in types) and not (
        len({type(t) for t in types}) == 1)


def _key_in_range(x: Atom | None, key: Atom | None) -> bool:
    if x is None or not isinstance(key, Const) or isinstance(key.value, Ext):
        return False
    t, k = atom_type(x), key.value
    if isinstance(t, T.Dict):
        return any(type(name) is type(k) and name == k for name, _ in t.items)
    if isinstance(k, slice):
        return isinstance(t, (T.Tuple, T.List)) or (isinstance(t, T.Array) and t.ndim not in (None, 0))
    if isinstance(t, T.Tuple):
        return type(k) is int and -len(t.elts) <= k < len(t.elts)
    if isinstance(t, T.Array) and t.shape is not None:
        return _array_key_in_range(t.shape, k if isinstance(k, tuple) else (k,))
    return False


def _array_key_in_range(shape: tuple, key: tuple) -> bool:
    """Basic indexing with ints, slices and None within `shape` (no Ellipsis)."""
    dims = list(shape)
    for k in key:
        if k is None:
            continue
        if not dims:
            return False
        n = dims.pop(0)
        if isinstance(k, slice):
            continue
        if type(k) is not int or not -n <= k < n:
            return False
    return True
