"""Build SSA form while code is emitted, from named variables.

This is the algorithm of Braun, Buchwald, Hack, Leissa, Mallon and Zwinkau, "Simple and
Efficient Construction of Static Single Assignment Form" (CC 2013), specialised to structured
regions:

- `write(key, value)` records the current definition of a variable in the open block and
  `read(key)` looks it up, walking out through enclosing blocks (their "local value
  numbering" and "global value numbering" steps).
- A loop body is an *unsealed* block while it is being filled: reading a variable that the
  body has not defined creates a block parameter on demand (the paper's incomplete phi),
  whose initial value is the definition outside the loop.
- When the loop is closed (sealed) every variable the body wrote or read through a parameter
  becomes loop-carried; a parameter whose value never changes is a trivial phi and is
  removed, its uses replaced by the initial value (the paper's tryRemoveTrivialPhi).
- At the end of an `if`, variables written in either branch are joined by results of the
  `If` operation (phis with one operand per branch).

Keys are any hashable: the frontend uses user variable names, transforms use tuples such as
`("bar", var_id)`. Callers that emit SSA directly may also pass values explicitly.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from .nodes import UNDEF, Apply, Atom, Block, Const, For, If, Loc, Op, Var, While, atom_type
from .rewrite import substitute_ops
from .types import INT, UNKNOWN, Type, join

_UNDEF = Const(UNDEF)


@dataclass
class _Frame:
    kind: str  # 'func', 'then', 'else', 'for', 'while_cond', 'while_body'
    params: list[Var] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    defs: dict[Hashable, Atom] = field(default_factory=dict)
    written: list[Hashable] = field(default_factory=list)  # in first-write order
    carried: dict[Hashable, Var] = field(default_factory=dict)  # loop keys -> params
    carried_init: dict[Hashable, Atom] = field(default_factory=dict)
    killed: set = field(default_factory=set)
    n_explicit: int = 0  # explicit (caller-made) params of a loop body, after the index

    @property
    def is_loop(self) -> bool:
        return self.kind in ("for", "while_cond", "while_body")


@dataclass
class _IfState:
    cond: Atom
    loc: Loc | None
    then: _Frame | None = None
    then_yields: tuple[Atom, ...] = ()


class Builder:
    """Emit operations into nested blocks, building SSA form from variable reads/writes."""

    def __init__(self, first_id: int = 0, var_types: dict[Hashable, Type] | None = None):
        self._next = first_id
        self._frames: list[_Frame] = []
        self._pending: list[object] = []  # open If / loop states, innermost last
        self.var_types: dict[Hashable, Type] = dict(var_types or {})
        self.var_hints: dict[Hashable, str] = {}

    # -- values ------------------------------------------------------------------------------

    def fresh(self, hint: str = "", type: Type = UNKNOWN) -> Var:
        v = Var(self._next, hint, type)
        self._next += 1
        return v

    @property
    def next_id(self) -> int:
        return self._next

    def set_hint(self, v: Atom, hint: str) -> Atom:
        """Name a value just produced by the last operation (a user assignment `z = ...`)."""
        frame = self._frames[-1]
        if not isinstance(v, Var) or v.hint or not frame.ops or not isinstance(frame.ops[-1], Apply):
            return v
        last = frame.ops[-1]
        if v not in last.outs:
            return v
        named = Var(v.id, hint, v.type)
        frame.ops[-1] = Apply(tuple(named if o == v else o for o in last.outs), last.prim, last.args,
                              last.kw, last.loc, last.keep)
        return named

    def emit(self, op: Op) -> None:
        self._frames[-1].ops.append(op)

    def defining(self, v: Atom) -> Apply | None:
        """The operation of the open block that made v, if it did."""
        return next((op for op in reversed(self._frames[-1].ops) if isinstance(op, Apply) and v in op.outs),
                    None)

    def apply(
        self,
        prim: str,
        args: tuple[Atom, ...] | list[Atom],
        kw: tuple[tuple[str, Atom], ...] = (),
        loc: Loc | None = None,
        hint: str | tuple[str, ...] = "",
        types: tuple[Type, ...] = (UNKNOWN,),
    ) -> Var | tuple[Var, ...]:
        """Emit `prim(*args, **kw)`; returns its value (or values when len(types) > 1)."""
        hints = hint if isinstance(hint, tuple) else (hint,) * len(types)
        outs = tuple(self.fresh(h, t) for h, t in zip(hints, types))
        self.emit(Apply(outs, prim, tuple(args), tuple(kw), loc))
        return outs[0] if len(outs) == 1 else outs

    # -- variables (Braun et al.) ------------------------------------------------------------

    def write(self, key: Hashable, value: Atom) -> None:
        frame = self._frames[-1]
        if key not in frame.defs and key not in frame.carried:
            frame.written.append(key)
        frame.killed.discard(key)
        frame.defs[key] = value

    def kill(self, key: Hashable) -> None:
        """Forget a variable local to the open block: it is not joined or carried out of it."""
        frame = self._frames[-1]
        frame.defs.pop(key, None)
        frame.killed.add(key)

    def is_bound(self, key: Hashable) -> bool:
        return self._lookup(key, len(self._frames) - 1, create=False) is not None

    def read(self, key: Hashable) -> Atom:
        """The current value of a variable, or Const(UNDEF) when it was never written."""
        found = self._lookup(key, len(self._frames) - 1, create=True)
        return _UNDEF if found is None else found

    def invariant(self, key: Hashable) -> tuple[Atom | None, int]:
        """(the value of a variable from before the open loops that, so far, only carry it
        unchanged, or None when it was never written; how many of the open loops are inside the
        block that defined it). The caller must know that none of those loops writes it later
        in its body: then this is the value every iteration of them reads."""
        loops = 0
        for frame in reversed(self._frames):
            if key in frame.defs:
                value = frame.defs[key]
                if not (frame.is_loop and frame.carried.get(key) is value):
                    return value, loops
            elif key in frame.killed:
                return None, loops
            loops += frame.is_loop
        return None, loops

    def bindings(self) -> dict:
        """{key: (value, whether the innermost open block defines it)} of every variable an
        open block defines (the innermost definition of each; a loop's own value for one it
        has only carried so far is the value from before it)."""
        out = {}
        for depth, frame in enumerate(self._frames):
            for k, v in frame.defs.items():
                if frame.is_loop and frame.carried.get(k) is v and k in out:
                    continue  # (carried unchanged so far: what it was before the loop, as `invariant`)
                out[k] = (v, depth == len(self._frames) - 1)
            for k in frame.killed:
                out.pop(k, None)
        return out

    def position(self) -> tuple:
        """The open blocks, outermost first (see `dominated_by`)."""
        return tuple(self._frames)

    def dominated_by(self, position: tuple) -> bool:
        """Is what was defined at `position` (a `position()` taken earlier) visible here:
        is its innermost block still open?"""
        return len(position) <= len(self._frames) and all(
            a is b for a, b in zip(position, self._frames))

    def _lookup(self, key: Hashable, depth: int, create: bool) -> Atom | None:
        frame = self._frames[depth]
        if key in frame.defs:
            return frame.defs[key]
        if key in frame.killed or depth == 0:
            return None
        if frame.is_loop:
            if not create:
                return self._lookup(key, depth - 1, create=False)
            outer = self._lookup(key, depth - 1, create=True)
            return self._add_carried(frame, key, outer)
        return self._lookup(key, depth - 1, create)

    def _add_carried(self, frame: _Frame, key: Hashable, outer: Atom | None) -> Var:
        init = _UNDEF if outer is None else outer
        t = self.var_types.get(key, atom_type(init))
        param = self.fresh(self.var_hints.get(key, _hint_of(key, init)), t)
        frame.params.append(param)
        frame.carried[key] = param
        frame.carried_init[key] = init
        frame.defs[key] = param
        return param

    # -- blocks ------------------------------------------------------------------------------

    def begin_function(self, params: list[Var]) -> None:
        assert not self._frames
        self._frames.append(_Frame("func", params=list(params)))

    def end_function(self, yields: tuple[Atom, ...]) -> Block:
        frame = self._frames.pop()
        assert not self._frames, "unclosed block"
        return Block(tuple(frame.params), tuple(frame.ops), tuple(yields))

    # if / else

    def begin_if(self, cond: Atom, loc: Loc | None = None) -> None:
        self._pending.append(_IfState(cond, loc))
        self._frames.append(_Frame("then"))

    def begin_else(self, yields: tuple[Atom, ...] = ()) -> None:
        state = self._pending[-1]
        assert isinstance(state, _IfState) and state.then is None
        state.then = self._frames.pop()
        state.then_yields = tuple(yields)
        self._frames.append(_Frame("else"))

    def end_if(
        self, yields: tuple[Atom, ...] = (), hints: tuple[str, ...] = (), types=None
    ) -> tuple[Var, ...]:
        """Close the `if`; explicit `yields` of both branches become the returned results."""
        orelse = self._frames.pop()
        state = self._pending.pop()
        assert isinstance(state, _IfState) and state.then is not None
        then = state.then
        explicit = list(zip(state.then_yields, yields))
        keys = _ordered_union(then, orelse)
        t_y, e_y, joined = [a for a, _ in explicit], [b for _, b in explicit], []
        for key in keys:
            a = then.defs.get(key) if key in then.defs else self.read(key)
            b = orelse.defs.get(key) if key in orelse.defs else self.read(key)
            if a == b:
                self.write(key, a)
                continue
            joined.append(key)
            t_y.append(a)
            e_y.append(b)
        n = len(explicit)
        ex_types = types or [_join_atoms(a, b) for a, b in explicit]
        outs = [self.fresh(hints[i] if i < len(hints) else "", ex_types[i]) for i in range(n)]
        for key, a, b in zip(joined, t_y[n:], e_y[n:]):
            t = self.var_types.get(key, _join_atoms(a, b))
            out = self.fresh(self.var_hints.get(key, _hint_of(key, a)), t)
            outs.append(out)
            self.write(key, out)
        op = If(
            tuple(outs),
            state.cond,
            Block((), tuple(then.ops), tuple(t_y)),
            Block((), tuple(orelse.ops), tuple(e_y)),
            state.loc,
        )
        self.emit(op)
        return tuple(outs[:n])

    # for loops

    def begin_for(
        self,
        start: Atom,
        stop: Atom,
        step: Atom,
        init: tuple[Atom, ...] = (),
        index_hint: str = "i",
        hints: tuple[str, ...] = (),
        types: tuple[Type, ...] | None = None,
        reverse: bool = False,
        loc: Loc | None = None,
    ) -> tuple[Var, tuple[Var, ...]]:
        """Open a loop body; returns the index and the explicit carried parameters."""
        index = self.fresh(index_hint, INT)
        params = [index]
        for i, a in enumerate(init):
            t = types[i] if types else atom_type(a)
            params.append(self.fresh(hints[i] if i < len(hints) else "", t))
        frame = _Frame("for", params=params, n_explicit=len(init))
        self._pending.append(("for", start, stop, step, tuple(init), reverse, loc))
        self._frames.append(frame)
        return index, tuple(params[1:])

    def end_for(self, yields: tuple[Atom, ...] = (), exit_flag: Atom | None = None) -> tuple[Var, ...]:
        frame = self._frames.pop()
        _, start, stop, step, init, reverse, loc = self._pending.pop()
        body, outs, carried_outs = self._seal_loop(frame, init, yields, exit_flag, offset=1)

        def make(body_, init_, outs_):
            return For(tuple(outs_), start, stop, step, init_, body_, exit_flag is not None, reverse, loc)

        self._finish_loop(make, body, None, init, frame, outs, carried_outs)
        return tuple(outs[: len(init)])

    # while loops

    def begin_while(
        self, init: tuple[Atom, ...] = (), hints: tuple[str, ...] = (), types=None, loc=None
    ) -> tuple[Var, ...]:
        """Open the condition block of a while loop; returns its explicit parameters."""
        params = []
        for i, a in enumerate(init):
            t = types[i] if types else atom_type(a)
            params.append(self.fresh(hints[i] if i < len(hints) else "", t))
        self._pending.append(["while", tuple(init), loc, None, None])
        self._frames.append(_Frame("while_cond", params=params, n_explicit=len(init)))
        return tuple(params)

    def begin_while_body(self, cond: Atom) -> tuple[Var, ...]:
        """Close the condition block (yielding `cond`) and open the body."""
        cframe = self._frames.pop()
        state = self._pending[-1]
        state[3], state[4] = cframe, cond
        n = cframe.n_explicit
        params = [self.fresh(p.hint, p.type) for p in cframe.params[:n]]
        body = _Frame("while_body", params=params, n_explicit=n)
        self._frames.append(body)
        for key, p in cframe.carried.items():  # the body carries what the condition reads
            self._add_carried_like(body, key, cframe.carried_init[key], p)
        return tuple(params)

    def _add_carried_like(self, frame: _Frame, key, init: Atom, like: Var) -> None:
        param = self.fresh(like.hint, like.type)
        frame.params.append(param)
        frame.carried[key] = param
        frame.carried_init[key] = init
        frame.defs[key] = param

    def end_while(self, yields: tuple[Atom, ...] = (), exit_flag: Atom | None = None) -> tuple[Var, ...]:
        frame = self._frames.pop()
        _, init, loc, cframe, cond = self._pending.pop()
        body, outs, carried_outs = self._seal_loop(frame, init, yields, exit_flag, offset=0)
        # the condition block needs one parameter per carried value of the body, in order
        cparams = list(cframe.params[: cframe.n_explicit])
        for key in frame.carried:
            if key in cframe.carried:
                cparams.append(cframe.carried[key])
            else:
                p = frame.carried[key]
                cparams.append(self.fresh(p.hint, p.type))
        cblock = Block(tuple(cparams), tuple(cframe.ops), (cond,))

        def make(body_, init_, outs_, cblock_=None):
            return While(tuple(outs_), init_, cblock_, body_, exit_flag is not None, loc)

        self._finish_loop(make, body, cblock, init, frame, outs, carried_outs)
        return tuple(outs[: len(init)])

    # shared loop sealing

    def _seal_loop(self, frame: _Frame, init, yields, exit_flag, offset: int):
        """Make every written variable carried, then compute yields and results."""
        for key in frame.written:
            if key not in frame.carried and key not in frame.killed and key in frame.defs:
                outer = self._lookup(key, len(self._frames) - 1, create=True)
                # a body-local first definition: carried, starting undefined
                value = frame.defs[key]
                param = self._add_carried(frame, key, outer)
                frame.defs[key] = value
                del param
        ys = list(yields)
        for key, param in frame.carried.items():
            ys.append(frame.defs.get(key, param) if key not in frame.killed else param)
        if exit_flag is not None:
            ys.append(exit_flag)
        body = Block(tuple(frame.params), tuple(frame.ops), tuple(ys))
        outs = []
        for i, p in enumerate(frame.params[offset:]):
            y = ys[i]
            t = p.type if not isinstance(y, Var) else join(p.type, y.type)
            outs.append(self.fresh(p.hint, t))
        return body, outs, list(frame.carried.items())

    def _finish_loop(self, make, body: Block, cblock, init, frame: _Frame, outs, carried):
        """Drop trivial carried values (Braun's tryRemoveTrivialPhi), then emit the loop."""
        n_exp, offset = len(init), len(body.params) - len(outs)
        full_init = list(init) + [frame.carried_init[k] for k, _ in carried]
        keep, subst = [], {}
        yields = body.yields
        for j, (key, param) in enumerate(carried):
            i = n_exp + j
            y = yields[i]
            if y == param or y == full_init[i]:
                subst[param] = full_init[i]
                if cblock is not None:
                    subst[cblock.params[i]] = full_init[i]
                subst[outs[i]] = full_init[i]
                continue
            keep.append((i, key))
        idx = list(range(n_exp)) + [i for i, _ in keep]
        extra = (body.yields[-1],) if len(body.yields) > len(outs) else ()
        new_body = Block(
            body.params[:offset] + tuple(body.params[offset + i] for i in idx),
            substitute_ops(body.ops, subst),
            tuple(_sub(yields[i], subst) for i in idx) + tuple(_sub(e, subst) for e in extra),
        )
        new_outs = [outs[i] for i in idx]
        new_init = tuple(_sub(full_init[i], subst) for i in idx)
        if cblock is not None:
            cblock = Block(
                tuple(cblock.params[i] for i in idx),
                substitute_ops(cblock.ops, subst),
                tuple(_sub(y, subst) for y in cblock.yields),
            )
            self.emit(make(new_body, new_init, new_outs, cblock))
        else:
            self.emit(make(new_body, new_init, new_outs))
        for i, key in keep:
            self.write(key, outs[i])


def _sub(a: Atom, subst: dict) -> Atom:
    while isinstance(a, Var) and a in subst:
        a = subst[a]
    return a


def _hint_of(key: Hashable, value: Atom | None) -> str:
    if isinstance(key, str):
        return key
    if isinstance(value, Var):
        return value.hint
    return ""


def _join_atoms(a: Atom, b: Atom) -> Type:
    return join(atom_type(a), atom_type(b))


def _ordered_union(a: _Frame, b: _Frame) -> list:
    seen, out = set(), []
    for frame in (a, b):
        for key in frame.written:
            if key not in seen and key not in frame.killed and key in frame.defs:
                seen.add(key)
                out.append(key)
    return out
