"""srcad.vmap's transformation: the typed IR of a function for one example -> IR that runs a
whole batch of examples at once.

    >>> import numpy as np, srcad
    >>> def loss(w, x, y):
    ...     return (np.tanh(x @ w) - y) ** 2
    >>> per_example = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))
    >>> print(srcad.source(per_example, np.ones(2), np.ones((4, 2)), np.zeros(4)), end="")
    def vmap_grad_loss(w, x, y):
        # srcad ...
        # in_axes=(None, 0, 0), out_axes=0; one example is w: float[2], x: float[2], y: float
        _t1 = np.tanh(x @ w)
        return (2 * (_t1 - y) * (1.0 - _t1 * _t1))[:, None] * x

Every value that depends on a mapped argument gets a leading batch axis of length B; the
others stay as they are, computed once. How each operation runs on the batch is its rule's
`vmap=` function (rules/vmaps.py: broadcasting with the ranks aligned, axes shifted past the
batch axis, stacked matmuls, containers batched leaf by leaf); an operation without one runs
once per example in a loop whose results are stacked (`for _example in range(B): ...
_per_example.append(...)`). A loop whose trip count is the same for every example stays a
loop, its carried values batched where one example's may differ from another's (found by
trial runs of its body, to a fixpoint); an `if` on a condition that is the same for every
example stays an `if`, each branch's results given the batch axis where the other's have it.
What cannot run on the whole batch (an `if`, a `while` or a `break` on a value that differs
between examples, an unknown shape, a call with effects each example repeats) raises
NotVectorizable, and vmap calls the function once per example instead.
"""

from __future__ import annotations

import dataclasses

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.nodes import Apply, Atom, Const, For, Function, If, Var, atom_type
from ..ir.values import of_value
from ..passes.ownership import own_results
from ..rules import registry
from ..rules.vmaps import NUMERIC, NotVectorizable, item, join, norm

__all__ = ["NotVectorizable", "vectorise"]


def batched_type(t: T.Type, form, batch: int) -> T.Type:
    """The type of a value of per-example type t with the batch axis on the leaves `form` names."""
    if not form:
        return t
    if isinstance(t, T.Tuple):
        elts = tuple(batched_type(e, item(form, k), batch) for k, e in enumerate(t.elts))
        return T.Tuple(elts, t.fields, t.cls)
    if isinstance(t, T.List):
        items = None if t.items is None else tuple(batched_type(e, True, batch) for e in t.items)
        return T.List(batched_type(t.elt, True, batch), items)
    if isinstance(t, T.Dict):
        return T.Dict(tuple((k, batched_type(v, True, batch)) for k, v in t.items))
    if isinstance(t, (T.Float, T.Int, T.Bool, T.Complex)):
        return T.Array(1, {T.Float: "f", T.Int: "i", T.Bool: "b", T.Complex: "c"}[type(t)], (batch,))
    if isinstance(t, T.Array) and t.ndim is not None:
        return T.Array(t.ndim + 1, t.kind, None if t.shape is None else (batch,) + t.shape)
    if _inert(t):
        return t
    raise NotVectorizable(f"a value of type {t} (an unknown rank or kind) differs between examples")


def _inert(t: T.Type) -> bool:
    """A leaf that carries no numbers (None, a string, a slice...): the same in every example."""
    return isinstance(t, (T.NoneT, T.Str, T.Bottom)) or (
        isinstance(t, T.Opaque) and t.kind == "inert" and not isinstance(t, T.Object))


def fit(form, t: T.Type):
    """A form as the type allows it: leaves that carry no numbers are never batched."""
    if not form:
        return False
    if isinstance(t, T.Tuple):
        return norm(tuple(fit(item(form, k), e) for k, e in enumerate(t.elts)))
    if isinstance(t, T.List):
        return fit(form, t.elt) and True
    if isinstance(t, T.Dict):
        return any(fit(form, v) for _, v in t.items)
    return not _inert(t)


class Vectorizer:
    """Walks the per-example IR once, emitting its vectorised IR (see the module docstring);
    the interface the rules' vmap= functions use is described in rules/vmaps.py."""

    def __init__(self, batch: int, builder: Builder):
        self.batch, self.b = batch, builder
        self.val: dict = {}  # per-example value -> its value in the new code
        self.forms: dict = {}  # per-example value -> its form (rules/vmaps.py)
        self.defs: dict = {}  # per-example value -> the Apply that computes it
        self.looped: list = []  # the operations that run once per example: (primitive, Loc)
        self.loc = None
        self.keep = False  # (the operation being vectorised may raise: what it emits is kept)

    # -- what the rules read ----------------------------------------------------------------

    def form(self, a: Atom):
        return self.forms.get(a, False) if isinstance(a, Var) else False

    def v(self, a: Atom) -> Atom:
        return self.val.get(a, a) if isinstance(a, Var) else a

    @staticmethod
    def type_of(a) -> T.Type:
        return atom_type(a) if isinstance(a, (Var, Const)) else of_value(a)

    def definition(self, a: Atom):
        return self.defs.get(a)

    def shape(self, a) -> tuple:
        s = T.shape_of(self.type_of(a))
        if s is None:
            raise NotVectorizable(f"the shape of a value ({self.type_of(a)}) is not known", self.loc)
        return s

    def rank(self, a) -> int:
        t = self.type_of(a)
        r = 0 if isinstance(t, (T.Float, T.Int, T.Bool, T.Complex)) else getattr(t, "ndim", None)
        if r is None:
            raise NotVectorizable(f"the rank of a value ({t}) is not known", self.loc)
        return r

    def batched(self, t: T.Type, form=True) -> T.Type:
        return batched_type(t, form, self.batch)

    def emit(self, prim: str, args, kw, t: T.Type, hint: str = "") -> Var:
        out = self.b.fresh(hint, t)
        self.b.emit(Apply((out,), prim, tuple(args), tuple(kw), self.loc, self.keep))
        return out

    def emit_outs(self, op: Apply, args, kw, forms=None) -> tuple:
        """op's primitive on new operands; its results of op's types (batched by `forms`)."""
        forms = forms or [False] * len(op.outs)
        outs = tuple(self.b.fresh(o.hint, self.batched(o.type, f)) for o, f in zip(op.outs, forms))
        self.b.emit(Apply(outs, op.prim, tuple(args), tuple(kw), op.loc, op.keep))
        return outs

    def aligned(self, a: Atom, rank: int) -> Atom:
        r = self.rank(a) if self.form(a) else rank
        if r >= rank:
            return self.v(a)
        t = self.batched(self.type_of(a))
        key = (slice(None),) + (None,) * (rank - r) + ((Ellipsis,) if r else ())
        shape = None if t.shape is None else (self.batch,) + (1,) * (rank - r) + t.shape[1:]
        return self.emit("operator.getitem", [self.v(a), Const(key)], (), T.Array(rank + 1, t.kind, shape))

    def first(self, a: Atom) -> Atom:
        return self.example(self.v(a), self.type_of(a), self.form(a), Const(0))

    def conform(self, a: Atom, form) -> Atom:
        return self.conformed(self.v(a), self.type_of(a), self.form(a), form)

    # -- batches and examples -----------------------------------------------------------------

    def conformed(self, value: Atom, t: T.Type, have, want) -> Atom:
        """value (per-example type t, form `have`) with the batch axis on the leaves `want`
        names too: the leaves that lack it become B writable copies (srcad.batch_copies)."""
        have, want = fit(have, t), fit(join(have, want), t)
        if have == want:
            return value
        if isinstance(t, T.Tuple) and (isinstance(have, tuple) or isinstance(want, tuple)):
            if t.cls is not None:
                raise NotVectorizable(f"a named tuple ({t.cls.__name__}) of values some of which differ "
                                      "between examples", self.loc)
            items = []
            for k, e in enumerate(t.elts):
                x = self.emit("operator.getitem", [value, Const(k)], (), self.batched(e, item(have, k)))
                items.append(self.conformed(x, e, item(have, k), item(want, k)))
            return self.emit("srcad.tuple", items, (), self.batched(t, want))
        return self.emit("srcad.batch_copies", [value, Const(self.batch)], (), self.batched(t, want))

    def example(self, value: Atom, t: T.Type, form, index: Atom) -> Atom:
        """Example `index` of a value of per-example type t and this form."""
        if not form:
            return value
        if isinstance(t, T.Tuple) and isinstance(form, tuple):
            items = [self.example(self.emit("operator.getitem", [value, Const(k)], (), self.batched(e, f)),
                                  e, f, index) for k, (e, f) in enumerate(zip(t.elts, form))]
            return self.emit("srcad.tuple", items, (), t)
        if isinstance(t, NUMERIC):
            return self.emit("operator.getitem", [value, index], (), t)
        return self.emit("srcad.example_of", [value, index], (), t)

    # -- operations -------------------------------------------------------------------------------

    def block_ops(self, ops) -> None:
        for op in ops:
            self.loc = op.loc
            if isinstance(op, Apply):
                self.apply(op)
            elif isinstance(op, If):
                self.if_(op)
            elif isinstance(op, For):
                self.for_(op)
            else:
                self.while_(op)

    def record(self, op, got) -> None:
        for o, (atom, form) in zip(op.outs, got):
            self.val[o], self.forms[o] = atom, fit(form, o.type)
            if isinstance(op, Apply):
                self.defs[o] = op

    def apply(self, op: Apply) -> None:
        rule = registry.lookup(op.prim)
        if not any(self.form(a) for a in op.operands()) and not getattr(rule.vmap, "every_call", False):
            outs = self.emit_outs(op, [self.v(a) for a in op.args], tuple((k, self.v(a)) for k, a in op.kw))
            return self.record(op, [(o, False) for o in outs])
        self.keep = op.keep
        try:
            got = rule.vmap(self, op, rule) if rule.vmap is not None else None
            self.record(op, got if got is not None else self.per_example(op))
        finally:
            self.keep = False

    def per_example(self, op: Apply):
        """op once per example, in a loop, its results stacked."""
        for o in op.outs:
            if not isinstance(o.type, NUMERIC) or (isinstance(o.type, T.Array) and o.type.ndim is None):
                raise NotVectorizable(f"{op.prim} has no vectorised form, and its result ({o.type}) "
                                      "cannot be stacked over the examples", op.loc)
        self.looped.append((op.prim, op.loc))
        lists = tuple(self.emit("srcad.list", [], (), T.List(T.BOTTOM), "_per_example") for _ in op.outs)
        index, carried = self.b.begin_for(
            Const(0), Const(self.batch), Const(1), lists, index_hint="_example",
            hints=("_per_example",) * len(lists), types=tuple(T.List(o.type) for o in op.outs), loc=op.loc)
        args = [self.example(self.v(a), self.type_of(a), self.form(a), index) for a in op.args]
        kw = tuple((k, self.example(self.v(a), self.type_of(a), self.form(a), index)) for k, a in op.kw)
        outs = self.emit_outs(op, args, kw)
        appended = tuple(self.emit("srcad.list_append", [c, o], (), T.List(o.type), "_per_example")
                         for c, o in zip(carried, outs))
        results = self.b.end_for(appended)
        return [(self.emit("numpy.stack", [r], (), self.batched(o.type), o.hint), True)
                for r, o in zip(results, op.outs)]

    # -- regions --------------------------------------------------------------------------------

    def trial(self, block, params=()) -> list:
        """The forms of a block's results when its parameters have these forms (a dry run:
        what it emits is dropped)."""
        sub = Vectorizer(self.batch, Builder(first_id=self.b.next_id))
        sub.val, sub.forms, sub.defs = dict(self.val), dict(self.forms), dict(self.defs)
        sub.b.begin_function([])
        for p, f in params:
            sub.val[p], sub.forms[p] = sub.b.fresh(p.hint, self.batched(p.type, f)), f
        sub.block_ops(block.ops)
        return [sub.form(y) for y in block.yields]

    def yields(self, block, forms) -> tuple:
        return tuple(self.conformed(self.v(y), self.type_of(y), self.form(y), f)
                     for y, f in zip(block.yields, forms))

    def if_(self, op: If) -> None:
        if self.form(op.cond):
            raise NotVectorizable("an `if` on a value that differs between examples", op.loc)
        pairs = zip(self.trial(op.then), self.trial(op.orelse), op.outs)
        forms = [fit(join(a, b), o.type) for a, b, o in pairs]
        self.b.begin_if(self.v(op.cond), op.loc)
        self.block_ops(op.then.ops)
        self.b.begin_else(self.yields(op.then, forms))
        self.block_ops(op.orelse.ops)
        outs = self.b.end_if(self.yields(op.orelse, forms), tuple(o.hint for o in op.outs),
                             [self.batched(o.type, f) for o, f in zip(op.outs, forms)])
        self.record(op, list(zip(outs, forms)))

    def carried_forms(self, op, carried, first_block=None) -> list:
        """The forms of a loop's carried values: batched where the initial value, or the value
        an iteration yields, is (iterated to a fixpoint)."""
        forms = [fit(self.form(a), p.type) for a, p in zip(op.init, carried)]
        lead = [(op.body.params[0], False)] if isinstance(op, For) else []
        while True:
            ys = self.trial(op.body, lead + list(zip(op.body.params[len(lead):], forms)))
            if op.exits and ys[-1]:
                raise NotVectorizable("a loop left (break, return) on a value that differs between examples",
                                      op.loc)
            new = [fit(join(f, y), p.type) for f, y, p in zip(forms, ys, carried)]
            if new == forms:
                return forms
            forms = new

    def bind(self, params, new_params, forms) -> None:
        for p, q, f in zip(params, new_params, forms):
            self.val[p], self.forms[p] = q, f

    def for_(self, op: For) -> None:
        if any(self.form(a) for a in (op.start, op.stop, op.step)):
            raise NotVectorizable("a loop whose trip count differs between examples", op.loc)
        index, carried = op.body.params[0], op.body.params[1:]
        forms = self.carried_forms(op, carried)
        init = tuple(self.conform(a, f) for a, f in zip(op.init, forms))
        new_index, params = self.b.begin_for(
            self.v(op.start), self.v(op.stop), self.v(op.step), init, index.hint or "i",
            tuple(p.hint for p in carried), tuple(self.batched(p.type, f) for p, f in zip(carried, forms)),
            op.reverse, op.loc)
        self.bind((index,) + tuple(carried), (new_index,) + tuple(params), [False] + forms)
        self.block_ops(op.body.ops)
        exit_flag = self.v(op.body.yields[-1]) if op.exits else None
        outs = self.b.end_for(self.yields(op.body, forms), exit_flag)
        self.record(op, list(zip(outs, forms)))

    def while_(self, op) -> None:
        forms = self.carried_forms(op, op.body.params)
        if self.trial(op.cond, list(zip(op.cond.params, forms)))[0]:
            raise NotVectorizable("a `while` whose condition differs between examples", op.loc)
        init = tuple(self.conform(a, f) for a, f in zip(op.init, forms))
        types = tuple(self.batched(p.type, f) for p, f in zip(op.body.params, forms))
        cparams = self.b.begin_while(init, tuple(p.hint for p in op.body.params), types, op.loc)
        self.bind(op.cond.params, cparams, forms)
        self.block_ops(op.cond.ops)
        self.bind(op.body.params, self.b.begin_while_body(self.v(op.cond.yields[0])), forms)
        self.block_ops(op.body.ops)
        exit_flag = self.v(op.body.yields[-1]) if op.exits else None
        outs = self.b.end_while(self.yields(op.body, forms), exit_flag)
        self.record(op, list(zip(outs, forms)))


def _mapped_type(t: T.Type, axis: int, batch: int) -> T.Type:
    """The type of an argument whose examples have type t, stacked along `axis`."""
    b = batched_type(t, True, batch)
    if not isinstance(b, T.Array) or axis == 0:
        return b
    shape = list(t.shape or ())
    shape.insert(axis % (len(shape) + 1), batch)
    return T.Array(b.ndim, b.kind, tuple(shape))


def _stackable(t: T.Type) -> bool:
    """Can a result of this type be stacked over the examples (arrays and numbers, and tuples,
    lists and dicts of them)?"""
    if isinstance(t, (T.Tuple, T.List, T.Dict)) and not (isinstance(t, T.Tuple) and t.cls is not None):
        items = t.elts if isinstance(t, T.Tuple) else (t.elt,) if isinstance(t, T.List) else \
            [v for _, v in t.items]
        return all(_stackable(e) for e in items)
    return isinstance(t, NUMERIC) and (not isinstance(t, T.Array) or t.ndim is not None)


def _moved(vz: Vectorizer, value: Atom, t: T.Type, out_axis: int) -> Atom:
    """The batch axis of every leaf (arrays, in tuples) moved to `out_axis`."""
    if out_axis == 0:
        return value
    if isinstance(t, T.Tuple):
        items = [_moved(vz, vz.emit("operator.getitem", [value, Const(k)], (), vz.batched(e)), e, out_axis)
                 for k, e in enumerate(t.elts)]
        return vz.emit("srcad.tuple", items, (), T.Tuple(tuple(a.type for a in items)))
    b = vz.batched(t)
    if not isinstance(t, NUMERIC) or not -b.ndim <= out_axis < b.ndim:
        raise NotVectorizable(f"out_axes={out_axis} for a result of type {t}")
    shape = list(b.shape[1:])
    shape.insert(out_axis % b.ndim, vz.batch)
    t_out = T.Array(b.ndim, b.kind, tuple(shape))
    return vz.emit("numpy.moveaxis", [value, Const(0), Const(out_axis)], (), t_out)


def vectorise(fn: Function, in_axes: tuple, out_axis: int, batch: int) -> tuple[Function, list]:
    """fn (typed for one example) on a batch of `batch` examples: the arguments with an int in
    `in_axes` are stacked along that axis, the result along `out_axis`; and the operations
    that run once per example ((primitive, Loc) pairs)."""
    vz = Vectorizer(batch, Builder())
    params, moved = [], []
    for p, ax in zip(fn.body.params, in_axes):
        q = vz.b.fresh(p.hint, p.type if ax is None else _mapped_type(p.type, ax, batch))
        params.append(q)
        vz.val[p] = q
        if ax is not None:
            vz.forms[p] = True
            moved.append((p, q, ax))
    vz.b.begin_function(params)
    for p, q, ax in moved:
        if ax % (q.type.ndim or 1) != 0:
            t = batched_type(p.type, True, batch)
            vz.val[p] = vz.emit("numpy.moveaxis", [q, Const(ax), Const(0)], (), t, p.hint)
    vz.block_ops(fn.body.ops)
    (out,) = fn.body.yields
    if not _stackable(vz.type_of(out)):
        raise NotVectorizable(f"the result ({vz.type_of(out)}) is not an array, a number or a container "
                              "of them")
    vz.loc = None
    result = _moved(vz, vz.conform(out, True), vz.type_of(out), out_axis)
    body = vz.b.end_function((result,))
    return own_results(dataclasses.replace(fn, name=f"vmap_{fn.name}", body=body)), vz.looped
