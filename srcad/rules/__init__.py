"""Derivative rules: the registry and one module per family of primitives."""

# importing a family registers its rules; order matters only for aliases, which copy an
# already registered rule
from . import operators
from . import builtins_, math_, numpy_elementwise, numpy_arrays, internal  # noqa: E401,I001

FAMILIES = (operators, builtins_, math_, numpy_elementwise, numpy_arrays, internal)
from .registry import RULES, Rule, defrule, lookup, rule_for_object

__all__ = ["FAMILIES", "RULES", "Rule", "defrule", "lookup", "rule_for_object"]
