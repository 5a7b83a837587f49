"""Atoms and expressions of generated code: names, constants, calls, operators, indexing.
A mixin of CodeEmitter (emit.py), which owns naming, inlining and statements."""

from __future__ import annotations

import math

import gast

from ..ir import types as T
from ..ir.nodes import UNDEF, Apply, Atom, Const, Ext, Var, atom_type
from ..rules import registry
from .syntax import (
    _MODULE_ALIASES,
    ATTRIBUTES,
    BINOPS,
    COMPARE,
    INPLACE,
    UNARY,
    _attr,
    _call,
    _is_default,
    _name,
)


def _picks_number(op: Apply, args) -> bool:
    """np.where(c, a, b) on a bool and two numbers of the result's type: `a if c else b`."""
    t = op.out.type
    return (len(args) == 3 and isinstance(t, (T.Float, T.Int)) and isinstance(atom_type(args[0]), T.Bool)
            and all(type(atom_type(x)) is type(t) for x in args[1:]))


def _known_rank(args) -> bool:
    return bool(args) and isinstance(args[0], Var) and isinstance(args[0].type, T.Array) \
        and args[0].type.ndim is not None and args[0].type.ndim > 0


def _python_form(form: str, a: list, args, kw) -> gast.expr | None:
    """A view written as the array's attribute or subscript (Rule.python), or None."""
    if form == "T" and not kw and all(isinstance(x, Const) and x.value is None for x in args[1:]):
        return _attr(a[0], "T")
    if form == "newaxis" and not kw and len(args) == 2 and isinstance(args[1], Const) \
            and type(args[1].value) is int and -args[0].type.ndim - 1 <= args[1].value <= args[0].type.ndim:
        k = args[1].value % (args[0].type.ndim + 1)
        parts = [gast.Slice(lower=None, upper=None, step=None)] * k + [gast.Constant(value=None, kind=None)]
        key = parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())
        return gast.Subscript(value=a[0], slice=key, ctx=gast.Load())
    if form == "negative" and not kw and len(args) == 1 and args[0].type.kind in ("i", "u", "b"):
        return gast.Compare(left=a[0], ops=[gast.Lt()], comparators=[gast.Constant(value=0, kind=None)])
    return None


def _array_form(rule, a: list, args, kw) -> gast.expr | None:
    """The call written with its array argument (of known rank > 0; a 0-d value may be a
    Python float, the tangent of z - 1.0): a view as its attribute or subscript (Rule.python),
    a reduction as its method (Rule.method: x.sum() skips np.sum's Python layer, a few µs)."""
    if rule.python:
        form = _python_form(rule.python, a, args, kw)
        if form is not None:
            return form
    return _call(_attr(a[0], rule.method), a[1:], kw) if rule.method else None


def _same(found, fn) -> bool:
    """The object a dotted path names is the rule's function (a bound method of a ufunc, such
    as np.maximum.accumulate, is a new but equal object at each read)."""
    return found is fn or (type(getattr(fn, "__self__", None)).__name__ == "ufunc" and found == fn)


class ExprEmitter:
    """Expression emission; needs `naming`, `inline`, `override`, `defs`, `ns`, `uses`."""

    # -- atoms and expressions -----------------------------------------------------------------

    def name(self, v: Var) -> str:
        return self.naming.names[v]

    def atom(self, a: Atom, index: bool = False):
        if isinstance(a, Var):
            if a in self.override:
                return _name(self.override[a])
            if a in self.inline:
                return self.expr(self.defs[a], index)
            return _name(self.name(a))
        return self.const(a.value, index)

    def const(self, value, index: bool = False):
        if value is UNDEF:
            raise AssertionError("srcad internal error: undefined value reached code generation")
        if isinstance(value, Ext):
            return _name(self.ns.ref(value.obj, value.name))
        if isinstance(value, bool) or value is None or value is Ellipsis or isinstance(value, str):
            return gast.Constant(value=value, kind=None)
        if isinstance(value, (int, float)):
            if isinstance(value, float) and math.isnan(value):
                return _attr(_name("math"), "nan")
            if isinstance(value, float) and math.isinf(value):
                inf = _attr(_name("math"), "inf")
                return inf if value > 0 else gast.UnaryOp(op=gast.USub(), operand=inf)
            if value < 0 or (value == 0 and math.copysign(1, value) < 0):
                return gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-value, kind=None))
            return gast.Constant(value=value, kind=None)
        if isinstance(value, complex) and math.isfinite(value.real) and math.isfinite(value.imag):
            return self._complex(value)
        if isinstance(value, tuple):
            return gast.Tuple(elts=[self.const(v, index) for v in value], ctx=gast.Load())
        if isinstance(value, slice):
            return self._slice([Const(value.start), Const(value.stop), Const(value.step)], index)
        raise AssertionError(f"cannot emit constant {value!r}")

    def _complex(self, value: complex) -> gast.expr:
        """A complex literal: `2j`, `-2j`, `(1.5 + 2j)`, `(1.5 - 2j)`."""
        imag = gast.Constant(value=complex(0.0, abs(value.imag)), kind=None)
        if value.real == 0 and math.copysign(1, value.real) > 0:
            return imag if math.copysign(1, value.imag) > 0 else gast.UnaryOp(op=gast.USub(), operand=imag)
        op = gast.Add() if math.copysign(1, value.imag) > 0 else gast.Sub()
        return gast.BinOp(left=self.const(value.real), op=op, right=imag)

    def callee(self, rule) -> gast.expr:
        """The expression naming a primitive's function: np.sin, math.exp, _unbroadcast..."""
        path = rule.name
        if path.startswith("builtins."):
            return _name(path.split(".", 1)[1])
        parts = path.split(".")
        if rule.runs is not None:  # (a runtime helper: _einsum; scipy's logsumexp for srcad.logsumexp)
            return _name(self.ns.ref(rule.runs, "_" + parts[-1]))
        if path.startswith("srcad."):
            return _name(self.ns.ref(rule.fn, "_" + path.split(".", 1)[1]))
        if rule.fn is not None and (parts[0] not in ("numpy", "math")
                                    or not _same(registry.resolve_path(path), rule.fn)):
            return _name(self.ns.ref(rule.fn, parts[-1]))  # other libraries: the object itself
        root = _MODULE_ALIASES.get(parts[0], parts[0])
        mod = registry.resolve_path(parts[0])
        node = _name(self.ns.ref(mod, root) if mod is not None else root)
        for p in parts[1:]:
            node = _attr(node, p)
        return node

    def _slice(self, parts, index: bool):
        lo, hi, step = [None if isinstance(p, Const) and p.value is None else self.atom(p) for p in parts]
        if index:
            return gast.Slice(lower=lo, upper=hi, step=step)
        return _call(_name("slice"), [x if x is not None else gast.Constant(value=None, kind=None)
                                      for x in (lo, hi, step)])

    def index(self, a: Atom):
        """An index expression, with slices written as `a:b:c`."""
        if isinstance(a, Var) and a in self.inline and self.defs[a].prim in ("srcad.slice", "srcad.tuple"):
            op = self.defs[a]
            if op.prim == "srcad.slice":
                return self._slice(op.args, True)
            return gast.Tuple(elts=[self.index(x) for x in op.args], ctx=gast.Load())
        if isinstance(a, Const) and isinstance(a.value, tuple):
            return gast.Tuple(elts=[self.const(v, True) for v in a.value], ctx=gast.Load())
        return self.atom(a, True)

    def expr(self, op: Apply, index: bool = False) -> gast.expr:
        p, args, rule = op.prim, op.args, registry.lookup(op.prim)
        a = [self.atom(x) for x in args]
        kw = [(k, self.atom(x)) for k, x in op.kw if not _is_default(rule, k, x)]
        short = p.split(".", 1)[1] if "." in p else p
        if p.startswith("operator."):
            short = INPLACE.get(short, short)
            if short in BINOPS:
                return gast.BinOp(left=a[0], op=BINOPS[short](), right=a[1])
            if short in UNARY:
                return gast.UnaryOp(op=UNARY[short](), operand=a[0])
            if short in COMPARE:
                return gast.Compare(left=a[0], ops=[COMPARE[short]()], comparators=[a[1]])
            if short == "contains":
                return gast.Compare(left=a[1], ops=[gast.In()], comparators=[a[0]])
            if short == "getitem":
                return gast.Subscript(value=a[0], slice=self.index(args[1]), ctx=gast.Load())
        if p == "srcad.not_in":
            return gast.Compare(left=a[0], ops=[gast.NotIn()], comparators=[a[1]])
        if p == "srcad.tuple":
            return gast.Tuple(elts=a, ctx=gast.Load())
        if p == "srcad.list":
            return gast.List(elts=a, ctx=gast.Load())
        if p == "srcad.dict":
            return gast.Dict(keys=a[0::2], values=a[1::2])
        if p == "srcad.slice":
            return self._slice(args, index)
        if p == "srcad.global":
            return _attr(a[0], args[1].value)
        if p == "srcad.cell":
            return _attr(a[0], "cell_contents")
        if p == "srcad.getattr":
            return _attr(a[1], args[0].value)
        if p == "srcad.method":
            return _call(_attr(a[1], args[0].value), a[2:], kw)
        if p == "srcad.call":
            return _call(a[0], a[1:], kw)
        if p == "srcad.format":
            return _call(_attr(a[0], "format"), a[1:], kw)
        if p == "srcad.custom":
            custom = args[0].value.obj
            use_fwd = len(op.outs) > 1 and self.uses[op.outs[1]] > 0
            fn = custom.called("fwd" if use_fwd else "fun")
            return _call(_name(self.ns.ref(fn, fn.__name__)), a[1:], kw)
        if p in ("srcad.list_concat", "srcad.list_repeat"):
            return gast.BinOp(left=a[0], op=gast.Add() if p.endswith("concat") else gast.Mult(), right=a[1])
        if rule.attr:
            member = p.rsplit(".", 1)[1]
            if member in ATTRIBUTES:
                return _attr(a[0], member)
            return _call(_attr(a[0], member), a[1:], kw)
        if p == "numpy.where" and not kw and _picks_number(op, args):  # (np.where is ~1 µs on numbers)
            return gast.IfExp(test=a[0], body=a[1], orelse=a[2])
        form = _array_form(rule, a, args, kw) if _known_rank(args) else None
        return form if form is not None else _call(self.callee(rule), a, kw)
