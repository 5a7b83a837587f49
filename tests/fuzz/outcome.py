"""Outcome classes and failure signatures.

A program's outcome is the worst of its checks' findings, in this order:

    crash         an exception that is not a SrcadError, from srcad or from generated code; a
                  SrcadError that does not name the user's file:line; a hang (timeout)
    wrong         a number (or a structure) that disagrees with an oracle; a derivative
                  returned where f itself raises
    reject        a SrcadError naming the user's file:line (srcad refuses, as documented)
    inconclusive  finite differences were unreliable at the point for some entry
    pass

A finding's signature (`kind:check:detail`) groups failures: the shrinker keeps a candidate
only if it reproduces the signature, and a campaign counts distinct signatures."""

from __future__ import annotations

import os
import traceback
from dataclasses import asdict, dataclass

ORDER = ["crash", "wrong", "reject", "inconclusive", "pass"]


@dataclass
class Finding:
    kind: str       # one of ORDER
    check: str      # grad, jvp, vjp, jacfwd, hessian, cache, codegen, ...
    detail: str     # what went wrong, short and stable (for grouping)
    message: str = ""

    @property
    def signature(self) -> str:
        return f"{self.kind}:{self.check}:{self.detail}"

    def as_dict(self) -> dict:
        return asdict(self)


def worst(findings: list[Finding]) -> str:
    kinds = {f.kind for f in findings}
    return next((k for k in ORDER if k in kinds), "pass")


def first_of(findings: list[Finding], kind: str) -> Finding | None:
    return next((f for f in findings if f.kind == kind), None)


def crash_detail(e: BaseException) -> str:
    """Exception type and the innermost frame in srcad or in generated code."""
    where = "?"
    for fr in reversed(traceback.extract_tb(e.__traceback__)):
        norm = fr.filename.replace(os.sep, "/")
        if "/srcad/" in norm:
            where = norm.rsplit("/srcad/", 1)[1] + ":" + fr.name
            break
        if fr.filename.startswith("<srcad"):
            where = "generated code"
            break
        if "/fz_" in norm:
            where = "program"
            break
    return f"{type(e).__name__}@{where}"


def located(e, path: str) -> bool:
    """Does a SrcadError name a line of the user's file?"""
    base = os.path.basename(path)
    for d in getattr(e, "diagnostics", ()):
        if d.line and d.file and os.path.basename(d.file) == base:
            return True
    return False


def short_traceback(e: BaseException, limit: int = 4000) -> str:
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return text if len(text) <= limit else text[:1000] + "\n...\n" + text[-(limit - 1000):]
