"""Tuple, list and dict displays, the arguments of calls (`*v` and `**d` unpacking), and
`np.r_[...]` / `np.c_[...]` of values.

A mixin of ExprLowerer (expr.py). `*v` of a value whose items are known while lowering (a
tuple built in the function, a *args parameter, a literal, a list display) gives those items;
of a value whose length is known only once types are (`x.shape`, a tuple argument) it is a
`Star`: a display becomes a concatenation (`(*batch, n)` is `tuple(batch) + (n,)`) and a call
becomes `srcad.star_call`, which type inference expands (specialize.py). `**d` needs a dict
whose keys are known while lowering (a display with constant keys, a **kwargs parameter).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Atom, Const, Var


def is_literal(obj: object) -> bool:
    if isinstance(obj, tuple):
        return all(is_literal(x) for x in obj)
    return obj is None or obj is Ellipsis or isinstance(obj, (bool, int, float, str))


@dataclass(frozen=True)
class Star:
    """`*value` among the arguments of a call, its length known only once types are (as for
    `x.shape`): the call becomes `srcad.star_call(prim, *before, rest)`, which type inference
    turns into the call with the arguments before the first star and the items of the tuple
    `rest` (specialize.py)."""

    value: Atom
    node: object


class Displays:
    def expr_Tuple(self, node) -> Atom:
        return self.display(self._elements(node.elts, stars=True), "tuple", node)

    def pack_tuple(self, elts, node) -> Atom:
        """A tuple of these values (a constant when they all are literals)."""
        if all(isinstance(e, Const) and is_literal(e.value) for e in elts):
            return Const(tuple(e.value for e in elts))
        v = self.emit("srcad.tuple", elts, node=node)
        self.remember_elements(v, tuple(elts))
        return v

    def display(self, parts, kind: str, node) -> Atom:
        """A tuple or list display; `*v` of a length known only once types are is a
        concatenation: (*batch, n) is tuple(batch) + (n,)."""
        make = (lambda xs: self.pack_tuple(xs, node)) if kind == "tuple" else (
            lambda xs: self.remember_list(self.emit("srcad.list", xs, node=node), xs))
        if not any(isinstance(p, Star) for p in parts):
            return make(parts)
        pieces, run = [], []
        for p in parts:
            if isinstance(p, Star):
                if run:
                    pieces.append(make(run))
                run = []
                pieces.append(self.emit(f"builtins.{kind}", (p.value,), node=node))
            else:
                run.append(p)
        if run:
            pieces.append(make(run))
        out = pieces[0]
        for piece in pieces[1:]:
            out = self.emit("operator.add", (out, piece), node=node)
        return out

    def index_concatenation(self, obj, node) -> Atom | None:
        """np.r_[a, b, ...] is np.concatenate of np.atleast_1d of each piece, np.c_[a, b, ...]
        np.concatenate of srcad.c_column of each along the last axis; None (an ordinary
        subscript, refused if differentiated) with slices or strings among the pieces."""
        if obj is not np.r_ and obj is not np.c_:
            return None
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(i, (gast.Slice, gast.Starred)) or (isinstance(i, gast.Constant) and isinstance(
                i.value, str)) for i in items):
            return None
        prim = "numpy.atleast_1d" if obj is np.r_ else "srcad.c_column"
        pieces = self.display([self.emit(prim, (self.value(i),), node=node) for i in items], "list", node)
        axis = Const(0 if obj is np.r_ else -1)
        return self.emit("numpy.concatenate", (pieces,), (("axis", axis),), node=node)

    def remember_elements(self, v: Var, elts: tuple) -> None:
        """Note that the tuple v holds these values (for `*v` later); a hook."""

    def remember_list(self, v: Var, elts: list) -> Var:
        """Note that the list v was made of these values (for `*v` later); a hook."""
        return v

    def elements_of(self, a: Atom) -> tuple | None:
        """The values of the tuple or list `a`, when its length is known while lowering."""
        if isinstance(a, Const) and isinstance(a.value, tuple) and is_literal(a.value):
            return tuple(Const(x) for x in a.value)
        return None

    def expr_List(self, node) -> Atom:
        return self.display(self._elements(node.elts, stars=True), "list", node)

    def expr_Dict(self, node) -> Atom:
        if node.keys and node.keys[0] is None:  # {**d, 'k': v}: a copy of d, then the keys
            return self.dict_with(self.value(node.values[0]), list(zip(node.keys[1:], node.values[1:])), node)
        items: dict = {}  # (a key given twice keeps its first place and its last value, as in Python)
        for k, v in zip(node.keys, node.values):
            key = self._dict_key(k, node)
            value = self.value(v)
            items[key.value] = (items[key.value][0] if key.value in items else key, value)
        args = [a for key, value in items.values() for a in (key, value)]
        return self.remember_keys(self.emit("srcad.dict", args, node=node), [a.value for a in args[::2]],
                                  args[1::2])

    def dict_with(self, mapping: Atom, items: list, node) -> Atom:
        """A copy of the dict `mapping` with the (key node or str, value node or Atom) items set
        in order, as `{**d, 'k': v}` and `dict(d, k=v)` make."""
        out = self.emit("builtins.dict", (mapping,), node=node)
        for k, v in items:
            key = Const(k) if isinstance(k, str) else self._dict_key(k, node)
            value = v if isinstance(v, Atom) else self.value(v)
            out = self.emit("operator.setitem", (out, key, value), node=node)
        return out

    def _dict_key(self, k, node) -> Const:
        if k is None:
            raise self.error(UnsupportedSyntaxError, node, "'**' in a dict display is supported only "
                             "first, as {**d, 'k': v}", "copy the dict first, then set the keys: "
                             "d = dict(p); d['k'] = v")
        key = self.static_of(self.expr(k))
        if key is None or not is_literal(key.obj):
            raise self.error(UnsupportedSyntaxError, k, "dict keys must be literals",
                             "use constant keys such as 'W' or 0")
        return Const(key.obj)

    def constant_key_pairs(self, a: Atom, call) -> list | None:
        """[(key, value atom)] for `dict(a)` with `a` a display of pairs (tuples or lists of
        two) whose keys are constants (`dict([("a", x), ("b", y)])`: what it makes), else None."""
        shown = call.args[0] if isinstance(call, gast.Call) and len(call.args) == 1 else None
        pair = (gast.Tuple, gast.List)
        if not isinstance(shown, pair) or not all(
                isinstance(e, pair) and len(e.elts) == 2 and isinstance(e.elts[0], gast.Constant)
                for e in shown.elts):
            return None
        pairs: dict = {}  # (a key given again keeps its first place and takes the last value, as in Python)
        for i, e in enumerate(shown.elts):
            pairs[e.elts[0].value] = self.emit("operator.getitem", (
                self.emit("operator.getitem", (a, Const(i)), node=e), Const(1)), node=e)
        return list(pairs.items())

    def remember_keys(self, v: Var, keys: list, values: list) -> Var:
        """Note that the dict v has these keys and values (for `**v` later); a hook."""
        return v

    def keys_of(self, a: Atom) -> list | None:
        """The keys of the dict `a`, when they are known while lowering."""
        return None

    def _elements(self, elts, stars: bool = False) -> list:
        """The values of the items of a display or call; `*v` of a value whose length is
        known only once types are is a Star when `stars`, an error otherwise."""
        out = []
        for e in elts:
            if isinstance(e, gast.Starred):
                out.extend(self._starred(e, stars))
            else:
                out.append(self.value(e))
        return out

    def _starred(self, node, stars: bool = False) -> list:
        if isinstance(node.value, (gast.Tuple, gast.List)):
            return self._elements(node.value.elts, stars)
        value = self.expr(node.value)
        s = self.static_of(value)
        if s is not None and isinstance(s.obj, (tuple, list)) and is_literal(tuple(s.obj)):
            return [Const(x) for x in s.obj]
        atom = self.atom(value, node)
        elts = self.elements_of(atom)
        if elts is not None:
            return list(elts)
        if stars:
            return [Star(atom, node)]
        raise self.star_error(node)

    def star_error(self, node):
        return self.error(UnsupportedSyntaxError, node, "'*' unpacking of a value whose length is not "
                          "known while transforming", "unpack a tuple (a *args parameter, x.shape, a "
                          "tuple built in the function), or pass the elements explicitly")

    def no_stars(self, args, node) -> list:
        for a in args:
            if isinstance(a, Star):
                raise self.star_error(a.node)
        return args

    def call_args(self, node) -> tuple[list, list[tuple[str, Atom]]]:
        """Positional arguments (a Star for `*v` of a length known only once types are) and
        keyword arguments (`**d` of a dict whose keys are known while lowering)."""
        args = self._elements(node.args, stars=True)
        kw = []
        for k in node.keywords:
            if k.arg is not None:
                kw.append((k.arg, self.value(k.value)))
                continue
            d = self.value(k.value)
            keys = self.keys_of(d)
            if keys is None or not all(isinstance(key, str) for key in keys):
                raise self.error(UnsupportedSyntaxError, k.value, "'**' of a dict whose keys are not "
                                 "known while transforming", "pass keyword arguments explicitly, or "
                                 "unpack a dict built in the function with constant keys, or a **kwargs "
                                 "parameter")
            kw += [(key, self.emit("operator.getitem", (d, Const(key)), node=k.value)) for key in keys]
        return args, kw

    def call_max_min(self, fn, args, kw, node) -> Atom:
        """max/min of one iterable, or of three or more values (pairwise)."""
        if kw or not args:
            raise self.error(UnsupportedSyntaxError, node, f"{fn.__name__}() with key= or default= "
                             "is not supported", "compute the values first, then take their max")
        if len(args) == 1:
            return self.emit(f"srcad.{fn.__name__}_of", args, node=node)
        out = args[0]
        for a in args[1:]:
            out = self.emit(f"builtins.{fn.__name__}", (out, a), node=node)
        return out
