"""Nested functions and lambdas: values while lowering, inlined where they are called.

A `def` or `lambda` inside a function srcad lowers makes a `Closure`: its syntax, the scopes
it sees (the function being lowered, the comprehensions around the definition and, for a
function nested deeper, their own enclosing scopes) and its default values, computed where
it is defined, as Python does. The closure is a constant of the IR (`Const(Ext(...))`):
variables, arguments of inlined helpers and return values carry it like any function known
while transforming, and a call of it is inlined like a call of a helper.

Python closures bind late: a nested function reads an enclosing variable when it runs, not
when it is defined. While the enclosing scope is still running, a call reads the variable's
current definition (the SSA builder's read at the call); after the scope has ended (a helper
returned the closure, a comprehension finished), the variable cannot change any more, and a
call reads the value it had when the scope ended, recorded then (`Frame.close`):

    def f(x):
        a = 1.0
        g = lambda t: a * t      # reads a when called...
        a = x * x
        return g(x)              # ...here: a is x * x, so f(x) = x ** 3

That recorded value exists only where the end of the scope dominates the call; a call
elsewhere is refused. A closure kept in a tuple, list or dict made in the function is found
again when read out of it (callees.py). A closure reached through a value the frontend does
not know (a variable joined after an `if` or carried around a loop, a list changed after it
was made) would have to exist in the generated code, and is refused where it is used
(`check_no_local_functions`); so is a closure returned, or given to a library function.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from dataclasses import dataclass, field

import gast

from ..custom import RUNTIME
from ..errors import RecursionNotSupportedError, UnsafeMutationError, UnsupportedSyntaxError, diagnostic
from ..identifiers import identifier
from ..ir.nodes import UNDEF, Apply, Block, Const, Ext, For, Function, If, Var, While, ext_object, iter_ops
from ..rules import registry
from .definite import assigned_at_definitions
from .expr import static_atom
from .lifting import lift
from .resolve import LocalFunction, local_names


@dataclass(eq=False, repr=False)
class Frame:
    """A running scope whose variables nested functions may read: a function being lowered
    (the user's, or one inlined) or a comprehension."""

    key: object  # name -> the builder key of the variable
    names: frozenset  # the names local to the scope
    node: object = None  # the FunctionDef, for definite assignment (None: a comprehension)
    alive: bool = True
    free: set = field(default_factory=set)  # its names that nested functions made in it read
    exit_values: dict = field(default_factory=dict)  # name -> value when the scope ended
    exit_at: tuple = ()  # the builder's open blocks then
    _assigned: dict | None = None

    def assigned_at(self, node) -> frozenset | None:
        """The names assigned on every path to the nested def or lambda `node` (None: all of
        them, as in a comprehension, whose targets are bound before its element runs)."""
        if self.node is None:
            return None
        if self._assigned is None:
            self._assigned = assigned_at_definitions(self.node, set(self.names))
        return self._assigned.get(node, frozenset())

    def close(self, builder) -> None:
        """The scope ends: record the values nested functions made in it will read."""
        if self.free:
            for name in sorted(self.free):
                k = self.key(name)
                self.exit_values[name] = builder.read(k) if builder.is_bound(k) else Const(UNDEF)
            self.exit_at = builder.position()
        self.alive = False


@dataclass(eq=False, repr=False)
class Closure(LocalFunction):
    """A nested def or lambda made while lowering."""

    node: gast.FunctionDef  # its definition (a lambda as a def returning its body)
    name: str
    qualname: str
    env: tuple  # (Frame, names assigned at the definition or None) per enclosing scope, innermost first
    scope: object  # resolves the other free names: globals, cells and builtins of the user function
    parsed: object  # the ParsedFunction of the user function whose source holds it
    defaults: dict  # parameter name -> default value, computed at the definition
    loc: object = None


@dataclass(eq=False, repr=False)
class Partial(LocalFunction):
    """`functools.partial(func, *args, **kw)` made inside the function, for a `func` known
    while transforming (a function, a nested function or another partial)."""

    func: object
    args: tuple
    kw: tuple
    name: str = "partial"
    loc: object = None


class ClosureScope:
    """The names of a nested function: its own locals; other names are resolved by the
    enclosing scopes (Closure.env), then like the user function's free names."""

    def __init__(self, closure: Closure):
        self.locals = local_names(closure.node)
        self.resolve = closure.scope.resolve


class Default:
    """A default value computed where a nested function is defined."""

    __slots__ = ("atom",)

    def __init__(self, atom):
        self.atom = atom


def signature_of(node: gast.FunctionDef, defaults: dict) -> inspect.Signature:
    """The signature of a nested function, its defaults the values computed at its def."""
    args, P = node.args, inspect.Parameter
    params = []

    def add(name, kind):
        default = Default(defaults[name]) if name in defaults else P.empty
        params.append(P(name, kind, default=default))

    for a in getattr(args, "posonlyargs", []):
        add(a.id, P.POSITIONAL_ONLY)
    for a in args.args:
        add(a.id, P.POSITIONAL_OR_KEYWORD)
    if args.vararg is not None:
        add(args.vararg.id, P.VAR_POSITIONAL)
    for a in args.kwonlyargs:
        add(a.id, P.KEYWORD_ONLY)
    if args.kwarg is not None:
        add(args.kwarg.id, P.VAR_KEYWORD)
    return inspect.Signature(params)


def _default_nodes(args: gast.arguments) -> list:
    """(parameter name, default expression) for every parameter that has a default."""
    positional = getattr(args, "posonlyargs", []) + args.args
    out = [(a.id, d) for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)]
    out += [(a.id, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return out


def free_names(node) -> set:
    """Every name a nested function (and the functions nested in it) reads."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def lambda_as_def(node: gast.Lambda) -> gast.FunctionDef:
    ret = gast.Return(value=node.body)
    gast.copy_location(ret, node.body)
    fdef = gast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    return gast.copy_location(fdef, node)


class ClosureLowering:
    """Nested functions for FunctionLowerer (lower.py): made by `def` and `lambda`, read
    from their enclosing scopes when called."""

    def stmt_FunctionDef(self, node) -> None:
        self.write(node.name, self.make_closure(node, node, node.name))

    def expr_Lambda(self, node) -> Const:
        return self.make_closure(lambda_as_def(node), node, "<lambda>")

    def make_closure(self, fdef: gast.FunctionDef, node, name: str) -> Const:
        defaults = {p: self.value(d) for p, d in _default_nodes(fdef.args)}
        env = [(f, None) for f in reversed(self.comp_frames)]
        env.append((self.frame, self.frame.assigned_at(node)))
        env += list(self.env)
        reads = free_names(fdef)
        for frame, _ in env:
            frame.free |= reads & frame.names
        closure = Closure(fdef, name, f"{self.func_name}.<locals>.{name}", tuple(env), self.root_scope,
                          self.parsed, defaults, self.loc(node))
        # (a name of its own: constants with the same name are the same value to the passes)
        return Const(Ext(f"{identifier(name, '_lambda')}_{next(self.ctx.counter)}", closure))

    def enclosing(self, name: str):
        """(frame, assigned names) of the innermost enclosing scope that binds `name`."""
        for frame, assigned in self.env:
            if name in frame.names:
                return frame, assigned
        return None

    def captured_key(self, name: str):
        """The key of the enclosing scope's variable `name`, when this nested function reads it
        (not its own, and the scope still runs): an item written into it (`y[0] = 0.0`) changes
        the enclosing variable's object; None otherwise."""
        if name in self.scope.locals or any(name in s for s in self.renames):
            return None
        found = self.enclosing(name)
        return found[0].key(name) if found is not None and found[0].alive else None

    def read_free(self, name: str, node):
        """A nested function reading a variable of an enclosing scope, when it runs."""
        frame, assigned = self.enclosing(name)
        if frame.alive:
            value = self.read_key(frame.key(name))
        elif self.b.dominated_by(frame.exit_at):
            value = frame.exit_values[name]
        else:
            msg = (f"{self.func_name} reads {name!r} of a scope that has ended, from a place the end "
                   "of that scope does not reach (the nested function was made in a loop or a branch "
                   "that is over here)")
            hint = f"call the nested function inside that loop or branch, or pass {name} to it as an argument"
            read = self.error(UnsupportedSyntaxError, node, msg, hint).diagnostics[0]
            where = [diagnostic(self.call_loc, msg, hint)] if self.call_loc is not None else []
            raise UnsupportedSyntaxError(msg, where + [read])
        if isinstance(value, Const) and value.value is UNDEF:
            return self.emit("srcad.unbound", (Const(name),), node=node, hint=name)
        if isinstance(value, Var) and assigned is not None and name not in assigned:
            return self.emit("srcad.bound", (value, Const(name)), node=node, hint=name)
        return value

    def read_key(self, k):
        """The current value of a variable; a function, module or other object known while
        transforming that no open loop inside the block defining it reassigns is read as itself
        (not as a value carried around those loops), so that calls of it are resolved here: a
        nested function made in a loop's body and called in a loop inside it, too; and a tuple
        whose items are known (`*args`), so that `step(z, *args)` in a loop unpacks it."""
        outer, inside = self.b.invariant(k)
        loops = self.ctx.loop_writes[len(self.ctx.loop_writes) - inside:] if inside else []
        if not any(k in written for written in loops) and (  # (the loops inside its definition)
                isinstance(outer, Const) and isinstance(outer.value, Ext) or (isinstance(outer, Var) and (
                    outer in self.ctx.callees or outer in self.ctx.holds or outer in self.ctx.elements))):
            return outer
        return self.b.read(k)

    def recursive(self, fn, args, kw) -> bool:
        """Is a call of fn, which is being lowered, recursion? Not when it is given nested
        functions (lambdas, closures, partials of them) made at other places than the calls
        of fn being lowered: `apply(lambda a: apply(lambda b: ..., a), x)` enters apply again
        through the outer lambda, with another function, and is inlined like any call."""
        given = passed_functions(args, kw)
        return not given or any(f is fn and p == given for f, p in zip(self.ctx.stack, self.ctx.passed))

    def check_recursion(self, fn, node) -> None:
        """Refuse a nested function or a generator that calls itself (a user function's
        recursion is resolved while specialising instead: call_function)."""
        stack = self.ctx.stack
        if fn in stack or any(getattr(f, "node", 0) is getattr(fn, "node", 1) for f in stack):
            names = " -> ".join(getattr(f, "qualname", None) or f.__qualname__ for f in self.ctx.stack + [fn])
            raise self.error(
                RecursionNotSupportedError, node, f"recursive call ({names}) is not supported",
                "rewrite the recursion as a loop, or as a module-level function (srcad inlines "
                "calls to user functions)",
            )

    def call_local(self, fn: LocalFunction, args, kw, node):
        if isinstance(fn, Partial):
            given = dict(kw)
            fixed = [(k, v) for k, v in fn.kw if k not in given]
            return self.call_value(fn.func, list(fn.args) + list(args), fixed + list(kw), node)
        self.check_recursion(fn, node)
        return self.inline_closure(fn, args, kw, node)

    def call_guarded(self, fn, args, kw, node):
        """A function with its own derivative rules, as srcad's generated code calls it (on
        read-only views: srcad/guarded.py), in generated code transformed again (a Hessian):
        inlined, and refused if it changes a variable it is given."""
        names = [a.id for a in getattr(node, "args", []) if isinstance(a, gast.Name)]
        before = [self.b.read(self.key(n)) for n in names]
        out = self.call_static(fn, args, kw, node)
        if any(self.b.read(self.key(n)) is not v for n, v in zip(names, before)):
            raise self.error(UnsafeMutationError, node, f"{getattr(fn, '__qualname__', 'a function')}, a "
                             "function with its own derivative rules, changes an argument in place",
                             "change a copy inside it (u = u.copy()) and return the new value")
        return out

    def call_custom(self, fn, args, kw, node):
        """A function with its own derivative rules (srcad/custom.py): outs are (result,
        residuals). A nested def or lambda among the arguments is passed as the Python function
        it is (the rules call it) when it reads no variable of the function being transformed;
        one that does is lifted (lifting.py) when the function passes extra arguments to it
        (`fn.lifts`: odeint's args), else refused. srcad's own such functions (odes.py) check
        literal options (`validate`) and take their solver options as data (`refuses`)."""
        try:
            bound = inspect.signature(fn.fun).bind(*self.no_stars(args, node), **dict(kw))
        except TypeError as e:
            raise self.error(UnsupportedSyntaxError, node, f"bad call to {fn.__name__}: {e}") from None
        bound.apply_defaults()
        values = {k: v if isinstance(v, (Var, Const)) else static_atom(v) for k, v in bound.arguments.items()}
        for k in list(values):
            values[k] = self.function_value(values[k], fn, values, node)
        if fn.validate is not None:
            got = fn.validate({k: v.value if isinstance(v, Const) else RUNTIME for k, v in values.items()})
            if got is not None:
                raise self.error(UnsupportedSyntaxError, node, *got)
        atoms = [self.emit("srcad.data_only", (v, Const(k)), node=node)  # (options: no derivative)
                 if k in fn.refuses and isinstance(v, Var) else v for k, v in values.items()]
        out, _ = self.emit("srcad.custom", [static_atom(fn)] + atoms, node=node, nouts=2)
        return out

    def function_value(self, a, fn, values: dict, node):
        obj = ext_object(a)
        if not isinstance(obj, LocalFunction):
            return a
        made = self.python_function(obj)
        if not isinstance(made, LocalFunction):
            return static_atom(made)
        lifted = lift(self, obj, node) if fn.lifts and isinstance(obj, Closure) else None
        if lifted is None or lifted[0] is None:
            raise self.error(UnsupportedSyntaxError, node, f"the nested function {obj.name} given to "
                             f"{fn.__name__} reads variables of the function being differentiated",
                             "pass those values as arguments (args=(...) of odeint and solve_ivp, "
                             "params of fixed_point and custom_root) and read them as parameters")
        function, captured = lifted
        extra, given = self.emit("srcad.tuple", captured, node=node), values[fn.lifts]
        values[fn.lifts] = extra if given in (Const(None), Const(())) else self.emit(
            "operator.add", (given, extra), node=node)
        return static_atom(function)

    def python_function(self, fn):
        """A nested def or lambda as the Python function it is (for srcad.grad(lambda ...)
        inside the function), when it reads no variable of the scopes srcad is lowering and
        has no defaults: its code object, found in the user function's constants, with the
        user function's globals (and closure cells it passes on). Else fn itself."""
        if not isinstance(fn, Closure) or fn.defaults:
            return fn
        code = _code_of(fn.parsed.fn.__code__, fn.node)
        outer = fn.parsed.fn
        cells = dict(zip(outer.__code__.co_freevars, outer.__closure__ or ()))
        if code is None or any(name not in cells for name in code.co_freevars):
            return fn
        return types.FunctionType(code, outer.__globals__, code.co_name,
                                  None, tuple(cells[n] for n in code.co_freevars) or None)

    def call_value(self, fn, args, kw, node):
        """Call a function known while transforming (a Python function, a LocalFunction...)."""
        if isinstance(fn, LocalFunction):
            return self.call_local(fn, args, kw, node)
        return self.call_static(fn, args, kw, node)


def passed_functions(args, kw) -> tuple:
    """Where the nested functions among a call's arguments were made (their definitions' places
    in the source; a partial by what it wraps), in order: a call's key for the recursion check."""
    def site(obj):
        if isinstance(obj, Partial):
            return ("partial", site(obj.func))
        if isinstance(obj, Closure):  # (where its source is: a lambda's def is made anew each time)
            return (obj.loc.file, obj.loc.line, obj.loc.col) if obj.loc is not None else id(obj.node)
        return obj

    atoms = list(args) + [a for _, a in kw]
    return tuple(site(ext_object(a)) for a in atoms if isinstance(ext_object(a), LocalFunction))


def _holds(op) -> str:
    """How an operation treats values it does not examine (Rule.holds): a container may carry
    a nested function through the operations that make, index, iterate, copy and measure it
    (frontend/callees.py resolved the calls of its items)."""
    rule = registry.lookup(op.prim) if isinstance(op, Apply) else None
    return rule.holds if rule is not None else ""


def _code_of(code: types.CodeType, node: gast.FunctionDef):
    """The code object of the nested function `node` among the constants of `code`, at any
    depth (by name, first line and, for several lambdas on one line, columns)."""
    found = []
    stack = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    while stack:
        c = stack.pop()
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        if c.co_name == node.name and c.co_firstlineno == node.lineno:
            found.append(c)
    if len(found) > 1 and isinstance(node.body[0], gast.Return) and node.name == "<lambda>":
        body = node.body[0].value
        start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
        found = [c for c in found if _within(c, start, end)]
        found = [c for c in found if not any(c in k.co_consts for k in found)]  # (not one inside another)
    return found[0] if len(found) == 1 else None


def _within(code: types.CodeType, start: tuple, end: tuple) -> bool:
    spans = [p for p in getattr(code, "co_positions", lambda: ())()
             if None not in p and (p[0], p[2]) != (p[1], p[3])]
    return bool(spans) and all(start <= (p[0], p[2]) and (p[1], p[3]) <= end for p in spans)


def check_no_local_functions(fn: Function) -> None:
    """Refuse a nested function or lambda that the generated code would have to use as a
    value (call it, return it, give it to a library...): it exists only while srcad
    transforms the code. Containers may hold one, and be indexed, iterated and measured."""
    held = _holding(fn)
    for op in iter_ops(fn.body):
        operands = op.operands()
        if _holds(op) == "all":
            continue
        if _holds(op) in ("first", "length"):
            operands = operands[1:]  # (not as an index, a name...)
        for a in operands:
            if _held(a, held) is not None:
                _refuse_value(_held(a, held), op.loc)
    for a in fn.body.yields:
        if _held(a, held) is not None:
            _refuse_value(_held(a, held), fn.returns[-1] if fn.returns else fn.loc)


def erase_local_functions(fn: Function) -> Function:
    """fn with the nested functions its containers hold (check_no_local_functions allowed
    them: their calls were inlined, and nothing else reads them) replaced by None, so that
    the generated code refers to no object that exists only while srcad transforms."""

    def atom(a):
        if isinstance(a, Const) and isinstance(a.value, Ext) and isinstance(a.value.obj, LocalFunction):
            return Const(None)
        return a

    def block(b: Block) -> Block:
        return Block(b.params, tuple(op.map(atom, block) for op in b.ops), tuple(atom(y) for y in b.yields))

    return dataclasses.replace(fn, body=block(fn.body))


def _held(a, held: dict) -> LocalFunction | None:
    """The nested function a value is or holds (one of them), or None."""
    if isinstance(a, Const) and isinstance(a.value, Ext) and isinstance(a.value.obj, LocalFunction):
        return a.value.obj
    return held.get(a.id) if isinstance(a, Var) else None


def _holding(fn: Function) -> dict:
    """{id: a nested function} of the values that are, or hold, one (to a fixed point through
    the carrier operations and the joins of branches and loops)."""
    held: dict = {}

    def mark(v: Var, obj) -> bool:
        if v.id in held:
            return False
        held[v.id] = obj
        return True

    changed = True
    while changed:
        changed = False
        for op in iter_ops(fn.body):
            pairs = []  # (sources, targets) of the values that flow
            if _holds(op) in ("all", "first"):
                pairs.append((op.operands() if _holds(op) == "all" else op.args[:1], op.outs))
            elif isinstance(op, If):
                pairs += [((a, b), (o,)) for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields)]
            elif isinstance(op, (For, While)):
                first = 1 if isinstance(op, For) else 0
                params = [op.body.params[first:]] + ([op.cond.params] if isinstance(op, While) else [])
                for i, out in enumerate(op.outs):
                    targets = (out,) + tuple(ps[i] for ps in params if i < len(ps))
                    pairs.append(((op.init[i], op.body.yields[i]), targets))
            for sources, targets in pairs:
                obj = next((_held(a, held) for a in sources if _held(a, held) is not None), None)
                if obj is not None:
                    changed |= any([mark(t, obj) for t in targets])
    return held


def _refuse_value(obj: LocalFunction | None, loc) -> None:
    made = f" (made at line {obj.loc.line})" if obj is not None and obj.loc is not None else ""
    what = "nested function" if obj is None else "lambda" if obj.name == "<lambda>" else (
        f"nested function {obj.name}")
    msg = (f"the {what}{made} is used as a value here (kept in a list, dict or tuple, chosen by a "
           "branch or a loop, returned, or given to a library function): srcad inlines nested "
           "functions and lambdas where they are called, and cannot keep them in the generated code")
    raise UnsupportedSyntaxError(msg, [diagnostic(loc, msg, "call it directly (by its name, or through "
                                                  "an argument of a helper), or define it at module level")])
