"""Cotangents of lists of arrays, when their shapes are known (code specialised on shapes):
the adjoint of joining a list built in the function (`np.concatenate([a, b])`) is slices of
the cotangent at offsets known while transforming, not a call of the generic `split_like`
(which reads the items' shapes when the code runs, so the loop that joins them must keep
the list for the backward sweep); and `array_adjoint`, which splits the cotangent of an array
made from a list like that list, is an item of the cotangent itself when the items are not
lists.

The reverse transform writes the adjoint of `np.concatenate([a, b])` as

    pieces = srcad.split_like(g, [a, b], 0)      # (a list display: its type has the shapes)
    a_bar, b_bar = pieces[0], pieces[1]

which becomes `a_bar = g[0:2]; b_bar = g[2:5]` for a of shape (2,) and b of shape (3,)
(tests/test_shapes_known.py).
A mixin of Simplifier (simplify.py): needs its `defs`, `fresh` and `pending`.
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, Var, atom_type

_PLAIN = (T.Array, T.Float, T.Int, T.Bool)  # items array_adjoint passes through unchanged


class KnownPieces:
    def split_known(self, op: Apply):
        """srcad.split_like(g, arrays, axis[, ndmin]) of a list built here whose items have
        known shapes of g's rank: the list of slices of g (None otherwise)."""
        a = op.args
        if op.kw or len(a) < 2 or len(a) > 4:
            return None
        g, arrays = a[0], a[1]
        axis, ndmin = (a[2] if len(a) > 2 else Const(0)), (a[3] if len(a) > 3 else Const(1))
        shapes = self._item_shapes(arrays)
        gt = atom_type(g)
        if shapes is None or not isinstance(gt, T.Array) or gt.shape is None or not gt.shape \
                or not isinstance(axis, Const) or type(axis.value) is not int or ndmin != Const(1):
            return None
        nd = len(gt.shape)
        if not -nd <= axis.value < nd or any(s is None or len(s) != nd for s in shapes):
            return None
        ax = axis.value % nd
        rest = [s[:ax] + s[ax + 1:] for s in shapes]
        if any(r != gt.shape[:ax] + gt.shape[ax + 1:] for r in rest) or \
                sum(s[ax] for s in shapes) != gt.shape[ax]:
            return None
        pieces, start = [], 0
        for s in shapes:
            sl = slice(start, start + s[ax])
            key = sl if ax == 0 else (slice(None),) * ax + (sl,)
            v = self.fresh(T.Array(nd, gt.kind, s))
            self.pending.append(Apply((v,), "operator.getitem", (g, Const(key)), (), op.loc))
            pieces.append(v)
            start += s[ax]
        return dataclasses.replace(op, prim="srcad.list", args=tuple(pieces), kw=())

    def item_of_adjoint(self, op: Apply):
        """array_adjoint(v, xs)[i], the cotangent of item i of the list xs that np.array made
        an array of, is v[i] when that item is not itself a list (array_adjoint returns it
        as it is) and v is a list or an array of known rank (not a scalar zero)."""
        x, key = op.args
        d = self.defs.get(x) if isinstance(x, Var) else None
        if d is None or d.prim != "srcad.array_adjoint" or len(d.args) != 2 or d.kw \
                or not isinstance(key, Const) or type(key.value) is not int:
            return None
        v, xs = d.args
        vt = atom_type(v)
        if not (isinstance(vt, (T.List, T.Tuple)) or (isinstance(vt, T.Array) and vt.ndim)):
            return None
        item = self._item_type(xs, key.value)
        if isinstance(item, _PLAIN):
            return dataclasses.replace(op, args=(v, key))
        inner = self._built_items(xs)
        if inner is None or not isinstance(vt, T.Array) or vt.ndim is None or vt.ndim < 2 \
                or self._built_items(inner[key.value]) is None:
            return None
        # an item that is a list built here: split the row v[i] like it
        row = self.fresh(T.Array(vt.ndim - 1, vt.kind, vt.shape[1:] if vt.shape else None))
        self.pending.append(Apply((row,), "operator.getitem", (v, key), (), op.loc))
        return dataclasses.replace(op, prim="srcad.array_adjoint", args=(row, inner[key.value]))

    def _item_shapes(self, a: Atom):
        """The exact shapes of the items of a list of arrays: from its type (a list display of
        arrays of known shapes, T.List.shapes: also once kept for a backward sweep), or from
        the operation that built it here; None when one is not known."""
        t = atom_type(a)
        if isinstance(t, T.List) and t.shapes is not None:
            return list(t.shapes)
        items = self._built_items(a)
        if items is None:
            return None
        return [T.shape_of(atom_type(x)) if isinstance(atom_type(x), T.Array) else None for x in items]

    def _built_items(self, a: Atom):
        d = self.defs.get(a) if isinstance(a, Var) else None
        if d is None or d.prim not in ("srcad.list", "srcad.tuple") or d.kw:
            return None
        return d.args

    def _item_type(self, xs: Atom, i: int):
        items = self._built_items(xs)
        if items is not None:
            return atom_type(items[i]) if -len(items) <= i < len(items) else None
        t = atom_type(xs)
        if isinstance(t, T.List) and t.shapes is not None and -len(t.shapes) <= i < len(t.shapes):
            return T.Array(len(t.shapes[i]), None, t.shapes[i])
        if isinstance(t, T.Tuple) and -len(t.elts) <= i < len(t.elts):
            return t.elts[i]
        return None
