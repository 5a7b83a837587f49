"""Forward mode: each active value gets a tangent computed alongside it, in one sweep.

    >>> import math, srcad
    >>> def f(x):
    ...     y = math.sin(x) * x
    ...     return y
    >>> _ = srcad.jvp(f, (1.0,), (1.0,))
    >>> print(srcad.source(srcad.jvp, f), end="")
    def jvp_f(x, x_dot):
        # srcad ...
        # argnums=(0,); specialised for x: float
        _t0 = math.sin(x)
        y = _t0 * x
        y_dot = x_dot * math.cos(x) * x + _t0 * x_dot
        return y, y_dot

Tangents of loop-carried values are carried too; an `if` gets extra results for the tangents
of its results. A tangent that is known to be zero is never materialised, except where two
paths meet (one branch of an `if`, a loop's first iteration) and the other side has one.
"""

from __future__ import annotations

from ..errors import NoRuleError, diagnostic
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.nodes import Apply, Atom, Block, Const, Ext, For, Function, If, Var
from ..rules import registry
from .activity import Activity
from .emitter import Emitter, known_zero
from .naming import tangent
from .operands import operand_params
from .policy import jvp_templates
from .reverse_apply import no_rule_error


def _is_scalar(a: Atom) -> bool:
    if isinstance(a, Const):
        return isinstance(a.value, (bool, int, float))
    return a.type.is_scalar


class Forward:
    def __init__(self, fn: Function, act: Activity):
        self.fn, self.act = fn, act
        self.b = Builder()
        self.em = Emitter(self.b)
        self.val: dict = {}
        self.tan: dict = {}

    # values and tangents

    def v(self, a: Atom) -> Atom:
        return self.val.get(a, a) if isinstance(a, Var) else a

    def t(self, a: Atom) -> Atom | None:
        got = self.tan.get(a) if isinstance(a, Var) and self.act.active(a) else None
        return None if known_zero(got) else got  # (a tangent known to be 0.0: none, no 0 * NaN)

    def t_or_zero(self, a: Atom, loc=None) -> Atom:
        t = self.t(a)
        return t if t is not None else self.zeros(a, loc)

    def zeros(self, a: Atom, loc=None) -> Atom:
        if _is_scalar(a):
            return Const(0.0)
        return self.em.zeros(self.v(a), loc)

    @staticmethod
    def hint(a: Atom) -> str:
        return tangent(a.hint) if isinstance(a, Var) else ""

    def ttype(self, t: T.Type) -> T.Type:
        """The type of a tangent of a value of type t."""
        return t

    # driver

    def run(self, wrt: tuple[int, ...]):
        params = [self.b.fresh(p.hint, p.type) for p in self.fn.body.params]
        tangents = [self.b.fresh(self.hint(self.fn.body.params[i]), self.ttype(self.fn.body.params[i].type))
                    for i in wrt]
        self.b.begin_function(params + tangents)
        for p, q in zip(self.fn.body.params, params):
            self.val[p] = q
        for i, tq in zip(wrt, tangents):
            self.tan[self.fn.body.params[i]] = tq
        self.block_ops(self.fn.body)
        out = self.fn.body.yields[0]
        return params, tangents, self.v(out), self.t_or_zero(out)

    def block_ops(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, Apply):
                self.apply(op)
            elif isinstance(op, If):
                self.if_(op)
            else:
                self.loop(op)

    # operations

    def apply(self, op: Apply) -> None:
        rule = registry.lookup(op.prim)
        if rule.custom and self.act.active(op.outs[0]):
            return self.custom(op)
        args = tuple(self.v(a) for a in op.args)
        kw = tuple((k, self.v(a)) for k, a in op.kw)
        outs = tuple(self.b.fresh(o.hint, o.type) for o in op.outs)
        self.b.emit(Apply(outs, op.prim, args, kw, op.loc, op.keep))
        self.val.update(zip(op.outs, outs))
        if not any(self.act.active(o) for o in op.outs):
            return
        rule = registry.lookup(op.prim)
        pairs = [(p, a) for p, a in operand_params(op, rule) if self.t(a) is not None]
        if not pairs:
            return
        if rule.structural:
            return self.structural(op, rule)
        if rule.opaque:
            raise self.no_rule(op, rule)
        bindings = self.bindings(op, rule)
        if rule.jvp_all is not None:
            return self.joint(op, rule, bindings)
        total = None
        for p, a in pairs:
            if p not in jvp_templates(rule, op):
                raise self.no_rule(op, rule, f" with respect to its argument {p!r}")
            c = self.contribution(op, rule, p, a, bindings)
            total = c if total is None else self.em.add(total, c, op.loc, self.hint(op.outs[0]),
                                                        like=op.outs[0].type)
        self.tan[op.outs[0]] = self.full_shape(op, rule, [p for p, _ in pairs], bindings, total)

    def contribution(self, op: Apply, rule, p: str, a: Atom, bindings: dict) -> Atom:
        """The tangent contribution of argument `a` (parameter p) to op's result."""
        tpl = jvp_templates(rule, op)[p]
        return self.em.instantiate(tpl, {**bindings, "t": self.t(a)}, op.loc, self.hint(op.outs[0]))

    def full_shape(self, op: Apply, rule, active: list, bindings: dict, total: Atom) -> Atom:
        """Broadcast the summed tangent to the result's shape where an input was broadcast."""
        if self.needs_broadcast(op, rule, active, bindings):
            return self.em.apply("srcad.broadcast_like", (total, self.val[op.outs[0]]), (), op.loc)
        return total

    def custom(self, op: Apply) -> None:
        """Call the user's jvp rule: (out, tangent_out) from (primals, tangents)."""
        custom = op.args[0].value.obj
        if custom.jvp is None:
            raise NoRuleError(f"{custom.__name__} has no forward-mode rule", [diagnostic(
                op.loc, f"{custom.__name__} has no forward-mode rule",
                "give it one with .defjvp(jvp) (a custom_vjp alone serves reverse mode)")])
        primals = self.em.apply("srcad.tuple", tuple(self.v(a) for a in op.args[1:]), (), op.loc)
        tangents = self.em.apply("srcad.tuple", tuple(self.t_or_zero(a, op.loc) for a in op.args[1:]), (),
                                 op.loc)
        jvp = custom.called("jvp")
        pair = self.em.apply("srcad.call", (Const(Ext(jvp.__name__, jvp)), primals, tangents), (), op.loc)
        out = self.em.apply("operator.getitem", (pair, Const(0)), (), op.loc, op.outs[0].hint)
        self.val[op.outs[0]] = out
        self.tan[op.outs[0]] = self.em.apply("operator.getitem", (pair, Const(1)), (), op.loc,
                                             self.hint(op.outs[0]))

    def bindings(self, op: Apply, rule) -> dict:
        bound = registry.bind(rule, op.args, op.kw)
        out: dict = {name: self.v(a) for name, a in bound.items()}
        for name in rule.params:
            if name not in out and name in rule.defaults:
                out[name] = Const(rule.defaults[name])
        if len(op.outs) == 1:
            out["ans"] = self.val[op.outs[0]]
        for i, o in enumerate(op.outs):
            out[f"ans{i}"] = self.val[o]
        for name, tpl in rule.let.items():
            out[name] = (lambda tpl=tpl: self.em.instantiate(tpl, out, op.loc))
        out["_bound"] = bound
        return out

    def needs_broadcast(self, op: Apply, rule, active: list, bindings: dict) -> bool:
        """Could the summed tangent be smaller than the result (an input was broadcast)?"""
        ans = op.outs[0]
        if not rule.broadcasts or ans.type.is_scalar:
            return False
        bound = bindings["_bound"]
        for p in active:
            others = [q for q in rule.broadcasts if q != p and q in bound]
            if (p in rule.broadcasts and all(_is_scalar(bound[q]) for q in others)
                    and not _is_scalar(bound[p])):
                return False  # this tangent alone already has the result's shape
            tpls = jvp_templates(rule, op)
            names = tpls[p].names if p in tpls else frozenset()
            if "ans" in names or set(others) <= names:
                return False  # the rule combines it with the other operands: full shape
        return any(p in rule.broadcasts for p in active)

    def joint(self, op: Apply, rule, bindings: dict) -> None:
        bound = bindings["_bound"]
        for p in rule.diff_params:
            if p in bound:
                bindings[f"t_{p}"] = self.t_or_zero(bound[p], op.loc)
        t = self.em.instantiate(rule.jvp_all, bindings, op.loc, self.hint(op.outs[0]))
        if len(op.outs) == 1:
            self.tan[op.outs[0]] = t
            return
        for i, o in enumerate(op.outs):
            self.tan[o] = self.em.apply("operator.getitem", (t, Const(i)), (), op.loc, self.hint(o))

    def structural(self, op: Apply, rule) -> None:
        if rule.name == "srcad.dict":
            args = [a if i % 2 == 0 else self.t_or_zero(a, op.loc) for i, a in enumerate(op.args)]
        elif rule.name == "srcad.named_tuple":  # (its class, then its items)
            args = [op.args[0]] + [self.t_or_zero(a, op.loc) for a in op.args[1:]]
        else:
            args = [self.t_or_zero(a, op.loc) for a in op.args]
        self.tan[op.outs[0]] = self.em.apply(rule.name, args, (), op.loc, self.hint(op.outs[0]))

    def no_rule(self, op: Apply, rule, what: str = ""):
        return no_rule_error(op, rule, what, "tangent (forward-mode)")

    # regions

    def if_(self, op: If) -> None:
        active = [i for i, o in enumerate(op.outs) if self.act.active(o)]
        self.b.begin_if(self.v(op.cond), op.loc)
        then_y = self.branch(op.then, active, op.loc)
        self.b.begin_else(then_y)
        else_y = self.branch(op.orelse, active, op.loc)
        hints = tuple(o.hint for o in op.outs) + tuple(self.hint(op.outs[i]) for i in active)
        types = tuple(o.type for o in op.outs) + tuple(self.ttype(op.outs[i].type) for i in active)
        outs = self.b.end_if(else_y, hints, types)
        n = len(op.outs)
        self.val.update(zip(op.outs, outs[:n]))
        for i, t in zip(active, outs[n:]):
            self.tan[op.outs[i]] = t

    def branch(self, block: Block, active, loc) -> tuple:
        self.block_ops(block)
        ys = tuple(self.v(y) for y in block.yields)
        return ys + tuple(self.t_or_zero(block.yields[i], loc) for i in active)

    def loop(self, op) -> None:
        is_for = isinstance(op, For)
        params = op.body.params[1:] if is_for else op.body.params
        n = len(op.outs)
        # a slot is carried when its value after the loop is active even if the body never
        # reads the carried value (`s = x; s = s * s` overwrites it on every iteration)
        active = [i for i in range(n) if self.act.active(params[i]) or self.act.active(op.outs[i])]
        init = tuple(self.v(a) for a in op.init) + tuple(self.t_or_zero(op.init[i], op.loc) for i in active)
        hints = tuple(p.hint for p in params) + tuple(self.hint(params[i]) for i in active)
        types = tuple(p.type for p in params) + tuple(self.ttype(params[i].type) for i in active)
        if is_for:
            index, new = self.b.begin_for(self.v(op.start), self.v(op.stop), self.v(op.step), init,
                                          index_hint=op.body.params[0].hint or "i", hints=hints,
                                          types=types, reverse=op.reverse, loc=op.loc)
            self.val[op.body.params[0]] = index
        else:
            new = self.b.begin_while(init, hints, types, op.loc)
            self.bind_params(op.cond.params, new, active)
            self.block_ops(op.cond)
            new = self.b.begin_while_body(self.v(op.cond.yields[0]))
        self.bind_params(params, new, active)
        self.block_ops(op.body)
        ys = tuple(self.v(y) for y in op.body.yields[:n])
        ys += tuple(self.t_or_zero(op.body.yields[i], op.loc) for i in active)
        flag = self.v(op.body.yields[n]) if op.exits else None
        outs = self.b.end_for(ys, flag) if is_for else self.b.end_while(ys, flag)
        self.val.update(zip(op.outs, outs[:n]))
        for i, t in zip(active, outs[n:]):
            self.tan[op.outs[i]] = t

    def bind_params(self, params, new, active) -> None:
        n = len(params)
        for p, q in zip(params, new[:n]):
            self.val[p] = q
        for i, q in zip(active, new[n:]):
            self.tan[params[i]] = q


def forward(fn: Function, act: Activity, wrt: tuple[int, ...]):
    """Forward-mode derivative of `fn`. Returns (emitter, params, tangent params, out, out_dot)."""
    f = Forward(fn, act)
    params, tangents, out, out_dot = f.run(wrt)
    return f.em, params, tangents, out, out_dot
