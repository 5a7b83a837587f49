"""srcad: source-transformation automatic differentiation for Python and NumPy.

    import srcad

    @srcad.grad
    def f(x):
        return x * np.sin(x)

    f(1.0)               # the derivative, computed by generated Python code
    print(srcad.source(f))
"""

__version__ = "0.1.0"

from . import rules  # noqa: E402  (importing registers the rule tables)
from .api import grad, jvp, saved_values, source, stop_gradient, value_and_grad, vjp  # noqa: E402
from .cache import config  # noqa: E402
from .cache_files import CacheWarning  # noqa: E402
from .compose import hessian, hvp, jacfwd, jacrev  # noqa: E402
from .custom import custom_jvp, custom_vjp  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError,
    NonScalarOutputError,
    NoRuleError,
    RecursionNotSupportedError,
    SourceUnavailableError,
    SrcadError,
    StaleSourceError,
    TypeSupportError,
    UnsafeMutationError,
    UnsupportedSyntaxError,
)
from .rules.registry import public_defrule as defrule  # noqa: E402

__all__ = [
    "rules",
    "grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "hvp",
    "stop_gradient", "source", "saved_values", "custom_vjp", "custom_jvp", "defrule", "config",
    "CacheWarning",
    "SrcadError", "ArgumentError", "NoRuleError", "NonScalarOutputError",
    "RecursionNotSupportedError", "SourceUnavailableError", "StaleSourceError", "TypeSupportError",
    "UnsafeMutationError",
    "UnsupportedSyntaxError",
]
