"""A picture of the gradient tables: each implementation's time relative to the hand-written
gradient (log scale), one group of bars per benchmark row. Needs matplotlib (the `plot`
extra); without it, run.py says so and writes no picture."""

from __future__ import annotations

import numpy as np

SERIES = (("srcad", "#1b6ca8"), ("autograd", "#d98c1f"), ("jax.jit", "#4a9d5b"), ("torch", "#b5443c"))


def _ratio(row, label):
    cell, hand = row.cells.get(label), row.cells.get("hand")
    if cell is None or hand is None or cell.status not in ("ok",) or not cell.seconds or not hand.seconds:
        return np.nan
    return cell.seconds / hand.seconds


def plot_ratios(rows, path: str, title: str) -> bool:
    """Write the bar chart of `rows` (gradient-table rows) to `path`; False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels = [f"{r.case} {r.size}" for r in rows]
    series = [(name, color) for name, color in SERIES if any(np.isfinite(_ratio(r, name)) for r in rows)]
    y = np.arange(len(rows))
    height = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) * max(len(series), 1) / 2 + 1.5))
    for k, (name, color) in enumerate(series):
        ratios = [_ratio(r, name) for r in rows]
        ax.barh(y + (k - (len(series) - 1) / 2) * height, ratios, height, label=name, color=color)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("gradient time / hand-written gradient time (log scale; 1 = as fast as by hand)")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
