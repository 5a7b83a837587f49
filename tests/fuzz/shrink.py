"""Reduce a failing program to a small one that fails the same way (same signature).

Greedy, on the module's syntax tree: each round tries candidates from the biggest
simplification to the smallest and restarts from the first one that still fails the same
way: delete a function or a statement; replace an if/for/while by its body; replace an
expression by one of its operands or by a constant; drop a keyword argument; shrink int
constants (loop counts, indices); shrink the arguments in make_args (fewer array entries,
smaller ints, rounder floats). Validity is the predicate's business: a candidate that no
longer runs fails differently and is dropped."""

from __future__ import annotations

import ast
import copy
import time

STMT_FIELDS = ("body", "orelse")


def _functions(tree):
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _code_nodes(tree, include_args=False):
    """Nodes of the functions under test (not make_args, unless asked), in a fixed order."""
    for fn in _functions(tree):
        if (fn.name == "make_args") != include_args:
            continue
        yield from ast.walk(fn)


def _stmt_slots(tree):
    for node in _code_nodes(tree):
        for field in STMT_FIELDS:
            body = getattr(node, field, None)
            if isinstance(body, list):
                for i in range(len(body)):
                    yield node, field, i


def _protected(tree) -> set:
    """ids of nodes in while loops' conditions and counters: changing them can make a loop
    endless, which costs a time-out per candidate."""
    out = set()
    for w in ast.walk(tree):
        if isinstance(w, ast.While):
            out |= {id(n) for n in ast.walk(w.test)}
            if w.body and isinstance(w.body[0], ast.AugAssign):
                out |= {id(n) for n in ast.walk(w.body[0])}
    return out


def _expr_slots(tree, include_args=False):
    protected = _protected(tree)
    for node in _code_nodes(tree, include_args):
        if id(node) in protected:
            continue
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr) and not isinstance(getattr(value, "ctx", None),
                                                              (ast.Store, ast.Del)):
                yield node, field, None, value
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    if isinstance(v, ast.expr) and not isinstance(getattr(v, "ctx", None),
                                                                  (ast.Store, ast.Del)):
                        yield node, field, i, v


def _edit(tree, slots, k, apply):
    """A copy of tree with `apply(slot)` done at the k-th slot of slots(copy)."""
    t = copy.deepcopy(tree)
    slot = list(slots(t))[k]
    if apply(*slot) is False:
        return None
    return ast.unparse(ast.fix_missing_locations(t))


def _set(node, field, index, new):
    if index is None:
        setattr(node, field, new)
    else:
        getattr(node, field)[index] = new


def _replacements(e: ast.expr) -> list[ast.expr]:
    out = [c for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr)
           and not isinstance(getattr(c, "ctx", None), ast.Store)]
    if isinstance(e, ast.Call):
        out = list(e.args) + [k.value for k in e.keywords]
    if isinstance(e, ast.Constant) and isinstance(e.value, float) and e.value not in (0.5, 1.0):
        out.append(ast.Constant(0.5))
    elif isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool):
        out += [ast.Constant(v) for v in sorted({0, 1, e.value - 1}) if 0 <= v < e.value]
    elif not isinstance(e, (ast.Constant, ast.Name)):
        out.append(ast.Constant(0.5))
    return out


def candidates(source: str):
    """Simpler variants of `source`, biggest simplifications first."""
    tree = ast.parse(source)
    names = [fn.name for fn in _functions(tree)]
    for name in names:
        if name not in ("f", "make_args"):
            t = copy.deepcopy(tree)
            t.body = [n for n in t.body if not (isinstance(n, ast.FunctionDef) and n.name == name)]
            yield ast.unparse(t)
    slots = list(_stmt_slots(tree))
    for k in reversed(range(len(slots))):
        yield _edit(tree, _stmt_slots, k, _delete_stmt)
    for k in range(len(slots)):
        for which in ("body", "orelse"):
            yield _edit(tree, _stmt_slots, k, lambda n, f, i, w=which: _inline(n, f, i, w))
    exprs = list(_expr_slots(tree))
    for k, (_, _, _, e) in enumerate(exprs):
        for r in range(len(_replacements(e))):
            yield _edit(tree, _expr_slots, k, lambda n, f, i, v, r=r: _set(n, f, i, _replacements(v)[r]))
        if isinstance(e, ast.Call):
            for j in range(len(e.keywords)):
                yield _edit(tree, _expr_slots, k, lambda n, f, i, v, j=j: v.keywords.pop(j) and None)
    yield from _arg_candidates(tree)


def _delete_stmt(node, field, i):
    body = getattr(node, field)
    if isinstance(body[i], ast.Pass) or (isinstance(node, ast.While) and i == 0
                                         and isinstance(body[i], ast.AugAssign)):
        return False  # (a while loop's counter: without it the loop would not end)
    del body[i]
    if not body and field == "body":
        body.append(ast.Pass())


def _inline(node, field, i, which):
    body = getattr(node, field)
    s = body[i]
    if not isinstance(s, (ast.If, ast.For, ast.While)):
        return False
    inner = getattr(s, which)
    if not inner:
        return False
    body[i:i + 1] = inner


def _arg_candidates(tree):
    exprs = list(_expr_slots(tree, include_args=True))
    for k, (_, _, _, e) in enumerate(exprs):
        if isinstance(e, ast.List) and len(e.elts) > 1:
            for j in reversed(range(len(e.elts))):
                yield _edit(tree, lambda t: _expr_slots(t, True), k,
                            lambda n, f, i, v, j=j: v.elts.pop(j) and None)
        if isinstance(e, ast.Constant) and type(e.value) in (int, float):
            for new in (0, 1) if isinstance(e.value, int) else (0.5, round(e.value, 1)):
                if new != e.value and abs(new) <= abs(e.value) + 0.5:
                    yield _edit(tree, lambda t: _expr_slots(t, True), k,
                                lambda n, f, i, v, new=new: _set(n, f, i, ast.Constant(new)))


def shrink(source: str, still_fails, budget: float = 120.0, log=None) -> tuple[str, int]:
    """The smallest variant found within `budget` seconds for which still_fails(text) is
    true; and the number of candidates tried."""
    deadline, tried = time.time() + budget, 0
    current, seen = source, {source}
    progress = True
    while progress and time.time() < deadline:
        progress = False
        for cand in candidates(current):
            if time.time() > deadline:
                break
            if cand is None or cand in seen or len(cand) > len(current) + 8:
                continue
            seen.add(cand)
            tried += 1
            if still_fails(cand):
                current, progress = cand, True
                if log:
                    log(f"shrink: {len(current)} characters after {tried} candidates")
                break
    return current, tried
