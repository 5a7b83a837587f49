"""`+` and `*` on lists and tuples (concatenation and repetition, as in Python), tuples
packed from atoms, and `xs.sort()` on a local list: a mixin of Specializer (specialize.py),
which resolves calls by type."""

from __future__ import annotations

from ..errors import TypeSupportError, UnsafeMutationError, UnsupportedSyntaxError, diagnostic, where_text
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, atom_type
from ..passes.fold import basic_key
from ..rules import registry


def _unshared(container, item, loc) -> list:
    """The check, when the code runs, that `container` holds the item changed in place in one
    slot only (in two, Python's change shows in both)."""
    return [Apply((), "srcad.check_unshared", (container, item, Const(where_text(loc, "?"))), (), loc)]


class SequenceOps:
    """Needs `fresh` of Specializer."""

    def sequence_op(self, op: Apply, prim: str, args, kw, pre: list):
        """`+` and `*` on lists and tuples are concatenation and repetition, as in Python;
        a list meeting an array is converted by NumPy and added or multiplied elementwise."""
        types = [atom_type(a) for a in args]
        if prim in ("operator.or_", "operator.ior"):  # (a dict's | is a merge, not the bitwise or)
            if any(isinstance(t, T.Dict) for t in types):
                msg = "| of dicts (a merge) is not supported"
                raise TypeSupportError(msg, [diagnostic(op.loc, msg, "write {**d, **e} or d.update(e)")])
            return prim, args, kw
        seqs = [isinstance(t, (T.List, T.Tuple)) for t in types]
        if not any(seqs):
            return prim, args, kw
        if prim in ("operator.iadd", "operator.imul") and isinstance(types[0], T.List):
            return self.list_in_place(op, prim, args, types, pre)
        other = types[1] if seqs[0] else types[0]
        if isinstance(other, (T.Array, T.Float)) or (isinstance(other, T.Num) and prim.endswith("add")):
            return prim, args, kw  # NumPy: the list becomes an array
        repeat = prim.endswith("mul")
        if repeat and not isinstance(other, (T.Int, T.Bool)) or (
                not repeat and not (seqs[0] and seqs[1])) or (
                not repeat and type(types[0]) is not type(types[1])):
            kinds = " and ".join(str(t) for t in types)
            grown = any(isinstance(t, T.Unknown) for t in types)  # (t += (v,) in a loop: unrolled)
            err = TypeSupportError(f"{'*' if repeat else '+'} of {kinds}", [diagnostic(
                op.loc, f"srcad cannot tell what {'*' if repeat else '+'} does with {kinds} here" + (
                    " (a tuple that grows in a loop changes its type every iteration)" if grown else ""),
                "use a list (xs.append(v)), or a for loop of at most 32 iterations over a range" if grown
                else "give both operands known types (a list or tuple and an int for repetition, two lists "
                "or two tuples for concatenation, or arrays for arithmetic)")])
            err.unrolling_helps = grown
            raise err
        if isinstance(types[0], T.List) or isinstance(types[1], T.List):
            if repeat:
                return "srcad.list_repeat", (args if seqs[0] else args[::-1]), kw
            return "srcad.list_concat", args, kw
        return "srcad.tuple", self.tuple_items(op, args, types, repeat, pre), ()

    def item_update(self, op: Apply, args) -> list:
        """`x[k] op= v` (frontend/lower.py): Python gets the item, applies op's in-place form
        (`__iadd__`) and stores the result. An array or list held by a list or dict changes in
        place, which every other reference to it sees: the in-place operation, checked as
        `a += b` is (transforms/safety.py). Anything else (an item of an array: its store is
        the write; a number, a tuple) is replaced: `x[k] = x[k] op v`."""
        inplace, base, old, rhs = args
        mutable = isinstance(atom_type(base), (T.List, T.Dict)) and \
            isinstance(atom_type(old), (T.Array, T.List))
        prim = inplace.value if mutable else inplace.value.replace(".i", ".", 1)
        check = _unshared(base, old, op.loc) if mutable else []
        return check + self.apply_args(Apply(op.outs, prim, (old, rhs), (), op.loc), (old, rhs), ())

    def written_back(self, op: Apply, args) -> list:
        """The caller's variable after an inlined function did `a += v` to the parameter it
        was passed as (frontend/binding.py written_back): the changed value if that changed the
        object in place (an array, a list or a dict: `__iadd__`), else (a number, a tuple, an
        object: a new one bound to `a`) the value before the call."""
        old, new = args
        self.env[op.outs[0]] = new if isinstance(atom_type(old), (T.Array, T.List, T.Dict)) else old
        return []

    def written_back_item(self, op: Apply, args) -> list:
        """The caller's container after an inlined function changed the item it was given
        (`apply_bc(u[1:-1])`, `step(params["W"])`: frontend/binding.py written_back) in place:
        the item stored back where the container holds that very object (a view of an array
        by a basic index: integers and slices; a list's item by position; a dict's by key),
        else (a copy: a fancy index, a list's slice; a number) the container unchanged."""
        base, index, old, new = args
        t, item = atom_type(base), atom_type(old)
        own = isinstance(t, T.Array) and isinstance(item, T.Array) and basic_key(atom_type(index)) or \
            isinstance(t, T.List) and isinstance(atom_type(index), (T.Int, T.Bool)) or isinstance(t, T.Dict)
        if not own or not isinstance(item, (T.Array, T.List, T.Dict)):
            self.env[op.outs[0]] = base
            return []
        check = _unshared(base, old, op.loc) if isinstance(t, (T.List, T.Dict)) else []
        return check + self.apply_args(Apply(op.outs, "operator.setitem", (base, index, new), (), op.loc),
                                       (base, index, new), ())

    def dict_method(self, op: Apply, name: str, d, rest, kw) -> list | None:
        """`d.update(e)`, `d.update(k=v)` and `d.setdefault(k, v)` on a local dict whose keys
        are known (and e's): the writes `d[k] = ...` they are, each checked as any write into d
        (transforms/safety.py). None when the keys are not known (refused as before)."""
        new, result = op.outs
        ops: list = []
        if name == "update" and len(rest) <= 1 and (not rest or isinstance(atom_type(rest[0]), T.Dict)):
            keys = [Const(k) for k, _ in atom_type(rest[0]).items] if rest else []
            pairs = [(k, self._item(rest[0], k, op, ops)) for k in keys] + [(Const(k), v) for k, v in kw]
            outcome = Const(None)
        elif name == "setdefault" and len(rest) in (1, 2) and not kw and isinstance(rest[0], Const):
            default = rest[1] if len(rest) == 2 else Const(None)
            present = any(k == rest[0].value for k, _ in atom_type(d).items)
            outcome = self._item(d, rest[0], op, ops) if present else default
            pairs = [] if present else [(rest[0], default)]
        else:
            return None
        for key, value in pairs:
            written = self.fresh("", T.UNKNOWN)
            ops += self.apply_args(Apply((written,), "operator.setitem", (d, key, value), (), op.loc),
                                   (d, key, value), ())
            d = self.atom(written)
        self.env[new], self.env[result] = d, outcome
        return ops

    def _item(self, d, key, op: Apply, ops: list) -> Atom:
        """d[key], its operations added to ops."""
        item = self.fresh("", T.UNKNOWN)
        ops += self.apply_args(Apply((item,), "operator.getitem", (d, key), (), op.loc), (d, key), ())
        return self.atom(item)

    def list_in_place(self, op: Apply, prim: str, args, types, pre: list):
        """`xs += ys` and `xs *= n` change the list in place (list.__iadd__, __imul__): every
        other reference to it sees the change, so they are the user's writes xs.extend(...),
        checked as xs.append(v) is (transforms/safety.py), not a new list."""
        xs, other = args
        if prim == "operator.iadd" and isinstance(types[1], T.List):
            return registry.lookup("list.extend").name, (xs, other), ()
        if prim == "operator.imul" and isinstance(other, Const) and type(other.value) is int \
                and other.value >= 1:
            more = self.fresh("", T.List(types[0].elt))
            pre.append(Apply((more,), "srcad.list_repeat", (xs, Const(other.value - 1)), (), op.loc))
            return registry.lookup("list.extend").name, (xs, more), ()
        msg = f"{'+=' if prim.endswith('iadd') else '*='} of a list and {types[1]}"
        raise UnsafeMutationError(msg, [diagnostic(
            op.loc, f"{msg} changes the list in place, in a way srcad does not follow",
            "write xs.extend(ys) (a list ys), or build a new list: xs = xs + list(ys), xs = xs * n")])

    def array_in_place(self, op: Apply, name: str, recv: Atom, rest, pre: list):
        """`y.sort()` and `y.fill(v)` on a local array: the write `y[...] = np.sort(y)` (or
        `= v`), checked as any item write into y is (transforms/safety.py)."""
        if name == "fill":
            return "operator.setitem", (recv, Const(Ellipsis), rest[0]), ()
        ordered = self.fresh("", atom_type(recv))
        pre.append(Apply((ordered,), "numpy.sort", (recv,), (), op.loc))
        return "operator.setitem", (recv, Const(Ellipsis), ordered), ()

    def built_item(self, op: Apply, prim: str, args, pre: list) -> Atom | None:
        """`t[i]`, i known, of a tuple built here: its item (a tuple does not change); of the
        items of a dict d with known keys (`for k, v in d.items()`, unrolled): the pair
        (key, d[key]) (d's later changes are refused while the items are read: safety.py)."""
        if prim == "srcad.method" and args[0] == Const("get") and len(args) in (3, 4) \
                and isinstance(atom_type(args[1]), T.Dict) and isinstance(args[2], Const):
            return self.dict_get(op, args[1], args[2], args[3] if len(args) == 4 else Const(None), pre)
        if prim != "operator.getitem" or not isinstance(args[1], Const) or type(args[1].value) is not int:
            return None
        i = args[1].value
        if args[0] in self.tuples_built:
            items = self.tuples_built[args[0]]
            return items[i] if -len(items) <= i < len(items) else None
        if args[0] not in self.items_of:
            return None
        d = self.items_of[args[0]]
        d = self.current_dicts.get(d, d)  # (the items view sees the dict as it is now)
        keys = [k for k, _ in atom_type(d).items]
        if not -len(keys) <= i < len(keys):
            return None
        v, pair = self.fresh("", T.UNKNOWN), self.fresh("", T.UNKNOWN)
        pre += self.apply(Apply((v,), "operator.getitem", (d, Const(keys[i])), (), op.loc))
        pre += self.apply(Apply((pair,), "srcad.tuple", (Const(keys[i]), self.atom(v)), (), op.loc))
        return self.atom(pair)

    def dict_get(self, op: Apply, d: Atom, key: Const, default: Atom, pre: list) -> Atom:
        """`d.get(k, default)` of a dict whose keys are known: d[k], or the default."""
        if not any(k == key.value for k, _ in atom_type(d).items):
            return default
        v = self.fresh("", T.UNKNOWN)
        pre += self.apply(Apply((v,), "operator.getitem", (d, key), (), op.loc))
        return self.atom(v)

    def tuple_items(self, op: Apply, args, types, repeat: bool, pre: list) -> tuple:
        """The items of a tuple concatenation (t1 + t2) or repetition (t * n, n known)."""
        if repeat:
            seq, n = (args[0], args[1]) if isinstance(types[0], T.Tuple) else (args[1], args[0])
            if not isinstance(n, Const):
                raise TypeSupportError("a tuple repeated a number of times known only at run time", [
                    diagnostic(op.loc, "a tuple repeated a number of times known only at run time",
                               "use a list (xs * n) or build the tuple with a known count")])
            parts = [(seq, atom_type(seq))] * max(int(n.value), 0)
        else:
            parts = list(zip(args, types))
        items = []
        for seq, t in parts:
            for i, et in enumerate(t.elts):
                v = self.fresh("", et)
                pre.append(Apply((v,), "operator.getitem", (seq, Const(i)), (), op.loc))
                items.append(v)
        return tuple(items)

    def pack(self, atoms, op: Apply, pre: list) -> Atom:
        if all(isinstance(a, Const) for a in atoms):
            return Const(tuple(a.value for a in atoms))
        v = self.fresh("", T.Tuple(tuple(atom_type(a) for a in atoms)))
        pre.append(Apply((v,), "srcad.tuple", tuple(atoms), (), op.loc))
        return v

    def list_sort(self, op: Apply, recv: Atom, rest, kw, pre: list):
        """`xs.sort()` / `xs.sort(reverse=r)` on a local list: the order of its items (a
        stable sort, as Python's), then the items put in that order in place, so that the
        derivative follows them (srcad.list_permute)."""
        opts = dict(kw)
        if rest or set(opts) - {"key", "reverse"} or opts.get("key", Const(None)) != Const(None):
            msg = "xs.sort() with a key function or positional arguments is not supported"
            raise UnsupportedSyntaxError(msg, [diagnostic(op.loc, msg, "write xs = sorted(xs, key=f, "
                                                          "reverse=r), which srcad differentiates")])
        order = self.fresh("order", T.List(T.INT))
        pre.append(Apply((order,), "srcad.sort_order", (recv, opts.get("reverse", Const(False))), (), op.loc))
        return "srcad.list_permute", (recv, order), ()
