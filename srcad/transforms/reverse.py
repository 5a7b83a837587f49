"""Reverse mode: a forward sweep that computes the primal values, then a backward sweep that
propagates cotangents from the output to the inputs, both emitted as one SSA function.

The transform runs twice. A *dry run* emits only the backward sweep, into a scratch
builder, and records which forward values each adjoint region reads and which cotangents
it writes. From that record (the "plan"):

- a value defined inside a loop body and read by the body's adjoint is pushed onto a stack
  (a plain local list) at the end of each forward iteration and popped at the start of each
  backward iteration — only those, nothing else is saved (to-be-recorded analysis);
- a value defined inside an `if` branch and read by its adjoint becomes an extra result of
  the forward `if` (no stack needed outside loops);
- cotangents that an adjoint region adds to, for values defined outside it, are made
  explicit zeros before loops and in the branch of an `if` that does not touch them (this
  set is computed statically, so both runs make the same decisions).

The *real run* then emits the forward sweep with those pushes and the backward sweep for
real. Rules only state math; all the bookkeeping above lives here.

    >>> import srcad
    >>> def f(x, n):
    ...     s = 0.0
    ...     for i in range(n):
    ...         s = s * x + 1.0
    ...     return s
    >>> g = srcad.grad(f)
    >>> g(2.0, 3)  # d/dx (x**2 + x + 1) at 2
    5.0
    >>> print(srcad.source(g), end="")
    def grad_f(x, n):
        # srcad ...
        # argnums=0; specialised for x: float, n: int
        # saved per loop iteration for the backward sweep:
        #   s (line 3, float): 32 B
        _stack_s = []
        s = 0.0
        for i in range(n):
            _stack_s.append(s)
            s = s * x + 1.0
        # adjoint of line 3: for i in range(n):
        s_bar = 1.0
        x_bar = 0.0
        for i in reversed(range(n)):
            s = _stack_s.pop()
            # adjoint of line 4: s = s * x + 1.0
            _t1 = s_bar * x
            x_bar += s * s_bar
            s_bar = _t1
        return x_bar
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.nodes import UNDEF, Apply, Atom, Block, Const, For, Function, If, Var, While, atom_type, iter_ops
from ..rules import registry
from .activity import Activity
from .emitter import Emitter, aloc
from .naming import TRIPS, cotangent
from .operands import operand_params
from .remat import Remat, defs_visible
from .reverse_apply import ApplyAdjoints
from .reverse_loops import LoopAdjoints
from .unbound import unbound_starts


def _stack_keys(b: Builder):
    return [k for k in b.var_hints if isinstance(k, tuple) and k and k[0] == "stack"]


@dataclass
class Plan:
    """What the dry run learned: pushes per loop, lifted values per if, cotangent writes."""

    push: dict = field(default_factory=dict)  # id(loop) -> tuple[Var]
    lift: dict = field(default_factory=dict)  # id(if) -> tuple[Var]
    top: set = field(default_factory=set)  # forward values the backward sweep reads at top level
    pushed: dict = field(default_factory=dict)  # id of a push's result -> (primal value, id(loop))
    loops: dict = field(default_factory=dict)  # id(loop) -> loop op (for reports)
    chains: dict = field(default_factory=dict)  # id(loop) -> ((index, param, yield), ...)
    zero_like: set = field(default_factory=set)  # values whose zero cotangent is made from them


class Reverse(ApplyAdjoints, LoopAdjoints):
    """One run of the reverse transform (dry or real) over a typed, simplified function."""

    def __init__(self, fn: Function, act: Activity, plan: Plan, dry: bool):
        self.fn, self.act, self.plan, self.dry = fn, act, plan, dry
        self.b = Builder()
        self.em = Emitter(self.b)
        self.layers: list[dict] = [{}]
        self.reads: list[set] = [set()]  # dry run: forward values read, per adjoint region
        self.cts: list[set] = [set()]  # dry run: cotangents written, per adjoint region
        self.loop_depth = 0
        self._if_outs: list = []  # the results of the `if`s whose branches are being differentiated
        self.split = False  # run_split: residuals are returned, so every one must be bound
        loops = [op for op in iter_ops(fn.body) if isinstance(op, (For, While))]
        self.trips = {id(op): Var(-1 - k, TRIPS, T.INT) for k, op in enumerate(loops)}
        self.rematerializable = Remat(fn)
        self._writes: dict[int, set] = {}
        # loop and if slots that are None instead of unbound, and the values that may be it
        self.none_starts, self.maybe_none = set(), set()
        self.checked: set = set()  # forward values read through srcad.assigned
        self.partial: set = set()  # values whose cotangent is a zero on some path (an `if` joined it)

    def bind_unassigned(self, residuals=()) -> None:
        """Plan which values the forward sweep binds to None where the user's code leaves
        them unassigned (transforms/unbound.py): pushed values, values whose zero cotangent
        is made from them, and the residuals of vjp."""
        if not self.dry:
            bound = self.plan.zero_like | set(residuals)
            self.none_starts, self.maybe_none = unbound_starts(self.fn.body, self.plan.push, bound)

    # -- forward values ------------------------------------------------------------------------

    def primal(self, a: Atom) -> Atom:
        """The forward-sweep value of a primal atom, as seen from the backward sweep."""
        if not isinstance(a, Var):
            return a
        if self.dry:  # record what the backward sweep reads, region by region
            if self.rematerializable(a):
                return self.recompute(a)
            self.reads[-1].add(a)
            return a
        for layer in reversed(self.layers):
            if a in layer:
                return layer[a]
        if self.rematerializable(a):
            return self.recompute(a)
        raise AssertionError(f"srcad internal error: forward value {a!r} is not available")

    def recompute(self, v: Var) -> Atom:
        op = self.rematerializable.def_op[v]
        args = tuple(self.primal(a) for a in op.args)
        kw = tuple((k, self.primal(a)) for k, a in op.kw)
        if self.dry:
            return v
        out = self.b.apply(op.prim, args, kw, op.loc, v.hint, (v.type,))
        if self.em.branch_depth == 0:  # not inside a run-time branch of a rule template
            self.layers[-1][v] = out
        return out

    def fwd_read(self, a: Atom, loc=None) -> Atom:
        """The forward-sweep value of `a` where the user's code reads it: a variable that may
        still be unassigned (transforms/unbound.py) raises UnboundLocalError there."""
        value = self.fwd(a)
        if a not in self.maybe_none or value in self.checked:
            return value
        checked = self.b.fresh(a.hint, a.type)
        self.b.emit(Apply((checked,), "srcad.assigned", (value, Const(a.hint or "variable")), (), loc,
                          keep=True))
        self.layers[-1][a] = checked
        self.checked.add(checked)
        return checked

    def fwd(self, a: Atom) -> Atom:
        if not isinstance(a, Var):
            return a
        for layer in reversed(self.layers):
            if a in layer:
                return layer[a]
        raise AssertionError(f"srcad internal error: {a!r} used before its definition")

    def trip_var(self, op) -> Var:
        return self.trips[id(op)]

    def local(self, block: Block) -> set:
        """Values defined in `block` as the adjoint sees them, trip counts included."""
        out = defs_visible(block)
        stack = [block]
        while stack:
            b = stack.pop()
            for op in b.ops:
                if isinstance(op, (For, While)):
                    out.add(self.trips[id(op)])
                elif isinstance(op, If):
                    stack += [op.then, op.orelse]
        return out

    # -- cotangents ----------------------------------------------------------------------------

    @staticmethod
    def key(v: Var):
        return ("ct", v.id)

    def has_ct(self, v: Var) -> bool:
        return self.b.is_bound(self.key(v))

    def take_ct(self, v: Atom) -> Atom | None:
        if not isinstance(v, Var) or not self.b.is_bound(self.key(v)):
            return None
        return self.b.read(self.key(v))

    def accumulate(self, v: Atom, c: Atom, loc=None) -> None:
        if not self.act.active(v):
            return
        k = self.key(v)
        self.b.var_hints.setdefault(k, cotangent(v.hint))
        self.b.var_types.setdefault(k, v.type)
        self.cts[-1].add(v)
        if self.b.is_bound(k):
            self.b.write(k, self.em.add(self.b.read(k), c, loc, self.b.var_hints[k], like=v.type))
        else:
            self.b.write(k, c)

    def real_for(self, v: Atom, c: Atom, source: Atom) -> Atom:
        """The cotangent c of `source` (an `if`'s or a loop's result or carried value) given to
        v, a value joined into it: its real part when v is real and source may be complex."""
        if T.is_complex(atom_type(source)) and not T.is_complex(atom_type(v)) and self.act.active(v):
            return self.em.apply("numpy.real", (c,), (), None)
        return c

    def zeros_for(self, v: Atom, loc=None) -> Atom:
        t = atom_type(v)
        if isinstance(v, Const):
            return self.em.zeros(v, loc)
        if t.is_scalar:
            return Const(0.0)
        if isinstance(t, T.Array) and t.shape is not None and t.kind != "c":  # no need for the value itself
            return self.em.apply("numpy.zeros", (Const(t.shape),), (), loc, "_zeros")
        if self.dry:
            self.plan.zero_like.add(v)
        return self.em.zeros(self.primal(v), loc)

    def materialize(self, vs, loc=None) -> list:
        """Give each of `vs` an explicit zero cotangent if it has none yet; return those."""
        made = []
        for v in sorted(vs, key=lambda v: v.id):
            if not self.has_ct(v):
                k = self.key(v)
                self.b.var_hints.setdefault(k, cotangent(v.hint))
                self.b.write(k, self.zeros_for(v, loc))
                made.append(v)
        return made

    def kill_local(self, block: Block) -> None:
        for v in defs_visible(block):
            self.b.kill(self.key(v))

    # -- adjoint regions (dry-run bookkeeping) ---------------------------------------------------

    def open_region(self) -> None:
        self.reads.append(set())
        self.cts.append(set())

    def close_region(self, local: set) -> tuple[set, set]:
        """Pop a region: its reads/writes of outer values go to the parent region."""
        reads, cts = self.reads.pop(), self.cts.pop()
        self.reads[-1] |= reads - local
        self.cts[-1] |= cts - local
        return reads & local, cts - local

    # -- driver ---------------------------------------------------------------------------------

    def run(self, wrt: tuple[int, ...], seed: Atom | None, extra_params: int = 0):
        """Emit the whole function; returns (params, value, gradients, builder)."""
        fn = self.fn
        params = [self.b.fresh(p.hint, p.type) for p in fn.body.params]
        seeds = [self.b.fresh("g", T.UNKNOWN) for _ in range(extra_params)]
        self.b.begin_function(params + seeds)
        self.layers[0].update(zip(fn.body.params, params))
        self.bind_unassigned()
        if not self.dry:
            self.make_stacks()
            self.fwd_block(fn.body)
            for y in fn.body.yields:
                self.fwd_read(y, fn.loc)
        out = fn.body.yields[0]
        value = self.primal(out) if not self.dry else out
        seed_atom = seeds[0] if seeds else (seed if seed is not None else Const(1.0))
        self.accumulate(out, seed_atom)
        self.bwd_block(fn.body)
        if self.dry:
            self.plan.top = set(self.reads[0])
        grads = []
        for i in wrt:
            p = fn.body.params[i]
            c = self.take_ct(p)
            grads.append(c if c is not None else self.zeros_for(p))
        return params + seeds, value, grads

    def run_split(self, wrt: tuple[int, ...]):
        """Two functions: forward (primals -> out, aux, residuals) and backward
        (residuals, cotangent -> gradients). Returns (fwd_builder, fwd_result, bwd_builder,
        bwd_params, grads, residual_names)."""
        fn = self.fn
        self.split = True
        params = [self.b.fresh(p.hint, p.type) for p in fn.body.params]
        self.b.begin_function(params)
        self.layers[0].update(zip(fn.body.params, params))
        # (an argument whose cotangent may be a zero of a shape known only at run time)
        shapeless = {p for p in (fn.body.params[i] for i in wrt) if not p.type.is_scalar
                     and T.shape_of(p.type) is None}
        residuals = sorted(set(self.plan.top) | shapeless, key=lambda v: v.id)
        self.bind_unassigned(residuals)
        self.make_stacks()
        self.fwd_block(fn.body)
        for y in fn.body.yields:
            self.fwd_read(y, fn.loc)
        stacks = sorted(k for k in _stack_keys(self.b))
        res_atoms = [self.fwd(v) for v in residuals] + [self.b.read(k) for k in stacks]
        out = self.fwd(fn.body.yields[0])
        aux = self.fwd(fn.body.yields[1]) if len(fn.body.yields) > 1 else None
        fwd_b, fwd_em = self.b, self.em
        res_tuple = fwd_em.apply("srcad.tuple", res_atoms)
        fwd_result = (out, aux, res_tuple)
        # the backward function starts from the residuals alone
        self.b = Builder()
        self.em = Emitter(self.b)
        names = [v.hint or f"_r{k}" for k, v in enumerate(residuals)] + [fwd_b.var_hints.get(k, "")
                                                                          for k in stacks]
        res_params = [self.b.fresh(n, v.type) for n, v in zip(names, residuals)]
        stack_params = [self.b.fresh(fwd_b.var_hints.get(k, ""), fwd_b.var_types.get(k, T.UNKNOWN))
                        for k in stacks]
        g = self.b.fresh("g", out.type if isinstance(out, Var) else T.UNKNOWN)
        self.b.begin_function(res_params + stack_params + [g])
        self.layers = [dict(zip(residuals, res_params))]
        for k, p in zip(stacks, stack_params):
            self.b.var_hints[k] = fwd_b.var_hints.get(k, "")
            # a copy, so that the backward function can run more than once (jacrev does)
            self.b.write(k, self.em.apply("srcad.copy_value", (p,), (), None, self.b.var_hints[k]))
        self.accumulate(fn.body.yields[0], g)
        self.bwd_block(fn.body)
        grads = []
        for i in wrt:
            p = fn.body.params[i]
            c = self.take_ct(p)
            grads.append(c if c is not None else self.zeros_for(p))
        return fwd_b, fwd_result, self.b, res_params + stack_params + [g], grads, names

    # -- forward sweep --------------------------------------------------------------------------

    def fwd_block(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, Apply):
                if op.prim == "srcad.bound" and op.args[0] in self.maybe_none:
                    # a read of a variable that may be unassigned, which is None here
                    self.layers[-1][op.outs[0]] = self.fwd_read(op.args[0], op.loc)
                    continue
                args = tuple(self.fwd(a) for a in op.args)
                kw = tuple((k, self.fwd(a)) for k, a in op.kw)
                outs = tuple(self.b.fresh(o.hint, o.type) for o in op.outs)
                self.b.emit(Apply(outs, op.prim, args, kw, op.loc, op.keep))
                self.layers[-1].update(zip(op.outs, outs))
            elif isinstance(op, If):
                self.fwd_if(op)
            elif isinstance(op, For):
                self.fwd_for(op)
            else:
                self.fwd_while(op)

    def fwd_if(self, op: If) -> None:
        lifted = tuple(sorted(self.plan.lift.get(id(op), ()), key=lambda v: v.id))
        # a value only one branch defines: a placeholder in the other where it is stored or
        # returned (in loops, and as a residual of vjp), else left unbound
        filler = None if self.loop_depth or self.split else Const(UNDEF)
        self.b.begin_if(self.fwd(op.cond), op.loc)
        then_y = self._fwd_branch(op, op.then, lifted, filler)
        self.b.begin_else(then_y)
        else_y = self._fwd_branch(op, op.orelse, lifted, filler)
        hints = tuple(o.hint for o in op.outs) + tuple(v.hint for v in lifted)
        types = tuple(o.type for o in op.outs) + tuple(v.type for v in lifted)
        outs = self.b.end_if(else_y, hints, types)
        self.layers[-1].update(zip(op.outs + lifted, outs))

    def _fwd_branch(self, op: If, block: Block, lifted, filler) -> tuple:
        self.layers.append({})
        self.fwd_block(block)
        layer = self.layers.pop()
        ys = tuple(Const(None) if (id(op), i) in self.none_starts and isinstance(y, Const)
                   and y.value is UNDEF
                   else self.fwd_in(layer, y) for i, y in enumerate(block.yields))
        return ys + tuple(layer[v] if v in layer else filler or self._placeholder(v) for v in lifted)

    def _placeholder(self, v: Var) -> Atom:
        """A value of v's type that is never read (the branch that defines v was not taken):
        None, except for numbers and lists, which keep their type (precise types when the
        derivative is differentiated again)."""
        t = v.type
        if t.is_scalar:
            return Const({T.Float: 0.0, T.Int: 0, T.Bool: False, T.Complex: 0j}[type(t)])
        if isinstance(t, T.List):
            return self.b.apply("srcad.list", (), (), None, v.hint, (t,))
        return Const(None)

    def fwd_in(self, layer: dict, a: Atom) -> Atom:
        if isinstance(a, Var) and a in layer:
            return layer[a]
        return self.fwd(a)

    # -- backward sweep -------------------------------------------------------------------------

    def bwd_block(self, block: Block) -> None:
        for op in reversed(block.ops):
            if isinstance(op, Apply):
                self.bwd_apply(op)
            elif isinstance(op, If):
                self.bwd_if(op)
            else:
                self.bwd_loop(op)

    def bwd_if(self, op: If) -> None:
        seeds = [(i, self.take_ct(o)) for i, o in enumerate(op.outs) if self.act.active(o)]
        seeds = [(i, c) for i, c in seeds if c is not None]
        if not seeds:
            return
        candidates = [v for v in sorted(self.region_writes(op), key=lambda v: v.id) if not self.has_ct(v)]
        self._if_outs.append(op.outs)
        self.b.begin_if(self.primal(op.cond), aloc(op.loc))
        lift_then = self._bwd_branch(op.then, seeds, candidates)
        self.b.begin_else()
        lift_else = self._bwd_branch(op.orelse, seeds, candidates)
        self.b.end_if()
        self._if_outs.pop()
        if self.dry:
            self.plan.lift[id(op)] = lift_then | lift_else

    def _bwd_branch(self, block: Block, seeds, candidates) -> set:
        self.open_region()
        self.layers.append({})
        for i, c in seeds:
            self.accumulate(block.yields[i], self.real_for(block.yields[i], c, self._if_outs[-1][i]))
        self.bwd_block(block)
        self.partial.update(self.materialize(candidates))
        self.kill_local(block)
        self.layers.pop()
        lifted, _ = self.close_region(self.local(block))
        self.reads[-1] |= lifted  # the enclosing region sees them as results of the `if`
        return lifted

    # static: which outer cotangents an adjoint region may add to

    def region_writes(self, op) -> set:
        if id(op) not in self._writes:
            if isinstance(op, If):
                w = (self.block_writes(op.then) - defs_visible(op.then)) | (
                    self.block_writes(op.orelse) - defs_visible(op.orelse))
            else:
                w = self.block_writes(op.body) - defs_visible(op.body)
            self._writes[id(op)] = w
        return self._writes[id(op)]

    def block_writes(self, block: Block) -> set:
        act = self.act.active
        out = {y for y in block.yields if act(y)}
        for op in block.ops:
            if isinstance(op, Apply):
                if any(act(o) for o in op.outs):
                    rule = registry.lookup(op.prim)
                    out.update(a for _, a in operand_params(op, rule) if act(a))
            elif isinstance(op, If):
                out |= self.region_writes(op)
            else:
                out |= self.region_writes(op)
                out.update(a for a in op.init if act(a))
        return out


def reverse(fn: Function, act: Activity, wrt: tuple[int, ...], *, seed_param: bool = False):
    """Reverse-mode derivative of `fn` (whose first yield is the output) w.r.t. params `wrt`.

    Returns (builder, params, value, aux, grads, plan): the caller decides what the generated
    function returns and closes the builder with `builder.end_function`.
    """
    plan = Plan()
    Reverse(fn, act, plan, dry=True).run(wrt, None, int(seed_param))
    r = Reverse(fn, act, plan, dry=False)
    params, value, grads = r.run(wrt, None, int(seed_param))
    aux = r.fwd(fn.body.yields[1]) if len(fn.body.yields) > 1 else None
    return r.em, params, value, aux, grads, plan


def reverse_split(fn: Function, act: Activity, wrt: tuple[int, ...]):
    """Reverse mode as two functions (for vjp): see Reverse.run_split."""
    plan = Plan()
    Reverse(fn, act, plan, dry=True).run(wrt, None, 1)
    r = Reverse(fn, act, plan, dry=False)
    return r.run_split(wrt), plan
