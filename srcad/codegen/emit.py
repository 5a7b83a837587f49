"""IR -> gast -> Python source (astor), with comments and a source map.

Single-use temporaries are folded back into expressions (`x_bar = g * np.cos(x)` rather than
three statements); user variables stay statements. Groups of adjoint statements get a comment
naming the user's line they come from. Every statement records its user line in the source
map (used by tracebacks and `srcad show`).
"""

from __future__ import annotations

import binascii
import bisect
import builtins
import json
import re
from collections import Counter
from dataclasses import dataclass, field

import astor
import gast
from astor.source_repr import split_lines

from .. import runtime
from ..analysis.aliases import update_base
from ..analysis.liveness import liveness
from ..errors import CodegenError
from ..frontend.source import source_line
from ..identifiers import is_identifier
from ..ir import types as T
from ..ir.nodes import UNDEF, Apply, Atom, Block, Const, Ext, For, Function, If, Loc, Var, While
from ..rules import registry
from .expressions import ExprEmitter
from .names import Naming, assign_names
from .syntax import _MODULE_ALIASES, BINOPS, INPLACE, Namespace, _assign, _attr, _call, _name

_MARK = "__srcad__:"


def _marker(kind: str, payload) -> gast.stmt:
    text = binascii.hexlify(json.dumps([kind, payload]).encode()).decode()
    return gast.Expr(value=gast.Constant(value=_MARK + text, kind=None))


#: At most this many operations are folded into one expression: astor, gast and CPython's
#: compiler recurse over expressions, and generated code is parsed again for second order.
MAX_FOLD_DEPTH = 40


@dataclass
class Rendered:
    """Generated source, the namespace it runs in, and its map back to user lines."""

    source: str
    namespace: dict
    line_map: dict = field(default_factory=dict)  # generated line -> (file, line, other lines)


class CodeEmitter(ExprEmitter):
    def __init__(self, fn: Function, comments: bool = True):
        self.fn = fn
        self.ns = Namespace()
        self.comments = comments
        self.live = liveness(fn)
        reserved = set(dir(builtins)) | {"np", "math"} | _ext_names(fn) | _helper_names(fn)
        self.naming: Naming = assign_names(fn, self.live, reserved)
        self.uses = _use_counts(fn)
        self.defs: dict[Var, Apply] = {}
        self.inline: set[Var] = set()
        self.nesting: dict[Var, int] = {}  # how many folded operations an inlined value nests
        self._last_comment = None
        self.depth = 0  # indentation level of the block being emitted
        self.override: dict = {}  # values evaluated early into a temporary name
        self._temps = 0

    # -- statements ------------------------------------------------------------------------------

    def comment(self, loc: Loc | None, out: list) -> None:
        if not self.comments or loc is None or not loc.adjoint:
            return
        key = (loc.file, loc.line)
        if key == self._last_comment:
            return
        self._last_comment = key
        text = source_line(loc.file, loc.line)
        comment = f"adjoint of line {loc.line}: {text}" if text else f"adjoint of line {loc.line}"
        room = 96 - 4 * self.depth - 2
        if len(comment) > room:
            comment = comment[: max(room - 3, 20)].rstrip() + "..."
        out.append(_marker("C", comment))

    def mark(self, loc: Loc | None, out: list, op=None) -> None:
        if loc is not None:
            out.append(_marker("L", [loc.file, loc.line, self._inlined_lines(op, loc)]))

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
        for op in b.ops:
            if isinstance(op, Apply) and op.outs and op.outs[0] in self.inline:
                continue
            self.comment(op.loc, out)
            self.mark(op.loc, out, op)
            out.extend(self.stmt(op))
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
            copy = _call(_attr(self.atom(base), "copy"), []) if isinstance(base.type, (
                T.Array, T.List, T.Dict)) else _call(_name(self.ns.ref(runtime.copy_value, "_copy")),
                                                     [self.atom(base)])  # (a number, or maybe one)
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
        t_idx = idx.type if isinstance(idx, Var) else T.of_value(idx.value) if not isinstance(
            idx.value, Ext) else T.UNKNOWN
        basic = (isinstance(t_idx, (T.Int, T.Bool))
                 or (isinstance(t_idx, T.Opaque) and t_idx.what == "slice")
                 or (isinstance(t_idx, T.Tuple)
                     and all(isinstance(e, (T.Int, T.Opaque, T.NoneT)) for e in t_idx.elts)))
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
        """Parallel assignment dst <- src for pairs whose names differ."""
        todo = []
        for dst, src in pairs:
            if isinstance(src, Const) and src.value is UNDEF:
                continue
            if isinstance(src, Var) and src not in self.inline and self.name(src) == self.name(dst):
                continue
            todo.append((dst, src))
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
        if not _real(then) and _real(orelse):
            test, then, orelse = gast.UnaryOp(op=gast.Not(), operand=test), orelse, []
        return [gast.If(test=test, body=then or [gast.Pass()], orelse=orelse if _real(orelse) else [])]

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
        body = self.block(op.body, self.loop_tail(op, params))
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
        cond_stmts = self.block(op.cond)
        test = self.atom(op.cond.yields[0])
        body = self.block(op.body, self.loop_tail(op, params))
        if _real(cond_stmts):
            guard = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=[gast.Break()], orelse=[])
            return pre + [gast.While(test=gast.Constant(value=True, kind=None),
                                     body=cond_stmts + [guard] + body, orelse=[])]
        return pre + [gast.While(test=test, body=body or [gast.Pass()], orelse=[])]

    # -- inlining ----------------------------------------------------------------------------------

    def _plan_inline(self, b: Block) -> None:
        """Fold single-use temporaries of this block into the expression that uses them."""
        position = {}
        for i, op in enumerate(b.ops):
            if isinstance(op, Apply):
                for o in op.outs:
                    self.defs[o] = op
                    position[o] = i
        uses_at: dict[Var, int] = {}
        for i, op in enumerate(b.ops):
            for a in op.operands():
                if isinstance(a, Var):
                    uses_at.setdefault(a, i)
        n = len(b.ops)
        for a in b.yields:
            if isinstance(a, Var):
                uses_at.setdefault(a, n)
        barrier = [i for i, op in enumerate(b.ops) if not self._movable(op)]
        written_at: dict[str, list] = {}  # name -> positions of the operations assigning it
        for k, op in enumerate(b.ops):
            for o in op.outs:
                written_at.setdefault(self.name(o), []).append(k)
        bases = {op.args[update_base(op)] for op in b.ops
                 if isinstance(op, Apply) and update_base(op) is not None}
        bases |= {op.args[self.naming.accumulate[id(op)]] for op in b.ops if id(op) in self.naming.accumulate}
        for v, i in position.items():
            op = b.ops[i]
            j = uses_at.get(v)
            if op.prim == "srcad.slice" and all(isinstance(a, Const) for a in op.args):
                self.inline.add(v)  # constant slices are written where they are used
                continue
            if j is None or j <= i or self.uses[v] != 1 or len(op.outs) != 1 or not self._movable(op):
                continue
            if v in bases:
                continue  # an update writes into it: it must be a variable
            if v.hint and op.prim not in ("srcad.slice", "srcad.tuple"):
                continue
            if j == n and id(b) not in self._cond_ids and b is not self.fn.body:
                continue
            if _any_between(barrier, i, j):
                continue
            depth = 1 + max((self.nesting.get(a, 1) for a in op.operands() if isinstance(a, Var)
                             and a in self.inline), default=0)
            if depth > MAX_FOLD_DEPTH:
                continue  # a long chain (x*0.0 + x*1.0 + ... ) is cut into statements
            if any(_any_between(written_at.get(name, ()), i, j) for name in self._reads(v)):
                continue  # a name the expression reads is reassigned before the use
            self.inline.add(v)
            self.nesting[v] = depth

    def _reads(self, v: Var) -> set:
        names = set()
        for a in self.defs[v].operands():
            if isinstance(a, Var):
                names |= self._reads(a) if a in self.inline else {self.name(a)}
        return names

    def _movable(self, op) -> bool:
        if not isinstance(op, Apply):
            return False
        rule = registry.lookup(op.prim)
        return not (rule.impure or rule.opaque or update_base(op) is not None or rule.blank
                    or id(op) in self.naming.accumulate)

    # -- the function ------------------------------------------------------------------------------

    def function(self, name: str, header: list[str]) -> gast.FunctionDef:
        self._cond_ids = {id(op.cond) for op in _all_ops(self.fn.body) if isinstance(op, While)}
        args, defaults, kwonly, kw_defaults = [], [], [], []
        # keyword-only parameters become ordinary ones (srcad passes every argument by
        # position; a caller's keywords still work) unless defaults forbid that order
        flags = [p.default is not None for p in self.fn.signature]
        flat = all(flags[i] <= flags[i + 1] for i in range(len(flags) - 1))
        for param, var in zip(self.fn.signature, self.fn.body.params):
            node = gast.Name(id=self.name(var), ctx=gast.Param(), annotation=None, type_comment=None)
            default = None if param.default is None else self.atom(param.default)
            if param.kind == "kwonly" and not flat:
                kwonly.append(node)
                kw_defaults.append(default)
            else:
                args.append(node)
                if default is not None:
                    defaults.append(default)
        body = [_marker("C", line) for line in header]
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


def _any_between(positions, i: int, j: int) -> bool:
    """Is some position of the sorted list strictly between i and j?"""
    k = bisect.bisect_right(positions, i)
    return k < len(positions) and positions[k] < j


def _real(stmts) -> bool:
    return any(not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)
                    and isinstance(s.value.value, str) and s.value.value.startswith(_MARK)) for s in stmts)


def _all_ops(block: Block):
    for op in block.ops:
        yield op
        if not isinstance(op, Apply):
            for b in op.blocks():
                yield from _all_ops(b)


def _use_counts(fn: Function) -> Counter:
    counts: Counter = Counter()
    for op in _all_ops(fn.body):
        counts.update(a for a in op.operands() if isinstance(a, Var))
        if not isinstance(op, Apply):
            for b in op.blocks():
                counts.update(a for a in b.yields if isinstance(a, Var))
    counts.update(a for a in fn.body.yields if isinstance(a, Var))
    return counts


def _ext_names(fn: Function) -> set:
    out = set()
    for op in _all_ops(fn.body):
        for a in op.operands():
            if isinstance(a, Const) and isinstance(a.value, Ext):
                out.add(a.value.name)
    return out


def _helper_names(fn: Function) -> set:
    out = set()
    for op in _all_ops(fn.body):
        if isinstance(op, Apply):
            root = op.prim.split(".")[0]
            if root not in ("operator", "builtins", "srcad"):
                out.add(_MODULE_ALIASES.get(root, root))
            elif root == "srcad":
                out.add("_" + op.prim.split(".", 1)[1])
    return out


def render(fn: Function, name: str, header: list[str] = (), comments: bool = True) -> Rendered:
    """Emit `fn` as the source of a Python function called `name`."""
    em = CodeEmitter(fn, comments)
    node = em.function(name, list(header))
    module = gast.Module(body=[node], type_ignores=[])
    _check_names(module)
    text = astor.to_source(gast.gast_to_ast(module), pretty_source=_pretty)
    source, line_map = _apply_markers(text)
    return Rendered(source, dict(em.ns.names), line_map)


def _pretty(source) -> str:
    """astor's line splitting, at 99 characters, without trailing spaces."""
    text = "".join(split_lines(source, maxline=99))
    return "\n".join(line.rstrip() for line in text.split("\n"))


_MARK_RE = re.compile(r"^(\s*)(\"\"\"|\'\'\'|\"|\')" + re.escape(_MARK) + r"([0-9a-f]*)\2\s*$")


def _one_line(text: str) -> str:
    """Comment text that stays one comment: characters that could end the line (or that
    the compiler refuses, like NUL) are written as escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text)


def _check_names(module: gast.Module) -> None:
    """Every name in generated text must be an identifier (never text from an object's
    `__name__` that could be code): a last guard behind the frontend's sanitising."""
    for node in gast.walk(module):
        name = (node.id if isinstance(node, gast.Name) else node.attr if isinstance(node, gast.Attribute)
                else node.name if isinstance(node, gast.FunctionDef)
                else node.arg if isinstance(node, gast.keyword) and node.arg is not None else None)
        if name is not None and not is_identifier(name):
            raise CodegenError(f"generated code would contain the name {name!r}, which is not an identifier")


def _apply_markers(text: str) -> tuple[str, dict]:
    lines, line_map, pending = [], {}, None
    for raw in text.splitlines():
        m = _MARK_RE.match(raw)
        if m:
            kind, payload = json.loads(binascii.unhexlify(m.group(3)).decode())
            if kind == "C":
                lines.append(f"{m.group(1)}# {_one_line(payload)}" if payload else "")
            else:
                pending = tuple(payload)
            continue
        lines.append(raw)
        if pending is not None:
            line_map[len(lines)] = pending
    return "\n".join(lines) + "\n", line_map

