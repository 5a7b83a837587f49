"""For the runnable examples in docstrings (tests/test_doctests.py runs them): the IR of a
small function, typed for example arguments, before any pass, and its text.

    >>> def f(x, n):
    ...     s = 0.0
    ...     for i in range(n):
    ...         s = s * x + 1.0
    ...     return s
    >>> show(ir(f, 2.0, 3))
    def f(%x0: float, %n1: int):
      %s8: float, %i10: int = for %i2 in range(0, %n1, 1) carry(%s3 = 0.0, %i7 = undef):
        %5: float = operator.mul(%s3, %x0)
        %s6: float = operator.add(%5, 1.0)
        yield %s6, %i2
      return %s8
"""

from __future__ import annotations

from .ir.nodes import Function
from .ir.printer import format_function
from .ir.values import of_value
from .pipeline import lowered
from .transforms.specialize import specialize


def ir(fn, *args) -> Function:
    """The IR of `fn` specialised to the types (and shapes) of the example arguments `args`,
    before any pass has run."""
    return specialize(lowered(fn).function, tuple(of_value(a) for a in args))


def show(fn: Function) -> None:
    """Print the IR of `fn`."""
    print(format_function(fn).rstrip("\n"))
