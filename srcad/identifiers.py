"""Python identifiers made from arbitrary text, for names that reach generated code.

srcad executes only text it built from the user's function source and its own templates.
Names taken from objects (`__name__` of a callable, a parameter name from a signature) are
data: anyone can set them to `"x):\\n import os\\n def y("`. Before such a name becomes part
of generated text it goes through `identifier`, which keeps it when it is a plain identifier
and otherwise replaces every other character by `_` (deterministically, so the generated
text stays the same from run to run):

    identifier("rosen")                    -> 'rosen'
    identifier("<lambda>")                 -> '_lambda_'
    identifier("class")                    -> 'class_'
    identifier("x):\\n import os\\n def y(") -> 'x____import_os__def_y_'
"""

from __future__ import annotations

import keyword
import re
import unicodedata

_NOT_WORD = re.compile(r"[^0-9A-Za-z_]")


def is_identifier(text: object) -> bool:
    """A name Python reads back exactly as written: an identifier, not a keyword, and
    unchanged by the NFKC normalisation the compiler applies to names."""
    return (isinstance(text, str) and text.isidentifier() and not keyword.iskeyword(text)
            and unicodedata.normalize("NFKC", text) == text)


def identifier(text: object, fallback: str = "f") -> str:
    """`text` if it is a safe identifier, else an ASCII identifier made from it."""
    if is_identifier(text):
        return text
    if not isinstance(text, str):
        return fallback
    clean = _NOT_WORD.sub("_", text)
    if not clean:
        return fallback
    if clean[0].isdigit():
        clean = "_" + clean
    return clean + "_" if keyword.iskeyword(clean) else clean
