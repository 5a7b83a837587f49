"""srcad's settings: `srcad.config`, one object whose attributes users set."""

from __future__ import annotations

import os


class Config:
    """Settings.

    - `cache_dir`: a directory for the persistent cache of generated code (None: off; the
      environment variable SRCAD_CACHE_DIR sets it too);
    - `shape_variants`: how many distinct argument shapes (per rank signature) get code
      specialised on their exact shapes before srcad builds one rank-only version that
      serves every shape (default 8; 0: rank-only code from the first call);
    - `strict_target`: when code generated for target="numba" does not compile, raise
      `srcad.TargetError` instead of running the CPython target's code with a
      `srcad.TargetFallbackWarning` (default False; the environment variable
      SRCAD_STRICT_TARGET=1 sets it too);
    - `debug`: comma-separated debugging switches; "ir" logs the IR after each optimisation
      pass to the `srcad` logger at DEBUG level (see srcad/logs.py); "types" makes the code
      built afterwards check each value against the type srcad inferred for it
      (codegen/typechecks.py; an AssertionError is a bug in srcad). The environment variable
      SRCAD_DEBUG (SRCAD_DEBUG=ir,types) sets it too;
    - `slow_call_seconds`: building a transformation's code for a first call that takes
      longer warns with `srcad.SlowFirstCallWarning` (default 1.0; None: never; the
      environment variable SRCAD_SLOW_CALL_SECONDS sets it too, "none" for never);
    - `traceback`: "filtered" (default) hides srcad's own frames from the tracebacks of
      errors that pass through srcad, "full" shows them (the environment variable
      SRCAD_TRACEBACK=full sets it too).
    """

    def __init__(self):
        self.cache_dir = os.environ.get("SRCAD_CACHE_DIR") or None
        self.shape_variants = 8
        self.strict_target = os.environ.get("SRCAD_STRICT_TARGET", "") not in ("", "0")
        self.debug = os.environ.get("SRCAD_DEBUG", "")
        self.slow_call_seconds = _seconds(os.environ.get("SRCAD_SLOW_CALL_SECONDS", ""))
        self.traceback = os.environ.get("SRCAD_TRACEBACK", "") or "filtered"


def _seconds(text: str) -> float | None:
    text = text.strip().lower()
    if text in ("none", "off", "never"):
        return None
    try:
        return float(text) if text else 1.0
    except ValueError:
        return 1.0


config = Config()
