"""The vocabulary of generated code: gast node builders, operator tables, and the
namespace of names generated code refers to."""

from __future__ import annotations

import builtins
import math
import re

import gast
import numpy as np

from ..identifiers import identifier, is_identifier
from ..ir.nodes import Atom, Const

BINOPS = {
    "add": gast.Add, "sub": gast.Sub, "mul": gast.Mult, "truediv": gast.Div, "floordiv": gast.FloorDiv,
    "mod": gast.Mod, "pow": gast.Pow, "matmul": gast.MatMult, "and_": gast.BitAnd, "or_": gast.BitOr,
    "xor": gast.BitXor, "lshift": gast.LShift, "rshift": gast.RShift,
}
INPLACE = {"iadd": "add", "isub": "sub", "imul": "mul", "itruediv": "truediv", "ifloordiv": "floordiv",
           "imod": "mod", "ipow": "pow", "imatmul": "matmul", "iand": "and_", "ior": "or_",
           "ixor": "xor", "ilshift": "lshift", "irshift": "rshift"}
UNARY = {"neg": gast.USub, "pos": gast.UAdd, "not_": gast.Not, "invert": gast.Invert}
COMPARE = {"lt": gast.Lt, "le": gast.LtE, "gt": gast.Gt, "ge": gast.GtE, "eq": gast.Eq, "ne": gast.NotEq,
           "is_": gast.Is, "is_not": gast.IsNot}
ATTRIBUTES = {"T", "shape", "ndim", "size", "dtype", "real", "imag"}
_MODULE_ALIASES = {"numpy": "np"}

def _name(id_: str, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _call(func, args, keywords=()):
    return gast.Call(func=func, args=list(args),
                     keywords=[gast.keyword(arg=k, value=v) for k, v in keywords])


def _attr(value, attr: str):
    return gast.Attribute(value=value, attr=attr, ctx=gast.Load())


def _assign(target, value):
    return gast.Assign(targets=[target], value=value, type_comment=None)


class Namespace:
    """The global names generated code refers to, made unique deterministically."""

    def __init__(self):
        self.names: dict[str, object] = {"np": np, "math": math}
        self.by_id: dict[int, str] = {id(np): "np", id(math): "math"}

    def ref(self, obj: object, want: str) -> str:
        if id(obj) in self.by_id:
            return self.by_id[id(obj)]
        want = want if isinstance(want, str) else "obj"
        clean = re.sub(r"\W+", "_", want).strip("_") or "obj"  # `<lambda>` is `_lambda`
        base = want if is_identifier(want) and not _is_builtin_name(want, obj) else "_" + identifier(clean)
        name, k = base, 1
        while name in self.names:
            name, k = f"{base}_{k}", k + 1
        self.names[name] = obj
        self.by_id[id(obj)] = name
        return name


def _is_builtin_name(name: str, obj) -> bool:
    return hasattr(builtins, name) and getattr(builtins, name) is not obj


def _is_default(rule, name: str, a: Atom) -> bool:
    if not isinstance(a, Const) or name not in rule.defaults:
        return False
    d = rule.defaults[name]
    return type(d) is type(a.value) and d == a.value
