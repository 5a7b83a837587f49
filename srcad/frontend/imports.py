"""`import` statements inside the function: the module or object is imported while lowering
(as Python would on the call) and the local name holds it as a constant, as a global bound
to it would (`import numpy as np`, `from scipy.special import gammaln as lg`)."""

from __future__ import annotations

import importlib

from ..errors import UnsupportedSyntaxError
from .expr import static_atom


class ImportLowering:
    """Needs `write`, `error` and `parsed` of FunctionLowerer."""

    def stmt_Import(self, node) -> None:
        for alias in node.names:
            module = self._imported(alias.name, node)
            if alias.asname is None:  # (import a.b binds a)
                module = importlib.import_module(alias.name.split(".")[0])
            self.write(alias.asname or alias.name.split(".")[0], static_atom(module))

    def stmt_ImportFrom(self, node) -> None:
        package = getattr(self.parsed.fn, "__globals__", {}).get("__package__")
        name = "." * (node.level or 0) + (node.module or "")
        module = self._imported(name, node, package)
        for alias in node.names:
            if hasattr(module, alias.name):
                obj = getattr(module, alias.name)
            else:  # (a submodule not imported yet)
                obj = self._imported(f"{module.__name__}.{alias.name}", node)
            self.write(alias.asname or alias.name, static_atom(obj))

    def _imported(self, name: str, node, package=None):
        try:
            return importlib.import_module(name, package)
        except ImportError as e:
            raise self.error(UnsupportedSyntaxError, node, f"cannot import {name!r} while transforming: {e}",
                             "import it at module level") from None
