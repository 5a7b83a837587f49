"""Binding the arguments of a call to the parameters of the function srcad inlines: `*args`
become a tuple and `**kwargs` a dict, defaults are filled in (a nested function's are the
values computed at its `def`), and `f(*v)` of a v whose length is known only once types
are fills the positional parameters left. A mixin of FunctionLowerer (lower.py).
"""

from __future__ import annotations

import functools
import inspect
import types

import gast

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, Var
from .closures import Default
from .displays import Star
from .resolve import Static


class ArgumentBinding:
    def bind(self, sig: inspect.Signature, args, kw, node, caller) -> list:
        """(parameter, value) for a call: `*args` a tuple, `**kwargs` a dict, defaults filled."""
        if any(isinstance(a, Star) for a in args):
            args = self.spread(sig, args, kw, node, caller)
        try:
            bound = sig.bind(*args, **dict(kw))
        except TypeError as e:
            name = getattr(self.closure, "qualname", None) or self.parsed.fn.__qualname__
            raise caller.error(UnsupportedSyntaxError, node, f"bad call to {name}: {e}") from None
        bound.apply_defaults()
        out = []
        for name, value in bound.arguments.items():
            kind = sig.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                value = caller.pack_tuple(list(value), node)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                items = [a for k, v in value.items() for a in (Const(k), v)]
                value = caller.remember_keys(caller.emit("srcad.dict", items, node=node), list(value),
                                             list(value.values()))
            elif isinstance(value, Default):  # (a nested function's)
                value = value.atom
            elif not isinstance(value, (Var, Const)):
                value = self.atom(Static(value))
            out.append((name, value))
        return out

    def written_back(self, bound: list, node, caller) -> list:
        """(parameter, its value on entry, the caller's variable, whether only `+=` rebinds it,
        the view) for the parameters given a local variable of the caller by name (`apply_bc(u)`;
        view None) or an item of one (`apply_bc(u[1:-1])`, `step(params["W"])`; view the
        container's value and the index) that the function does not bind anew: if it changes
        one in place (`u[0] = 0.0`, `u += v` on an array), the caller's variable holds the
        changed value after the call (`write_back`), as the object it names does in Python.
        (Other names of the object keep the old value, which the check of unsafe mutations
        refuses to read: transforms/safety.py.)"""
        if not isinstance(node, gast.Call):
            return []
        given = node.args + [k.value for k in node.keywords]
        names = [a.id for a in given if isinstance(a, gast.Name) and a.id in caller.scope.locals]
        bases = {a.value.id for a in given if isinstance(a, gast.Subscript) and isinstance(a.value, gast.Name)
                 and a.value.id in caller.scope.locals}
        if not names and not bases:
            return []
        rebound, augmented = rebound_names(self.node)
        out = []
        for param, value in bound:
            if param in rebound or not isinstance(value, Var):
                continue
            given_names = [name for name in names if caller.b.read(caller.key(name)) is value]
            out += [(param, value, name, param in augmented, None) for name in given_names]
            made = caller.b.defining(value)  # (u[index] given, or w = u[index] earlier in the block)
            if made is not None and made.prim == "operator.getitem":
                views = bases | ({n for n in caller.scope.locals if n not in given_names}
                                 if given_names else set())  # (w's container, for w given by name)
                out += [(param, value, name, param in augmented, (made.args[0], made.args[1]))
                        for name in views if made.args[0] is caller.b.read(caller.key(name))]
        return out

    def write_back(self, changed: list, caller, node) -> None:
        """The caller's variables bound to what the function changed (see `written_back`);
        after `a += v` only if that changed the object in place, which its type tells; an item
        stored back into its container if it is the container's own (an array's basic index, a
        list's position, a dict's key: transforms/sequences.py written_back, written_back_item)."""
        for old, new, name, augmented, view in changed:
            if view is None:
                back = caller.emit("srcad.written_back", (old, new), node=node) if augmented else new
                caller.write(name, back)
            elif caller.b.read(caller.key(name)) is view[0]:  # (the container itself is not rebound)
                caller.write(name, caller.emit("srcad.written_back_item", (*view, old, new), node=node))

    def spread(self, sig: inspect.Signature, args, kw, node, caller) -> list:
        """f(a, *v) of a v whose length is known only once types are: the positional
        parameters left (none with a default, no *args) take v's items, and v must have
        exactly that many (checked when the code runs, as Python does)."""
        P = inspect.Parameter
        stars = [a for a in args if isinstance(a, Star)]
        given = {k for k, _ in kw}
        params = [p for p in sig.parameters.values() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
                  and p.name not in given]
        n = len(params) - (len(args) - 1)
        if len(stars) > 1 or n < 0 or any(p.kind is P.VAR_POSITIONAL for p in sig.parameters.values()) or any(
                p.default is not P.empty for p in params):
            raise caller.error(UnsupportedSyntaxError, stars[0].node, "'*' unpacking of a value whose "
                               "length is not known while transforming, into parameters it cannot tell "
                               "apart (defaults or *args)", "unpack a tuple (a *args parameter, x.shape, a "
                               "tuple built in the function), or pass the elements explicitly")
        v = stars[0].value
        caller.emit("srcad.check_length", (v, Const(n)), node=stars[0].node, nouts=0)
        items = [caller.emit("operator.getitem", (v, Const(i)), node=stars[0].node) for i in range(n)]
        i = args.index(stars[0])
        return list(args[:i]) + items + list(args[i + 1:])



def argument_cells(statics: dict, params) -> dict:
    """{id(cell) or id(partial): (parameter, k)} for the functions given as arguments
    (`statics`: position -> function): their captured values, and a partial's bound numbers,
    are read from the argument when the code runs (LowerContext.cell_sources)."""
    out: dict = {}
    for i, obj in statics.items():
        fn = obj.func if type(obj) is functools.partial else obj
        if type(obj) is functools.partial:
            out.setdefault(id(obj), (params[i], None))
        if type(fn) is types.FunctionType:
            for k, cell in enumerate(fn.__closure__ or ()):
                out.setdefault(id(cell), (params[i], k))
    return out


def rebound_names(node) -> tuple[set, set]:
    """The names a function's body binds anew (assignment, loop target, `del`, a nested `def`,
    `import`...) anywhere in it, and those it only changes by `a += v` (an array changed in place,
    a number a new object): its parameters among them may not be the objects the caller passed."""
    out, augmented = set(), set()
    skip = {id(n.target) for n in gast.walk(node) if isinstance(n, gast.AugAssign)}
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            (augmented if id(n) in skip else out).add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and n is not node:
            out.add(n.name)
        elif isinstance(n, gast.alias):
            out.add(n.asname or n.name.split(".")[0])
    return out, augmented - out
