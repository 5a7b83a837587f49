"""Derivative rules: the registry and one module per family of primitives."""

# importing a family registers its rules; order matters only for aliases, which copy an
# already registered rule (operators first; numpy_methods after the functions it mirrors)
from . import operators
from . import builtins_, math_, numpy_elementwise, numpy_arrays, internal  # noqa: E401,I001
from . import numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_spectral  # noqa: E401
from . import numpy_norms  # noqa: E401
from . import numpy_numerics  # noqa: E401
from . import numpy_nondiff, helpers, numpy_methods  # noqa: E401
from .registry import RULES, Rule, defrule, lazy_family, load_all, lookup, rule_for_object

FAMILIES = (operators, builtins_, math_, numpy_elementwise, numpy_arrays, internal,
            numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_spectral, numpy_norms,
            numpy_numerics,
            numpy_nondiff, helpers, numpy_methods)

# scipy is optional and slow to import: its rules load when your code has imported it
lazy_family("scipy", "srcad.rules.scipy_special")

__all__ = ["FAMILIES", "RULES", "Rule", "defrule", "lazy_family", "load_all", "lookup", "rule_for_object"]
