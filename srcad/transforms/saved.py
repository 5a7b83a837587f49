"""What reverse mode stores per loop iteration, as users see it (`srcad.saved_values` and
the header comment of generated code)."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import types as T
from ..ir.nodes import Function, iter_ops
from ..passes.checkpointing import stored_bytes


@dataclass(frozen=True)
class SavedValue:
    """One value the forward sweep stores per loop iteration (see srcad.saved_values)."""

    name: str
    type: T.Type
    line: int
    file: str
    loop_line: int

    @property
    def nbytes(self) -> int | None:
        """Bytes stored per iteration: the list slot plus the object (None if unknown)."""
        return stored_bytes(self.type)

    @property
    def bytes_per_iteration(self) -> str:
        n = self.nbytes
        if n is not None:
            return f"{n} B"
        if isinstance(self.type, T.Array):
            return "8 B * size + 120 B"
        return "one reference"


def saved_report(fn: Function, plan, final: Function | None = None) -> list[SavedValue]:
    """What the forward sweep stores per loop iteration (in `final`, the optimised code,
    when given: pushes that optimisation removed are not reported)."""
    defs = {}
    for op in iter_ops(fn.body):
        for o in op.outs:
            defs[o] = op.loc
    kept = None
    if final is not None:
        kept = {o.id for op in iter_ops(final.body) for o in op.outs}
    out = []
    for out_id, (v, loop_id) in sorted(plan.pushed.items()):
        if kept is not None and out_id not in kept:
            continue
        loop = plan.loops.get(loop_id)
        loc = defs.get(v) or (loop.loc if loop else None)
        out.append(SavedValue(v.hint or "(temporary)", v.type, loc.line if loc else 0,
                              loc.file if loc else "", loop.loc.line if loop and loop.loc else 0))
    return sorted(out, key=lambda s: (s.loop_line, s.line, s.name))


def saved_to_json(saved) -> list:
    """The report as JSON rows (for the persistent cache)."""
    return [[s.name, _type_to_json(s.type), s.line, s.file, s.loop_line] for s in saved]


def saved_from_json(rows) -> list[SavedValue]:
    return [SavedValue(name, _type_from_json(t), line, file, loop_line)
            for name, t, line, file, loop_line in rows]


def _type_to_json(t: T.Type):
    if isinstance(t, T.Array):
        return ["array", t.ndim, t.kind, list(t.shape) if t.shape is not None else None]
    return [type(t).__name__, str(t)]


def _type_from_json(row) -> T.Type:
    if row[0] == "array":
        return T.Array(row[1], row[2], tuple(row[3]) if row[3] is not None else None)
    simple = {"Float": T.FLOAT, "Int": T.INT, "Bool": T.BOOL, "Num": T.NUM, "NoneT": T.NONE, "Str": T.STR}
    return simple.get(row[0], T.Opaque(row[1]))
