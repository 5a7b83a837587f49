"""Test helper: a module written from source text into a directory and imported (srcad reads
a function's source from its file, so the functions tests generate need one)."""

import importlib.util
from pathlib import Path


def import_source(directory, name: str, source: str):
    """Write `source` to directory/name.py and import it as the module `name`."""
    path = Path(directory) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
