"""Recursion resolved while specialising (issue 13): a recursive call is inlined again, as
deep as the specialisation says, when each call is made with different argument types or
constants than the calls it is inside — a type check choosing the branch
(`isinstance(data, list)` on nested lists), a constant int counting down, a tuple or an array
of known length getting shorter — so that a branch folds and the recursion ends. A call
made with the same types and constants as one it is inside can only end on values known
when the code runs: a RecursionNotSupportedError naming the cycle.

    def power(x, n):                      power(x, 3)  ->  power(x, 1)  ->  power(x, 0)
        if n == 0:                        (n a constant: `n == 0` folds, the `if` keeps
            return 1.0                     one branch, and the recursion ends)
        return x * power(x, n - 1)
"""

from __future__ import annotations

from ..errors import RecursionNotSupportedError, diagnostic
from ..ir.nodes import Const, atom_type

#: how deep one function may be inlined into itself, and how many recursive calls in all
MAX_DEPTH = 64
MAX_UNROLLED = 2000


def call_key(args: list) -> tuple:
    """What decides how a call specialises: each argument's type, or its value if constant."""
    return tuple(a if isinstance(a, Const) else atom_type(a) for a in args)


def check_recursion(stack: list, fn, key: tuple, unrolled: int, loc) -> bool:
    """Refuse a call of `fn` (arguments `key`) inside the calls on `stack` ((function, key)
    pairs) that would not end while transforming; True when it is a recursive call."""
    outer = [k for f, k in stack if f is fn]
    if not outer:
        return False
    first = next(i for i, (f, _) in enumerate(stack) if f is fn)
    names = " -> ".join(f.__qualname__ for f, _ in stack[first:]) + f" -> {fn.__qualname__}"
    hint = ("srcad inlines calls, so a recursion must end while transforming: recurse on a "
            "structure whose type says when to stop (isinstance(data, list)) or on a constant int "
            "argument, or rewrite the recursion as a loop")
    if key in outer:
        msg = (f"recursive call ({names}) whose depth is known only when the code runs: it is made "
               "with arguments of the same types and constants as a call it is inside")
    elif len(outer) >= MAX_DEPTH or unrolled >= MAX_UNROLLED:
        msg = (f"recursive call ({names}) that would be inlined more than "
               f"{MAX_DEPTH if len(outer) >= MAX_DEPTH else MAX_UNROLLED} times while transforming")
    else:
        return True
    raise RecursionNotSupportedError(msg, [diagnostic(loc, msg, hint)])
