"""Derivative rules: the registry and one module per family of primitives."""

# importing a family registers its rules; order matters only for aliases, which copy an
# already registered rule (operators first; numpy_methods after the functions it mirrors)
from . import operators
from . import builtins_, math_, numpy_elementwise, numpy_arrays, internal  # noqa: E401,I001
from . import numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_norms  # noqa: E401
from . import numpy_nondiff, helpers, numpy_methods, scipy_special  # noqa: E401

FAMILIES = (operators, builtins_, math_, numpy_elementwise, numpy_arrays, internal,
            numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_norms,
            numpy_nondiff, helpers, numpy_methods, scipy_special)
from .registry import RULES, Rule, defrule, lookup, rule_for_object

__all__ = ["FAMILIES", "RULES", "Rule", "defrule", "lookup", "rule_for_object"]
