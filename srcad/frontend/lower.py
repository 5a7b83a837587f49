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
from .binding import ArgumentBinding, argument_cells
from .callees import KnownCallees
from .carried import CarriedObjects
from .closures import ClosureLowering, ClosureScope, Frame, passed_functions, signature_of
from .definite import falls_through, maybe_unbound_reads
from .expr import INPLACE, MUTATING_METHODS, ExprLowerer, Lowered, static_atom
from .fence import check
from .frozen import FrozenDistributions
from .generators import GeneratorLowering, is_generator
from .higher_order import HigherOrderCalls
from .imports import ImportLowering
from .inplace_calls import InPlaceCalls
from .loops import RET, RETVAL, LoopLowering, escapes, jumps_of
from .objects import ObjectLowering
from .resolve import LocalFunction, Scope, Static
from .source import ParsedFunction, code_signature, parse_function


@dataclass
class LowerContext:
    """State shared by a function and everything inlined into it."""

    builder: Builder
    stack: list = field(default_factory=list)  # functions being lowered (recursion check)
    passed: list = field(default_factory=list)  # per function of `stack`: the nested functions given to it
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    functions: list = field(default_factory=list)  # every user function lowered (for caching)
    transforms: list = field(default_factory=list)  # transforms whose code is inlined (pipeline.lowered)
    loop_writes: list = field(default_factory=list)  # per open loop: the keys its body assigns
    elements: dict = field(default_factory=dict)  # tuple Var -> its values (for *v)
    lengths: dict = field(default_factory=dict)  # list Var -> its length (for *v)
    keys: dict = field(default_factory=dict)  # dict Var -> its keys (for **v)
    displays: dict = field(default_factory=dict)  # list or tuple Var -> its items (a display)
    callees: dict = field(default_factory=dict)  # Var -> the function it is (callees.py)
    holds: dict = field(default_factory=dict)  # container Var -> the functions it holds
    frozen: dict = field(default_factory=dict)  # Var -> (distribution, args, kw) it was made with
    # id(cell) -> (parameter, k) for the cells of a function given as an argument: read from
    # the argument when the code runs (f.__closure__[k]), so that the code serves any function
    # made from the same code (ir/kinds.py same_function)
    cell_sources: dict = field(default_factory=dict)
    else_flags: dict = field(default_factory=dict)  # a loop's break flag -> its `else`'s (loops.py)
    iterating: list = field(default_factory=list)  # the names for loops iterate (loops.py)


class FunctionLowerer(KnownCallees, FrozenDistributions, ClosureLowering, ObjectLowering, CarriedObjects,
                      ArgumentBinding,
                      GeneratorLowering, HigherOrderCalls, ImportLowering, InPlaceCalls, LoopLowering,
                      ExprLowerer):
    """Lower one user function's body; `prefix` separates the variables of inlined calls.

    A nested function (frontend/closures.py) is lowered by a FunctionLowerer too, given its
    `closure`: its own names, and the enclosing scopes it reads its other variables from."""

    def __init__(self, ctx: LowerContext, parsed: ParsedFunction, prefix: int = 0, closure=None):
        self.ctx, self.b, self.parsed = ctx, ctx.builder, parsed
        self.closure = closure
        self.call_loc = None  # where it is called, when it is inlined
        node = closure.node if closure is not None else parsed.node
        self.node = node
        self.scope = ClosureScope(closure) if closure is not None else Scope(parsed.fn, node)
        self.root_scope = closure.scope if closure is not None else self.scope
        self.env = closure.env if closure is not None else ()
        self.prefix = prefix
        self.file, self.col_offset = parsed.file, parsed.col_offset
        self.func_name = closure.qualname if closure is not None else parsed.fn.__qualname__
        self.renames: list[dict[str, object]] = []  # comprehension scopes
        self.comp_frames: list[Frame] = []  # the same, as scopes nested functions may read
        self.frame = Frame(self.own_key, frozenset(self.scope.locals), node)
        self.loops: list[object] = []  # keys of the break/continue flags of open loops
        self.keys_written: set = set()
        self.returns: list = []  # Locs of return statements
        self.unbound_reads = maybe_unbound_reads(node, self.scope.locals)
        self.via: tuple = ()  # the call sites this function is inlined through (Loc.via)

    # -- variables ---------------------------------------------------------------------------

    def key(self, name: str):
        for scope in reversed(self.renames):
            if name in scope:
                return scope[name]
        return self.own_key(name)

    def own_key(self, name: str):
        """The key of the function's own variable `name` (not a comprehension's)."""
        if not self.prefix:
            return name
        k = (self.prefix, name)
        self.b.var_hints.setdefault(k, name)
        return k

    def remember_elements(self, v: Var, elts: tuple) -> None:
        self.ctx.elements[v] = self.ctx.displays[v] = elts
        self.remember_items(v, _positions(elts))

    def remember_list(self, v: Var, elts: list) -> Var:
        self.ctx.lengths[v] = len(elts)
        self.ctx.displays[v] = tuple(elts)
        self.remember_items(v, _positions(elts))
        return v

    def remember_keys(self, v: Var, keys: list, values: list) -> Var:
        self.ctx.keys[v] = tuple(keys)
        self.remember_items(v, list(zip(keys, values)), keyed=True)
        return v

    def elements_of(self, a: Atom) -> tuple | None:
        if not isinstance(a, Var):
            return super().elements_of(a)
        if a in self.ctx.lengths:  # (a list: its items read, so that aliases of it stay visible)
            return tuple(self.emit("operator.getitem", (a, Const(i))) for i in range(self.ctx.lengths[a]))
        return self.ctx.elements.get(a)

    def keys_of(self, a: Atom) -> list | None:
        return list(self.ctx.keys[a]) if isinstance(a, Var) and a in self.ctx.keys else None

    def write(self, name: str, value: Atom) -> None:
        captured = self.captured_key(name)  # (a nested function changing what it reads in place)
        k = self.key(name) if captured is None else captured
        if captured is None:
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
        if self.enclosing(name) is not None:
            return self.read_free(name, node)
        found = self.scope.resolve(name)
        if found is None:
            raise self.error(UnsupportedSyntaxError, node, f"name {name!r} is not defined",
                             "define it before calling the function")
        return found

    def read_local(self, name: str, node) -> Atom:
        """The value of a local variable; where it may be unassigned (frontend/definite.py), a
        check that raises UnboundLocalError as Python does."""
        value = self.read_key(self.key(name))
        if node not in self.unbound_reads:
            return value
        if isinstance(value, Const) and value.value is UNDEF:  # no path assigned it
            return self.emit("srcad.unbound", (Const(name),), node=node, hint=name)
        if isinstance(value, Const):  # (every path assigned it: one that did not would join UNDEF in;
            return value  # the loop over a display of objects, run once per object, assigns its target)
        return self.emit("srcad.bound", (value, Const(name)), node=node, hint=name)

    # -- functions ---------------------------------------------------------------------------

    def call_function(self, fn, args, kw, node) -> Atom:
        if is_generator(fn):
            raise self.refuse_generator_call(fn, node)
        if isinstance(fn, LocalFunction):
            return self.call_local(fn, args, kw, node)
        if fn in self.ctx.stack and self.recursive(fn, args, kw):
            # recursion: inlined while specialising, as deep as types say
            return self.emit("srcad.call", [self.atom(Static(fn), node)] + list(args), kw, node=node)
        transform = getattr(fn, "__srcad_transform__", None)
        if transform is not None:  # (its code, built for the arguments' types, inlined while specialising)
            self.ctx.transforms.append(transform)
            # a list of numbers goes in as the array NumPy makes of it
            args = [self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a for a in args]
            kw = [(k, self.emit("srcad.as_numeric", (a,), node=node) if isinstance(a, Var) else a)
                  for k, a in kw]
            return self.emit("srcad.call", [self.atom(Static(fn), node)] + list(args), kw, node=node)
        return self.lowerer_of(fn).inline(args, kw, node, self)

    def lowerer_of(self, fn) -> FunctionLowerer:
        """A lowerer for a call of fn (a user function or a nested one), inlined here."""
        if isinstance(fn, LocalFunction):
            return FunctionLowerer(self.ctx, fn.parsed, prefix=next(self.ctx.counter), closure=fn)
        parsed = parse_function(fn)
        check(parsed, top=False)
        return FunctionLowerer(self.ctx, parsed, prefix=next(self.ctx.counter))

    def inline(self, args, kw, node, caller: FunctionLowerer) -> Atom:
        """Lower a call of this function (a user function, or a nested one) at the caller."""
        fn = self.closure or self.parsed.fn
        sig = signature_of(self.node, self.closure.defaults) if self.closure else code_signature(fn)
        bound = self.bind(sig, args, kw, node, caller)
        backs = self.written_back(bound, node, caller)
        self.call_loc = site = caller.loc(node)
        self.via = caller.via + ((site.file, site.line, site.col),) if site is not None else caller.via
        self.ctx.stack.append(fn)
        self.ctx.passed.append(passed_functions(args, kw))
        if self.closure is None:
            self.ctx.functions.append(fn)
        for name, value in bound:
            self.write(name, value)
        result = self.body()
        changed = [(old, v, name, aug, view) for p, old, name, aug, view in backs
                   if (v := self.b.read(self.key(p))) is not old]
        self.ctx.stack.pop()
        self.ctx.passed.pop()
        self.frame.close(self.b)
        for k in self.keys_written:
            self.b.kill(k)
        self.write_back(changed, caller, node)
        return result

    def inline_closure(self, closure, args, kw, node) -> Atom:
        return self.lowerer_of(closure).inline(args, kw, node, self)

    def body(self) -> Atom:
        """Lower the function body; return the returned value."""
        self.write_key(self.flag(RET), Const(False))
        self.write_key(self.flag(RETVAL), Const(UNDEF))  # (not None: `return` in a loop keeps its type)
        self.stmts(self.node.body)
        returned, value = self.b.read(self.flag(RET)), self.b.read(self.flag(RETVAL))
        if returned == Const(False) or value == Const(UNDEF):  # (it never returns: it raises)
            return Const(None)
        if returned == Const(True) or not falls_through(self.node):
            return value
        self.b.begin_if(returned, self.loc(self.node))  # (a path that ends without return: None)
        self.b.begin_else((value,))
        return self.b.end_if((Const(None),))[0]

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
        if not self.in_place_call(node.value):  # (np.add.at, np.fill_diagonal: inplace_calls.py)
            self.expr(node.value)

    def stmt_Return(self, node) -> None:
        if not self.prefix:  # (the user's function itself, not an inlined callee)
            self.returns.append(self.loc(node))
        value = Const(None) if node.value is None else self.value(node.value)
        self.write_key(self.flag(RETVAL), value)
        self.write_key(self.flag(RET), Const(True))

    def stmt_Raise(self, node) -> None:
        exc = Const(None) if node.exc is None else self.value(node.exc)
        self.emit("srcad.raise", (exc,), node=node, nouts=0)

    def stmt_Assert(self, node) -> None:
        test = self.value(node.test)
        msg = Const(None) if node.msg is None else self.value(node.msg)
        self.emit("srcad.assert", (test, msg), node=node, nouts=0)

    def stmt_Assign(self, node) -> None:
        if self.assigned_a_choice(node):  # (name = a if c else b: an if statement, carried.py)
            return
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
            old, rhs = self.read_local(target.id, target), self.value(node.value)
            made = self.object_operator(node.op, old, rhs, node, inplace=True)  # (objects.py)
            self.write(target.id, made if made is not None else self.emit(
                INPLACE[type(node.op)], (old, rhs), node=node, hint=target.id))
            return
        if isinstance(target, gast.Attribute):
            return self.augassign_attribute(node)
        if isinstance(target, gast.Subscript):
            return self.augassign_item(node)  # (inplace_calls.py)
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
            if isinstance(value, Var) and value not in self.ctx.elements:  # (not a tuple made here:
                value = self.emit("srcad.iter", (value,), node=target)  # its items as iterating gives them)
            self.emit("srcad.check_unpack", (value, Const(len(target.elts) - len(stars)), Const(bool(stars))),
                      node=target, nouts=0)
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
        elif isinstance(target, gast.Attribute):
            self.assign_attribute(target, value)  # (of an object made inside: objects.py)
        else:
            raise self.mutation_error(target, target)

    def assign_item(self, target: gast.Subscript, value: Atom) -> None:
        base_node = target.value
        self.refuse_global_write(base_node, target)
        if not isinstance(base_node, (gast.Name, gast.Subscript, gast.Attribute)):
            raise self.mutation_error(target, target)
        base = self.value(base_node)
        if isinstance(base_node, gast.Subscript):  # (x[i][j] = v: x[i] changed in place)
            self.check_held_once(self.value(base_node.value), base, target)
        new = self.emit("operator.setitem", (base, self.index(target.slice), value), node=target,
                        hint=base_node.id if isinstance(base_node, gast.Name) else "")
        self.assign(base_node, new)

    def method_call(self, recv: Atom, name: str, node) -> Atom:
        """`v.append(x)`, `d.update(e)`...: a write into a local list or dict (the receiver
        rebound to the new value), or a method of the user's class of the same name: which one
        is known once types are (srcad.mutate_call, resolved in transforms/calls.py)."""
        if name not in MUTATING_METHODS:
            return super().method_call(recv, name, node)
        target = node.func.value
        local = isinstance(target, (gast.Name, gast.Subscript)) and not (
            isinstance(target, gast.Name) and target.id not in self.scope.locals) or self.made_inside(target)
        args, kw = self.call_args(node)
        if local and isinstance(target, gast.Subscript):  # (xs[k].append(v): xs[k] changed in place)
            self.check_held_once(self.value(target.value), recv, node)
        recv_hint = target.id if isinstance(target, gast.Name) else ""
        new, result = self.emit("srcad.mutate_call", [Const(name), Const(local), recv] + args, kw,
                                node=node, nouts=2, hint=(recv_hint, ""))
        if local:
            self.assign(target, new)
        return result

def _positions(elts) -> list:
    """(position, value) of a sequence's items, by positive and negative positions."""
    n = len(elts)
    return [(i, a) for i, a in enumerate(elts)] + [(i - n, a) for i, a in enumerate(elts)]


@dataclass(frozen=True)
class Lowered_:
    function: Function
    functions: tuple  # every user function the result depends on (itself first)
    statics: tuple = ()  # (position, function) of the arguments known while lowering
    transforms: tuple = ()  # the transforms (srcad.grad(h) called inside) whose code it inlines


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


def lower_function(fn, statics: tuple = ()) -> Lowered_:
    """Parse, check and lower `fn` (inlining the user functions it calls). `statics`:
    (position, function) for arguments that are functions known while lowering (calls of
    them are resolved here; the generated function still takes them, and ignores them)."""
    with _deep_expressions():
        return _lower_function(fn, dict(statics))


def _lower_function(fn, statics: dict) -> Lowered_:
    parsed = parse_function(fn)
    check(parsed)
    b = Builder()
    ctx = LowerContext(b, stack=[fn], passed=[()], functions=[fn])
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
    ctx.cell_sources.update(argument_cells(statics, params))
    for i, (name, v) in enumerate(zip(names + kwonly, params)):
        low.write(name, static_atom(statics[i]) if i in statics else v)
    result = low.body()
    body = b.end_function((result,))
    return Lowered_(
        Function(parsed.node.name if parsed.node.name != "lambda" else "lambda_", tuple(sigs), body,
                 low.loc(parsed.node), fn.__qualname__, tuple(low.returns)),
        tuple(ctx.functions), tuple(statics.items()), tuple(dict.fromkeys(ctx.transforms)),
    )

