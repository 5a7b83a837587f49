"""Lower gast expressions to IR operations.

`ExprLowerer` is shared by the function frontend (user code) and by the transforms (rule
templates): subclasses say how a bare name is looked up (`lookup_name`) and how a call to a
Python function without a rule is handled (`call_function`).
"""

from __future__ import annotations

import functools
import inspect
import types

import gast
import numpy as np

from ..custom import CustomRule
from ..errors import Diagnostic, NoRuleError, UnsupportedSyntaxError
from ..identifiers import identifier
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.kinds import partial_reads
from ..ir.nodes import UNDEF, Atom, Const, Ext, Loc, Var
from ..rules import registry
from .displays import Displays, Star, is_literal
from .inside import TransformsInside
from .planned import UNASSIGNED
from .resolve import LiveCell, LiveGlobal, LocalFunction, Static, library_code, static_attr

Lowered = Var | Const | Static | LiveGlobal | LiveCell

BINOPS = {
    gast.Add: "operator.add", gast.Sub: "operator.sub", gast.Mult: "operator.mul",
    gast.Div: "operator.truediv", gast.FloorDiv: "operator.floordiv", gast.Mod: "operator.mod",
    gast.Pow: "operator.pow", gast.MatMult: "operator.matmul", gast.BitAnd: "operator.and_",
    gast.BitOr: "operator.or_", gast.BitXor: "operator.xor", gast.LShift: "operator.lshift",
    gast.RShift: "operator.rshift",
}
INPLACE = {k: v.replace("operator.", "operator.i").replace("_", "") for k, v in BINOPS.items()}
UNARYOPS = {gast.USub: "operator.neg", gast.UAdd: "operator.pos", gast.Not: "operator.not_",
            gast.Invert: "operator.invert"}
CMPOPS = {
    gast.Lt: "operator.lt", gast.LtE: "operator.le", gast.Gt: "operator.gt", gast.GtE: "operator.ge",
    gast.Eq: "operator.eq", gast.NotEq: "operator.ne", gast.Is: "operator.is_",
    gast.IsNot: "operator.is_not", gast.In: "operator.contains", gast.NotIn: "srcad.not_in",
}

#: Methods that change their receiver in place: name -> number of results (new receiver
#: first, then what the method returns, when it returns something).
MUTATING_METHODS = {
    "append": 1, "extend": 1, "insert": 1, "pop": 2, "sort": 1, "reverse": 1, "fill": 1,
    "clear": 1, "remove": 1, "update": 1, "setdefault": 2, "popitem": 2, "resize": 1,
}

_NICE_NAMES = {"numpy": "np", "math": "math"}


def _current(v: Lowered) -> object:
    """The object a Static or a module global stands for now (None for anything else)."""
    if isinstance(v, Static):
        return v.obj
    if isinstance(v, LiveGlobal):
        return getattr(v.module.obj, v.name, None)
    return None


def _cell_read(cell, base) -> Lowered:
    """`_cell_x.cell_contents` in generated code: the closure variable x of the user's function,
    read as srcad reads closure variables (typed by its value, read again when the code runs)."""
    name = base.id.removeprefix("_cell_") if isinstance(base, gast.Name) else "cell"
    return LiveCell(Ext(f"_cell_{name}", cell), name)


def ext_name(obj: object) -> str:
    """The name generated code uses for an object (made unique later by codegen)."""
    if isinstance(obj, types.ModuleType):
        return _NICE_NAMES.get(obj.__name__) or identifier(str(obj.__name__).split(".")[-1], "_mod")
    name = getattr(obj, "__name__", None) or type(obj).__name__.lower()
    return identifier(name, "_obj")


def static_atom(obj: object) -> Const:
    """A literal, or a reference to an object the generated code will name."""
    return Const(obj) if is_literal(obj) else Const(Ext(ext_name(obj), obj))


def _class_method(base, attr: str):
    """`obj.attr` for an object known while transforming (a bound method's self) when attr
    is a function defined on its class: Static(the bound method). Data attributes stay
    run-time reads."""
    if not (isinstance(base, Const) and isinstance(base.value, Ext)):
        return None
    obj = base.value.obj
    if isinstance(obj, types.ModuleType) or attr in getattr(obj, "__dict__", {}):
        return None
    raw = inspect.getattr_static(type(obj), attr, None)
    if isinstance(raw, (types.FunctionType, staticmethod, classmethod)):
        return Static(getattr(obj, attr))
    return None


def _user_call_method(obj):
    """The `__call__` of an instance of a user's class, if it is a Python function."""
    if isinstance(obj, type) or not T.user_class(type(obj)):
        return None
    call = inspect.getattr_static(type(obj), "__call__", None)
    return call if isinstance(call, types.FunctionType) and not library_code(call) else None


class ExprLowerer(Displays, TransformsInside):
    """Lower expressions into a Builder. Subclasses provide name lookup."""

    b: Builder
    file: str = "<srcad>"
    col_offset: int = 0
    func_name: str = ""

    # -- hooks -------------------------------------------------------------------------------

    def lookup_name(self, name: str, node: gast.Name) -> Lowered:
        raise NotImplementedError

    def call_function(self, fn, args, kw, node) -> Atom:
        """A call to a Python function that has no rule (user code): inline it, or refuse."""
        raise self.no_rule(fn, node)

    def emit(self, prim: str, args, kw=(), node=None, nouts: int = 1, hint: str = ""):
        if any(isinstance(a, Star) for a in args):  # f(a, *v): resolved once v's length is known
            if nouts != 1:
                raise self.star_error(next(a for a in args if isinstance(a, Star)).node)
            first = next(i for i, a in enumerate(args) if isinstance(a, Star))
            packed = self.display(list(args[first:]), "tuple", node)
            args = (Const(prim), *args[:first], packed)
            prim = "srcad.star_call"
        types_ = (T.UNKNOWN,) * nouts
        return self.b.apply(prim, tuple(args), tuple(kw), self.loc(node), hint, types_)

    # -- helpers -----------------------------------------------------------------------------

    def loc(self, node) -> Loc | None:
        if node is None or getattr(node, "lineno", None) is None:
            return None
        return Loc(self.file, node.lineno, node.col_offset + self.col_offset, self.func_name, via=self.via)

    def error(self, cls, node, message: str, hint: str = ""):
        loc = self.loc(node)
        diag = Diagnostic(loc.file, loc.line, loc.col, message, hint) if loc else Diagnostic(
            self.file, 0, 0, message, hint)
        return cls(message, [diag])

    def no_rule(self, fn, node):
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
        mod = getattr(fn, "__module__", None)
        full = f"{mod}.{name}" if mod else name
        return self.error(
            NoRuleError, node, f"no derivative rule for {full}",
            "register one with srcad.defrule (see docs/rules.md), wrap the function with "
            "@srcad.custom_vjp, or apply it only to values that are not differentiated",
        )

    def atom(self, v: Lowered, node=None) -> Atom:
        """Turn any lowered expression into an IR atom (reading live globals now)."""
        if isinstance(v, (Var, Const)):
            return v
        if isinstance(v, Static):
            return static_atom(v.obj)
        if isinstance(v, LiveGlobal):
            return self.emit("srcad.global", (Const(v.module), Const(v.name)), node=node, hint=v.name)
        if isinstance(v, LiveCell):
            ctx = getattr(self, "ctx", None)
            source = ctx.cell_sources.get(id(v.cell.obj)) if ctx is not None else None
            if source is not None:  # (a cell of a function given as an argument: read from it)
                return self.emit("srcad.arg_cell", (source[0], Const(source[1])), node=node, hint=v.name)
            return self.emit("srcad.cell", (Const(v.cell),), node=node, hint=v.name)
        raise TypeError(v)

    @staticmethod
    def static_of(v: Lowered) -> Static | None:
        if isinstance(v, Static):
            return v
        if isinstance(v, Const) and v.value is not UNDEF:
            return Static(v.value.obj if isinstance(v.value, Ext) else v.value)
        return None

    def value(self, node) -> Atom:
        return self.atom(self.expr(node), node)

    # -- expressions -------------------------------------------------------------------------

    def expr(self, node) -> Lowered:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(UnsupportedSyntaxError, node, f"'{type(node).__name__}' is not supported here")
        return method(node)

    def expr_Constant(self, node) -> Lowered:
        return Const(node.value)  # (a complex literal too: transforms/policy.py decides where it may go)

    def expr_Name(self, node) -> Lowered:
        if node.id == UNASSIGNED:  # (srcad's own code read again: frontend/planned.py)
            return Const(UNDEF)
        return self.lookup_name(node.id, node)

    def expr_BinOp(self, node) -> Lowered:
        left, right = self.value(node.left), self.value(node.right)
        made = self.object_operator(node.op, left, right, node)  # (an object made inside: objects.py)
        return made if made is not None else self.emit(BINOPS[type(node.op)], (left, right), node=node)

    def expr_UnaryOp(self, node) -> Lowered:
        operand = self.expr(node.operand)
        made = self.object_operator(node.op, operand, None, node)
        if made is not None:
            return made
        s = self.static_of(operand)
        if s is not None and isinstance(node.op, gast.USub) and isinstance(s.obj, (int, float)) \
                and not isinstance(s.obj, bool):
            return Const(-s.obj)
        return self.emit(UNARYOPS[type(node.op)], (self.atom(operand, node),), node=node)

    def expr_Compare(self, node) -> Lowered:
        left = self.value(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node)
            if isinstance(op, gast.In):
                cmp = self.emit("operator.contains", (right, left), node=node)
            else:
                cmp = self.emit(CMPOPS[type(op)], (left, right), node=node)
            result = cmp if result is None else self._and(result, cmp, node)
            left = right
        return result

    def _and(self, a: Atom, b: Atom, node) -> Atom:
        return self.emit("operator.and_", (a, b), node=node)

    def expr_BoolOp(self, node) -> Lowered:
        # `a and b` is `b if a else a`; `a or b` is `a if a else b` (short-circuit, by value)
        result = self.value(node.values[0])
        for value_node in node.values[1:]:
            self.b.begin_if(result, self.loc(node))
            if isinstance(node.op, gast.And):
                y = self.value(value_node)
                self.b.begin_else((y,))
                (result,) = self.b.end_if((result,))
            else:
                self.b.begin_else((result,))
                y = self.value(value_node)
                (result,) = self.b.end_if((y,))
        return result

    def expr_IfExp(self, node) -> Lowered:
        cond = self.value(node.test)
        self.b.begin_if(cond, self.loc(node))
        a = self.value(node.body)
        self.b.begin_else((a,))
        c = self.value(node.orelse)
        (out,) = self.b.end_if((c,))
        return out

    def call_dict(self, args, kw, node) -> Atom:
        """dict(a=x, b=y) is {'a': x, 'b': y}; dict(d) of a dict is a copy of it (checked when
        types are known: dict of pairs, zip(...) or another mapping is refused there)."""
        if not args:
            d = self.emit("srcad.dict", [a for k, v in kw for a in (Const(k), v)], node=node)
            return self.remember_keys(d, [k for k, _ in kw], [v for _, v in kw])
        pairs = self.constant_key_pairs(args[0], node) if len(args) == 1 else None
        if pairs is not None:  # dict([("a", x), ("b", y)], c=z): a display (keywords set after)
            merged = dict(pairs)
            merged.update(kw)
            return self.call_dict([], list(merged.items()), node)
        if len(args) == 1 and not kw:
            return self.emit("builtins.dict", list(args), node=node)
        if len(args) == 1:  # dict(d, k=v): a copy of d, then the keys
            return self.dict_with(args[0], list(kw), node)
        raise self.error(UnsupportedSyntaxError, node, "dict(...) with several positional arguments",
                         "copy it, then add the keys: d = dict(p); d['k'] = v")

    def expr_Slice(self, node) -> Lowered:
        parts = [Const(None) if p is None else self.value(p) for p in (node.lower, node.upper, node.step)]
        if all(isinstance(p, Const) and (p.value is None or type(p.value) is int) for p in parts):
            return Const(slice(*(p.value for p in parts)))
        return self.emit("srcad.slice", parts, node=node)

    def index(self, node) -> Atom:
        if isinstance(node, gast.Tuple):
            elts = [self.index(e) for e in node.elts]
            if all(isinstance(e, Const) for e in elts):
                return Const(tuple(e.value for e in elts))
            return self.emit("srcad.tuple", elts, node=node)
        return self.value(node)

    def expr_Subscript(self, node) -> Lowered:
        base = self.expr(node.value)
        s = self.static_of(base)
        if s is not None and isinstance(s.obj, type) and s.obj is not type(None):
            return base  # typing subscripts such as list[float] in annotations
        joined = self.index_concatenation(s.obj, node) if s is not None else None
        if joined is not None:
            return joined
        return self.emit("operator.getitem", (self.atom(base, node), self.index(node.slice)), node=node)

    def expr_Attribute(self, node) -> Lowered:
        base = self.expr(node.value)
        made = self.attribute_of_object(base, node)
        if made is not None:  # (an object made inside the function: frontend/objects.py)
            return made
        if node.attr == "cell_contents" and isinstance(_current(base), types.CellType):
            return _cell_read(_current(base), node.value)  # generated code transformed again
        module = isinstance(base, Const) and isinstance(getattr(base.value, "obj", None), types.ModuleType)
        s = self.static_of(base) if isinstance(base, Static) or module else None  # (a module in a variable)
        if s is not None:
            try:
                found = static_attr(s.obj, node.attr)
            except AttributeError:
                raise self.error(UnsupportedSyntaxError, node,
                                 f"{ext_name(s.obj)} has no attribute {node.attr!r}") from None
            if found is not None:
                return found
            if isinstance(s.obj, types.ModuleType):  # data in a module: read when the code runs
                return LiveGlobal(Ext(ext_name(s.obj), s.obj), node.attr)
            return self.emit("srcad.getattr", (Const(node.attr), self.atom(base, node)), node=node,
                             hint=node.attr)
        method = _class_method(base, node.attr)
        if method is not None:  # self.helper(x) on an object srcad was given: inline the method
            return method
        return self.emit("srcad.getattr", (Const(node.attr), self.atom(base, node)), node=node)

    def expr_JoinedStr(self, node) -> Lowered:
        fmt, args = [], []
        for part in node.values:
            if isinstance(part, gast.Constant):
                fmt.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            else:
                conv = {-1: "", 115: "!s", 114: "!r", 97: "!a"}[part.conversion]
                spec = ""
                if part.format_spec is not None:
                    spec = ":" + "".join(str(v.value) for v in part.format_spec.values
                                         if isinstance(v, gast.Constant))
                fmt.append("{" + conv + spec + "}")
                args.append(self.value(part.value))
        return self.emit("srcad.format", [Const("".join(fmt))] + args, node=node)

    def expr_ListComp(self, node) -> Lowered:
        return self.comprehension(node)

    expr_GeneratorExp = expr_DictComp = expr_ListComp

    def comprehension(self, node) -> Lowered:
        raise self.error(UnsupportedSyntaxError, node, "comprehensions are not supported here")

    # -- calls -------------------------------------------------------------------------------

    def expr_Call(self, node) -> Lowered:
        frozen = self.frozen_call(node)
        if frozen is not None:
            return frozen
        if isinstance(node.func, gast.Attribute):
            base = self.expr(node.func.value)
            if not isinstance(base, Static) and self.static_of(base) is None:
                if node.func.attr == "__array_namespace__" and not node.args and not node.keywords:
                    return Static(np)  # (x's namespace: NumPy's functions, lent to x's: namespaces.py)
                return self.method_call(self.atom(base, node), node.func.attr, node)
        callee = self.expr(node.func)
        s = self.static_of(callee)
        args, kw = self.call_args(node)
        if s is None and self.known_callee(callee) is not None:  # (read out of a list or dict)
            return self.call_static(self.known_callee(callee), args, kw, node)
        if s is None:
            return self.emit("srcad.call", [self.atom(callee, node)] + args, kw, node=node)
        return self.call_static(s.obj, args, kw, node)

    def object_operator(self, op, left, right, node, inplace: bool = False) -> Atom | None:
        """`left op right` (right None: a unary op) when an operand is an object made inside the
        function: its class's method (a hook: frontend/objects.py)."""
        return None

    def attribute_of_object(self, base, node) -> Lowered | None:
        """`base.attr` for an object made inside the function (a hook: frontend/objects.py)."""
        return None

    def construct(self, fn, args, kw, node) -> Atom | None:
        """`fn(...)` making or calling an object of the user's class (a hook: frontend/objects.py)."""
        return None

    def frozen_call(self, node) -> Atom | None:
        """A method of a frozen scipy.stats distribution (a hook: frontend/frozen.py)."""
        return None

    def known_callee(self, a) -> object | None:
        """The function a value computed while lowering is known to be (a hook)."""
        return None

    def python_function(self, fn: LocalFunction):
        """The Python function a nested function is, when it reads no variable of the
        function being transformed (a hook; fn itself when it cannot be made)."""
        return fn

    def check_accepted(self, rule, args, kw, node) -> None:
        """Refuse argument values a source implementation's derivative cannot honour (Rule.accepts)."""
        if problems := registry.call_problems(rule, args, kw):
            raise self.error(NoRuleError, node, problems[0], "call it without that argument")

    def call_static(self, fn, args, kw, node) -> Atom:
        if getattr(fn, "__srcad_guarded__", None) is not None:  # (generated code's call of a custom rule's)
            return self.call_guarded(fn.__srcad_guarded__, args, kw, node)
        if getattr(fn, "__srcad_resolve__", None) is not None:  # (per call shape: srcad/arity.py)
            (fn, args), kw = fn.__srcad_resolve__(tuple(self.no_stars(args, node)), dict(kw)), []
        if isinstance(fn, LocalFunction):  # a nested def or lambda: inlined by the subclass
            return self.call_function(fn, args, kw, node)
        if fn in (max, min) and (len(args) != 2 or kw or any(isinstance(a, Star) for a in args)):
            return self.call_max_min(fn, self.no_stars(args, node), kw, node)
        if fn is dict:
            return self.call_dict(self.no_stars(args, node), kw, node)
        if fn is divmod and len(args) == 2 and not kw:  # (x // y, x % y): the remainder has a derivative
            parts = [self.emit(f"operator.{op}", args, node=node) for op in ("floordiv", "mod")]
            return self.emit("srcad.tuple", parts, node=node)
        form = getattr(fn, "__srcad_inline__", None)
        if form is not None and form() is not None:  # jacfwd(f), vjp_fn...: its form (srcad/forms.py)
            return self.call_function(form(), args, kw, node)
        rule = registry.rule_for_object(fn)
        if rule is not None and isinstance(rule.source, CustomRule):  # (srcad's own rules: odes.py)
            return self.call_custom(rule.source, args, kw, node)
        if rule is not None and rule.source is not None:  # a source implementation: inlined,
            self.check_accepted(rule, args, kw, node)  # then a list of numbers goes in as NumPy's array
            args = [self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a for a in args]
            kw = [(k, self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a)
                  for k, a in kw]
            return self.call_function(rule.source, args, kw, node)
        if rule is not None:
            return self.apply_rule(rule, args, kw, node)
        if getattr(fn, "__srcad_maker__", False):
            return self.make_transform(fn, args, kw, node)
        if type(fn) is functools.partial:
            return self.call_partial(fn, args, kw, node)
        if isinstance(fn, CustomRule):
            return self.call_custom(fn, args, kw, node)
        if getattr(fn, "__srcad_value_form__", None) is not None:
            return self.call_function(self.value_form(fn, args, kw, node), args[1:], kw, node)
        if (getattr(fn, "__module__", "") in ("srcad.api", "srcad.compose")
                and not getattr(fn, "__srcad_maker__", 0)):
            raise self.error(UnsupportedSyntaxError, node, f"srcad.{fn.__name__} inside a function srcad "
                             "differentiates is not supported", "srcad.grad, value_and_grad, jacfwd, jacrev, "
                             "hessian, vmap, jvp, vjp and hvp can be called inside it; call the others "
                             "outside")
        if registry.source_helper(fn):  # (a helper of a source implementation: inlined)
            return self.call_function(fn, args, kw, node)
        if library_code(fn):  # a call into a library: a constant, or an error if differentiated
            return self.emit("srcad.call", [self.atom(Static(fn), node)] + list(args), kw, node=node)
        made = self.construct(fn, args, kw, node)  # (objects of the user's classes made inside: objects.py)
        if made is not None:
            return made
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
            self_atom = self.atom(Static(fn.__self__), node)
            return self.call_function(fn.__func__, [self_atom] + list(args), kw, node)
        if isinstance(fn, types.FunctionType) or hasattr(fn, "__srcad_transform__"):
            return self.call_function(fn, args, kw, node)
        call = _user_call_method(fn)
        if call is not None:  # layer(x) for an object srcad was given: inline its __call__
            return self.call_function(call, [self.atom(Static(fn), node)] + list(args), kw, node)
        return self.emit("srcad.call", [self.atom(Static(fn), node)] + list(args), kw, node=node)

    def call_partial(self, fn: functools.partial, args, kw, node) -> Atom:
        """A functools.partial known while transforming: its bound arguments are constants (no
        derivative flows through them); for a partial given as an argument, its numbers and
        arrays are read from it when the code runs (ir/kinds.py same_function)."""
        ctx = getattr(self, "ctx", None)
        source = ctx.cell_sources.get(id(fn)) if ctx is not None else None

        def bound_value(key, a):
            if source is not None and partial_reads(a):
                return self.emit("srcad.arg_partial", (source[0], Const(key)), node=node)
            return static_atom(a)

        bound = [bound_value(j, a) for j, a in enumerate(fn.args)]
        given = dict(kw)
        fixed = [(k, bound_value(k, v)) for k, v in fn.keywords.items() if k not in given]
        return self.call_static(fn.func, bound + list(args), fixed + list(kw), node)

    def apply_rule(self, rule: registry.Rule, args, kw, node) -> Atom:
        nouts = rule.nouts
        if rule.nouts_of is not None:  # (np.unique: its return_* flags)
            bound = registry.bind(rule, self.no_stars(args, node), kw)
            nouts = rule.nouts_of({k: a.value for k, a in bound.items() if isinstance(a, Const)}, set(bound))
            if nouts is None:
                raise self.error(UnsupportedSyntaxError, node,
                                 f"the number of results of {rule.name} depends "
                                 "on arguments that are not literals", "write True or False in the call")
        if nouts == 1:
            return self.emit(rule.name, args, kw, node=node)
        outs = self.emit(rule.name, args, kw, node=node, nouts=nouts)
        return self.emit("srcad.tuple", outs, node=node)

    def method_call(self, recv: Atom, name: str, node) -> Atom:
        args, kw = self.call_args(node)
        return self.emit("srcad.method", [Const(name), recv] + args, kw, node=node)

