"""Builtins that take functions: `map`, `functools.partial`, `functools.reduce`, `sorted`,
`min` and `max` with `key=`, and `zip` as a value. A mixin of FunctionLowerer (lower.py).

The function given must be known while lowering (a function, a nested function, a lambda, a
partial of one); calls of it are inlined like any call:

    map(f, xs, ys)               [f(x, y) for x, y in zip(xs, ys)]  (a list)
    zip(xs, ys)                  [(x, y) for x, y in zip(xs, ys)]   (a list)
    sorted(xs, key=k)            keys = [k(x) for x in xs]; [xs[i] for i in srcad.sort_order(keys)]
    sorted(xs)                   [xs[i] for i in srcad.sort_order(xs)]
    max(xs, key=k)               xs[srcad.sort_order(keys, True)[0]]
    functools.partial(f, a)      a LocalFunction (closures.py): calls add `a` to their arguments
    functools.reduce(f, xs, a)   acc = a; for x in xs: acc = f(acc, x)  (without a: xs[0], then xs[1:])
    operator.itemgetter(k)       known while transforming (of literals); a call of it is x[k]

`map` and `zip` give lists rather than iterators: the same values when read once, which is
the only way the fence lets them be read (oneshot.py). The order in
`sorted` comes from the keys only, so derivatives flow through the elements it picks; it is
the order Python's stable sort gives (ties keep their order, also with reverse=True).
"""

from __future__ import annotations

import functools
import operator

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, Ext, Var, ext_object
from .closures import Partial
from .resolve import LocalFunction


class HigherOrderCalls:
    def call_static(self, fn, args, kw, node):
        if fn in (map, zip, sorted, min, max):
            args = self.no_stars(args, node)
        if fn is map:
            return self.call_map(args, kw, node)
        if fn is zip:
            return self.call_zip(args, kw, node)
        if fn is functools.partial:
            return self.make_partial(args, kw, node)
        if fn is functools.reduce:
            return self.call_reduce(self.no_stars(args, node), kw, node)
        if fn is operator.itemgetter and args and not kw and all(
                isinstance(a, Const) and not isinstance(a.value, Ext) for a in args):
            made = fn(*[a.value for a in args])  # (itemgetter(0) of literals: known while transforming)
            return Const(Ext(f"itemgetter_{next(self.ctx.counter)}", made))
        if type(fn) is operator.itemgetter:
            return self.call_getter(fn, self.no_stars(args, node), kw, node)
        kw = [(k, a) for k, a in kw if not (k == "key" and a == Const(None))]  # (key=None: no key)
        if fn is sorted:
            return self.call_sorted(args, kw, node)
        if fn in (min, max) and any(k == "key" for k, _ in kw):
            return self.call_extreme(fn, args, kw, node)
        return super().call_static(fn, args, kw, node)

    def function_of(self, a, what: str, node):
        """The function an argument holds, known while lowering (or an error)."""
        obj = ext_object(a) if ext_object(a) is not None else self.known_callee(a)
        if obj is None or not (isinstance(obj, LocalFunction) or callable(obj)):
            raise self.error(UnsupportedSyntaxError, node, f"{what} of a function computed at run time",
                             "give it a function srcad knows while transforming: a function, a "
                             "nested def or lambda, or a functools.partial of one")
        return obj

    def call_map(self, args, kw, node):
        if kw or len(args) < 2:
            raise self.error(UnsupportedSyntaxError, node, "map() needs a function and at least one "
                             "iterable, without keywords", "call map(f, xs) or map(f, xs, ys)")
        f = self.function_of(args[0], "map()", node)
        return self.build_list(args[1:], lambda items: self.call_value(f, items, [], node), node)

    def call_zip(self, args, kw, node):
        if kw or not args:
            raise self.error(UnsupportedSyntaxError, node, "zip() with keywords or without iterables "
                             "is not supported here", "call zip(xs, ys)")
        return self.build_list(args, lambda items: self.pack_tuple(items, node), node)

    def call_reduce(self, args, kw, node):
        """functools.reduce(f, xs[, initial]): a loop carrying f(acc, x) from the initial value
        (or xs[0], the loop starting at xs[1])."""
        if kw or len(args) not in (2, 3):
            raise self.error(UnsupportedSyntaxError, node, "functools.reduce() takes a function, an "
                             "iterable and maybe an initial value, without keywords",
                             "call functools.reduce(f, xs) or functools.reduce(f, xs, initial)")
        f = self.function_of(args[0], "functools.reduce()", node)
        n, element = self.sequence_of(args[1], node)
        acc = ("comp", next(self.ctx.counter), "_acc")
        self.b.var_hints[acc] = "_acc"
        self.write_key(acc, args[2] if len(args) == 3 else element(Const(0)))
        with self.loop_writing({acc}):
            start = Const(3 - len(args))  # (without an initial value: from xs[1])
            index, _ = self.b.begin_for(start, n, Const(1), index_hint="_k", loc=self.loc(node))
            self.write_key(acc, self.call_value(f, [self.b.read(acc), element(index)], [], node))
            self.b.end_for()
        result = self.b.read(acc)
        self.b.kill(acc)
        return result

    def call_getter(self, fn, args, kw, node):
        """operator.itemgetter(k)(x) is x[k]; itemgetter(j, k)(x) is (x[j], x[k])."""
        if len(args) != 1 or kw:
            raise self.error(UnsupportedSyntaxError, node, "itemgetter(...) is called with one argument",
                             "call it as key(x)")
        parts = [self.emit("operator.getitem", (args[0], Const(k)), node=node) for k in fn.__reduce__()[1]]
        return parts[0] if len(parts) == 1 else self.pack_tuple(parts, node)

    def make_partial(self, args, kw, node) -> Const:
        if not args:
            raise self.error(UnsupportedSyntaxError, node, "functools.partial() needs a function")
        f = self.function_of(args[0], "functools.partial()", node)
        part = Partial(f, tuple(args[1:]), tuple(kw), "partial", self.loc(node))
        return Const(Ext(f"partial_{next(self.ctx.counter)}", part))

    def sort_keys(self, seq, kw, node):
        """(the sequence, the keys of its elements) for `key=` (the elements themselves
        without it)."""
        opts = dict(kw)
        items = self.emit("srcad.iter", (seq,), node=node)
        if "key" not in opts:
            return items, items
        key = self.function_of(opts["key"], "key=", node)
        keys = self.build_list([items], lambda xs: self.call_value(key, xs, [], node), node)
        return items, keys

    def call_sorted(self, args, kw, node):
        if len(args) != 1 or any(k not in ("key", "reverse") for k, _ in kw):
            raise self.error(UnsupportedSyntaxError, node, "sorted() takes one iterable, key= and "
                             "reverse=", "call sorted(xs, key=f, reverse=flag)")
        items, keys = self.sort_keys(args[0], kw, node)
        order = self.emit("srcad.sort_order", (keys, dict(kw).get("reverse", Const(False))), node=node)
        return self.build_list([order], lambda i: self.emit("operator.getitem", (items, i[0]), node=node),
                               node)

    def call_extreme(self, fn, args, kw, node):
        """max(xs, key=k) (the first largest) or min(xs, key=k) (the first smallest)."""
        if any(k != "key" for k, _ in kw) or not args:
            raise self.error(UnsupportedSyntaxError, node, f"{fn.__name__}() with default= is not "
                             "supported", "check for an empty sequence before the call")
        seq = args[0] if len(args) == 1 else self.pack_tuple(args, node)
        items, keys = self.sort_keys(seq, kw, node)
        order = self.emit("srcad.sort_order", (keys, Const(fn is max)), node=node)
        first = self.emit("operator.getitem", (order, Const(0)), node=node)
        return self.emit("operator.getitem", (items, first), node=node)

    def build_list(self, seqs, item, node) -> Var:
        """[item([x0, x1, ...]) for x0, x1, ... in zip(*seqs)], as a loop."""
        parts = [self.sequence_of(s, node) for s in seqs]
        n = parts[0][0]
        for m, _ in parts[1:]:
            n = self.emit("builtins.min", (n, m), node=node)
        acc = ("comp", next(self.ctx.counter), "_list")
        self.b.var_hints[acc] = "_list"
        self.write_key(acc, self.emit("srcad.list", (), node=node))
        with self.loop_writing({acc}):
            index, _ = self.b.begin_for(Const(0), n, Const(1), index_hint="_k", loc=self.loc(node))
            value = item([element(index) for _, element in parts])
            self.write_key(acc, self.emit("srcad.list_append", (self.b.read(acc), value), node=node))
            self.b.end_for()
        result = self.b.read(acc)
        self.b.kill(acc)
        return result
