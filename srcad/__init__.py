"""srcad: source-transformation automatic differentiation for Python and NumPy.

    import srcad

    @srcad.grad
    def f(x):
        return x * np.sin(x)

    f(1.0)               # the derivative, computed by generated Python code
    print(srcad.source(f))
"""

from . import rules  # (importing registers the rule tables)
from .api import grad, jvp, saved_values, source, stop_gradient, value_and_grad, vjp
from .cache_files import CacheWarning
from .checkpoint import checkpoint
from .codegen.numba_target import TargetError, TargetFallbackWarning
from .compose import hessian, hvp, jacfwd, jacrev
from .custom import custom_jvp, custom_vjp
from .errors import (
    ArgumentError,
    NondeterministicError,
    NonScalarOutputError,
    NoRuleError,
    RecursionNotSupportedError,
    ShapeError,
    SourceUnavailableError,
    SrcadError,
    StaleSourceError,
    TypeSupportError,
    UnsafeMutationError,
    UnsupportedSyntaxError,
)
from .implicit import custom_root, fixed_point
from .logs import SlowFirstCallWarning
from .maps import linearize, vmap
from .pytrees import register_pytree
from .rules.registry import public_defrule as defrule
from .settings import config
from .version import __version__ as __version__

__all__ = [
    "rules",
    "grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "hvp", "vmap", "linearize",
    "checkpoint",
    "stop_gradient", "source", "saved_values", "custom_vjp", "custom_jvp", "defrule", "config",
    "register_pytree", "fixed_point", "custom_root",
    "CacheWarning", "TargetFallbackWarning", "TargetError", "SlowFirstCallWarning",
    "SrcadError", "ArgumentError", "NoRuleError", "NonScalarOutputError", "NondeterministicError",
    "RecursionNotSupportedError", "ShapeError", "SourceUnavailableError", "StaleSourceError",
    "TypeSupportError", "UnsafeMutationError",
    "UnsupportedSyntaxError",
]
