"""Measure one (case, size): check every gradient against the hand-written one, then time it.

A wrong gradient is still timed but marked WRONG; an exception is reported as an error with
its message. Nothing here asserts: the tables are the output.
"""

from __future__ import annotations

import functools
import traceback
from dataclasses import dataclass, field

import numpy as np

import srcad

from . import peers
from .case import fresh
from .faults import fresh_faults
from .timing import best_times, first_call_time, peak_memory


@dataclass
class Cell:
    seconds: float | None = None
    status: str = "ok"        # ok | WRONG | error | skip
    detail: str = ""


@dataclass
class Row:
    case: str
    size: str
    cells: dict = field(default_factory=dict)   # "forward", "hand", "srcad", peer labels -> Cell
    first_ms: float | None = None
    memory: tuple | None = None                 # (srcad peak, hand peak) in bytes
    faults: tuple | None = None                 # (srcad faults, seconds, hand faults, seconds) per call


def mismatch(got: tuple, expected: tuple) -> str:
    """'' when got matches expected (np.allclose per part), else what differs."""
    if len(got) != len(expected):
        return f"{len(got)} gradients, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            return f"gradient {i}: shape {g.shape}, expected {e.shape}"
        scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
        if not np.allclose(g, e, rtol=1e-6, atol=1e-9 * scale):
            return f"gradient {i}: max abs error {float(np.max(np.abs(g - e))):.3g} (scale {scale:.3g})"
    return ""


def describe(exc: BaseException) -> str:
    """The exception and the innermost frame it came from (generated code shows as <srcad ...>)."""
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" [{frame.filename}:{frame.lineno}: {frame.line}]" if frame else ""
    return f"{type(exc).__name__}: {exc}{where}"


class Cells:
    """The implementations of one table row: each checked when added, all timed together."""

    def __init__(self):
        self.cells: dict = {}
        self._runs: dict = {}

    def add(self, label: str, make, unpack=None, expected=()) -> Cell:
        """Build the call (make()), run it once and check the result against expected (when
        unpack is given); a wrong result is still timed but marked WRONG."""
        try:
            run = make()
            result = run()
            problem = mismatch(unpack(result), expected) if unpack is not None else ""
        except Exception as exc:  # a failing implementation is a table entry, not a crash
            cell = self.cells[label] = Cell(status="error", detail=describe(exc))
            return cell
        self._runs[label] = run
        cell = self.cells[label] = Cell(status="WRONG" if problem else "ok", detail=problem)
        return cell

    def skip(self, label: str) -> None:
        self.cells[label] = Cell(status="skip")

    def time(self, budget) -> dict:
        for label, seconds in best_times(self._runs, budget).items():
            self.cells[label].seconds = seconds
        return self.cells


def first_call_ms(cells: dict, make_fresh):
    """Transformation time in ms: the first call of a freshly transformed function minus a
    steady-state call (cells["srcad"]). None if srcad failed; a failing first call is
    reported as a cell of its own, "first call"."""
    steady = cells["srcad"]
    if steady.status == "error":
        return None
    try:
        return (first_call_time(make_fresh()) - steady.seconds) * 1e3
    except Exception as exc:
        cells["first call"] = Cell(status="error", detail=describe(exc))
        return None


def measure(case, size, budget, skip_peers=()) -> Row:
    """One table row; peers in skip_peers (or in the size's peer_limit) show as "skip"."""
    args = size.build()
    unpack = case.unpack
    expected = unpack((case.hand_grad or case.check)(*args))

    def srcad_run(fn):
        return functools.partial(srcad.grad(fn, argnums=case.argnums), *args)

    cells = Cells()
    cells.add("forward", lambda: functools.partial(case.forward, *args))
    if case.hand_grad is None:
        cells.skip("hand")
    else:
        cells.add("hand", lambda: functools.partial(case.hand_grad, *args), unpack, expected)
    cells.add("srcad", lambda: srcad_run(case.forward), unpack, expected)
    for label, make, peer_unpack in peers.gradients(case, args, tuple(size.peer_limit) + tuple(skip_peers)):
        if make is None:
            cells.skip(label)
        else:
            cells.add(label, make, peer_unpack, expected)
    row = Row(case.name, size.label, cells.time(budget))
    row.first_ms = first_call_ms(row.cells, lambda: srcad_run(fresh(case.forward)))
    if row.cells["srcad"].status != "error" and case.memory:
        row.memory = (peak_memory(srcad_run(case.forward)),
                      peak_memory(functools.partial(case.hand_grad, *args)))
    if row.cells["srcad"].status != "error" and case.faults:  # (each in a new process: faults.py)
        row.faults = fresh_faults(case, size, "srcad") + fresh_faults(case, size, "hand")
    return row
