"""Buffer reuse (as XLA's buffer assignment does it for its fusions): an elementwise operation
whose array operand dies there writes its result into that operand's buffer, instead of
allocating a new array while the old one is freed.

Large temporaries cost more than their arithmetic: each one is a fresh allocation that
glibc's malloc takes from the kernel (page faults) when the heap has shrunk back since the
previous call. Writing into a dying operand keeps the number of full-size arrays live at
once where a hand-written gradient keeps it. The rewrite marks the operation with the buffer
it writes into, `out=`; codegen writes it `np.exp(t, out=t)`, or `t *= s` for an operator
when the result and the operand get one name (they are merged when the names allow).

    >>> import numpy as np
    >>> from srcad.examples import ir, show
    >>> def f(x):
    ...     t = x * 2.0
    ...     return np.exp(t) + 1.0
    >>> show(reuse_buffers(ir(f, np.ones(100_000))))
    def f(%x0: float[100000]):
      %t1: float[100000] = operator.mul(%x0, 2.0)
      %2: float[100000] = numpy.exp(%t1, out=%t1)
      %3: float[100000] = operator.add(%2, 1.0, out=%2)
      return %3

`x * 2.0` does not write into x (an argument is the caller's), but everything after it
writes into the array it made. Only large arrays (LARGE elements or more) are planned: small
ones cost little to allocate and read best as nested expressions.

A result is written into an operand t only when that is invisible and exact:

- t is owned (made by this function, not an argument, a global, a closure's value or a
  read-only broadcast), was made by an elementwise operation (so it is a whole array of its
  own, never a view of something else), and was never passed to a call srcad cannot see into
  (an opaque or custom function may have kept it);
- nothing through which t's buffer can be seen (t, its views, containers holding it: the
  observers of analysis/aliases.py) is live after the operation: not a value stored for the
  backward sweep, not a value returned, not a value read again in a later loop iteration;
- the result is a float array of t's exact, known shape (no broadcasting that grows it, no
  0-d arrays or numbers), and no other operand may be a view of t;
- the result's dtype is t's: float arrays of any width share srcad's types, so a float32 t
  written with a float64 operand would lose precision. Each float value's *dtype sources* are
  followed (the float arguments its dtype is promoted from, through elementwise operations,
  reductions and views; number literals are weak and add none, bools add none); an operand
  whose sources are not all among t's, or that is an int, or whose sources are not known,
  keeps the operation as it was.

Targets that cannot use `out=` (or augmented assignment) skip this pass.
"""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np

from ..analysis.aliases import Aliases
from ..analysis.liveness import liveness
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, Function, If, Var, While, iter_ops
from ..rules import registry
from .ownership import iter_ops_of

_TOP = None  # dtype sources not known

#: Arrays of at least this many elements (128 KiB of float64, where glibc's malloc starts to
#: map memory from the kernel) are large: only they are written in place, and codegen deletes
#: the names of large temporaries after their last use, so that malloc can reuse their memory
#: for the next temporary rather than take more from the kernel. Smaller arrays cost little
#: to allocate, and stay nested expressions, as they read best. (SRCAD_LARGE_ARRAY sets it,
#: for fuzz campaigns that exercise the pass on small arrays: SRCAD_LARGE_ARRAY=1.)
LARGE = int(os.environ.get("SRCAD_LARGE_ARRAY", "") or 1 << 14)


def reuses(op) -> Var | None:
    """The operand whose buffer `op` writes its result into (its `out=`), or None."""
    if isinstance(op, Apply):
        for k, a in op.kw:
            if k == "out" and isinstance(a, Var):
                return a
    return None


def ufunc_rule(op: Apply):
    """The rule of the NumPy ufunc that computes op into a given buffer (op's own, or the
    ufunc an operator names: Rule.ufunc), or None."""
    rule = registry.lookup(op.prim)
    if rule is None or rule.inplace or rule.updates is not None:
        return None
    if rule.ufunc:
        rule = registry.lookup(rule.ufunc)
    ok = rule is not None and rule.kind == "elementwise" and isinstance(rule.fn, np.ufunc) \
        and rule.fn.nout == 1 and len(op.args) == rule.fn.nin
    return rule if ok else None


def _ufunc(op: Apply) -> bool:
    return ufunc_rule(op) is not None


def _float_array(t) -> bool:
    """A float array of known shape with at least one axis."""
    return isinstance(t, T.Array) and t.kind == "f" and t.shape is not None and len(t.shape) >= 1 \
        and all(type(d) is int for d in t.shape)


def _is_float(t) -> bool:
    return isinstance(t, T.Float) or (isinstance(t, T.Array) and t.kind == "f")


def _is_bool(t) -> bool:
    return isinstance(t, T.Bool) or (isinstance(t, T.Array) and t.kind == "b")


def large_array(t) -> bool:
    """An array known to have at least LARGE elements (read when called: tests lower it)."""
    return isinstance(t, T.Array) and t.shape is not None and all(type(d) is int for d in t.shape) \
        and math.prod(t.shape) >= LARGE


class _Sources:
    """The float arguments each float value's dtype is promoted from (see the module doc):
    a frozenset of parameters, empty for a Python float (weak: it never widens an array), or
    _TOP when not known. A float array's sources always include a float array argument (an
    array made from bools and Python numbers alone is float64)."""

    def __init__(self, fn: Function):
        self.of: dict = {}
        for p in fn.body.params:
            self.of[p] = frozenset((p,)) if _is_float(p.type) else _TOP
        for op in iter_ops(fn.body):
            if isinstance(op, Apply) and len(op.outs) == 1:
                self.of[op.outs[0]] = self._apply(op)

    def atom(self, a):
        """The sources of an operand of an array operation (bools never widen a float array)."""
        if isinstance(a, Const):
            return frozenset() if type(a.value) in (bool, int, float) else _TOP
        if _is_bool(a.type):
            return frozenset()
        return self.of.get(a, _TOP) if _is_float(a.type) else _TOP  # (a NumPy int promotes float32)

    def _apply(self, op: Apply):
        rule = registry.lookup(op.prim)
        out = op.outs[0].type
        if rule is None or rule.opaque or any(k == "dtype" for k, _ in op.kw) or not _is_float(out):
            return _TOP
        if op.prim.startswith("math."):
            return frozenset()  # a Python float
        if not (rule.kind in ("elementwise", "reduction", "view") or op.prim == "operator.getitem"
                or rule.multilinear) or op.prim == "numpy.float64":
            return _TOP
        # (products: np.dot, matmul... promote all their operands, as elementwise operations do)
        whole = (rule.kind == "elementwise" and op.prim != "operator.getitem") or bool(rule.multilinear)
        found, weak = frozenset(), True
        for a in op.args if whole else op.args[:1]:
            if isinstance(a, Const) and type(a.value) in (bool, int, float):
                continue
            if isinstance(a, Var) and _is_bool(a.type):
                weak = False  # (np.True_ + 1.0 is a NumPy float64)
                continue
            s = self.of.get(a, _TOP) if isinstance(a, Var) and _is_float(a.type) else _TOP
            if s is _TOP:
                return _TOP
            found |= s
        if found:
            arrays = any(isinstance(m.type, T.Array) for m in found)
            return found if arrays or not isinstance(out, T.Array) else _TOP
        # Python arithmetic on Python floats stays weak; NumPy functions of numbers do not
        return frozenset() if weak and op.prim.startswith("operator.") and isinstance(out, T.Float) else _TOP


class _Planner:
    def __init__(self, fn: Function):
        self.aliases = Aliases(fn)
        self.live = liveness(fn)
        self.sources = _Sources(fn)
        self.defs = {o: op for op in iter_ops(fn.body) if isinstance(op, Apply) for o in op.outs}
        self.escaped = self._escaped(fn)

    def _escaped(self, fn: Function) -> set:
        """Alias classes passed to calls srcad does not see into (which may keep them)."""
        out = set()
        for op in iter_ops(fn.body):
            if not isinstance(op, Apply):
                continue
            rule = registry.lookup(op.prim)
            if rule is None or rule.opaque or rule.custom or rule.user or rule.impure or op.prim in (
                    "srcad.call", "srcad.method", "srcad.custom"):
                for a in op.operands():
                    if isinstance(a, Var):
                        out.update(self.aliases.find(m) for m in self.aliases.observers(a))
        return out

    def block(self, b: Block) -> Block:
        ops = []
        for op in b.ops:
            if isinstance(op, (If, For, While)):
                op = op.map(block=self.block)
            elif isinstance(op, Apply):
                op = self.apply(op)
            ops.append(op)
        return dataclasses.replace(b, ops=tuple(ops))

    def apply(self, op: Apply) -> Apply:
        if op.kw or len(op.outs) != 1 or not large_array(op.outs[0].type) or not _ufunc(op) \
                or op.outs[0].type.kind != "f":
            return op
        for k in self._candidates(op):
            if self._can_write(op, op.args[k]):
                return dataclasses.replace(op, kw=(("out", op.args[k]),))
        return op

    @staticmethod
    def _candidates(op: Apply):
        """Operand positions to try, the first (`t op= s`) first."""
        return [k for k, a in enumerate(op.args) if isinstance(a, Var)]

    def _can_write(self, op: Apply, t: Var) -> bool:
        y = op.outs[0]
        if not (_float_array(t.type) and t.type.shape == y.type.shape and self.aliases.owned(t)):
            return False
        made = self.defs.get(t)
        if made is None or not (_ufunc(made) or reuses(made) is not None):
            return False  # (an argument, a loop's value, a view, a helper's result...)
        seen = self.aliases.observers(t)
        if self.aliases.find(t) in self.escaped or any(self.aliases.find(m) in self.escaped for m in seen):
            return False
        after = self.live.live_after[id(op)]
        if any(m in after for m in seen):
            return False
        group = set(seen)
        mine = self.sources.atom(t)
        if mine is _TOP:
            return False
        for a in op.args:
            if a is t or (isinstance(a, Var) and a == t):
                continue
            if isinstance(a, Var) and a in group:
                return False  # (a view of t read while t is written)
            s = self.sources.atom(a)
            if s is _TOP or not s <= mine:
                return False
        return True


def reuse_buffers(fn: Function) -> Function:
    """Mark elementwise operations that can write into a dying operand (see the module doc),
    after moving new zero-filled arrays down to their first use."""
    fn = dataclasses.replace(fn, body=_sink_blank(fn.body))
    return dataclasses.replace(fn, body=_Planner(fn).block(fn.body))


def _sink_blank(b: Block) -> Block:
    """A new array made from shapes alone (`np.zeros(n)`, a cotangent's start) moved down to
    just before the first operation that reads it, so that it is not live (and its memory
    not taken) while the temporaries computed before that use are."""
    ops = [op if isinstance(op, Apply) else op.map(block=_sink_blank) for op in b.ops]
    out: list = []
    waiting: dict = {}  # value -> its blank operation, not emitted yet
    for op in ops:
        if isinstance(op, Apply) and len(op.outs) == 1 and _blank(op) \
                and all(not isinstance(a, Var) or a not in waiting for a in op.operands()):
            waiting[op.outs[0]] = op
            continue
        reads = {a for inner in iter_ops_of(op) for a in _reads(inner)}
        for v in [v for v in waiting if v in reads]:
            out.append(waiting.pop(v))
        out.append(op)
    out.extend(w for v, w in waiting.items() if v in _vars(b.yields))
    out.extend(w for v, w in waiting.items() if v not in _vars(b.yields))
    return dataclasses.replace(b, ops=tuple(out))


def _blank(op: Apply) -> bool:
    rule = registry.lookup(op.prim)
    return rule is not None and rule.blank and rule.fresh and not rule.impure and not op.keep \
        and isinstance(op.outs[0].type, T.Array)


def _reads(op) -> set:
    found = _vars(op.operands())
    if not isinstance(op, Apply):
        found |= {a for blk in op.blocks() for a in _vars(blk.yields)}
    return found


def _vars(atoms) -> set:
    return {a for a in atoms if isinstance(a, Var)}
