"""Functions kept in tuples, lists and dicts the function makes, and called from there.

    fs = [lambda: i * x for i in range(3)]     # every item: the same lambda
    ops = {"act": np.tanh, "out": lambda z: z}  # per key
    return fs[0]() + ops["act"](x)

While lowering, srcad notes which functions a container made in the function holds: per
position of a display (and all items, when they are the same function), per key of a dict
display, all items of a comprehension whose element is a function. Indexing, iterating and
copying such a container give values whose function is known, so that a call of them is
inlined like a call by name. A container changed after it was made (`fs.append(g)`,
`fs[0] = g`) is a new value, whose functions are not known; and a change through another
name is refused by the mutation check, since the original is still read.

The items of the container, when the code runs, are what srcad put there (for a nested
function, an object only srcad can call): `check_no_local_functions` (closures.py) lets
such a container be indexed, iterated and measured, and refuses any other use.
"""

from __future__ import annotations

from ..ir.nodes import Atom, Const, Ext, Var
from .resolve import LocalFunction

EVERY = object()  # the key of what every item of a container is
DICT = object()  # the key of whether the container is a dict


def function_in(a: Atom):
    """The function a constant is (a nested function, a partial, any other callable that is
    not a class), or None."""
    if isinstance(a, Const) and isinstance(a.value, Ext):
        obj = a.value.obj
        if isinstance(obj, LocalFunction) or (callable(obj) and not isinstance(obj, type)):
            return obj
    return None


class KnownCallees:
    """A mixin of FunctionLowerer (lower.py); `ctx.callees` maps a value to the function it
    is, `ctx.holds` a container to {position or key: function}."""

    def emit(self, prim: str, args, kw=(), node=None, nouts: int = 1, hint: str = ""):
        out = super().emit(prim, args, kw, node, nouts, hint)
        if nouts == 1:
            self.follow(prim, args, out)
        return out

    def remember_items(self, v: Var, items: list, keyed: bool = False) -> None:
        """The container v holds `items` (a list of (position or key, value)); `keyed`: a
        dict (iterating it gives its keys)."""
        known = {}
        for k, a in items:
            f = function_in(a) or self.known_callee(a)
            if f is not None:
                known[k] = f
        if len(known) == len(items) and items and all(f is known[items[0][0]] for f in known.values()):
            known[EVERY] = known[items[0][0]]
        if known:
            known[DICT] = keyed
            self.ctx.holds[v] = known

    def remember_every(self, v: Var, item: Atom) -> None:
        """Every item of the list v is `item` (a comprehension's element)."""
        f = function_in(item) or self.known_callee(item)
        if f is not None:
            self.ctx.holds[v] = {EVERY: f, DICT: False}

    def known_callee(self, a) -> object | None:
        """The function a value is, when it was read out of a container known to hold it."""
        return self.ctx.callees.get(a) if isinstance(a, Var) else None

    def follow(self, prim: str, args, out) -> None:
        """After `out = prim(*args)`: what out is or holds, when args[0] holds functions."""
        held = self.ctx.holds.get(args[0]) if args and isinstance(args[0], Var) else None
        if held is None or not isinstance(out, Var):
            return
        if prim == "operator.getitem":
            key = args[1].value if isinstance(args[1], Const) else None
            if isinstance(key, slice):
                if EVERY in held:
                    self.ctx.holds[out] = {EVERY: held[EVERY], DICT: False}
                return
            f = held.get(key, held.get(EVERY)) if key is not None else held.get(EVERY)
            if f is not None:
                self.ctx.callees[out] = f
        elif prim in ("srcad.iter", "builtins.list", "builtins.tuple") and not held[DICT] or (
                prim == "srcad.bound"):
            self.ctx.holds[out] = held
