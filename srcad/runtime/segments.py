"""Checkpointed loops (srcad.grad(f, memory_budget=...)): the loop's iterations split into
segments; the forward sweep stores the carried values once per segment, and the backward
sweep runs each segment forward again, storing its values, before its reverse."""

from __future__ import annotations

import numpy as np

__all__ = ["loop_trips", "segment_length", "segment_count", "segment_bound"]


def loop_trips(start, stop, step):
    """The number of iterations of range(start, stop, step)."""
    return len(range(start, stop, step))


def segment_count(n, k):
    """The number of segments of k iterations that n iterations make."""
    return -(-n // k)


def segment_length(n, budget, iter_bytes, carry_bytes):
    """The number of iterations per segment for a loop of n iterations that stores
    `iter_bytes` per iteration (None: unknown) and `carry_bytes` per checkpoint, so that one
    segment's values and all checkpoints fit in `budget` bytes: the longest such segment
    (fewest checkpoints), or the one needing least memory with a warning when none fits."""
    n = int(n)
    usable = 0.85 * budget  # (lists over-allocate as they grow; the rest is headroom)
    if n <= 1:
        return max(n, 1)
    if not iter_bytes:
        return max(1, int(np.sqrt(n)))
    best = max(1, min(n, int(round(np.sqrt(n * carry_bytes / iter_bytes)))))
    if _needs(n, best, iter_bytes, carry_bytes) > usable:
        import warnings  # (a local import: the helper copies standalone, with numpy alone)
        warnings.warn(f"srcad: memory_budget={budget} bytes is too small for this loop of {n} iterations "
                      f"(two-level checkpointing needs {_needs(n, best, iter_bytes, carry_bytes)} bytes); "
                      f"using segments of {best} iterations", RuntimeWarning, stacklevel=2)
        return best
    lo, hi = best, n  # the longest segment that fits: _needs grows with k past `best`
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _needs(n, mid, iter_bytes, carry_bytes) <= usable:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _needs(n, k, iter_bytes, carry_bytes):
    return k * iter_bytes + -(-n // k) * carry_bytes


def segment_bound(start, step, k, n, s):
    """The first index of segment s (of k iterations) of range(start, start + n * step, step);
    for s past the last segment, the range's end."""
    return start + min(s * k, n) * step
