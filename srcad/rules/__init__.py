"""Derivative rules: the registry and one module per family of primitives."""

# order matters only for aliases, which copy an already registered rule
from . import operators  # noqa: F401  (importing a family registers its rules)
from . import builtins_, math_, numpy_elementwise, numpy_arrays, internal  # noqa: F401,E401,I001
from .registry import RULES, Rule, defrule, lookup, rule_for_object

__all__ = ["RULES", "Rule", "defrule", "lookup", "rule_for_object"]
