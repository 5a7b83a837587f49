"""Refuse mutation srcad cannot prove safe, before it can become a wrong derivative.

The IR treats `y[i] = v`, `xs.append(v)` and `x += y` (on arrays) as producing a new version
of the container. That matches Python only if nothing can observe the old version afterwards:

- the container must belong to the function (not an argument, a global, or a view of one);
- no other reference to it (an older version, a view taken before, another name bound to the
  same object) may be used after the write.

Anything else raises `UnsafeMutationError` naming the line, with what to do instead.
"""

from __future__ import annotations

from ..analysis.aliases import Aliases, update_base
from ..analysis.fresh import before_late_stores, late_stores, loop_bodies, positions
from ..analysis.liveness import liveness
from ..analysis.swaps import traded_places
from ..errors import UnsafeMutationError, diagnostic
from ..frontend.planned import generated_at
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, Function, If, Var, While, atom_type, ext_object, iter_ops
from ..passes.dce import matters, needed_by, needed_values
from ..rules import registry
from ..rules.library import module_never_writes, never_writes_arguments


def _user_write(op: Apply) -> bool:
    rule = registry.lookup(op.prim)
    return rule is not None and rule.user_write


def _describe(v: Var) -> str:
    return repr(v.hint) if v.hint else "this value"


def _used(fn: Function) -> set:
    out = set()
    for op in iter_ops(fn.body):
        out.update(a for a in op.operands() if isinstance(a, Var))
        for b in (op.blocks() if not isinstance(op, Apply) else ()):
            out.update(a for a in b.yields if isinstance(a, Var))
    out.update(a for a in fn.body.yields if isinstance(a, Var))
    return out


def _callee_name(a) -> str:
    if isinstance(a, Const) and isinstance(a.value, str):
        return f".{a.value}"  # (a method: srcad.method's name)
    ext = a.value if isinstance(a, Const) else None
    name = getattr(ext, "name", "this function")
    owner = getattr(getattr(ext, "obj", None), "__self__", None)  # np.add.at: the ufunc add
    return (f"{owner.__name__}.{name}" if hasattr(owner, "__name__") and not hasattr(owner, "__file__")
            else name)


def _reachable_ops(block: Block):
    """The operations of `block` and its regions, except the branches of `if`s whose condition
    the types decide (`if callback:` with callback None; a constant): they never run."""
    for op in block.ops:
        yield op
        if isinstance(op, If) and (isinstance(op.cond, Const) or isinstance(atom_type(op.cond), T.NoneT)):
            taken = op.cond.value if isinstance(op.cond, Const) else None
            yield from _reachable_ops(op.then if taken else op.orelse)
        elif isinstance(op, (If, For, While)):
            for b in op.blocks():
                yield from _reachable_ops(b)


def _hidden_writes(fn: Function) -> list:
    """Calls srcad has no rule for whose result is not used, given arrays or lists: they can
    only matter through what they change in their arguments (np.copyto, np.add.at...),
    which the transformed code would not see."""
    used, problems = _used(fn), []
    for op in _reachable_ops(fn.body):
        if isinstance(op, Apply) and not any(o in used for o in op.outs):
            problem = _may_write(op, "the result of {what}() is not used")
            if problem is not None:
                problems.append((op, problem))
    return problems


def _may_write(op: Apply, why: str, read: set | None = None):
    """The diagnostic for `op`, a call srcad has no rule for, if it may change an array, list
    or object it is given (one in `read`, if given); `why` says why only that can matter
    ({what}: the callee)."""
    if op.prim not in ("srcad.call", "srcad.method"):
        return None
    callee = ext_object(op.args[0])
    if op.prim == "srcad.call" and never_writes_arguments(callee):
        return None  # (logging.debug(x), plt.plot(x): run as written)
    recv = atom_type(op.args[1]) if op.prim == "srcad.method" and len(op.args) > 1 else None
    if isinstance(recv, T.Opaque) and module_never_writes(recv.owner):
        return None  # (log.info(...) of a logging.Logger, ax.plot(x) of a matplotlib Axes)
    targets = [a for a in op.args[1:] if isinstance(a, Var) and not a.type.is_scalar
               and (read is None or a in read)]
    if not targets:
        return None
    return diagnostic(
        op.loc, f"{why.format(what=_callee_name(op.args[0]))}, so it can only matter by "
        f"changing {_describe(targets[0])} in place, which srcad cannot follow",
        "compute the new value and assign it (out = x.copy(); out[idx] += v), or call it "
        "outside the differentiated function")


def check_unseen_changes(body: Block, outputs, varied: set, useful: set) -> None:
    """Refuse a call srcad has no rule for, given a differentiated value, whose result does
    not reach the output but is read (by dead code, `print`, `assert`: check_mutations
    refuses it when nothing reads it), and that is given an object or array the outputs
    read: it can only matter for the derivative by what it changes in that object
    (`v = o.update(x); print(v); return o.predict(y)`), which the derivative would not
    follow. Activity analysis runs it, since only it knows which values are differentiated."""
    read = needed_by(body, outputs)
    for op in _reachable_ops(body):
        if not isinstance(op, Apply) or any(o in useful for o in op.outs):
            continue
        if any(isinstance(a, Var) and a in varied for a in op.operands()):
            problem = _may_write(op, "{what}() is given a differentiated value and its result does "
                                 "not reach the output", read)
            if problem is not None:
                raise UnsafeMutationError("a call srcad cannot see into may change a value in place",
                                          [problem])


def _stored_back(fn: Function, live) -> dict:
    """{a version of an item changed in place: the container it came from} where the item's
    last version is stored back into the same slot of the same container: `xs[k] += v`
    (transforms/sequences.py item_update), or an inlined function changing the item it was
    given (`apply_bc(u[1:-1])`: sequences.py written_back_item). The container sees the change,
    as in Python (its setitem is the user's write, checked in turn: no older version of it is
    used after), if nothing reads the container between the item's first change and the store
    and no version of the item is read after it."""
    items: dict = {}  # (container, index) -> the getitems of it
    users: dict = {}  # value -> (the operation using it, or None for a block's yield; its position)
    pos, out = positions(fn.body), {}
    for op in iter_ops(fn.body):
        for a in op.operands():
            users.setdefault(a, []).append((op, pos[id(op)]))
        if isinstance(op, Apply) and op.prim == "operator.getitem" and len(op.args) == 2:
            items.setdefault(_key(op.args), []).append(op)
        for b in (op.blocks() if not isinstance(op, Apply) else ()):
            for a in b.yields:  # (at the end of the block)
                users.setdefault(a, []).append((None, pos[id(op)] + ((id(b), len(b.ops)),)))
    defs = {op.outs[0]: op for op in iter_ops(fn.body) if isinstance(op, Apply) and len(op.outs) == 1}
    displays = {v: op for v, op in defs.items() if op.prim in ("srcad.list", "srcad.tuple", "srcad.dict")}
    branches = {id(b): id(o) for o in iter_ops(fn.body) if isinstance(o, If) for b in (o.then, o.orelse)}
    for op in iter_ops(fn.body):
        if not (isinstance(op, Apply) and op.prim == "operator.setitem" and len(op.args) >= 3):
            continue
        if _overlapping_items(displays.get(op.args[0]), defs):
            continue  # ([a[:3], a[1:]]: a change through one item shows in another)
        for item in items.get(_key(op.args[:2]), ()):
            _store_back(fn, op, item, users, live, (pos, branches), out)
    return out


def _overlapping_items(display, defs: dict) -> bool:
    """Does a list, tuple or dict display hold two views of one array (`[a[:3], a[1:]]`: not
    the same object, which srcad.check_unshared finds when the code runs, but sharing memory)?"""
    if display is None:
        return False
    values = display.args[1::2] if display.prim == "srcad.dict" else display.args
    roots = [_view_root(v, defs) for v in dict.fromkeys(v for v in values if isinstance(v, Var))]
    return len(roots) != len(set(roots))  # (one object twice: the check when the code runs says so)


def _view_root(v, defs: dict):
    """The array v is a view of (through indexing and views such as reshape), or v itself."""
    seen = set()
    while v in defs and v not in seen:
        seen.add(v)
        op, rule = defs[v], registry.lookup(defs[v].prim)
        base = op.args[0] if op.args else None
        if not isinstance(base, Var) or not isinstance(atom_type(base), T.Array) or \
                not (op.prim == "operator.getitem" or rule is not None and not rule.fresh):
            break
        v = base
    return v


def _key(args) -> tuple:
    return tuple(a if isinstance(a, Var) else repr(a) for a in args)


def _store_back(fn: Function, op: Apply, item: Apply, users: dict, live, places: tuple, out: dict) -> None:
    """_stored_back for the store `op` of a version of the getitem `item` (`places`: the
    positions of the operations, and the if of each branch)."""
    versions, writes = _versions(fn, item.outs[0])
    pos, branches = places

    def unseen(use) -> bool:  # (a use of the container that cannot see the item's changes)
        u, at = use
        if u is op or u is item or _identity_check(u) or isinstance(u, Apply) and (
                u.prim == "srcad.zero_item" and u.outs[0] in op.args):
            return True  # (the store, the item taken out, the check of its slots, the zero of its shape)
        return not any(_may_follow(at, pos[id(w)], branches) for w in writes)
    if op.args[2] not in versions or any(v in live.live_after[id(op)] for v in versions) or not all(
            unseen(u) for u in users.get(op.args[0], ())):
        return
    out.update((w.outs[0], op.args[0]) for w in writes)


def _versions(fn: Function, item: Var) -> tuple[set, list]:
    """(the values that are versions of `item`: it, the results of in-place changes of a
    version, and what loops and branches carry of them; the operations that change one)."""
    versions, writes, grew = {item}, [], True
    while grew:
        grew = False
        for op in iter_ops(fn.body):
            new = []
            if isinstance(op, Apply) and _user_write(op) and update_base(op) is not None and \
                    op.args[update_base(op)] in versions and op.outs[0] not in versions:
                new = [op.outs[0]]
                writes.append(op)
            elif isinstance(op, (For, While)):
                skip = 1 if isinstance(op, For) else 0
                for k, a in enumerate(op.init):
                    if a in versions:
                        new += [b.params[k + (skip if b is op.body else 0)] for b in op.blocks()]
                        if op.body.yields[k] in versions:
                            new.append(op.outs[k])
            elif isinstance(op, If):
                new = [o for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields)
                       if a in versions and b in versions]
            new = [v for v in new if v not in versions]
            if new:
                versions.update(new)
                grew = True
    return versions, writes


def _may_follow(a: tuple, b: tuple, branches: dict) -> bool:
    """May what is at position a run after the operation at b (analysis/fresh.py positions)?
    Not when it comes earlier in the same block, encloses b (a loop's or if's operands are read
    before its blocks run) or is in the other branch of an if (`branches`: id(block) -> id(if))."""
    for (ba, ia), (bb, ib) in zip(a, b):
        if ba != bb:
            return branches.get(ba) is None or branches.get(ba) != branches.get(bb)
        if ia != ib:
            return ia > ib
    return False


def _identity_check(op) -> bool:
    """srcad.check_unshared reads which objects a container holds, never their values: a read
    of an older version there is no stale read (the store back of an item changed by a helper
    checks its slots after the change: sequences.py written_back_item)."""
    return isinstance(op, Apply) and op.prim == "srcad.check_unshared"


def _other_buffer(roots: dict, base: Var, m: Var) -> bool:
    """Is m, in a loop whose carried objects trade places, another of them than base?"""
    return roots.get(base) is not None and roots.get(m) not in (None, roots[base])


def _stale_diagnostic(op, base: Var, stale: list):
    if stale == [base.hint]:  # (the value before the write: an earlier line or a loop reads it)
        what = (f"the value {_describe(base)} had before this change is read afterwards (a later "
                "line, a view of it, or a for loop iterating over it)")
    else:
        what = f"another reference to the same object ({', '.join(stale)}) is used afterwards"
    return diagnostic(op.loc, f"this changes {_describe(base)} in place while {what}",
                      "copy before changing it (y = x.copy()), or stop using the other reference")


def _foreign_diagnostic(fn: Function, op, base: Var, swapped):
    """Why a write into `base`, which may be an object from outside, is refused."""
    if Aliases(fn, user=True, swapped=swapped, made_inside_owned=True).owned(base):
        return diagnostic(op.loc, f"this changes {_describe(base)}, a list or dict holding objects of your "
                          "class made inside the function: srcad follows such an object's attributes as "
                          "variables, one object per place in the code, so a container of them that grows "
                          "or changes is not supported",
                          "build the container as a display of the objects ([Dense(W1), Dense(W2)]), or "
                          "make the objects outside the function and pass them in")
    return diagnostic(op.loc, f"this writes into {_describe(base)}, which belongs to the caller (an "
                      "argument, a global, or a view of one)", "work on a copy: x = x.copy() (or list(xs)) "
                      "before changing it")


def _refuse_writes_in_while_tests(fn: Function, updates: list) -> None:
    """A while loop's test yields only its truth: a change it makes in place (a helper called
    there writing into its argument) would not reach the loop's body."""
    tests = {id(o) for op in iter_ops(fn.body) if isinstance(op, While) for o in iter_ops(op.cond)}
    problems = [diagnostic(op.loc, f"this changes {_describe(op.args[update_base(op)])} in place inside a "
                           "while loop's test, which srcad does not carry into the loop",
                           "compute the test before the loop and at the end of its body "
                           "(going = test(y); while going: ...; going = test(y))")
                for op in updates if id(op) in tests]
    if problems:
        raise _unsafe(fn, problems)


def _unsafe(fn: Function, problems: list) -> UnsafeMutationError:
    many = "s" if len(problems) > 1 else ""
    return UnsafeMutationError(f"{len(problems)} unsafe mutation{many} in {fn.qualname or fn.name}", problems)


def check_mutations(fn: Function, trusted: bool = False) -> None:
    """Refuse the in-place changes of fn that srcad cannot prove unobserved. srcad's generated
    code (an operation located in it; with no location, `trusted`: fn is generated code) writes
    safely by construction; the user's code inlined into it (a nested transformation's form
    calls the user's function) is checked, and so is the user's code around it."""
    def mine(op) -> bool:  # (the user's operation, not srcad's generated code inlined: trusted)
        return not generated_at(op.loc, trusted)
    hidden = [p for op, p in _hidden_writes(fn) if mine(op)]
    if hidden:
        raise UnsafeMutationError(f"{len(hidden)} call{'s' if len(hidden) > 1 else ''} that may change "
                                  f"arrays in place in {fn.qualname or fn.name}", hidden)
    # the user's own syntax (x[i] = v, xs.append(v), x += y): srcad's functional helpers
    # (srcad.setitem, srcad.list_append) copy when needed and need no check
    updates = [op for op in _reachable_ops(fn.body) if isinstance(op, Apply) and _user_write(op)
               and update_base(op) is not None and mine(op)]
    updates = [op for op in updates if isinstance(op.args[update_base(op)], Var)
               and not op.args[update_base(op)].type.is_scalar]
    _refuse_writes_in_while_tests(fn, updates)
    if not updates:
        return
    needed = needed_values(fn)  # (what only dead code reads is not "used afterwards")
    swaps, swapped = traded_places(fn)  # (double buffers: analysis/swaps.py)
    full = Aliases(fn, user=True, swapped=swapped)
    live = liveness(fn, needed, lambda op: matters(op, needed) and not _identity_check(op))
    late = late_stores(loop_bodies(fn))
    relaxed = Aliases(fn, user=True, skip=frozenset(id(s) for s, *_ in late), swapped=swapped) \
        if late else full
    pos = positions(fn.body) if late else {}
    problems, holders = [], _stored_back(fn, live)
    for op in updates:
        base = op.args[update_base(op)]
        aliases = relaxed if late and before_late_stores(op, base, late, relaxed, pos) else full
        if not full.owned(base):
            problems.append(_foreign_diagnostic(fn, op, base, swapped))
            continue
        after, mine = live.live_after[id(op)], swaps.get(id(op), {})
        stale = sorted({m.hint or "a view" for m in aliases.observers(base)
                        if m in after and m not in op.outs and m is not holders.get(op.outs[0])
                        and not _other_buffer(mine, base, m)})
        if stale:
            problems.append(_stale_diagnostic(op, base, stale))
    if problems:
        raise _unsafe(fn, problems)
