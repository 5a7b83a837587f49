"""Markers: comments and source-map entries carried through astor as string statements.

gast has no node for a comment, so the emitter writes a string constant holding `kind` and a
payload (hex-encoded JSON, so that nothing in it can end the string); after astor has printed
the module, `apply_markers` turns each marker line into a comment ("C") or into the user line
recorded for the next statement ("L"), and drops it.
"""

from __future__ import annotations

import binascii
import json
import re

import gast

MARK = "__srcad__:"
_MARK_RE = re.compile(r"^(\s*)(\"\"\"|\'\'\'|\"|\')" + re.escape(MARK) + r"([0-9a-f]*)\2\s*$")


def marker(kind: str, payload) -> gast.stmt:
    """A statement standing for a comment (kind "C") or a source-map entry (kind "L")."""
    text = binascii.hexlify(json.dumps([kind, payload]).encode()).decode()
    return gast.Expr(value=gast.Constant(value=MARK + text, kind=None))


def real(stmts) -> bool:
    """Does the list hold a statement other than markers?"""
    return any(not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)
                    and isinstance(s.value.value, str) and s.value.value.startswith(MARK)) for s in stmts)


def _one_line(text: str) -> str:
    """Comment text that stays one comment: characters that could end the line (or that
    the compiler refuses, like NUL) are written as escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text)


def apply_markers(text: str) -> tuple[str, dict]:
    """The source with markers made comments, and its map: generated line -> the payload of
    the last "L" marker before it."""
    lines, line_map, pending = [], {}, None
    for raw in text.splitlines():
        m = _MARK_RE.match(raw)
        if m:
            kind, payload = json.loads(binascii.unhexlify(m.group(3)).decode())
            if kind == "C":
                lines.append(f"{m.group(1)}# {_one_line(payload)}" if payload else "")
            else:
                pending = tuple(payload)
            continue
        lines.append(raw)
        if pending is not None:
            line_map[len(lines)] = pending
    return "\n".join(lines) + "\n", line_map
