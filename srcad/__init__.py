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
from .api import grad, jvp, source, stop_gradient, value_and_grad  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError,
    NoRuleError,
    NonScalarOutputError,
    RecursionNotSupportedError,
    SourceUnavailableError,
    SrcadError,
    UnsafeMutationError,
    UnsupportedSyntaxError,
)

__all__ = [
    "rules",
    "grad", "value_and_grad", "jvp", "stop_gradient", "source",
    "SrcadError", "ArgumentError", "NoRuleError", "NonScalarOutputError",
    "RecursionNotSupportedError", "SourceUnavailableError", "UnsafeMutationError",
    "UnsupportedSyntaxError",
]
