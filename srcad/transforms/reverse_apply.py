"""Reverse mode, one operation at a time: the adjoint of an `Apply` from its rule's vjp
templates (or its joint template, a scatter for indexing, a user's custom backward), with
cotangents reduced back to each input's shape when NumPy broadcast it. A mixin of the
`Reverse` transform (transforms/reverse.py), which owns the sweeps and the cotangents.
"""

from __future__ import annotations

from ..errors import NoRuleError, diagnostic
from ..frontend.objects import why_not_made
from ..frontend.resolve import library_code
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Const, Ext, Var, atom_type
from ..rules import registry
from ..rules.record import TEMPLATE_GLOBALS
from .emitter import aloc, known_zero
from .naming import cotangent
from .operands import operand_params
from .policy import holds_complex as touches_complex_type
from .policy import touches_complex, vjp_templates


def _is_scalar(a: Atom) -> bool:
    if isinstance(a, Const):
        return isinstance(a.value, (bool, int, float))
    return a.type.is_scalar


def no_rule_error(op: Apply, rule, what: str, kind: str) -> NoRuleError:
    """The error for a differentiated value reaching a call srcad has no rule for."""
    name, hint = rule.name, ("register one with srcad.defrule (docs/rules.md), wrap the function with "
                             "@srcad.custom_vjp, or use srcad.stop_gradient if no derivative should flow")
    if rule.opaque and op.args and isinstance(op.args[0], Const):
        target = op.args[0].value
        name = getattr(target, "name", None) or str(target)
        if rule.name == "srcad.method":
            name = f"method .{target}()"
            if target in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "logpmf", "pmf"):
                hint = FROZEN_HINT + hint
            else:
                hint = _object_hint(op) or hint
        elif rule.name == "srcad.getattr":
            name = f"attribute .{target}"
            hint = _object_hint(op) or hint
        elif isinstance(target, Ext):
            name, hint = _called(target.obj, hint)
    elif rule.name == "srcad.call" and op.args and isinstance(op.args[0], Var):
        name = f"a call of {op.args[0].hint or 'a function'} (a function value computed at run time)"
        hint = ("srcad resolves calls of functions it knows while transforming: a function of a "
                "module, a nested def or lambda, or a function passed as an argument itself (not "
                "in a list or dict, and not chosen by a branch); otherwise " + hint)
    if rule.name == "operator.getitem":
        msg = ("indexing with a differentiated value (as np.r_[x, 0:3] and np.c_ with slices do) "
               "has no derivative")
        return NoRuleError(msg, [diagnostic(op.loc, msg, "build the array with np.concatenate, np.stack "
                                            "or np.column_stack instead")])
    if rule.name == "srcad.data_only" and len(op.args) > 1 and isinstance(op.args[1], Const):
        msg = f"{op.args[1].value} is data: srcad does not differentiate with respect to it"
        return NoRuleError(msg, [diagnostic(op.loc, msg, "pass it as a constant (an int, or wrapped in "
                                            "srcad.stop_gradient)")])
    if rule.refuses and rule.name.startswith("numpy.random."):
        msg = f"{name} draws random samples: srcad does not differentiate through its parameters"
        return NoRuleError(msg, [diagnostic(op.loc, msg, "write the sample reparameterised, e.g. "
                                            "loc + scale * np.random.standard_normal(size), or wrap "
                                            "the parameters in srcad.stop_gradient")])
    msg = f"no {kind} rule for {name}{what}"
    return NoRuleError(msg, [diagnostic(op.loc, msg, hint)])


def _object_hint(op: Apply) -> str | None:
    """What to do when a method or attribute is read off a value srcad knows nothing about (what
    a call without a rule returned: an object of the user's class made in the function)."""
    obj = op.args[1] if len(op.args) > 1 else None
    if not (isinstance(obj, Var) and isinstance(obj.type, T.Unknown)):
        return None
    return (f"{obj.hint or 'the object'} is a value srcad knows nothing about while transforming: what "
            "a call srcad has no rule for returned (an object of your class made inside the function, "
            "which srcad differentiates through where " + _HELD + "), or an object `srcad codegen` "
            "cannot carry into a standalone file; read the numbers you need out of it where it is made, "
            "or make it outside the function and pass it in (a dataclass, or a class registered with "
            "srcad.register_pytree, to differentiate with respect to its fields)")


_HELD = ("the generated code need not hold it; here it is returned, kept in a list, dict or tuple, chosen "
         "by a conditional, carried by a loop, compared or given to a library function")


FROZEN_HINT = ("a frozen scipy.stats distribution is supported where srcad sees it made: "
               "norm(loc, scale).logpdf(x), or d = norm(loc, scale) assigned once in this function (not in "
               "a branch or loop, not passed in or stored in a container), and used through the methods "
               "docs/primitives.md lists; or call scipy.stats.norm.logpdf(x, loc, scale); otherwise ")


def _called(fn, hint: str):
    """How an error names a function srcad calls without a rule, and what to do about it."""
    refusal = getattr(fn, "__srcad_refusal__", None)  # (srcad's own derivative code: odes.py)
    if refusal is not None:
        return refusal
    module = getattr(fn, "__module__", None) or ""
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    name = f"{module}.{qualname}" if module and module != "builtins" else qualname
    owner = getattr(fn, "__self__", None)
    if type(owner).__name__ == "ufunc":  # a method of a ufunc: numpy.logaddexp.accumulate
        name = f"numpy.{owner.__name__}.{getattr(fn, '__name__', qualname)}"
    if module.split(".")[0] == "srcad":
        return (f"srcad.{getattr(fn, '__name__', qualname)}", "srcad.grad and srcad.value_and_grad can be "
                "called inside a differentiated function; call the other transformations outside it")
    if module.startswith("scipy.stats"):
        dist = getattr(getattr(fn, "__self__", None), "name", None)
        if isinstance(dist, str) and dist.isidentifier():  # (a method of a distribution)
            name = f"scipy.stats.{dist}.{getattr(fn, '__name__', qualname)}"
        elif isinstance(getattr(fn, "name", None), str) and not isinstance(fn, type):  # norm(mu, s)
            return f"scipy.stats.{fn.name}(...), a frozen distribution", FROZEN_HINT + hint
        hint = ("srcad differentiates the scipy.stats functions docs/primitives.md lists "
                "(scipy.stats.norm.logpdf(x, loc, scale), ...), not other distributions or methods; "
                "otherwise " + hint)
    if library_code(fn):
        name += " (library code, which srcad does not differentiate through)"
    elif isinstance(fn, type):
        reason = why_not_made(fn)
        held = f"it does not make objects of {qualname} while transforming ({reason})" if reason else _HELD
        hint = ("srcad differentiates through objects of your classes made inside the function where "
                + held + ": read the numbers you need out of it, or make the object outside and pass it "
                "in (its methods are inlined; a dataclass, or a class registered with "
                "srcad.register_pytree, to differentiate with respect to its fields)")
    return name, hint


def _scales(rule, op, pairs) -> bool:
    """Does the adjoint multiply the cotangent by something (not only move or add it)?"""
    if rule.scatter:
        return False
    moves, vjp = {"g"} | set(TEMPLATE_GLOBALS), vjp_templates(rule, op)
    return any(p not in vjp or not vjp[p].names <= moves for p, _ in pairs)


def _complex_value(a: Atom) -> bool:
    """May a be complex (its type says so, or a literal is)?"""
    t = atom_type(a)
    return T.is_complex(t) or isinstance(t, (T.Tuple, T.List)) and touches_complex_type(t)


def _guardable(g) -> bool:
    """A cotangent whose zero a run-time test can see (a number or a NumPy array)."""
    return isinstance(g, Var) and isinstance(g.type, (T.Float, T.Array, T.Num))


class ApplyAdjoints:
    def no_rule(self, op: Apply, rule, what: str = ""):
        return no_rule_error(op, rule, what, "derivative")

    def bwd_apply(self, op: Apply) -> None:
        cts = [self.take_ct(o) if self.act.active(o) else None for o in op.outs]
        cts = [None if known_zero(c) else c for c in cts]  # (no adjoint: 0 * inf would be NaN)
        if all(c is None for c in cts):
            return
        rule = registry.lookup(op.prim)
        pairs = [(p, a) for p, a in operand_params(op, rule) if self.act.active(a)]
        if not pairs:
            return
        if rule.structural:
            return self.bwd_structural(op, rule, cts[0])
        if rule.opaque:
            raise self.no_rule(op, rule)
        if rule.custom:
            return self.bwd_custom(op, cts[0], pairs)
        guarded = len(op.outs) == 1 and op.outs[0] in self.partial and _guardable(cts[0])
        if guarded and _scales(rule, op, pairs):
            return self.bwd_guarded(op, rule, cts, pairs)
        self.bwd_rule(op, rule, cts, pairs)

    def bwd_guarded(self, op: Apply, rule, cts, pairs) -> None:
        """The adjoint of an operation whose result's cotangent is a zero on the paths that
        did not use the result (an `if` joined it): computed only where the cotangent is not
        zero, as it is only on the path taken, so that a local derivative that is inf or NaN
        there (sqrt of a negative the taken path never uses) does not make 0 * inf = NaN."""
        loc, g = aloc(op.loc), cts[0]
        self.materialize([a for _, a in pairs], loc)  # (both paths then bind each cotangent)
        if isinstance(atom_type(g), T.Float):
            nonzero = self.em.apply("operator.ne", (g, Const(0.0)), (), loc)
        else:
            nonzero = self.em.apply("numpy.any", (g,), (), loc)
        self.b.begin_if(nonzero, loc)
        self.layers.append({})  # (values recomputed in the branch stay in it)
        self.bwd_rule(op, rule, cts, pairs)
        self.layers.pop()
        self.b.begin_else()
        self.b.end_if()

    def bwd_rule(self, op: Apply, rule, cts, pairs) -> None:
        bindings = self.bindings(op, rule, cts)
        if rule.updates is not None:  # read the cotangent before updating it in place
            updated = rule.params[rule.updates]
            pairs = [pa for pa in pairs if pa[0] != updated] + [pa for pa in pairs if pa[0] == updated]
        if rule.vjp_all is not None:
            return self.bwd_joint(op, rule, bindings, pairs)
        for p, a in pairs:
            if rule.scatter and p == rule.params[0]:
                self.scatter(a, bindings, rule, op)
                continue
            tpl = vjp_templates(rule, op).get(p)
            if tpl is None:
                raise self.no_rule(op, rule, f" with respect to its argument {p!r}")
            c = self.real_part(a, self.em.instantiate(tpl, bindings, aloc(op.loc), cotangent(a.hint)), op)
            if p in rule.broadcasts and self.needs_unbroadcast(op, rule, p, bindings, c):
                c = self.em.apply("srcad.unbroadcast", (c, self.primal(a)), (), aloc(op.loc))
            if isinstance(atom_type(a), T.List) and rule.name.startswith("numpy.") and \
                    not isinstance(atom_type(c), (T.List, T.Tuple)):  # (split_like's are already)
                # np.sum(xs) of a list: its cotangent is a list again, split like xs
                c = self.em.apply("srcad.array_adjoint", (c, self.primal(a)), (), aloc(op.loc))
            self.accumulate(a, c, aloc(op.loc))

    def real_part(self, a: Atom, c: Atom, op: Apply) -> Atom:
        """The cotangent of a real operand of an operation on complex values: the real part of
        the rule's (a real value promoted to complex gets back the real part, docs/subset.md).
        Taken whatever type the cotangent has (a helper's type may not say it is complex);
        the policy makes sure the operand's type says whether it is real (transforms/policy.py)."""
        if (touches_complex(op) or T.is_complex(atom_type(c))) and not _complex_value(a):
            return self.em.apply("numpy.real", (c,), (), aloc(op.loc))  # (irfft of a real array too)
        return c

    def bwd_custom(self, op: Apply, g: Atom, pairs) -> None:
        """Call the user's backward rule with the residuals its forward rule returned."""
        custom = op.args[0].value.obj
        if custom.bwd is None:
            raise NoRuleError(f"{custom.__name__} has no reverse-mode rule", [diagnostic(
                op.loc, f"{custom.__name__} has no reverse-mode rule",
                "give it one with .defvjp(fwd, bwd) (a custom_jvp alone serves forward mode)")])
        loc = aloc(op.loc)
        res = self.primal(op.outs[1])
        bwd = custom.called("bwd")
        raw = self.em.apply("srcad.call", (Const(Ext(bwd.__name__, bwd)), res, g), (), loc)
        args = self.em.apply("srcad.tuple", tuple(self.primal(a) for a in op.args[1:]), (), loc)
        cts = self.em.apply("srcad.custom_cotangents", (raw, args), (), loc)
        for p, a in pairs:
            c = self.em.apply("operator.getitem", (cts, Const(int(p))), (), loc,
                              cotangent(a.hint))
            self.accumulate(a, c, loc)

    def bindings(self, op: Apply, rule, cts) -> dict:
        bound = registry.bind(rule, op.args, op.kw)
        bindings: dict = {}
        for name in rule.params:
            if name in bound:
                bindings[name] = (lambda a=bound[name]: self.primal(a))
            elif name in rule.defaults:
                bindings[name] = Const(rule.defaults[name])
        if len(op.outs) == 1:
            bindings["ans"] = lambda: self.primal(op.outs[0])
            bindings["g"] = cts[0]
        else:
            for i, o in enumerate(op.outs):
                bindings[f"ans{i}"] = (lambda o=o: self.primal(o))
                bindings[f"g{i}"] = (cts[i] if cts[i] is not None
                                     else (lambda o=o: self.zeros_for(o, aloc(op.loc))))
        for name, tpl in rule.let.items():
            bindings[name] = (lambda tpl=tpl: self.em.instantiate(tpl, bindings, aloc(op.loc)))
        bindings["_bound"] = bound
        return bindings

    def needs_unbroadcast(self, op: Apply, rule, p: str, bindings: dict, c: Atom) -> bool:
        bound = bindings["_bound"]
        x, ans = bound[p], op.outs[0]
        if _is_scalar(x) and (ans.type.is_scalar or _is_scalar(c)):
            return False
        others = [bound[q] for q in rule.broadcasts if q != p and q in bound]
        if not others:  # broadcast against a slot or the elements (x[i] = v, sum(xs, start)):
            return True  # reduced unless the shapes match (the simplifier drops it then)
        return not (all(_is_scalar(o) for o in others) and not _is_scalar(x))

    def scatter(self, x: Atom, bindings: dict, rule, op: Apply) -> None:
        idx_name, g_name = rule.scatter
        idx = bindings[idx_name]
        idx = idx() if callable(idx) else idx
        g = bindings[g_name]
        acc = self.take_ct(x)
        if acc is None:
            acc = self.zeros_for(x, aloc(op.loc))
        k = self.key(x)
        self.b.var_hints.setdefault(k, cotangent(x.hint))
        self.cts[-1].add(x)
        new = self.em.apply("srcad.scatter_add", (acc, idx, g), (), aloc(op.loc), self.b.var_hints[k])
        self.b.write(k, new)

    def bwd_joint(self, op: Apply, rule, bindings: dict, pairs) -> None:
        tup = self.em.instantiate(rule.vjp_all, bindings, aloc(op.loc))
        active = dict(pairs)
        for i, p in enumerate(rule.diff):
            if p in active:
                c = self.em.apply("operator.getitem", (tup, Const(i)), (), aloc(op.loc))
                self.accumulate(active[p], self.real_part(active[p], c, op), aloc(op.loc))

    def bwd_structural(self, op: Apply, rule, g: Atom) -> None:
        args = op.args
        if rule.name == "srcad.dict":
            items = [(args[i].value, args[i + 1]) for i in range(0, len(args), 2)]
        else:  # (a named tuple's first operand is its class)
            items = list(enumerate(args[1:] if rule.name == "srcad.named_tuple" else args))
        for key, a in items:
            if self.act.active(a):
                c = self.em.apply("operator.getitem", (g, Const(key)), (), aloc(op.loc),
                                  cotangent(a.hint))
                self.accumulate(a, self.real_part(a, c, op), aloc(op.loc))
