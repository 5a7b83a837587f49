"""Reads of local variables that may still be unassigned: definite assignment on the AST.

Python raises UnboundLocalError where a function reads a local variable that no path has
assigned yet. srcad's derivatives must raise there too, even when the value read is never
used (`a = y` with `a` unused is no operation in SSA form, and dead-code elimination would
drop `y + 1`). This analysis finds the `Name` nodes read where some path reaching them has not
assigned the name; the lowering puts a check there (`srcad.bound`, or `srcad.unbound` where no
path has assigned it), which every later pass keeps:

    def f(x, c):
        if c > 0:
            y = x * x
        a = y              # flagged: y is unassigned when c <= 0
        for i in range(3):
            if i > 0:
                x = x + h  # flagged: h is unassigned in the first iteration
            h = x
        return x + h       # flagged: the loop may run zero times (as far as Python knows)

A block that leaves (`return`, `raise`, `break`, `continue`) assigns everything for the
code after it in that block (nothing runs there), so reads guarded by an early return are
not flagged. A loop body starts with what was assigned before the loop (there are no `del`
statements in the subset, so later iterations only have more), and so does the code after
the loop.
"""

from __future__ import annotations

import gast

from .resolve import import_names, parameter_names

_Assigned = frozenset  # names assigned on every path; None: no path reaches this point


def maybe_unbound_reads(fn: gast.FunctionDef, local: set) -> set:
    """The `Name` nodes of `fn`'s body reading a variable of `local` that may be unassigned."""
    return _walk(fn, local).flagged


def falls_through(fn: gast.FunctionDef) -> bool:
    """Can the body of fn end without a `return` (or raise): returning None there?"""
    return _Walker(set()).block(fn.body, _Assigned()) is not None


def assigned_at_definitions(fn: gast.FunctionDef, local: set) -> dict:
    """For each nested `def` and `lambda` of `fn`'s own body: the names of `local` assigned on
    every path that reaches it (a nested function reading another enclosing variable when
    it is called may find it unassigned, and must raise as Python does)."""
    return _walk(fn, local).at_def


def _walk(fn: gast.FunctionDef, local: set) -> _Walker:
    walker = _Walker(local)
    walker.block(fn.body, _Assigned(parameter_names(fn.args)))
    return walker


def _meet(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _stored(target) -> set:
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


class _Walker:
    def __init__(self, local: set):
        self.local = local
        self.flagged: set = set()
        self.at_def: dict = {}  # nested def or lambda -> names assigned on every path to it

    def block(self, stmts, d):
        for s in stmts:
            if d is None:
                return None  # the rest of the block never runs
            d = self.stmt(s, d)
        return d

    def stmt(self, s, d):
        if isinstance(s, gast.Assign):
            self.expr(s.value, d)
            for t in s.targets:
                d = self.target(t, d)
            return d
        if isinstance(s, gast.AugAssign):
            self.expr(s.value, d)
            if isinstance(s.target, gast.Name):  # (read, then written)
                self.read(s.target, d)
            return self.target(s.target, d)
        if isinstance(s, gast.AnnAssign):
            if s.value is None:
                return d
            self.expr(s.value, d)
            return self.target(s.target, d)
        if isinstance(s, gast.If):
            self.expr(s.test, d)
            return _meet(self.block(s.body, d), self.block(s.orelse, d))
        if isinstance(s, gast.For):  # (what the body or an `else:` assigns may not be: a break, no iteration)
            self.expr(s.iter, d)
            self.block(s.body, self.target(s.target, d))
            self.block(s.orelse, d)
            return d
        if isinstance(s, gast.While):
            self.expr(s.test, d)
            self.block(s.body, d)
            self.block(s.orelse, d)
            return d
        if isinstance(s, (gast.Return, gast.Raise)):
            for child in gast.iter_child_nodes(s):
                self.expr(child, d)
            return None
        if isinstance(s, (gast.Break, gast.Continue)):
            return None
        if isinstance(s, gast.FunctionDef):  # decorators and defaults now; the body when called
            for e in s.decorator_list + s.args.defaults + [k for k in s.args.kw_defaults if k]:
                self.expr(e, d)
            self.at_def[s] = d
            return d | {s.name}
        if isinstance(s, (gast.Import, gast.ImportFrom)):
            return d | set(import_names(s))
        if isinstance(s, gast.Assert):
            self.expr(s.test, d)  # (the message is evaluated only when the test fails)
            return d
        for child in gast.iter_child_nodes(s):  # Expr, Pass
            self.expr(child, d)
        return d

    def target(self, t, d):
        """Assign to target t: evaluate what it reads (`y[i] = ...` reads y and i)."""
        for n in gast.walk(t):
            if isinstance(n, (gast.Subscript, gast.Attribute)):
                self.expr(n.value, d)
                if isinstance(n, gast.Subscript):
                    self.expr(n.slice, d)
        return d | _stored(t)

    def read(self, node, d, bound=frozenset()) -> None:
        name = node.id
        if name in self.local and name not in d and name not in bound:
            self.flagged.add(node)

    def expr(self, node, d, bound=frozenset()) -> None:
        """Flag the reads in an expression; `bound`: names a comprehension binds."""
        if node is None:
            return
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                self.read(node, d, bound)
            return
        if isinstance(node, gast.Lambda):
            for e in node.args.defaults + [k for k in node.args.kw_defaults if k]:
                self.expr(e, d, bound)
            self.at_def[node] = d | bound
            return
        if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            inner = set(bound)
            for gen in node.generators:
                self.expr(gen.iter, d, frozenset(inner))
                inner |= _stored(gen.target)
                for cond in gen.ifs:
                    self.expr(cond, d, frozenset(inner))
            for part in (node.key, node.value) if isinstance(node, gast.DictComp) else (node.elt,):
                self.expr(part, d, frozenset(inner))
            return
        for child in gast.iter_child_nodes(node):
            self.expr(child, d, bound)
