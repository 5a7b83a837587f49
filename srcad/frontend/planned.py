"""srcad's own generated code read again, to be differentiated again (second order): the
memory planning of codegen undone first (passes/buffers.py). `del t` only ends a name's
life early, and `np.exp(t, out=t)` writes into an array nothing else sees, so as
assignments they mean the same:

    np.exp(t, out=t)            ->  t = np.exp(t)
    y = np.add(t, s, out=t)     ->  t = np.add(t, s); y = t
    del t                       ->  (nothing)
    w = None; del w             ->  w = <unassigned>

(the last: a variable srcad's code unassigns, where the user's code has not assigned it on
this path, inside a loop whose earlier iterations may have; read as the undefined value).

(`t *= s` needs nothing: augmented assignment is read as it is in the user's code.) Only
code srcad generated is read this way; `out=` in a user's code is refused where it is
written.
"""

from __future__ import annotations

import os

import gast

from ..settings import config


def generated_file(file: str) -> bool:
    """Is this the file of srcad's generated code, compiled now or in the persistent cache?"""
    cached = config.cache_dir and os.path.abspath(file).startswith(os.path.abspath(config.cache_dir) + os.sep)
    return file.startswith("<srcad ") or bool(cached)


def generated_at(loc, in_generated: bool) -> bool:
    """Is the operation at `loc` srcad's own generated code (trusted by the safety checks), not
    the user's code inlined into it or around it? With no location: whether the function it
    is in is generated code (`in_generated`)."""
    return in_generated if loc is None else generated_file(loc.file)


def _out(call) -> gast.expr | None:
    if isinstance(call, gast.Call):
        for k in call.keywords:
            if k.arg == "out" and isinstance(k.value, gast.Name):
                return k.value
    return None


def _without_out(call: gast.Call) -> gast.Call:
    return gast.Call(func=call.func, args=call.args, keywords=[k for k in call.keywords if k.arg != "out"])


def _store(name: gast.Name) -> gast.Name:
    return gast.Name(id=name.id, ctx=gast.Store(), annotation=None, type_comment=None)


def _load(name: gast.Name) -> gast.Name:
    return gast.Name(id=name.id, ctx=gast.Load(), annotation=None, type_comment=None)


#: the name _Undo writes for "unassigned" (not an identifier: never in a user's code)
UNASSIGNED = "<unassigned>"


def _unassigns(first, second) -> bool:
    """Are the two statements `w = None` and `del w`?"""
    return (isinstance(first, gast.Assign) and len(first.targets) == 1
            and isinstance(first.targets[0], gast.Name)
            and isinstance(first.value, gast.Constant) and first.value.value is None
            and isinstance(second, gast.Delete) and len(second.targets) == 1
            and isinstance(second.targets[0], gast.Name) and second.targets[0].id == first.targets[0].id)


class _Undo(gast.NodeTransformer):
    def visit_Delete(self, node):
        return None

    def generic_visit(self, node):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, _unassigned(stmts))
        return super().generic_visit(node)

    def visit_Expr(self, node):
        out = _out(node.value)
        if out is None:
            return node
        new = gast.Assign(targets=[_store(out)], value=_without_out(node.value), type_comment=None)
        return gast.copy_location(new, node)

    def visit_Assign(self, node):
        out = _out(node.value)
        if out is None:
            return node
        first = gast.Assign(targets=[_store(out)], value=_without_out(node.value), type_comment=None)
        second = gast.Assign(targets=node.targets, value=_load(out), type_comment=None)
        return [gast.copy_location(first, node), gast.copy_location(second, node)]


def _unassigned(stmts: list) -> list:
    out, i = [], 0
    while i < len(stmts):
        if i + 1 < len(stmts) and _unassigns(stmts[i], stmts[i + 1]):
            name = stmts[i].targets[0]
            marker = gast.Name(id=UNASSIGNED, ctx=gast.Load(), annotation=None, type_comment=None)
            unassign = gast.Assign(targets=[name], value=marker, type_comment=None)
            out.append(gast.copy_location(unassign, stmts[i]))
            i += 2
        else:
            out.append(stmts[i])
            i += 1
    return out


def undo_memory_planning(node):
    """The function definition with its `del` statements and `out=` calls rewritten."""
    node = _Undo().visit(node)
    for n in gast.walk(node):  # (a block left empty by a removed del)
        if isinstance(getattr(n, "body", None), list) and not n.body:
            n.body = [gast.Pass()]
    return node
