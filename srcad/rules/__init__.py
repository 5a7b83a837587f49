"""Derivative rules: the registry and one module per family of primitives."""

# importing a family registers its rules; order matters only for aliases, which copy an
# already registered rule (operators first; numpy_methods after the functions it mirrors)
from .registry import RULES, Rule, defrule, lazy_family, lazy_templates, load_all, lookup, rule_for_object

# isort: off
with lazy_templates():  # (parsed on first use; tests/test_one_home.py checks them all)
    from . import operators
    from . import builtins_, math_, numpy_elementwise, numpy_arrays, internal
    from . import numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_spectral
    from . import numpy_norms, matrix_functions, convolution, numpy_fft, numpy_eig
    from . import numpy_numerics
    from . import numpy_order, numpy_ufuncs
    from . import numpy_nondiff, helpers, numpy_methods
    from . import numpy_statistics
# isort: on

FAMILIES = (operators, builtins_, math_, numpy_elementwise, numpy_arrays, internal,
            numpy_reductions, numpy_shape, numpy_products, numpy_linalg, numpy_spectral, numpy_norms,
            matrix_functions, convolution, numpy_fft, numpy_eig,
            numpy_numerics, numpy_order, numpy_ufuncs,
            numpy_nondiff, helpers, numpy_methods, numpy_statistics)

# scipy is optional and slow to import: its rules load when your code has imported it
lazy_family("scipy", "srcad.rules.scipy_special")
lazy_family("scipy.stats", "srcad.rules.scipy_stats")
lazy_family("scipy.integrate", "srcad.rules.integrate")
lazy_family("scipy.linalg", "srcad.rules.scipy_linalg")
lazy_family("scipy.signal", "srcad.rules.scipy_signal")
lazy_family("scipy.fft", "srcad.rules.scipy_fft")

__all__ = ["FAMILIES", "RULES", "Rule", "defrule", "lazy_family", "load_all", "lookup", "rule_for_object"]
