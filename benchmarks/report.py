"""Tables: cells to text, one text table and one Markdown table per group, machine info, and
writing the Markdown sections into a file between <!-- bench:GROUP --> markers."""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from dataclasses import dataclass, field

import numpy as np

from . import peers

TITLES = {
    "core": "Core: gradients of vectorised NumPy functions (issue 2)",
    "loops": "Loops: scalar and array loops (issue 3)",
    "numba": "The numba target on the loop problems: hand-written numba, jax.jit of lax.scan (issue 16)",
    "stats": "scipy.stats: a hierarchical model's log density (issue 14)",
    "gradbench": "GradBench objectives: derivative against primal (issue 16)",
    "adjoint": "ODE solutions: a gradient through odeint by the adjoint method (issue 14)",
    "compose": "Composed transformations: vmap(grad) per-example gradients, jacrev (issue 15)",
    "budget": "A long loop's gradient within a memory budget: checkpointed segments (issue 15)",
    "forward": "Forward mode and second order (issue 4)",
    "startup": "First call in a new process: persistent cache off, cold, warm (issue 6)",
    "fresh": "A lambda, closure or partial made anew on every call (issue 13)",
    "gallery": "The gallery: programs as their authors write them, gradient against forward (issue 13)",
}

TEXT_COLUMNS = ("case", "size", "op", "reference")


@dataclass
class Table:
    headers: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    problems: int = 0             # wrong or failing derivatives among the notes


def us(seconds) -> str:
    v = seconds * 1e6
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def ratio(r) -> str:
    return f"{r:.2f}" if r < 10 else f"{r:.1f}" if r < 100 else f"{r:,.0f}"


def cell_text(cell) -> str:
    if cell is None:
        return "-"
    if cell.status in ("error", "skip"):
        return "ERROR" if cell.status == "error" else "skip"
    return us(cell.seconds) + (" WRONG" if cell.status == "WRONG" else "")


def ratio_text(cell, ref) -> str:
    if cell is None or ref is None or cell.seconds is None or ref.seconds is None:
        return "-"
    return ratio(cell.seconds / ref.seconds)


def _notes(row, prefix: str) -> list:
    return [f"{prefix} {label}: {cell.status}: {cell.detail}"
            for label, cell in row.cells.items() if cell.status in ("error", "WRONG")]


def _peer_labels(rows) -> list:
    return [label for label in peers.LABELS if any(label in r.cells for r in rows)]


def gradient_table(rows) -> Table:
    labels = _peer_labels(rows)
    memory = any(r.memory for r in rows)
    faults = any(r.faults for r in rows)
    headers = ["case", "size", "forward µs", "hand µs", "srcad µs", "srcad/fwd", "srcad/hand",
               "first call ms"]
    if faults:
        headers += ["hand faults", "srcad faults", "faults srcad/hand", "fresh srcad/hand"]
    headers += [h for label in labels for h in (f"{label} µs", f"{label}/hand")]
    if memory:
        headers += ["srcad peak KiB", "hand peak KiB", "peak srcad/hand"]
    table = Table(headers)
    for r in rows:
        c = r.cells
        line = [r.case, r.size, cell_text(c["forward"]), cell_text(c["hand"]), cell_text(c["srcad"]),
                ratio_text(c["srcad"], c["forward"]), ratio_text(c["srcad"], c["hand"]),
                "-" if r.first_ms is None else f"{r.first_ms:.1f}"]
        if faults:
            line += (["-"] * 4 if not r.faults else
                     [f"{r.faults[2]:,.0f}", f"{r.faults[0]:,.0f}", _fault_ratio(r.faults[0], r.faults[2]),
                      ratio(r.faults[1] / r.faults[3])])
        for label in labels:
            line += [cell_text(c.get(label)), ratio_text(c.get(label), c["hand"])]
        if memory:
            line += (["-"] * 3 if not r.memory else
                     [f"{r.memory[0] / 1024:,.0f}", f"{r.memory[1] / 1024:,.0f}",
                      ratio(r.memory[0] / max(r.memory[1], 1))])
        table.rows.append(line)
        table.notes += _notes(r, f"{r.case} {r.size}")
    table.problems = len(table.notes)
    return table


def _fault_ratio(srcad: float, hand: float) -> str:
    """srcad/hand faults; '-' when both are (nearly) none, since then the ratio is noise."""
    return "-" if max(srcad, hand) < 1.0 else ratio(srcad / max(hand, 0.1))


def forward_table(rows, missing=()) -> Table:
    labels = _peer_labels(rows)
    headers = ["case", "size", "op", "srcad µs", "reference", "ref µs", "srcad/ref", "hand µs",
               "first call ms"] + [h for label in labels for h in (f"{label} µs", f"{label}/ref")]
    table = Table(headers)
    for r in rows:
        c = r.cells
        line = [r.case, r.size, r.op, cell_text(c["srcad"]), r.reference, cell_text(c["reference"]),
                ratio_text(c["srcad"], c["reference"]), cell_text(c.get("hand")),
                "-" if r.first_ms is None else f"{r.first_ms:.1f}"]
        for label in labels:
            line += [cell_text(c.get(label)), ratio_text(c.get(label), c["reference"])]
        table.rows.append(line)
        table.notes += _notes(r, f"{r.case} {r.size} {r.op}")
    table.problems = len(table.notes)
    if missing:
        table.notes.append("not available in srcad yet (rows skipped): " + ", ".join(missing))
    return table


def render_text(table: Table) -> str:
    cells = [table.headers] + table.rows
    widths = [max(len(str(line[i])) for line in cells) for i in range(len(table.headers))]

    left = [h in TEXT_COLUMNS for h in table.headers]

    def fmt(line):
        return "  ".join(str(v).ljust(w) if is_left else str(v).rjust(w)
                         for v, w, is_left in zip(line, widths, left))

    out = [fmt(table.headers), "  ".join("-" * w for w in widths)] + [fmt(line) for line in table.rows]
    return "\n".join(out + [f"  ! {note}" for note in table.notes])


def render_markdown(table: Table) -> str:
    out = ["| " + " | ".join(table.headers) + " |",
           "|" + "|".join("---" if h in TEXT_COLUMNS else "---:" for h in table.headers) + "|"]
    out += ["| " + " | ".join(line) + " |" for line in table.rows]
    if table.notes:
        out += [""] + [f"- {note.replace('|', '/')}" for note in table.notes]
    return "\n".join(out)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def srcad_revision() -> str:
    """The commit the measured srcad comes from, noting uncommitted changes under srcad/."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "srcad")
    except OSError:
        return "unknown revision"
    return (head or "unknown revision") + (" + uncommitted changes" if dirty else "")


def machine_info() -> str:
    versions = ", ".join(f"{name} {v}" if v else f"{name} not installed"
                         for name, v in peers.versions().items())
    threads = os.environ.get("OPENBLAS_NUM_THREADS")
    threads = f"{threads} thread(s) per library" if threads else "default threads"
    return (f"{cpu_model()} ({os.cpu_count()} cores, {threads}), "
            f"Python {platform.python_version()}, NumPy {np.__version__}; srcad {srcad_revision()}; "
            f"peers: {versions}; {datetime.date.today().isoformat()}")


def write_markdown(path: str, sections: dict, info: str, command: str) -> None:
    """Put each group's table between its markers in `path` (appending new sections)."""
    text = open(path).read() if os.path.exists(path) else "# srcad performance\n"
    for group, table in sections.items():
        block = (f"<!-- bench:{group} -->\n_{info}; `{command}`_\n\n"
                 f"{render_markdown(table)}\n<!-- /bench:{group} -->")
        pattern = re.compile(rf"<!-- bench:{group} -->.*?<!-- /bench:{group} -->", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda m: block, text)  # noqa: B023 (called at once)
        else:
            text = text.rstrip("\n") + f"\n\n## {TITLES[group]}\n\n{block}\n"
    with open(path, "w") as f:
        f.write(text)
