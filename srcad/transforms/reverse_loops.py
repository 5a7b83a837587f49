"""Reverse mode of loops: the forward sweep pushes what the backward sweep reads onto stacks
(plain local lists), counts trips where the trip count is not known up front, and the
backward sweep runs the loop in reverse, popping as it goes. A mixin of `Reverse`: see
reverse.py for the plan these methods follow.
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.nodes import Atom, Const, For, Var, While
from .emitter import aloc
from .naming import TRIPS, cotangent, stack


class LoopAdjoints:
    """The loop half of `Reverse` (forward sweep with pushes, backward sweep with pops)."""

    def make_stacks(self) -> None:
        for _loop_id, values in sorted(self.plan.push.items(),
                                       key=lambda kv: min(v.id for v in kv[1]) if kv[1] else 0):
            for v in values:
                k = ("stack", v.id)
                self.b.var_hints[k] = stack(v.hint)
                self.b.var_types[k] = T.List(v.type)
                self.b.write(k, self.b.apply("srcad.list", (), hint=self.b.var_hints[k],
                                             types=(T.List(v.type),)))


    def _push_all(self, op, params: bool) -> None:
        """Push what the backward sweep reads: loop parameters first thing in the body (so
        they can be reassigned in place), other values at the end."""
        start = set(op.body.params)
        for v in self.plan.push.get(id(op), ()):
            if (v in start) != params:
                continue
            k = ("stack", v.id)
            s = self.b.read(k)
            s2 = self.b.apply("srcad.list_append", (s, self.fwd(v)), hint=self.b.var_hints.get(k, ""),
                              types=(T.List(v.type),))
            self.plan.pushed[s2.id] = (v, id(op))
            self.b.write(k, s2)

    def _count_trip(self, op) -> None:
        k = ("trip", id(op))
        self.b.write(k, self.em.apply("operator.add", (self.b.read(k), Const(1))))

    def _counts_trips(self, op) -> bool:
        return id(op) in self.plan.loops and (isinstance(op, While) or op.exits)

    def fwd_for(self, op: For) -> None:
        n = len(op.init)
        counting = self._start_trips(op)
        index, params = self.b.begin_for(
            self.fwd(op.start), self.fwd(op.stop), self.fwd(op.step),
            self._fwd_init(op),
            index_hint=op.body.params[0].hint or "i", hints=tuple(p.hint for p in op.body.params[1:]),
            types=tuple(p.type for p in op.body.params[1:]), reverse=op.reverse, loc=op.loc)
        self.layers.append(dict(zip(op.body.params, (index,) + params)))
        self._fwd_loop_body(op, n, counting, self.b.end_for)

    def fwd_while(self, op: While) -> None:
        n = len(op.init)
        counting = self._start_trips(op)
        hints = tuple(p.hint for p in op.body.params)
        types = tuple(p.type for p in op.body.params)
        cparams = self.b.begin_while(self._fwd_init(op), hints, types, op.loc)
        self.layers.append(dict(zip(op.cond.params, cparams)))
        self.fwd_block(op.cond)
        cond = self.fwd(op.cond.yields[0])
        self.layers.pop()
        bparams = self.b.begin_while_body(cond)
        self.layers.append(dict(zip(op.body.params, bparams)))
        self._fwd_loop_body(op, n, counting, self.b.end_while)

    def _fwd_init(self, op) -> tuple:
        """The loop's initial values; None for a variable that is unbound before the loop but
        pushed in its first iteration (transforms/unbound.py)."""
        return tuple(Const(None) if (id(op), i) in self.none_starts else self.fwd(a)
                     for i, a in enumerate(op.init))

    def _start_trips(self, op) -> bool:
        """Count the iterations of `op` when its backward loop needs the count."""
        counting = self._counts_trips(op)
        if counting:
            self.b.var_hints[("trip", id(op))] = TRIPS
            self.b.write(("trip", id(op)), Const(0))
        return counting

    def _fwd_loop_body(self, op, n: int, counting: bool, end) -> None:
        """The forward sweep of a loop body (its parameters' layer already open), then close
        the loop with `end` (the builder's end_for or end_while)."""
        self.loop_depth += 1
        self._push_all(op, params=True)
        self.fwd_block(op.body)
        if counting:
            self._count_trip(op)
        self._push_all(op, params=False)
        ys = tuple(self.fwd(y) for y in op.body.yields)
        self.loop_depth -= 1
        self.layers.pop()
        outs = end(ys[:n], ys[n] if op.exits else None)
        self.layers[-1].update(zip(op.outs, outs))
        if counting:
            self.layers[-1][self.trip_var(op)] = self.b.read(("trip", id(op)))

    def bwd_loop(self, op) -> None:
        is_for = isinstance(op, For)
        params = op.body.params[1:] if is_for else op.body.params
        n = len(op.outs)
        carried = [i for i in range(n) if self.act.active(params[i]) or self.act.active(op.outs[i])]
        if not carried:
            return
        if self.dry:
            self.plan.loops[id(op)] = op
        keys = [("carry", id(op), i) for i in carried]
        for k, i in zip(keys, carried):
            self.b.var_hints[k] = cotangent(params[i].hint)
            self.b.var_types[k] = params[i].type
            c = self.take_ct(op.outs[i])
            self.b.write(k, c if c is not None else self.zeros_for(op.outs[i], aloc(op.loc)))
        self.materialize(self.region_writes(op), aloc(op.loc))
        chains = self.plan.chains.get(id(op), ())
        for i, _, y in chains:
            self._start_chain(op, i, y)
        index = self._open_reverse_loop(op, is_for)
        self.layers.append({op.body.params[0]: index} if is_for else {})
        self.open_region()
        for v in reversed(self.plan.push.get(id(op), ())):
            self.layers[-1][v] = self.pop(v)
        for i, p, y in chains:  # this iteration's yield is the next iteration's parameter
            self.layers[-1][y] = self.b.read(("chain", id(op), i))
            self.b.write(("chain", id(op), i), self.layers[-1][p])
        for k, i in zip(keys, carried):
            self.accumulate(op.body.yields[i], self.real_for(op.body.yields[i], self.b.read(k), params[i]))
        self.bwd_block(op.body)
        for k, i in zip(keys, carried):
            c = self.take_ct(params[i])
            self.b.write(k, c if c is not None else self.zeros_for(params[i], aloc(op.loc)))
        self.kill_local(op.body)
        local = self.local(op.body)
        saved, _ = self.close_region(local)
        self.layers.pop()
        self.b.end_for()
        if self.dry:
            saved = saved - {op.body.params[0]} if is_for else saved
            self.plan.chains[id(op)] = chains = self._chains(op, params, saved)
            for i, _, y in chains:
                saved = saved - {y}
                self.primal(op.outs[i])  # read by the backward sweep before the loop
            self.plan.push[id(op)] = tuple(sorted(saved, key=lambda v: v.id))
        for i, _, _ in chains:
            self.b.kill(("chain", id(op), i))
        for k, i in zip(keys, carried):
            self.accumulate(op.init[i], self.real_for(op.init[i], self.b.read(k), params[i]), aloc(op.loc))
            self.b.kill(k)

    @staticmethod
    def _chains(op, params, saved) -> tuple:
        """Loop-carried values whose value at the start *and* at the end of an iteration the
        backward sweep reads: the end value of iteration k is the start value of iteration
        k + 1 (or the loop's result after the last one), so only the start values are stored.
        Not for loops that `break`, whose last iteration may not yield."""
        if op.exits:
            return ()
        out = []
        for i, p in enumerate(params):
            y = op.body.yields[i]
            if p in saved and isinstance(y, Var) and y in saved and y not in params:
                out.append((i, p, y))
        return tuple(out)

    def _start_chain(self, op, i: int, y: Var) -> None:
        k = ("chain", id(op), i)
        self.b.var_hints[k] = y.hint
        self.b.var_types[k] = y.type
        self.b.write(k, self.primal(op.outs[i]))

    def _open_reverse_loop(self, op, is_for: bool) -> Var:
        hint, loc = op.body.params[0].hint or "i", aloc(op.loc)
        if is_for and not op.exits:  # the same range, the other way round
            index, _ = self.b.begin_for(self.primal(op.start), self.primal(op.stop), self.primal(op.step),
                                        index_hint=hint, reverse=not op.reverse, loc=loc)
            return index
        trips = self.primal(self.trip_var(op))
        if is_for:
            start, stop, step = self.primal(op.start), self.primal(op.stop), self.primal(op.step)
            if op.reverse:  # the forward sweep took the last `trips` indices, from the end
                n = self.em.apply("builtins.len",
                                  (self.em.apply("builtins.range", (start, stop, step), (), loc),), (), loc)
                skipped = self.em.apply("operator.sub", (n, trips), (), loc)
                start = self.em.apply("operator.add", (start, self.em.apply(
                    "operator.mul", (skipped, step), (), loc)), (), loc)
                index, _ = self.b.begin_for(start, stop, step, index_hint=hint, loc=loc)
                return index
            span = self.em.apply("operator.mul", (trips, step), (), loc)
            stop = self.em.apply("operator.add", (start, span), (), loc)
            index, _ = self.b.begin_for(start, stop, step, index_hint=hint, reverse=True, loc=loc)
            return index
        index, _ = self.b.begin_for(Const(0), trips, Const(1), index_hint="_", loc=aloc(op.loc))
        return index

    def pop(self, v: Var) -> Atom:
        if self.dry:
            return v
        k = ("stack", v.id)
        s = self.b.read(k)
        hints = (self.b.var_hints.get(k, ""), v.hint)
        s2, val = self.b.apply("srcad.list_pop", (s,), hint=hints, types=(T.List(v.type), v.type))
        self.b.write(k, s2)
        return val
