"""Custom derivative rules for a user's own function, in plain Python.

    @srcad.custom_vjp
    def clip_gradient(x, lo, hi):
        return x

    def clip_gradient_fwd(x, lo, hi):
        return x, (lo, hi)                  # the output, and residuals for the backward rule

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (np.clip(g, lo, hi), None, None)   # one cotangent per argument (None: zero)

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

Generated code calls these functions directly: the forward sweep calls `fwd` and keeps its
residuals (on loop stacks when inside loops), the backward sweep calls `bwd`.

    @srcad.custom_jvp
    def f(x): ...
    @f.defjvp
    def f_jvp(primals, tangents):           # tangents of non-float arguments are 0.0
        (x,) = primals
        (t,) = tangents
        return f(x), 2.0 * t

A function can have both; forward mode needs a jvp rule and reverse mode a vjp rule.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .errors import ArgumentError
from .guarded import guarded

#: what a validate function sees for an argument that is not a literal
RUNTIME = type("RunTime", (), {"__repr__": lambda self: "a value computed at run time"})()


class CustomRule:
    """A user function with its own derivative rules (base of custom_vjp and custom_jvp)."""

    def __init__(self, fun):
        self.fun = fun
        self.fwd = None
        self.bwd = None
        self.jvp = None
        # (srcad's own such functions, srcad/odes.py and implicit.py: the result's type from
        # the arguments' types, and a check of the call's literal arguments -> (message, hint))
        self.result_type = None
        self.validate = None
        self.refuses = ()  # (parameters no derivative may reach: an error where it would)
        self.lifts = None  # (the parameter of extra arguments for a lifted nested function)
        functools.update_wrapper(self, fun)

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def called(self, which: str):
        """The function `which` ("fun", "fwd", "bwd", "jvp") as generated code calls it: the
        user's on read-only views of its arrays (srcad/guarded.py), srcad's own as it is."""
        fn = getattr(self, which)
        if (getattr(self.fun, "__module__", None) or "").split(".")[0] == "srcad":
            return fn
        made = self.__dict__.setdefault("_guarded", {})
        if made.get(which, (None,))[0] is not fn:
            what = "a function with its own derivative rules" if which == "fun" else f"its {which} rule"
            made[which] = (fn, guarded(fn, what, self.fun))
        return made[which][1]

    def defvjp(self, fwd, bwd):
        """fwd(*args) -> (out, residuals); bwd(residuals, g) -> tuple, one entry per argument."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def defjvp(self, jvp):
        """jvp(primals, tangents) -> (out, tangent_out); usable as a decorator."""
        self.jvp = jvp
        return jvp

    def __repr__(self) -> str:
        return f"<srcad custom rule for {getattr(self.fun, '__qualname__', self.fun)!r}>"


def custom_vjp(fun: Callable[..., Any]) -> CustomRule:
    """Decorate a function whose reverse-mode derivative you give with `.defvjp(fwd, bwd)`."""
    return CustomRule(_fixed(fun, "custom_vjp"))


def custom_jvp(fun: Callable[..., Any]) -> CustomRule:
    """Decorate a function whose forward-mode derivative you give with `.defjvp(jvp)`."""
    return CustomRule(_fixed(fun, "custom_jvp"))


def _fixed(fun, kind: str):
    """fun, refused when a call decides its parameters (*args, **kwargs): its rules give one
    derivative per parameter."""
    code = getattr(fun, "__code__", None)
    if code is not None and code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        raise ArgumentError(f"{kind} of {getattr(fun, '__qualname__', fun)}: *args and **kwargs parameters "
                            "are not supported here; give it explicit parameters")
    return fun
