"""Typed emission for the transforms: operations get result types from the rule table,
constant operations fold on the spot, and rule templates are instantiated into IR.

    em = Emitter(builder)
    c = em.instantiate(rule.vjp["x"], {"x": x1, "y": y1, "ans": z1, "g": z_bar}, loc)
"""

from __future__ import annotations

import builtins
import dataclasses
import math

import gast
import numpy as np

from .. import runtime
from ..analysis.shapes import shape_query
from ..errors import NoRuleError, diagnostic
from ..frontend.expr import ExprLowerer
from ..frontend.resolve import Static
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.nodes import Atom, Const, Loc, Var, atom_type
from ..passes.fold import fold_apply
from ..rules import registry
from ..rules.registry import Template
from .result_types import out_types

TEMPLATE_NAMESPACE = {"np": np, "math": math, "srcad": runtime}


class Emitter:
    """Emit typed operations into a Builder."""

    def __init__(self, builder: Builder):
        self.b = builder
        self.branch_depth = 0  # > 0 while lowering a run-time branch of a template
        self.written: dict = {}  # a small float vector of zeros -> the entries added into it so far
        self.items: dict = {}  # a tuple or list srcad.tuple or srcad.list made -> its items
        self.entries: dict = {}  # a dict srcad.dict made -> its constant keys' values

    def apply(self, prim: str, args, kw=(), loc: Loc | None = None, hint: str = "", nouts: int = 1):
        rule = registry.lookup(prim)
        if rule is None:
            raise NoRuleError(f"no rule named {prim}", [diagnostic(loc, f"no rule named {prim}")])
        args, kw = tuple(args), tuple(kw)
        if nouts == 1 and not rule.impure and rule.updates is None:
            folded = shape_query(rule, args, kw) or fold_apply(prim, args, kw)
            if folded is not None:
                return folded
        if prim == "numpy.where" and loc is not None and loc.adjoint and isinstance(args[0], Const) \
                and args[0].value is True and len(args) == 3:
            return args[1]  # (a cotangent kept whole; np.where would make a list of arrays an array)
        zero = self._zero_entry(prim, args, kw)
        if zero is not None:
            return zero
        types = out_types(rule, args, kw, nouts)
        out = self.b.apply(prim, args, kw, loc, hint, types)
        self._track_entries(prim, args, kw, out)
        return out

    def _zero_entry(self, prim: str, args, kw):
        """0.0 for an entry, at a constant index or key, of a container of zeros that nothing
        was added to there, when that entry is a number (the cotangent of a tuple or dict whose
        other items are used: `grad(h)((x, k))[0]`): a zero a transform knows, so its adjoint is
        not computed (0 * NaN would be NaN)."""
        if prim != "operator.getitem" or kw or len(args) != 2 or not isinstance(args[1], Const):
            return None
        i = args[1].value
        if type(i) not in (int, str):
            return None
        items = self.items.get(args[0]) if type(i) is int else None
        if items is not None and -len(items) <= i < len(items) and known_zero(items[i]):
            return items[i]  # (the tangent of a list's or tuple's constant item)
        entries = self.entries.get(args[0], {}) if type(i) is str else {}
        if known_zero(entries.get(i)):
            return entries[i]  # (a dict's)
        if args[0] not in self.written:
            return None
        n, zeros = self.written[args[0]]
        return Const(0.0) if (i % n if type(i) is int and -n <= i < n else i) in zeros else None

    def _track_entries(self, prim: str, args, kw, out) -> None:
        """Record, for _zero_entry, the items of the tuples, lists and dicts built here, and
        the containers of zeros (numpy.zeros((n,)) of floats, srcad.zeros_like of a tuple or
        dict) with the number entries srcad.scatter_add has not added into yet."""
        plain = all(isinstance(v, Const) and v.value is None for _, v in kw)  # (dtype=None)
        if not isinstance(out, Var) or not plain:
            return
        if prim in ("srcad.tuple", "srcad.list") and 0 < len(args) <= 64 and not kw:
            self.items[out] = args
        elif prim == "srcad.dict" and not kw and len(args) % 2 == 0:
            self.entries[out] = {k.value: v for k, v in zip(args[::2], args[1::2]) if isinstance(k, Const)}
        elif prim == "numpy.asarray" and len(args) == 1 and (args[0] in self.items
                                                             or args[0] in self.written):
            items = self.items.get(args[0], ())  # (np.asarray((x_dot, 0.0)): a tangent of floats)
            if args[0] in self.written:
                self.written[out] = self.written[args[0]]
            elif all(isinstance(atom_type(a), T.Float) for a in items):
                self.written[out] = (len(items), frozenset(i for i, a in enumerate(items) if known_zero(a)))
        elif prim == "srcad.scatter_add" and len(args) == 3 and args[0] in self.written and \
                isinstance(args[1], Const) and type(args[1].value) in (int, str):
            n, zeros = self.written[args[0]]
            k = args[1].value
            self.written[out] = (n, zeros - {k % n if type(k) is int and n else k})
        else:
            zeros = _zero_entries(prim, args, atom_type(out))
            if zeros is not None:
                self.written[out] = zeros

    def instantiate(self, tpl: Template, bindings: dict, loc: Loc | None, hint: str = "") -> Atom:
        """Lower a template expression with its names bound to atoms (or thunks)."""
        return TemplateLowerer(self, bindings, loc, hint, tpl.namespace).value(tpl.node)

    def zeros(self, like: Atom, loc: Loc | None = None) -> Atom:
        """A zero derivative for a value like `like` (0.0 for floats, zeros for arrays)."""
        t = atom_type(like)
        if isinstance(like, Const):
            return Const(_const_zero(like.value))
        if t.is_scalar:
            return Const(0.0)
        if isinstance(t, T.Array):
            return self.apply("numpy.zeros_like", (like,), (), loc, "_zeros")
        return self.apply("srcad.zeros_like", (like,), (), loc, "_zeros")

    def add(self, a: Atom, b: Atom, loc: Loc | None = None, hint: str = "",
            like: T.Type | None = None) -> Atom:
        """The sum of two derivatives of the same value (of type `like`, the primal's type):
        elementwise for containers, where `+` would concatenate (also differentiated objects
        of several classes, T.Object: nodes, srcad/pytrees.py)."""
        t = like if like is not None else atom_type(a)
        if isinstance(t, (T.List, T.Tuple, T.Dict, T.Unknown, T.Object)):
            return self.apply("srcad.add", (a, b), (), loc, hint)
        return self.apply("operator.add", (a, b), (), loc, hint)


def known_zero(c) -> bool:
    """A cotangent (or tangent) that is the literal 0.0 while transforming (Emitter._zero_entry):
    the output does not depend on this value along this path, so it contributes nothing."""
    return isinstance(c, Const) and type(c.value) is float and c.value == 0.0


def _zero_entries(prim: str, args, t: T.Type):
    """(length, the positions or keys of its number entries) of a container of zeros made by
    `prim`: a float vector numpy.zeros((n,)), n <= 64, or srcad.zeros_like of a tuple or dict
    (the zero cotangent of a tuple or dict of arrays and numbers)."""
    if prim == "srcad.zeros_like" and isinstance(t, T.Tuple) and t.elts:
        return len(t.elts), frozenset(i for i, e in enumerate(t.elts) if isinstance(e, T.Float))
    if prim == "srcad.zeros_like" and isinstance(t, T.Dict):
        return 0, frozenset(k for k, e in t.items if isinstance(e, T.Float))
    if prim == "numpy.zeros" and isinstance(t, T.Array) and t.kind == "f" and t.ndim == 1 and len(args) == 1 \
            and isinstance(args[0], Const) and args[0].value == (t.shape[0],) and type(t.shape[0]) is int \
            and 0 < t.shape[0] <= 64:
        return t.shape[0], frozenset(range(t.shape[0]))
    return None


def _const_zero(value):
    """The zero derivative of a literal: 0.0, or a tuple of zeros for a tuple of literals
    (a function returning `0.5, 0.5` has a tangent of two zeros), None for None."""
    if isinstance(value, tuple):
        return tuple(_const_zero(v) for v in value)
    return None if value is None else 0.0


class TemplateLowerer(ExprLowerer):
    """Lower a rule template: names are the rule's bindings or template globals."""

    def __init__(self, em: Emitter, bindings: dict, loc: Loc | None, hint: str, namespace=None):
        self.em, self.b, self.bindings, self.op_loc, self.hint = em, em.b, bindings, loc, hint
        self.namespace = namespace or {}
        self.file = loc.file if loc else "<rule>"

    def loc(self, node) -> Loc | None:
        return self.op_loc

    def lookup_name(self, name: str, node):
        if name in self.bindings:
            v = self.bindings[name]
            if callable(v) and not isinstance(v, (Var, Const)):
                value = v()
                if self.em.branch_depth == 0:  # a value computed in a branch stays there
                    self.bindings[name] = value
                v = value
            return v
        if name in self.namespace:
            return Static(self.namespace[name])
        if name in TEMPLATE_NAMESPACE:
            return Static(TEMPLATE_NAMESPACE[name])
        return Static(getattr(builtins, name))

    def emit(self, prim, args, kw=(), node=None, nouts: int = 1, hint: str = ""):
        return self.em.apply(prim, args, kw, self.op_loc, hint, nouts)

    def branch_value(self, node):
        """Lower an expression inside a run-time branch (nothing computed there is reused)."""
        self.em.branch_depth += 1
        try:
            return self.value(node)
        finally:
            self.em.branch_depth -= 1

    def expr_IfExp(self, node):
        cond = self.value(node.test)
        if isinstance(cond, Const):
            return self.expr(node.body if cond.value else node.orelse)
        self.b.begin_if(cond, self.loc(node))
        a = self.branch_value(node.body)
        self.b.begin_else((a,))
        c = self.branch_value(node.orelse)
        (out,) = self.b.end_if((c,))
        return out

    def expr_BoolOp(self, node):
        first = self.value(node.values[0])
        if isinstance(first, Const) and len(node.values) == 2:
            is_and = isinstance(node.op, gast.And)
            if bool(first.value) == is_and:
                return self.expr(node.values[1])
            return first
        result = first
        for value_node in node.values[1:]:
            self.b.begin_if(result, self.loc(node))
            if isinstance(node.op, gast.And):
                y = self.branch_value(value_node)
                self.b.begin_else((y,))
                (result,) = self.b.end_if((result,))
            else:
                self.b.begin_else((result,))
                y = self.branch_value(value_node)
                (result,) = self.b.end_if((y,))
        return result


def aloc(loc):
    """The location of adjoint code for a user line (codegen comments those groups)."""
    return dataclasses.replace(loc, adjoint=True) if loc is not None else None
