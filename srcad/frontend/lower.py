"""Lower a user function (and the user functions it calls, inlined) to SSA IR.

Statements are lowered in order into a `Builder`, which builds SSA form. Control flow that
leaves a block early is made structured here:

- `if c: return a` followed by more statements puts those statements in the `else` branch
  (likewise for `break`, `continue` and `raise`);
- when a `return`/`break`/`continue` sits deeper (inside a loop, or in one branch of a
  nested `if`), flag variables record it, the statements after it are guarded by
  `if not flag`, and the loop leaves after the iteration in which the flag was set.

`for` loops over sequences, `enumerate`, `zip` and `reversed` become loops over a `range`
that index the sequences; comprehensions become loops that append to a list.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import sys
from dataclasses import dataclass, field

import gast

from ..errors import UnsafeMutationError, UnsupportedSyntaxError
from ..ir.builder import Builder
from ..ir.nodes import UNDEF, Atom, Const, Function, Param, Var
from .definite import maybe_unbound_reads
from .expr import INPLACE, MUTATING_METHODS, ExprLowerer, Lowered, static_atom
from .fence import check
from .loops import RET, RETVAL, LoopLowering, escapes, jumps_of
from .resolve import Scope, Static
from .source import ParsedFunction, code_signature, parse_function


@dataclass
class LowerContext:
    """State shared by a function and everything inlined into it."""

    builder: Builder
    stack: list = field(default_factory=list)  # functions being lowered (recursion check)
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    functions: list = field(default_factory=list)  # every user function lowered (for caching)


class FunctionLowerer(LoopLowering, ExprLowerer):
    """Lower one user function's body; `prefix` separates the variables of inlined calls."""

    def __init__(self, ctx: LowerContext, parsed: ParsedFunction, prefix: int = 0):
        self.ctx, self.b, self.parsed = ctx, ctx.builder, parsed
        self.scope = Scope(parsed.fn, parsed.node)
        self.prefix = prefix
        self.file, self.col_offset = parsed.file, parsed.col_offset
        self.func_name = parsed.fn.__qualname__
        self.renames: list[dict[str, object]] = []  # comprehension scopes
        self.loops: list[object] = []  # keys of the break/continue flags of open loops
        self.keys_written: set = set()
        self.returns: list = []  # Locs of return statements
        self.unbound_reads = maybe_unbound_reads(parsed.node, self.scope.locals)
        self.via: tuple = ()  # the call sites this function is inlined through (Loc.via)

    # -- variables ---------------------------------------------------------------------------

    def key(self, name: str):
        for scope in reversed(self.renames):
            if name in scope:
                return scope[name]
        if not self.prefix:
            return name
        k = (self.prefix, name)
        self.b.var_hints.setdefault(k, name)
        return k

    def write(self, name: str, value: Atom) -> None:
        k = self.key(name)
        self.keys_written.add(k)
        self.b.write(k, self.b.set_hint(value, name))

    def write_key(self, k, value: Atom) -> None:
        self.keys_written.add(k)
        self.b.write(k, value)

    def flag(self, name: str):
        k = (self.prefix, name)
        self.b.var_hints.setdefault(k, "_" + name.strip("_"))
        return k

    def lookup_name(self, name: str, node) -> Lowered:
        if any(name in s for s in self.renames) or name in self.scope.locals:
            return self.read_local(name, node)
        found = self.scope.resolve(name)
        if found is None:
            raise self.error(UnsupportedSyntaxError, node, f"name {name!r} is not defined",
                             "define it before calling the function")
        return found

    def read_local(self, name: str, node) -> Atom:
        """The value of a local variable; where it may be unassigned (frontend/definite.py), a
        check that raises UnboundLocalError as Python does."""
        value = self.b.read(self.key(name))
        if node not in self.unbound_reads:
            return value
        if isinstance(value, Const) and value.value is UNDEF:  # no path assigned it
            return self.emit("srcad.unbound", (Const(name),), node=node, hint=name)
        return self.emit("srcad.bound", (value, Const(name)), node=node, hint=name)

    # -- functions ---------------------------------------------------------------------------

    def call_function(self, fn, args, kw, node) -> Atom:
        if fn in self.ctx.stack:  # recursion: inlined while specialising, as deep as types say
            return self.emit("srcad.call", [self.atom(Static(fn), node)] + list(args), kw, node=node)
        transform = getattr(fn, "__srcad_transform__", None)
        if transform is not None:
            fn = transform.function_for_call(args)
            # its code is generic: a list of numbers goes in as the array NumPy makes of it
            args = [self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a for a in args]
            kw = [(k, self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a)
                  for k, a in kw]
        parsed = parse_function(fn)
        check(parsed)
        callee = FunctionLowerer(self.ctx, parsed, prefix=next(self.ctx.counter))
        site = self.loc(node)
        callee.via = self.via + ((site.file, site.line, site.col),) if site is not None else self.via
        return callee.inline(args, kw, node, self)

    def inline(self, args, kw, node, caller: FunctionLowerer) -> Atom:
        fn = self.parsed.fn
        try:
            bound = code_signature(fn).bind(*args, **dict(kw))
        except TypeError as e:
            raise caller.error(UnsupportedSyntaxError, node, f"bad call to {fn.__qualname__}: {e}") from None
        bound.apply_defaults()
        self.ctx.stack.append(fn)
        self.ctx.functions.append(fn)
        for name, value in bound.arguments.items():
            self.write(name, value if isinstance(value, (Var, Const)) else self.atom(Static(value)))
        result = self.body()
        self.ctx.stack.pop()
        for k in self.keys_written:
            self.b.kill(k)
        return result

    def body(self) -> Atom:
        """Lower the function body; return the returned value."""
        self.write_key(self.flag(RET), Const(False))
        self.write_key(self.flag(RETVAL), Const(None))
        self.stmts(self.parsed.node.body)
        return self.b.read(self.flag(RETVAL))

    # -- statements --------------------------------------------------------------------------

    def stmts(self, stmts) -> None:
        for i, s in enumerate(stmts):
            rest = stmts[i + 1 :]
            if isinstance(s, gast.If) and rest and escapes(s.body) != escapes(s.orelse):
                self.stmt_If(s, rest if escapes(s.orelse) else [], rest if escapes(s.body) else [])
                return
            self.stmt(s)
            if escapes([s]):
                return
            if rest:
                jumps = jumps_of(s, loops=bool(self.loops))
                if jumps:
                    self.guarded(jumps, rest, s)
                    return

    def guarded(self, jumps: set[str], rest, node) -> None:
        flags = []
        if "ret" in jumps:
            flags.append(self.b.read(self.flag(RET)))
        if self.loops and {"brk", "cont"} & jumps:
            brk, cont = self.loops[-1]
            flags += [self.b.read(brk), self.b.read(cont)]
        cond = flags[0]
        for f in flags[1:]:
            cond = self.emit("operator.or_", (cond, f), node=node)
        go = self.emit("operator.not_", (cond,), node=node)
        self.b.begin_if(go, self.loc(node))
        self.stmts(rest)
        self.b.begin_else()
        self.b.end_if()

    def stmt(self, node) -> None:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(UnsupportedSyntaxError, node, f"'{type(node).__name__}' is not supported")
        method(node)

    def stmt_Pass(self, node) -> None:
        pass

    def stmt_Expr(self, node) -> None:
        if isinstance(node.value, gast.Constant):
            return  # docstrings and bare literals
        call = node.value
        if isinstance(call, gast.Call) and len(call.args) == 3 and not call.keywords and isinstance(
                call.args[0], gast.Name) and call.args[0].id in self.scope.locals and self._is_add_at(call):
            # np.add.at(y, idx, v) on a local array: y[idx] += v, adding once per repeated index
            self.write(call.args[0].id,
                       self.emit("srcad.add_at", [self.value(a) for a in call.args], node=call))
            return
        self.expr(call)

    def _is_add_at(self, call) -> bool:
        if not isinstance(call.func, gast.Attribute) or call.func.attr != "at":
            return False
        fn = self._static_callee(call)
        return fn is not None and getattr(fn, "__self__", None) is not None and \
            getattr(fn.__self__, "__name__", None) == "add" and type(fn.__self__).__name__ == "ufunc"

    def stmt_Return(self, node) -> None:
        if not self.prefix:  # (the user's function itself, not an inlined callee)
            self.returns.append(self.loc(node))
        value = Const(None) if node.value is None else self.value(node.value)
        self.write_key(self.flag(RETVAL), value)
        self.write_key(self.flag(RET), Const(True))

    def stmt_Break(self, node) -> None:
        self.write_key(self.loops[-1][0], Const(True))

    def stmt_Continue(self, node) -> None:
        self.write_key(self.loops[-1][1], Const(True))

    def stmt_Raise(self, node) -> None:
        exc = Const(None) if node.exc is None else self.value(node.exc)
        self.emit("srcad.raise", (exc,), node=node, nouts=0)

    def stmt_Assert(self, node) -> None:
        test = self.value(node.test)
        msg = Const(None) if node.msg is None else self.value(node.msg)
        self.emit("srcad.assert", (test, msg), node=node, nouts=0)

    def stmt_Assign(self, node) -> None:
        targets = node.targets
        if len(targets) == 1 and isinstance(targets[0], (gast.Tuple, gast.List)) and isinstance(
            node.value, (gast.Tuple, gast.List)
        ) and len(targets[0].elts) == len(node.value.elts) and not any(
            isinstance(e, gast.Starred) for e in targets[0].elts + node.value.elts
        ):
            values = [self.value(v) for v in node.value.elts]  # evaluate all, then bind
            for t, v in zip(targets[0].elts, values):
                self.assign(t, v)
            return
        value = self.value(node.value)
        for t in targets:
            self.assign(t, value)

    def stmt_AnnAssign(self, node) -> None:
        if node.value is not None:
            self.assign(node.target, self.value(node.value))

    def stmt_AugAssign(self, node) -> None:
        target = node.target
        if isinstance(target, gast.Name):
            if target.id not in self.scope.locals:
                raise self.error(UnsafeMutationError, node, f"cannot assign to global {target.id!r}",
                                 "return the new value instead")
            old = self.read_local(target.id, target)
            rhs = self.value(node.value)
            self.write(target.id, self.emit(INPLACE[type(node.op)], (old, rhs), node=node,
                                            hint=target.id))
            return
        rhs = self.value(node.value)
        if isinstance(target, gast.Subscript):
            base = self.value(target.value)
            idx = self.index(target.slice)
            old = self.emit("operator.getitem", (base, idx), node=node)
            new = self.emit(INPLACE[type(node.op)].replace(".i", ".", 1), (old, rhs), node=node)
            self.assign(target, new)
            return
        raise self.mutation_error(target, node)

    def mutation_error(self, target, node):
        return self.error(
            UnsafeMutationError, node,
            "srcad can only assign to local variables and to items of local arrays and lists",
            "build a new value and return it instead of writing into an attribute or a global",
        )

    def assign(self, target, value: Atom) -> None:
        if isinstance(target, gast.Name):
            self.write(target.id, value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            stars = [i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)]
            if len(stars) > 1:
                raise self.error(UnsupportedSyntaxError, target, "two starred targets in one assignment",
                                 "index the sequence explicitly")
            star = stars[0] if stars else None
            after = len(target.elts) - 1 - star if stars else 0
            for i, t in enumerate(target.elts):
                if i == star:  # a, *rest, z = v: rest = list(v[1:-1])
                    stop = Const(-after) if after else Const(None)
                    key = self.emit("srcad.slice", (Const(i), stop, Const(None)), node=target)
                    part = self.emit("operator.getitem", (value, key), node=target)
                    self.assign(t.value, self.emit("builtins.list", (part,), node=target))
                    continue
                k = i if star is None or i < star else i - len(target.elts)
                self.assign(t, self.emit("operator.getitem", (value, Const(k)), node=target))
        elif isinstance(target, gast.Subscript):
            self.assign_item(target, value)
        else:
            raise self.mutation_error(target, target)

    def assign_item(self, target: gast.Subscript, value: Atom) -> None:
        base_node = target.value
        if isinstance(base_node, gast.Name) and base_node.id not in self.scope.locals:
            raise self.error(UnsafeMutationError, target, f"cannot write into global {base_node.id!r}",
                             "copy it into a local variable first (x = g.copy())")
        if not isinstance(base_node, (gast.Name, gast.Subscript)):
            raise self.mutation_error(target, target)
        base = self.value(base_node)
        new = self.emit("operator.setitem", (base, self.index(target.slice), value), node=target,
                        hint=base_node.id if isinstance(base_node, gast.Name) else "")
        self.assign(base_node, new)

    def method_call(self, recv: Atom, name: str, node) -> Atom:
        if name not in MUTATING_METHODS:
            return super().method_call(recv, name, node)
        target = node.func.value
        if not isinstance(target, (gast.Name, gast.Subscript)) or (
            isinstance(target, gast.Name) and target.id not in self.scope.locals
        ):
            raise self.error(
                UnsafeMutationError, node, f".{name}() changes an object srcad cannot track",
                "call it on a local variable (xs = []; xs.append(v)) or build a new value",
            )
        args, kw = self.call_args(node)
        nouts = MUTATING_METHODS[name]
        recv_hint = target.id if isinstance(target, gast.Name) else ""
        outs = self.emit("srcad.mutate", [Const(name), recv] + args, kw, node=node, nouts=nouts,
                         hint=(recv_hint, "") if nouts > 1 else recv_hint)  # (what pop returns: its own name)
        new = outs[0] if nouts > 1 else outs
        self.assign(target, new)
        return outs[1] if nouts > 1 else Const(None)

    # -- if / loops --------------------------------------------------------------------------

    def stmt_If(self, node, then_extra=(), else_extra=()) -> None:
        cond = self.value(node.test)
        self.b.begin_if(cond, self.loc(node))
        self.stmts(list(node.body) + list(then_extra))
        self.b.begin_else()
        self.stmts(list(node.orelse) + list(else_extra))
        self.b.end_if()


@dataclass(frozen=True)
class Lowered_:
    function: Function
    functions: tuple  # every user function the result depends on (itself first)


def _default_atom(value) -> Atom:
    return static_atom(value)


@contextlib.contextmanager
def _deep_expressions():
    """Room for the recursion of gast's parser and of expression lowering over a long
    expression (`x*0.0 + x*1.0 + ... + x*1999.0` is a tree 2000 deep; CPython itself compiles
    up to about 3000): the recursion limit is raised while lowering, then restored."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, _LOWERING_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


_LOWERING_RECURSION_LIMIT = 30_000


def lower_function(fn) -> Lowered_:
    """Parse, check and lower `fn` (inlining the user functions it calls)."""
    with _deep_expressions():
        return _lower_function(fn)


def _lower_function(fn) -> Lowered_:
    parsed = parse_function(fn)
    check(parsed)
    b = Builder()
    ctx = LowerContext(b, stack=[fn], functions=[fn])
    low = FunctionLowerer(ctx, parsed)
    args = parsed.node.args
    names = [a.id for a in getattr(args, "posonlyargs", [])] + [a.id for a in args.args]
    kwonly = [a.id for a in args.kwonlyargs]
    sig = code_signature(fn)
    params, sigs = [], []
    for name in names + kwonly:
        p = sig.parameters[name]
        default = None if p.default is inspect.Parameter.empty else _default_atom(p.default)
        sigs.append(Param(name, default, "kwonly" if name in kwonly else "pos"))
        params.append(b.fresh(name))
    b.begin_function(params)
    for name, v in zip(names + kwonly, params):
        low.write(name, v)
    result = low.body()
    body = b.end_function((result,))
    return Lowered_(
        Function(parsed.node.name if parsed.node.name != "lambda" else "lambda_", tuple(sigs), body,
                 low.loc(parsed.node), fn.__qualname__, tuple(low.returns)),
        tuple(ctx.functions),
    )

