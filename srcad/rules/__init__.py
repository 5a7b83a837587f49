"""Derivative rules: the registry and one module per family of primitives."""

from . import (  # noqa: F401  (importing a family registers its rules)
    builtins_,
    internal,
    math_,
    numpy_arrays,
    numpy_elementwise,
    operators,
)
from .registry import RULES, Rule, defrule, lookup, rule_for_object

__all__ = ["RULES", "Rule", "defrule", "lookup", "rule_for_object"]
