"""Frozen scipy.stats distributions: `norm(loc, scale).logpdf(x)`, and the same with the
distribution kept in a variable,

    d = scipy.stats.norm(mu, sigma)
    return np.sum(d.logpdf(x)) + d.cdf(0.0)

A method of a frozen distribution whose function has a source implementation
(rules/scipy_stats.py) is the call `norm.logpdf(x, mu, sigma)`: the arguments the
distribution was made with come after the method's own. The variable still holds the real
frozen distribution (made by the call as written, dropped where nothing else uses it: making
one takes scipy about a millisecond), so other uses of it run as in Python;
but a derivative may not flow through them (d.mean() of a differentiated mu is an error
naming the method, as for any object srcad does not know). A variable assigned in a branch
or a loop is a new value, whose distribution is not known: its methods are that error too.
"""

from __future__ import annotations

import gast

from ..ir.nodes import Atom, Const, Ext, Var
from ..rules import registry
from ..rules.library import freezes_distribution
from .resolve import Static


class FrozenDistributions:
    """A mixin of FunctionLowerer (lower.py); `ctx.frozen` maps the value of a call
    `dist(*args, **kw)` to (dist, args, kw)."""

    def emit(self, prim: str, args, kw=(), node=None, nouts: int = 1, hint: str = ""):
        out = super().emit(prim, args, kw, node, nouts, hint)
        if (prim == "srcad.call" and nouts == 1 and isinstance(out, Var) and isinstance(args[0], Const)
                and isinstance(args[0].value, Ext) and freezes_distribution(args[0].value.obj)):
            self.ctx.frozen[out] = (args[0].value.obj, list(args[1:]), list(kw))
        return out

    def frozen_call(self, node) -> Atom | None:
        """`dist(...).method(x)` or `d.method(x)` for d made by `dist(...)`, when the
        distribution's function has a source implementation: `dist.method(x, ...)`."""
        if not isinstance(node.func, gast.Attribute):
            return None
        made = self.made_with(node.func.value, node.func.attr)
        if made is None:
            return None
        method, inner, inner_kw = made
        args, kw = self.call_args(node)
        return self.call_static(method, list(args) + list(inner), list(inner_kw) + list(kw), node)

    def made_with(self, base, attr: str) -> tuple | None:
        """(the method, args, kw) when `base` is `dist(*args, **kw)`, or a name bound to its
        value, and dist's method `attr` has a source implementation."""
        if isinstance(base, gast.Name):
            v = self.lookup_name(base.id, base)
            made = self.ctx.frozen.get(v) if isinstance(v, Var) else None
            method = _implemented(made[0], attr) if made is not None else None
            return (method, made[1], made[2]) if method is not None else None
        if not isinstance(base, gast.Call):
            return None
        root = base.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or not isinstance(self.lookup_name(root.id, root), Static):
            return None
        dist = self.static_of(self.expr(base.func))
        method = _implemented(dist.obj, attr) if dist is not None and freezes_distribution(dist.obj) else None
        if method is None:
            return None
        inner, inner_kw = self.call_args(base)
        return method, list(inner), list(inner_kw)


def _implemented(dist, attr: str):
    """dist's method `attr`, when it has a source implementation."""
    method = getattr(dist, attr, None)
    rule = registry.rule_for_object(method) if method is not None else None
    return method if rule is not None and rule.source is not None else None
