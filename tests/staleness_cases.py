"""Shapes of code the source-vs-code check must accept (tests/test_staleness.py loads a copy;
not a test module, so pytest does not rewrite it)."""

from __future__ import annotations

import math
import math as m2
from math import sin


def deco(f):
    return f

@deco
def decorated(x: float) -> float:
    return sin(x) * math.cos(x) + m2.tan(x)

class Base:
    def m(self, x):
        return x

class C(Base):
    __slots__ = ()
    def m(self, x):
        self.__private = 1 if False else None
        return super().m(x) * 2

    @staticmethod
    def s(x):
        return [i * x for i in range(3)]

    lam = staticmethod(lambda x: x.__y if False else x + 1)

def outer(a):
    b = 2
    def inner(x, *, k=3):
        nonlocal b
        class Local:
            def q(self):
                return a
        return x * a + b + k
    return inner

def make_method_closure():
    c = 5
    class K:
        def meth(self, x):
            return x * c + super().__hash__() * 0
    return K

def gen(x):
    yield from (i * x for i in range(2))

def with_try(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        return 0.0
    finally:
        pass

multi = (lambda x, y:  # noqa: E731 (a lambda over several lines is the case)
         x * y +
         1)
pair = [lambda u: u + 1, lambda v: v * 2]
curried = (lambda a: lambda x: x * a)(3)

def nested_lambda(z):
    return (lambda w: w * z)

def docstr(x):
    """  A docstring
with a line at column 0
       and indented."""
    return x

class Outer:
    class Inner:
        def deep(self, x):
            return self.__v if False else x

def with_nested_class(x):
    class N:
        y = 1
    return N.y * x

alias_mod = math
from json import dumps as json_dumps  # noqa: E402 (an import between functions is the case)


def mixed(x):
    return math.sin(x) + alias_mod.cos(x) + len(json_dumps.__name__)
