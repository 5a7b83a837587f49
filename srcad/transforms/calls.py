"""Calls resolved by type while specialising: a mixin of Specializer (specialize.py).

The frontend inlines the calls it can resolve from the code alone (a function named in the
code, a method of an object known while transforming). Which method `layer.forward(x, W)`,
`model.loss(p, x)` or `layer(h)` calls depends on the class of `layer`, which only the
argument types say (`for layer in self.layers: h = layer(h)` goes through a list of
objects). Here, a method, `__call__` or property of a user's class (ir/types.py `Object`,
or the class of a named tuple or of a differentiated dataclass) is lowered on its own and
inlined where it is called, and a function held in an attribute (`self.act = np.tanh`)
becomes a call of that function:

    %y = srcad.method('forward', %layer, %x, %W)      %1 = operator.matmul(%W, %x)
                                                 ->    %y = numpy.tanh(%1)
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types

from ..errors import SrcadError, TypeSupportError, UnsafeMutationError, UnsupportedSyntaxError, diagnostic
from ..frontend.expr import MUTATING_METHODS, static_atom
from ..frontend.resolve import library_code
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Ext, If, Var, atom_type, max_var_id
from ..ir.rewrite import renumber
from ..rules import registry
from .recursion import call_key, check_recursion
from .structs import struct_attribute, struct_of


def user_function(fn) -> bool:
    return isinstance(fn, types.FunctionType) and not library_code(fn)


def class_member(cls, name: str):
    """(kind, function) for a member of a user's class that srcad inlines: "method",
    "static", "class" or "property"; None for anything else."""
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, staticmethod) and user_function(raw.__func__):
        return "static", raw.__func__
    if isinstance(raw, classmethod) and user_function(raw.__func__):
        return "class", raw.__func__
    if isinstance(raw, property) and user_function(raw.fget):
        return "property", raw.fget
    if user_function(raw):
        return "method", raw
    return None


def _member_args(kind: str, cls, recv, rest) -> list:
    if kind == "static":
        return list(rest)
    if kind == "class":
        return [static_atom(cls)] + list(rest)
    return [recv] + list(rest)


class CallOps:
    """Needs `fresh`, `op`, `apply`, `atom`, `env`, `next_id`, `lower`, `inlining`,
    `unrolled` and `inlined` of Specializer."""

    def call_by_type(self, op: Apply, args, kw):
        """The operations of a call resolved by its receiver's type, or None."""
        position = _receiver(op, args)
        if position is not None and _options(atom_type(args[position])):
            return self.by_option(op, args, kw, position)
        if op.prim in ("srcad.method", "srcad.getattr") and len(args) >= 2:
            _several_classes(op, atom_type(args[1]), "reading an attribute or calling a method")
        if op.prim == "srcad.method" and len(args) >= 2 and isinstance(args[0], Const):
            return self._method_call(op, args[0].value, args[1], args[2:], kw)
        if op.prim == "srcad.call" and args:
            return self._value_call(op, args[0], args[1:], kw)
        if op.prim == "srcad.getattr" and len(args) == 2 and isinstance(args[0], Const):
            return self._attribute(op, args[0].value, args[1])
        return None

    def mutate_call(self, op: Apply, args, kw) -> list:
        """`v.update(...)` (frontend/lower.py method_call): a method of the user's class when v
        is an object (v unchanged), else a write into a local list or dict (srcad.mutate)."""
        (name, local, recv), rest = args[:3], args[3:]
        new, result = op.outs
        if T.class_of(atom_type(recv)) is not None:
            self.env[new] = recv
            call = (name, recv) + rest
            return self.apply_args(Apply((result,), "srcad.method", call, kw, op.loc), call, kw)
        if local.value and isinstance(atom_type(recv), T.Dict) and name.value in ("update", "setdefault"):
            ops = self.dict_method(op, name.value, recv, rest, kw)  # (transforms/sequences.py)
            if ops is not None:
                return ops
        if not local.value:
            msg = f".{name.value}() changes an object srcad cannot track"
            raise UnsafeMutationError(msg, [diagnostic(op.loc, msg, "call it on a local variable "
                                                       "(xs = []; xs.append(v)) or build a new value")])
        outs = (new, result) if MUTATING_METHODS[name.value] == 2 else (new,)
        if len(outs) == 1:
            self.env[result] = Const(None)
        call = (name, recv) + rest
        return self.apply_args(Apply(outs, "srcad.mutate", call, kw, op.loc), call, kw)

    def _method_call(self, op: Apply, name: str, recv, rest, kw):
        t = atom_type(recv)
        cls = T.class_of(t)
        if cls is None:
            _several_classes(op, t, f".{name}()")
            return None
        if name == "_replace" and isinstance(t, T.Tuple) and t.cls is cls and t.fields and not rest:
            return self._replaced(op, cls, recv, t, dict(kw))
        member = class_member(cls, name)
        held = _held(t, name)  # (an instance attribute hides a method of the class)
        if member is not None and member[0] != "property" and held is None:
            kind, fn = member
            return self.inline(fn, _member_args(kind, cls, recv, rest), kw, op)
        if isinstance(held, T.Function) and held.fn is not None:  # self.act(x), self.act = np.tanh
            return self.call_known(held.fn, list(rest), kw, op)
        if isinstance(held, T.Function):  # (one of several functions: an if chain tells which)
            callee = self.fresh(name, held)
            read = Apply((callee,), "srcad.getattr", (Const(name), recv), (), op.loc)
            call = Apply(op.outs, "srcad.call", (callee, *rest), tuple(kw), op.loc)
            return [read] + self.by_option(call, (callee, *rest), tuple(kw), 0)
        return None

    def _replaced(self, op: Apply, cls, recv, t: T.Tuple, given: dict) -> list:
        """`p._replace(w=v)` of a named tuple: a new one of its class, with those fields given."""
        unknown = set(given) - set(t.fields)
        if unknown:
            msg = f"{cls.__qualname__}._replace() got unexpected field names {sorted(unknown)}"
            raise TypeSupportError(msg, [diagnostic(op.loc, msg, "name fields of the named tuple")])
        ops, items = [], []
        for i, field in enumerate(t.fields):
            if field in given:
                items.append(given[field])
                continue
            item = self.fresh(field, t.elts[i])
            ops += self.apply_args(Apply((item,), "operator.getitem", (recv, Const(i)), (), op.loc),
                                   (recv, Const(i)), ())
            items.append(self.atom(item))
        args = (static_atom(cls),) + tuple(items)
        return ops + self.apply_args(Apply(op.outs[:1], "srcad.named_tuple", args, (), op.loc), args, ())

    def by_option(self, op: Apply, args, kw, position: int) -> list:
        """`op` on a value that is one of several objects or functions (T.Object or
        T.Function options): an `if` chain asking which, with `op` resolved in each branch.

            %y = srcad.call(%act, %z)          %c = operator.is_(%act, @tanh)
                (act: tanh | identity)   ->    %y = if %c: numpy.tanh(%z) else: %z
        """
        recv, options = args[position], _options(atom_type(args[position]))
        branches = []
        for option in options:
            out = self.fresh(op.outs[0].hint, T.UNKNOWN)
            narrowed = Var(recv.id, recv.hint, option) if isinstance(recv, Var) else recv
            ops = self.apply_args(Apply((out,), op.prim, op.args, op.kw, op.loc),
                                  args[:position] + (narrowed,) + args[position + 1:], kw)
            branches.append((option, ops, self.atom(out)))
        ops, result = branches[-1][1], branches[-1][2]
        for option, then_ops, then_result in reversed(branches[:-1]):
            cond_ops, cond = self._is_option(recv, option, op.loc)
            joined = self.join_types(atom_type(then_result), atom_type(result), op.loc)
            out = self.fresh(op.outs[0].hint, joined)
            ops = cond_ops + [If((out,), cond, Block((), tuple(then_ops), (then_result,)),
                                 Block((), tuple(ops), (result,)), op.loc)]
            result = out
        self.env[op.outs[0]] = result
        return ops

    def _is_option(self, recv, option: T.Type, loc) -> tuple[list, Var]:
        """The operations asking whether recv is this option (this function, an object of
        this class), and their result."""
        cond = self.fresh("", T.BOOL)
        if isinstance(option, T.Function):
            return [Apply((cond,), "operator.is_", (recv, static_atom(option.fn)), (), loc)], cond
        kind = self.fresh("", T.Opaque("type"))
        return [Apply((kind,), "builtins.type", (recv,), (), loc),
                Apply((cond,), "operator.is_", (kind, static_atom(option.cls)), (), loc)], cond

    def _value_call(self, op: Apply, callee, rest, kw):
        t = atom_type(callee)
        if isinstance(t, T.Function):
            return self.call_known(t.fn, list(rest), kw, op)
        if isinstance(t, T.Fn):  # (a function given as an argument, passed on to a method)
            return self.call_known(t.obj, list(rest), kw, op)
        cls = T.class_of(t)
        if cls is None and isinstance(callee, Const) and isinstance(callee.value, Ext):
            obj = callee.value.obj
            # (a recursive call the frontend left to be resolved here; a function given to a method)
            if user_function(obj) or registry.rule_for_object(obj) is not None or hasattr(
                    obj, "__srcad_transform__"):
                return self.call_known(obj, list(rest), kw, op)
            if T.user_class(type(obj)) and not isinstance(obj, type):
                cls = type(obj)
        if cls is None:
            _several_classes(op, t, "a call")
        member = class_member(cls, "__call__") if cls is not None else None
        if member is None or member[0] != "method":
            return None
        return self.inline(member[1], [callee] + list(rest), kw, op)

    def _attribute(self, op: Apply, name: str, base):
        """A property of a user's class (its getter inlined), or a function held in an
        attribute (a constant: calls of it are resolved)."""
        t = atom_type(base)
        cls = T.class_of(t)
        if cls is None:
            return None
        held = _held(t, name)
        if isinstance(held, T.Function) and held.fn is not None:
            self.env[op.outs[0]] = static_atom(held.fn)
            return []
        if held is not None:
            return None
        member = class_member(cls, name)
        if member is not None and member[0] == "property":
            return self.inline(member[1], [base], (), op)
        if struct_of(t) is None:
            return None
        owner = struct_attribute(op, t, name)  # (a class attribute: read when the code runs)
        return self.apply(Apply(op.outs, "srcad.getattr", (Const(name), static_atom(owner)), (), op.loc))

    # -- calling what is known --------------------------------------------------------------

    def call_known(self, fn, args: list, kw, op: Apply) -> list:
        """A call of a function known while transforming: a primitive, a user function
        (inlined), or a call srcad makes as written (a constant, or refused if differentiated)."""
        if isinstance(fn, functools.partial) and user_function(fn.func):
            fixed = [(k, static_atom(v)) for k, v in fn.keywords.items() if k not in dict(kw)]
            return self.inline(fn.func, [static_atom(a) for a in fn.args] + args, fixed + list(kw), op)
        if isinstance(fn, types.MethodType) and user_function(fn.__func__):
            return self.inline(fn.__func__, [static_atom(fn.__self__)] + args, kw, op)
        if user_function(fn):
            return self.inline(fn, args, kw, op)
        transform = getattr(fn, "__srcad_transform__", None)
        if transform is not None:  # (srcad.grad(h)(x) inside: its code for these arguments' types)
            if transform.spec.target != "python":  # (numba's machine code: no source to inline)
                msg = f"{transform.__name__} has target={transform.spec.target!r}: srcad cannot read its code"
                hint = "call the transform of the default target here (target='numba' is for the outermost)"
                raise TypeSupportError(msg, [diagnostic(op.loc, msg, hint)])
            return self.inline(transform.function_for_call(args, kw), args, kw, op)
        rule = registry.rule_for_object(fn)
        if rule is not None and rule.source is not None:  # a source implementation: inlined
            self.check_call(rule, args, kw, op)
            return self.inline(rule.source, args, kw, op)
        if rule is None or rule.nouts_of is not None:
            return self.apply(Apply(op.outs, "srcad.call", (static_atom(fn), *args), tuple(kw), op.loc))
        if rule.nouts == 1:
            return self.apply(Apply(op.outs, rule.name, tuple(args), tuple(kw), op.loc))
        outs = tuple(self.fresh("", T.UNKNOWN) for _ in range(rule.nouts))
        ops = self.apply(Apply(outs, rule.name, tuple(args), tuple(kw), op.loc))
        return ops + self.apply(Apply(op.outs, "srcad.tuple", tuple(self.atom(o) for o in outs), (), op.loc))

    def inline(self, fn, args: list, kw, op: Apply) -> list:
        """The body of the user function `fn`, lowered on its own, specialised for these
        arguments in place of the call `op`."""
        low = _lowered(self.lower, fn, op.loc)
        callee = low.function
        bound = _bind(callee, list(args), tuple(kw), op)
        key = call_key(bound)
        self.unrolled += check_recursion(self.inlining, fn, key, self.unrolled, op.loc)
        body = _called_from(renumber(callee.body, self.next_id), op.loc)
        self.next_id += max_var_id(callee) + 1
        for p, a in zip(body.params, bound):
            self.env[p] = a
        self.inlining.append((fn, key))
        self.inlined.extend(f for f in low.functions if f not in self.inlined)
        ops: list = []
        try:
            for inner in body.ops:
                ops.extend(self.op(inner))
        finally:
            self.inlining.pop()
        if op.outs:
            self.env[op.outs[0]] = self.atom(body.yields[0])
        return ops


def _lowered(lower, fn, site):
    """lower(fn); its errors name the call that reached it (Diagnostic.via)."""
    try:
        return lower(fn)
    except SrcadError as e:
        if site is None:
            raise
        via = site.via + ((site.file, site.line, site.col),)
        diags = [dataclasses.replace(d, via=via + d.via) for d in e.diagnostics]
        raise type(e)(e.summary, diags) from None


def _called_from(block: Block, site) -> Block:
    """The block with its lines marked as reached through the call at `site` (Loc.via: errors
    name the calls that led to a line)."""
    if site is None:
        return block
    via = site.via + ((site.file, site.line, site.col),)

    def loc(x):
        return dataclasses.replace(x, via=via + x.via) if x is not None else None

    def blk(b: Block) -> Block:
        return dataclasses.replace(b, ops=tuple(dataclasses.replace(o.map(None, blk), loc=loc(o.loc))
                                                for o in b.ops))

    return blk(block)


def _receiver(op: Apply, args) -> int | None:
    """The position of the value whose class decides what `op` does, if any."""
    if op.prim in ("srcad.method", "srcad.getattr") and len(args) >= 2 and isinstance(args[0], Const):
        return 1
    if op.prim in ("srcad.call", "builtins.isinstance") and args:
        return 0
    return None


def _options(t: T.Type) -> tuple:
    """The types a value of type t is one of (objects of several classes, several functions)."""
    if isinstance(t, T.Object) and t.cls is None:
        return t.options
    if isinstance(t, T.Function) and t.fn is None:
        return tuple(T.Function(getattr(f, "__name__", "function"), fn=f) for f in t.options)
    return ()


def _held(t: T.Type, name: str) -> T.Type | None:
    """The type of the data attribute `name` of an object, or of the field of a named tuple
    or node, when the type says it."""
    if isinstance(t, T.Object):
        return t.attr(name)
    if isinstance(t, T.Tuple) and t.fields and name in t.fields:
        return t.elts[t.fields.index(name)]
    return None


def _several_classes(op: Apply, t: T.Type, what: str) -> None:
    """Refuse a method call on an object of one of several classes (a list of layers of
    different classes): srcad inlines the method, so it must know which."""
    if not (isinstance(t, T.Object) and t.cls is None and not t.options and t.nodes):
        return
    msg = f"{what} on a value that may be a differentiated {t.what} or something else"
    raise TypeSupportError(msg, [diagnostic(op.loc, msg, (
        "srcad inlines methods, so the class must be known: keep differentiated objects apart from "
        "other values in lists (a tuple keeps each item's own type), or write the calls out"))])


def _bind(fn, args: list, kw, op: Apply) -> list:
    """The atoms of `fn`'s parameters for a call with these arguments (defaults filled in)."""
    sig = fn.signature
    names = [p.name for p in sig]
    out: list = [None] * len(sig)
    positional = [i for i, p in enumerate(sig) if p.kind == "pos"]
    problem = None
    if len(args) > len(positional):
        problem = f"it takes {len(positional)} positional arguments but {len(args)} were given"
    for i, a in zip(positional, args):
        out[i] = a
    for k, a in kw:
        if k not in names or out[names.index(k)] is not None:
            problem = problem or f"unexpected or repeated keyword argument {k!r}"
            continue
        out[names.index(k)] = a
    for i, p in enumerate(sig):
        if out[i] is None:
            if p.default is None:
                problem = problem or f"missing argument {p.name!r}"
            out[i] = p.default
    if problem:
        msg = f"bad call to {fn.qualname or fn.name}: {problem}"
        raise UnsupportedSyntaxError(msg, [diagnostic(op.loc, msg)])
    return [a if isinstance(a, (Var, Const)) else static_atom(a) for a in out]
