"""Shift invariance: a maximum subtracted for numerical stability carries no derivative.

`m + log(sum(exp(x - m)))` with `m = max(x)` (logsumexp), `exp(x - m) / sum(exp(x - m))`
(softmax) and everything built from them is the same function of x whatever m is: its
partial derivative with respect to m is identically zero. The chain rule through m then
adds a cotangent that is zero up to rounding (`1 - sum(softmax)`), spread over the maxima
with a tie mask, a count and a division: passes over x that change nothing. Here such an
m is marked (`srcad.shift_invariant`, derivatives do not flow through it), as JAX's
logsumexp stops the gradient of its max by hand, and the transforms skip the adjoint.

The derivative stays exact at every order: g(x, m) with dg/dm = 0 for all x and m has
d2g/dm dx = 0 too, so a gradient is itself invariant in m; the mark is dropped after the
transform (`drop_marks`), and a transform of the generated code finds the invariance again.

The analysis follows each candidate m = max(x) / min(x) (numpy.max, amax, min, amin and the
methods) forward, describing each value v it reaches by what m does to it, with m broadcast
as NumPy broadcasts it:

- SHIFT c: v = v0 + c * m (m itself is SHIFT 1; x - m is SHIFT -1);
- SCALE a: v = v0 * exp(a * m) (exp of a SHIFT a; a sum over axes along which m is
  constant keeps it; log of SCALE a is SHIFT a; SCALE a / SCALE a does not depend on m);
- anything else: depends on m.

A value that does not depend on m is invariant. m is marked only when every output of the
function is invariant, every value depending on m is made by the arithmetic above in the
function's top-level block (a use in a loop, a branch, a call or a container ends the
analysis: m is left as it is), and shapes are known where axes matter. Each state also
records which axis of m each axis of v carries (`rep`), so that a sum over an axis along
which m varies, or two values that broadcast m differently, are never taken as invariant.

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def lse(x):
    ...     m = np.max(x)
    ...     return m + np.log(np.sum(np.exp(x - m)))
    >>> f = ir(lse, np.ones(3))
    >>> show(mark_shifts(f, f.body.yields))
    def lse(%x0: float[3]):
      %7: float = numpy.max(%x0)
      %m1: float = srcad.shift_invariant(%7)
      %2: float[3] = operator.sub(%x0, %m1)
      %3: float[3] = numpy.exp(%2)
      %4: float = numpy.sum(%3)
      %5: float = numpy.log(%4)
      %6: float = operator.add(%m1, %5)
      return %6
"""

from __future__ import annotations

import dataclasses

from ..analysis.shapes import axes_key
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, Function, Var, atom_type, iter_blocks, iter_ops, max_var_id
from ..rules import registry

MARK = "srcad.shift_invariant"


class _Unknown(Exception):
    """A use the analysis does not follow: m is left as it is."""


@dataclasses.dataclass(frozen=True)
class _State:
    form: str  # "shift" or "scale"
    coef: float
    rep: tuple  # per axis of the value: the axis of m it carries, or None (m constant along it)


def _ndim(a) -> int:
    t = atom_type(a)
    if isinstance(t, (T.Float, T.Int, T.Bool)):
        return 0
    if isinstance(t, T.Array) and t.ndim is not None:
        return t.ndim
    raise _Unknown


def _rep_of_m(m: Var) -> tuple:
    """m's own rep: each axis carries itself, except those known to have length 1."""
    t = m.type
    shape = t.shape if isinstance(t, T.Array) and t.shape is not None else (None,) * _ndim(m)
    return tuple(None if d == 1 else i for i, d in enumerate(shape))


def _aligned(s: _State | None, ndim: int) -> _State | None:
    """s with its rep read against a result of `ndim` axes (NumPy aligns axes on the right)."""
    if s is None:
        return None
    if len(s.rep) > ndim:
        raise _Unknown
    return dataclasses.replace(s, rep=(None,) * (ndim - len(s.rep)) + s.rep)


def _number(a) -> float | None:
    if isinstance(a, Const) and type(a.value) in (int, float) and a.value == a.value:
        return float(a.value)
    return None


def _combine(form: str, coef: float, rep: tuple) -> _State | None:
    return None if coef == 0.0 else _State(form, coef, rep)


def _binary(role: str, a, b, sa: _State | None, sb: _State | None, ndim: int) -> _State | None:
    sa, sb = _aligned(sa, ndim), _aligned(sb, ndim)
    if sa is not None and sb is not None and sa.rep != sb.rep:
        raise _Unknown
    rep = (sa or sb).rep
    if role in ("add", "sub"):
        sign = -1.0 if role == "sub" else 1.0
        if sa is None or sb is None:
            if (sa or sb).form == "shift":
                return _combine("shift", sa.coef if sb is None else sign * sb.coef, rep)
            raise _Unknown  # (v0 e^am + w is no form)
        if sa.form == sb.form == "shift":
            return _combine("shift", sa.coef + sign * sb.coef, rep)
        if sa.form == sb.form == "scale" and sa.coef == sb.coef:
            return sa
        raise _Unknown
    if role in ("mul", "div"):
        inv = role == "div"
        if sa is not None and sb is not None:
            if sa.form == sb.form == "scale":
                return _combine("scale", sa.coef - sb.coef if inv else sa.coef + sb.coef, rep)
            raise _Unknown
        s, other = (sa, b) if sb is None else (sb, a)
        if s.form == "scale":  # (times or over a factor that does not depend on m)
            return _State("scale", -s.coef if (inv and sb is not None) else s.coef, rep)
        k = _number(other)
        if k is None or (inv and (sb is not None or k == 0.0)):
            raise _Unknown
        return _combine("shift", s.coef / k if inv else s.coef * k, rep)
    raise _Unknown


def _reduced(op: Apply, role: str, s: _State) -> _State:
    """A sum (scale), mean (shift or scale) or max/min (shift) over axes along which m is
    constant."""
    if (role == "sum" and s.form != "scale") or (role == "extremum" and s.form != "shift"):
        raise _Unknown
    kw = dict(op.kw)
    if len(op.args) > 2 or set(kw) - {"axis", "keepdims"}:
        raise _Unknown
    axis = op.args[1] if len(op.args) == 2 else kw.get("axis", Const(None))
    keep = kw.get("keepdims", Const(False))
    if not isinstance(axis, Const) or not isinstance(keep, Const) or type(keep.value) is not bool:
        raise _Unknown
    n = len(s.rep)
    axes = tuple(range(n)) if axis.value is None else \
        (axis.value,) if type(axis.value) is int else axis.value
    if not isinstance(axes, tuple) or not all(type(a) is int and -n <= a < n for a in axes):
        raise _Unknown
    axes = {a % n for a in axes}
    if any(s.rep[a] is not None for a in axes):
        raise _Unknown
    rep = s.rep if keep.value else tuple(r for i, r in enumerate(s.rep) if i not in axes)
    if len(rep) != _ndim(op.out):
        raise _Unknown
    return dataclasses.replace(s, rep=rep)


def _indexed(args, st) -> _State | None:
    """v[key] with a key of whole slices, None (new axes) and one Ellipsis: the same values,
    axes moved (`mx[:, None]`). Any other key selects elements: not followed."""
    if len(args) != 2 or st[0] is None or st[1] is not None or not isinstance(args[1], Const):
        raise _Unknown
    s, key = st[0], axes_key(args[1].value)
    if key is None:
        raise _Unknown
    taken = sum(1 for k in key if k is not None and k is not Ellipsis)
    if taken > len(s.rep):
        raise _Unknown
    rest, rep = list(s.rep), []
    for k in key:
        if k is None:
            rep.append(None)
        elif k is Ellipsis:
            count = len(s.rep) - taken
            rep += rest[:count]
            del rest[:count]
        else:
            rep.append(rest.pop(0))
    return dataclasses.replace(s, rep=tuple(rep + rest))


def _step(op: Apply, role: str, state: dict) -> _State | None:
    """The state of op's result, given its operands' states (some depend on m)."""
    args = op.args
    st = [state.get(a) if isinstance(a, Var) else None for a in args]
    if any(state.get(a) is not None for _, a in op.kw if isinstance(a, Var)):
        raise _Unknown
    if role == "same":
        return st[0]
    if len(args) == 2 and not op.kw and role in ("add", "sub", "mul", "div"):
        return _binary(role, args[0], args[1], st[0], st[1], _ndim(op.out))
    if role == "index":
        return _indexed(args, st)
    reduction = role in ("sum", "mean", "extremum")
    s = st[0]
    if (len(args) != 1 and not reduction) or s is None or any(x is not None for x in st[1:]):
        raise _Unknown
    if reduction:
        return _reduced(op, role, s)
    if op.kw:
        raise _Unknown
    if role == "neg":
        return dataclasses.replace(s, coef=-s.coef) if s.form == "shift" else s
    if role == "exp" and s.form == "shift":
        return _State("scale", s.coef, s.rep)
    if role == "log" and s.form == "scale":
        return _State("shift", s.coef, s.rep)
    raise _Unknown


def _invariant(fn: Function, m: Var, outputs) -> bool:
    """Does no output of fn depend on m (only through the forms above)?"""
    state: dict = {m: _State("shift", 1.0, _rep_of_m(m))}
    top = set(id(op) for op in fn.body.ops)
    for op in iter_ops(fn.body):
        used = [a for a in op.operands() if isinstance(a, Var) and state.get(a) is not None]
        if not used:
            continue
        if id(op) not in top or not isinstance(op, Apply) or len(op.outs) > 1:
            raise _Unknown  # (a use in a loop or branch body, or a loop or branch itself)
        rule = registry.lookup(op.prim)
        if rule is not None and rule.shift == "check" and not op.outs:
            continue
        if rule is None or not rule.shift or rule.inplace or rule.updates is not None or not op.outs:
            raise _Unknown
        result = _step(op, rule.shift, state)
        if result is not None:
            state[op.out] = result
    for block in iter_blocks(fn.body):  # (a branch or loop yielding a value: a use, too)
        if block is not fn.body and any(isinstance(a, Var) and state.get(a) is not None
                                        for a in block.yields):
            raise _Unknown
    return all(not (isinstance(o, Var) and state.get(o) is not None) for o in outputs)


def _candidate(op) -> bool:
    rule = registry.lookup(op.prim) if isinstance(op, Apply) else None
    if rule is None or rule.shift != "extremum" or len(op.outs) != 1:
        return False
    t = op.out.type
    return isinstance(t, T.Float) or (isinstance(t, T.Array) and t.kind == "f" and t.ndim is not None)


def mark_shifts(fn: Function, outputs) -> Function:
    """fn with each max/min that no output depends on (through the forms above) marked
    `srcad.shift_invariant`: the transforms take no derivative through it."""
    found = []
    for op in fn.body.ops:
        if _candidate(op):
            try:
                if _invariant(fn, op.out, outputs):
                    found.append(op)
            except _Unknown:
                pass
    if not found:
        return fn
    next_id = max_var_id(fn) + 1
    ops = []
    for op in fn.body.ops:
        if op in found:
            raw = Var(next_id, "", op.out.type)
            next_id += 1
            ops += [dataclasses.replace(op, outs=(raw,)), Apply((op.out,), MARK, (raw,), (), op.loc)]
        else:
            ops.append(op)
    return dataclasses.replace(fn, body=dataclasses.replace(fn.body, ops=tuple(ops)))


def drop_marks(fn: Function) -> Function:
    """After a transform: the marks are the values they mark (as plain code they are
    identities; a transform of this code finds the invariance again)."""
    marked = {op.out: op.args[0] for op in iter_ops(fn.body) if isinstance(op, Apply) and op.prim == MARK}
    if not marked:
        return fn

    def atom(a):
        while isinstance(a, Var) and a in marked:
            a = marked[a]
        return a

    def block(b: Block) -> Block:
        ops = tuple(op.map(atom, block) for op in b.ops if not (isinstance(op, Apply) and op.prim == MARK))
        return Block(b.params, ops, tuple(atom(a) for a in b.yields))

    return dataclasses.replace(fn, body=block(fn.body))
