"""IR -> gast -> Python source (astor), with comments and a source map.

Single-use temporaries are folded back into expressions (`x_bar = g * np.cos(x)` rather than
three statements: inline.py plans which); user variables stay statements. Groups of adjoint
statements get a comment naming the user's line they come from. Every statement records its
user line in the source map (used by tracebacks and `srcad show`); comments and source-map
entries travel through astor as markers (markers.py).
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, field

import astor
import gast
from astor.source_repr import split_lines

from .. import runtime
from ..analysis.aliases import update_base
from ..analysis.liveness import liveness
from ..errors import SOURCE_MAPS, CodegenError, own_source
from ..frontend.planned import generated_file
from ..frontend.source import source_line
from ..identifiers import is_identifier
from ..ir import types as T
from ..ir.nodes import (
    UNDEF,
    Apply,
    Atom,
    Block,
    Const,
    Ext,
    For,
    Function,
    If,
    Loc,
    Var,
    While,
    iter_ops,
)
from ..ir.values import of_value
from ..passes.buffers import reuses
from ..rules import registry
from .census import ext_names, helper_names, use_counts
from .expressions import ExprEmitter
from .inline import InlinePlanner
from .markers import apply_markers, marker, real
from .names import Naming, assign_names
from .release import BufferStatements
from .syntax import BINOPS, INPLACE, Namespace, _assign, _attr, _call, _name
from .typechecks import checking, checks


@dataclass
class Rendered:
    """Generated source, the namespace it runs in, and its map back to user lines."""

    source: str
    namespace: dict
    line_map: dict = field(default_factory=dict)  # generated line -> (file, line, other lines)
    python: Rendered | None = None  # target="numba": the CPython target's code (the fallback)
    finite_checked: bool = False  # the numba target's code checks that its results are finite


def _user_call(loc: Loc) -> tuple | None:
    """For a line of a form (srcad/forms.py: generated text with no source map), the user's
    call that reached it (the last place of Loc.via in a file of the user's); else None."""
    if not generated_file(loc.file) or loc.file in SOURCE_MAPS:
        return None
    return next(((f, line) for f, line, _ in reversed(loc.via) if not generated_file(f)), None)


class CodeEmitter(BufferStatements, ExprEmitter, InlinePlanner):
    _depth = 0  # loops around the statements being printed

    def __init__(self, fn: Function, comments: bool = True, release: bool = True):
        self.fn = fn
        self.release = release  # `del` large temporaries after their last use
        self.params = set(fn.body.params)
        self.ns = Namespace()
        self.comments = comments
        self.live = liveness(fn)
        # (not `_`: the REPL and doctest bind builtins._ to the last value they displayed)
        reserved = (set(dir(builtins)) - {"_"}) | {"np", "math"} | ext_names(fn) | helper_names(fn)
        self.naming: Naming = assign_names(fn, self.live, reserved)
        self.uses = use_counts(fn)
        self.defs: dict[Var, Apply] = {}
        self.inline: set[Var] = set()
        self.nesting: dict[Var, int] = {}  # how many folded operations an inlined value nests
        self._last_comment = None
        self.depth = 0  # indentation level of the block being emitted
        self.override: dict = {}  # values evaluated early into a temporary name
        self._temps = 0
        self.check_types = checking()  # (SRCAD_DEBUG=types: codegen/typechecks.py)

    # -- statements ------------------------------------------------------------------------------

    def comment(self, loc: Loc | None, out: list) -> None:
        if not self.comments or loc is None or not loc.adjoint:
            return
        key = (loc.file, loc.line)
        if key == self._last_comment:
            return
        self._last_comment = key
        text = source_line(loc.file, loc.line)
        line = f"line {loc.line}"
        if own_source(loc.file):  # (a source implementation srcad inlined: rules/scipy_stats.py)
            line = f"{os.path.basename(loc.file)} line {loc.line}"
        comment = f"adjoint of {line}: {text}" if text else f"adjoint of {line}"
        room = 96 - 4 * self.depth - 2
        if len(comment) > room:
            comment = comment[: max(room - 3, 20)].rstrip() + "..."
        out.append(marker("C", comment))

    def mark(self, loc: Loc | None, out: list, op=None) -> None:
        if loc is not None:
            place = _user_call(loc)  # (a line of a form srcad wrote: the user's call of it)
            where = [*place, []] if place else [loc.file, loc.line, self._inlined_lines(op, loc)]
            out.append(marker("L", where))

    def _inlined_lines(self, op, loc: Loc) -> list:
        """Other lines of the same user file whose expressions this statement evaluates."""
        found, todo = set(), list(op.operands()) if isinstance(op, Apply) else []
        while todo:
            a = todo.pop()
            if isinstance(a, Var) and a in self.inline:
                inner = self.defs[a]
                if inner.loc is not None and inner.loc.file == loc.file and inner.loc.line != loc.line:
                    found.add(inner.loc.line)
                todo.extend(inner.operands())
        return sorted(found)

    def block(self, b: Block, extra: list | None = None) -> list:
        self._plan_inline(b)
        self.depth += 1
        out: list = []
        dying = self._last_reads(b) if self.release and id(b) not in self._cond_ids else {}
        for i, op in enumerate(b.ops):
            if isinstance(op, Apply) and op.outs and op.outs[0] in self.inline:
                continue
            self.comment(op.loc, out)
            self.mark(op.loc, out, op)
            out.extend(self.stmt(op))
            if self.check_types:
                out.extend(checks(self, op))
            if i in dying and not (b is self.fn.body and i == len(b.ops) - 1):
                out.extend(self.releases(op, dying[i]))
        self.depth -= 1
        return out + (extra or [])

    def stmt(self, op) -> list:
        if isinstance(op, If):
            return self.if_stmt(op)
        if isinstance(op, For):
            return self.for_stmt(op)
        if isinstance(op, While):
            return self.while_stmt(op)
        return self.apply_stmt(op)

    def apply_stmt(self, op: Apply) -> list:
        k = update_base(op)
        if k is not None:
            return self.update_stmt(op, k)
        if id(op) in self.naming.accumulate:
            k = self.naming.accumulate[id(op)]
            return [gast.AugAssign(target=_name(self.name(op.out), gast.Store()),
                                   op=BINOPS[op.prim.split(".")[1]](), value=self.atom(op.args[1 - k]))]
        if reuses(op) is not None:
            return self.reuse_stmt(op, reuses(op))
        p = op.prim
        if p == "srcad.assert":
            msg = (None if isinstance(op.args[1], Const) and op.args[1].value is None
                   else self.atom(op.args[1]))
            return [gast.Assert(test=self.atom(op.args[0]), msg=msg)]
        if p == "srcad.raise":
            exc = (None if isinstance(op.args[0], Const) and op.args[0].value is None
                   else self.atom(op.args[0]))
            return [gast.Raise(exc=exc, cause=None)]
        value = self.expr(op)
        if not op.outs or all(self.uses[o] == 0 for o in op.outs):
            return [gast.Expr(value=value)]
        if p == "srcad.custom" and self.uses[op.outs[1]] == 0:
            return [_assign(_name(self.name(op.outs[0]), gast.Store()), value)]
        if len(op.outs) == 1:
            out = self.name(op.out)
            if isinstance(value, gast.BinOp) and isinstance(value.left, gast.Name) and value.left.id == out \
                    and isinstance(op.out.type, (T.Float, T.Int)):
                return [gast.AugAssign(target=_name(out, gast.Store()), op=value.op, value=value.right)]
            return [_assign(_name(out, gast.Store()), value)]
        target = gast.Tuple(elts=[_name(self.name(o), gast.Store()) for o in op.outs], ctx=gast.Store())
        return [_assign(target, value)]

    def update_stmt(self, op: Apply, k: int) -> list:
        base = op.args[k]
        out = op.outs[0]
        scatters = registry.lookup(op.prim).scatters  # srcad.scatter_add; np.add.at as the user wrote it
        if isinstance(base.type, (T.Tuple, T.Unknown, T.Num, T.Float)) and scatters:
            helper = _name(self.ns.ref(runtime.scatter_add, "_scatter_add"))
            functional = isinstance(base.type, T.Tuple)  # the helper builds a new tuple
            copy = self.atom(base) if functional or id(op) in self.naming.inplace else _call(
                _name(self.ns.ref(runtime.copy_value, "_copy")), [self.atom(base)])
            call = _call(helper, [copy, self.atom(op.args[k + 1]), self.atom(op.args[k + 2])])
            return [_assign(_name(self.name(out), gast.Store()), call)]
        pre = []
        if id(op) not in self.naming.inplace:
            pre = self.hoist_readers(op.args[k + 1:], self.name(out))
            # (a 0-d array may be a number when the code runs: NumPy arithmetic on 0-d arrays
            # gives scalars, and so do srcad's helpers; numbers and values of unknown rank copy
            # with the helper)
            array = isinstance(base.type, T.Array) and base.type.ndim not in (0, None)
            copy = _call(_attr(self.atom(base), "copy"), []) if array or isinstance(base.type, (
                T.List, T.Dict)) else _call(_name(self.ns.ref(runtime.copy_value, "_copy")),
                                            [self.atom(base)])
            pre.append(_assign(_name(self.name(out), gast.Store()), copy))
        target = _name(self.name(out))
        p = op.prim
        rest = op.args[k + 1:]
        if p in ("operator.setitem", "srcad.setitem"):
            sub = gast.Subscript(value=target, slice=self.index(rest[0]), ctx=gast.Store())
            return pre + [_assign(sub, self.atom(rest[1]))]
        if scatters:
            return pre + [self.scatter_stmt(out, target, rest[0], rest[1])]
        if p in ("srcad.list_append", "list.append"):
            return pre + [gast.Expr(value=_call(_attr(target, "append"), [self.atom(rest[0])]))]
        if p in ("srcad.list_extend", "list.extend"):
            return pre + [gast.Expr(value=_call(_attr(target, "extend"), [self.atom(rest[0])]))]
        if p in ("srcad.list_insert", "list.insert"):
            return pre + [gast.Expr(value=_call(_attr(target, "insert"), [self.atom(a) for a in rest[:2]]))]
        if p == "srcad.list_pop_at":
            call = _call(_attr(target, "pop"), [self.atom(rest[0])])
            if self.uses[op.outs[1]] == 0:
                return pre + [gast.Expr(value=call)]
            return pre + [_assign(_name(self.name(op.outs[1]), gast.Store()), call)]
        if p in ("srcad.list_pop", "list.pop"):
            call = _call(_attr(target, "pop"), [])
            if self.uses[op.outs[1]] == 0:
                return pre + [gast.Expr(value=call)]
            return pre + [_assign(_name(self.name(op.outs[1]), gast.Store()), call)]
        if p in ("srcad.list_permute", "srcad.list_unpermute"):  # (helpers that update their list and
            # return it: assigned, so that code made from this code again sees the update)
            call = _call(self.callee(registry.lookup(p)), [target] + [self.atom(a) for a in rest])
            return pre + [_assign(_name(self.name(out), gast.Store()), call)]
        short = INPLACE.get(p.split(".", 1)[1])
        if short in BINOPS:
            return pre + [gast.AugAssign(target=_name(self.name(out), gast.Store()), op=BINOPS[short](),
                                         value=self.atom(op.args[1]))]
        raise AssertionError(f"cannot emit update {p}")

    def hoist_readers(self, atoms, name: str) -> list:
        """Evaluate operands that read `name` into temporaries first (the copy that starts a
        not-in-place update rebinds `name` before they would be read)."""
        out = []
        for a in atoms:
            if not isinstance(a, Var) or a in self.override:
                continue
            reads = self._reads(a) if a in self.inline else {self.name(a)}
            if name in reads:
                temp = self.fresh_name()
                out.append(_assign(_name(temp, gast.Store()), self.atom(a)))
                self.override[a] = temp
        return out

    def fresh_name(self) -> str:
        taken = set(self.naming.names.values())
        while True:
            self._temps += 1
            name = f"_u{self._temps}"
            if name not in taken and name not in self.ns.names:
                return name

    def scatter_stmt(self, out: Var, target, idx: Atom, value: Atom):
        t_idx = idx.type if isinstance(idx, Var) else of_value(idx.value) if not isinstance(
            idx.value, Ext) else T.UNKNOWN
        basic = (isinstance(t_idx, (T.Int, T.Bool))
                 or (isinstance(t_idx, T.Opaque) and t_idx.what == "slice")
                 or (isinstance(t_idx, T.Tuple)
                     and all(isinstance(e, (T.Int, T.Opaque, T.NoneT)) for e in t_idx.elts))
                 or (isinstance(t_idx, T.Array) and t_idx.kind == "b"))  # a mask selects each element once
        if isinstance(out.type, T.List):
            sub_load = gast.Subscript(value=_name(self.name(out)), slice=self.index(idx), ctx=gast.Load())
            sub = gast.Subscript(value=target, slice=self.index(idx), ctx=gast.Store())
            if isinstance(out.type.elt, (T.Float, T.Array, T.Num)) and isinstance(t_idx, (T.Int, T.Bool)):
                return _assign(sub, gast.BinOp(left=sub_load, op=gast.Add(), right=self.atom(value)))
            add = _name(self.ns.ref(runtime.add, "_add"))  # elements are containers: add leaves
            return _assign(sub, _call(add, [sub_load, self.atom(value)]))
        if basic and isinstance(out.type, T.Array):
            sub = gast.Subscript(value=target, slice=self.index(idx), ctx=gast.Store())
            return gast.AugAssign(target=sub, op=gast.Add(), value=self.atom(value))
        # repeated integer indices accumulate: the helper uses np.add.at (and has rules of its
        # own, so this code can be differentiated again)
        helper = _name(self.ns.ref(runtime.scatter_add, "_scatter_add"))
        return _assign(_name(self.name(out), gast.Store()),
                       _call(helper, [target, self.atom(idx), self.atom(value)]))

    def copies(self, pairs) -> list:
        """Parallel assignment dst <- src for pairs whose names differ. A dst that is not assigned
        on this path (src UNDEF) is left unassigned; inside a loop, where an earlier iteration may
        have assigned its name (a helper's local, inlined), it is unassigned explicitly, so that
        Python raises UnboundLocalError where the user's code does."""
        todo, unbound = [], []
        for dst, src in pairs:
            if isinstance(src, Const) and src.value is UNDEF:
                if self._depth:
                    unbound.append(self.name(dst))
                continue
            if isinstance(src, Var) and src not in self.inline and self.name(src) == self.name(dst):
                continue
            todo.append((dst, src))
        return self._parallel(todo) + [stmt for name in dict.fromkeys(unbound) for stmt in (
            _assign(_name(name, gast.Store()), gast.Constant(value=None, kind=None)),
            gast.Delete(targets=[_name(name, gast.Del())]))]

    def _parallel(self, todo) -> list:
        if not todo:
            return []
        dsts = {self.name(d) for d, _ in todo}
        srcs = set()
        for _, s in todo:
            if isinstance(s, Var):
                srcs |= self._reads(s) if s in self.inline else {self.name(s)}
        if len(todo) > 1 and dsts & srcs:
            return [_assign(gast.Tuple(elts=[_name(self.name(d), gast.Store()) for d, _ in todo],
                                       ctx=gast.Store()),
                            gast.Tuple(elts=[self.atom(s) for _, s in todo], ctx=gast.Load()))]
        return [_assign(_name(self.name(d), gast.Store()), self.atom(s)) for d, s in todo]

    def if_stmt(self, op: If) -> list:
        test = self.atom(op.cond)
        then = self.block(op.then, self.copies(zip(op.outs, op.then.yields)))
        orelse = self.block(op.orelse, self.copies(zip(op.outs, op.orelse.yields)))
        if not real(then) and real(orelse):
            test, then, orelse = gast.UnaryOp(op=gast.Not(), operand=test), orelse, []
        return [gast.If(test=test, body=then or [gast.Pass()], orelse=orelse if real(orelse) else [])]

    def loop_tail(self, op, params) -> list:
        n = len(op.outs)
        tail = self.copies(zip(params, op.body.yields[:n]))
        if op.exits:
            flag = op.body.yields[n]
            if not (isinstance(flag, Const) and not flag.value):
                tail.append(gast.If(test=self.atom(flag), body=[gast.Break()], orelse=[]))
        return tail

    def for_stmt(self, op: For) -> list:
        params = op.body.params[1:]
        pre = self.copies(zip(params, op.init))
        rng = self.range_expr(op)
        self._depth += 1
        try:
            body = self.block(op.body, self.loop_tail(op, params))
        finally:
            self._depth -= 1
        target = _name(self.name(op.body.params[0]), gast.Store())
        return pre + [gast.For(target=target, iter=rng, body=body or [gast.Pass()], orelse=[],
                               type_comment=None)]

    def range_expr(self, op: For):
        start, stop, step = op.start, op.stop, op.step
        one = isinstance(step, Const) and step.value == 1
        zero = isinstance(start, Const) and start.value == 0
        if one and zero:
            args = [self.atom(stop)]
        elif one:
            args = [self.atom(start), self.atom(stop)]
        else:
            args = [self.atom(start), self.atom(stop), self.atom(step)]
        rng = _call(_name("range"), args)
        return _call(_name("reversed"), [rng]) if op.reverse else rng

    def while_stmt(self, op: While) -> list:
        params = op.body.params
        pre = self.copies(zip(params, op.init))
        self._depth += 1
        try:
            cond_stmts = self.block(op.cond)
            test = self.atom(op.cond.yields[0])
            body = self.block(op.body, self.loop_tail(op, params))
        finally:
            self._depth -= 1
        if real(cond_stmts):
            guard = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=[gast.Break()], orelse=[])
            return pre + [gast.While(test=gast.Constant(value=True, kind=None),
                                     body=cond_stmts + [guard] + body, orelse=[])]
        return pre + [gast.While(test=test, body=body or [gast.Pass()], orelse=[])]

    # -- inlining (planned by InlinePlanner) -------------------------------------------------------

    def _movable(self, op) -> bool:
        if not isinstance(op, Apply):
            return False
        rule = registry.lookup(op.prim)
        return not (rule.impure or rule.opaque or update_base(op) is not None or rule.blank
                    or id(op) in self.naming.accumulate or reuses(op) is not None)

    # -- the function ------------------------------------------------------------------------------

    def function(self, name: str, header: list[str]) -> gast.FunctionDef:
        self._cond_ids = {id(op.cond) for op in iter_ops(self.fn.body) if isinstance(op, While)}
        args, defaults, kwonly, kw_defaults = [], [], [], []
        # every parameter is positional (srcad passes every argument by position, a tangent
        # after a keyword-only one too; a caller's keywords still work), with the defaults of
        # the trailing ones that have them
        flags = [p.default is not None for p in self.fn.signature]
        trailing = len(flags) - next((i for i in range(len(flags), 0, -1) if not flags[i - 1]), 0)
        for k, (param, var) in enumerate(zip(self.fn.signature, self.fn.body.params)):
            args.append(gast.Name(id=self.name(var), ctx=gast.Param(), annotation=None, type_comment=None))
            if param.default is not None and k >= len(flags) - trailing:
                defaults.append(self.atom(param.default))
        body = [marker("C", line) for line in header]
        body += self.block(self.fn.body)
        ret = self.atom(self.fn.body.yields[0]) if len(self.fn.body.yields) == 1 else gast.Tuple(
            elts=[self.atom(y) for y in self.fn.body.yields], ctx=gast.Load())
        first = self.fn.body.yields[0] if self.fn.body.yields else None
        self.mark(self.defs[first].loc if first in self.defs else self.fn.loc, body, self.defs.get(first))
        body.append(gast.Return(value=ret))
        arguments = gast.arguments(args=args, posonlyargs=[], vararg=None, kwonlyargs=kwonly,
                                   kw_defaults=kw_defaults, kwarg=None, defaults=defaults)
        return gast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None,
                                type_comment=None, type_params=[])


def render(fn: Function, name: str, header: list[str] = (), comments: bool = True,
           release: bool = True) -> Rendered:
    """Emit `fn` as the source of a Python function called `name` (the CPython target;
    targets.py chooses the printer per target)."""
    return _render(CodeEmitter(fn, comments, release), name, header)


def _render(em: CodeEmitter, name: str, header) -> Rendered:
    node = em.function(name, list(header))
    module = gast.Module(body=[node], type_ignores=[])
    _check_names(module)
    text = astor.to_source(gast.gast_to_ast(module), pretty_source=_pretty)
    source, line_map = apply_markers(text)
    return Rendered(source, dict(em.ns.names), line_map,
                    finite_checked=getattr(em, "finite_checked", False))


def _pretty(source) -> str:
    """astor's line splitting, at 99 characters, without trailing spaces."""
    text = "".join(split_lines(source, maxline=99))
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _check_names(module: gast.Module) -> None:
    """Every name in generated text must be an identifier (never text from an object's
    `__name__` that could be code): a last guard behind the frontend's sanitising."""
    for node in gast.walk(module):
        name = (node.id if isinstance(node, gast.Name) else node.attr if isinstance(node, gast.Attribute)
                else node.name if isinstance(node, gast.FunctionDef)
                else node.arg if isinstance(node, gast.keyword) and node.arg is not None else None)
        if name is not None and not is_identifier(name):
            raise CodegenError(f"generated code would contain the name {name!r}, which is not an identifier")
