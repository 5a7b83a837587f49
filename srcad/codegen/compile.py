"""Compile generated source into a function whose code `inspect`, tracebacks and pdb can show.

The source is registered in `linecache` under a file name derived from a hash of the source
(deterministic), so `inspect.getsource(g)` returns the generated lines and a traceback through
generated code shows them. The source map (generated line -> user file and line) is kept too:
`user_location` answers "which line of mine did this come from?".
"""

from __future__ import annotations

import hashlib
import linecache

from ..errors import SOURCE_MAPS, add_note
from .emit import Rendered


def generated_filename(source: str, name: str) -> str:
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    return f"<srcad {name} {digest}>"


def register_source(filename: str, source: str) -> None:
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def register_source_map(filename: str, line_map: dict, offset: int = 0) -> None:
    """Record which user lines the generated lines of `filename` come from (the generated
    function starting `offset` lines into the file)."""
    SOURCE_MAPS.setdefault(filename, {}).update(
        {offset + line: tuple(where) for line, where in line_map.items()})


def compile_function(rendered: Rendered, name: str):
    """Execute the generated `def` in its namespace and return the function."""
    filename = generated_filename(rendered.source, name)
    register_source(filename, rendered.source)
    SOURCE_MAPS[filename] = rendered.line_map
    namespace = dict(rendered.namespace)
    namespace["__name__"] = "srcad.generated"
    exec(compile(rendered.source, filename, "exec"), namespace)
    fn = namespace[name]
    fn.__srcad_source__ = rendered.source
    return fn


def user_location(filename: str, line: int):
    """(user file, user line) that generated `line` of `filename` came from, or None; through
    generated code that came from generated code (a transform's code inlined into another's)
    to the user's file where the maps lead there."""
    got = SOURCE_MAPS.get(filename, {}).get(line)
    for _ in range(8):
        further = SOURCE_MAPS.get(got[0], {}).get(got[1]) if got is not None else None
        if further is None:
            break
        got = further
    return tuple(got[:2]) if got is not None else None


def _also(filename: str, line: int) -> list:
    """Other lines of that user file whose expressions the generated line evaluates."""
    got = SOURCE_MAPS.get(filename, {}).get(line)
    return list(got[2]) if got is not None and len(got) > 2 else []


def add_source_notes(exc: BaseException) -> None:
    """Name the user's lines behind the generated lines in an exception's traceback (as notes;
    on Python 3.10 in the message or a chained `SourceNote`: errors.add_note)."""
    if getattr(exc, "__srcad_noted__", False):
        return
    tb = exc.__traceback__
    notes = []
    while tb is not None:
        code = tb.tb_frame.f_code
        where = user_location(code.co_filename, tb.tb_lineno)
        if where is not None:
            file, line = where
            text = linecache.getline(file, line).strip()
            notes.append(f"srcad: line {tb.tb_lineno} of generated {code.co_name} comes from "
                         f"{file}:{line}: {text}")
            for other in _also(code.co_filename, tb.tb_lineno):
                notes.append(f"       and evaluates {file}:{other}: {linecache.getline(file, other).strip()}")
        tb = tb.tb_next
    for note in notes:
        add_note(exc, note)
    try:
        exc.__srcad_noted__ = True
    except AttributeError:
        pass
