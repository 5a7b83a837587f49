"""The generator's static types: what it knows about every value of a program it writes.

Shapes, int ranges and list lengths are exact where the generator can know them (arguments
have fixed values), so that an index it writes is always in range and a broadcast always
valid; `n=None` marks a list whose length depends on data or on a `break`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ty:
    kind: str                      # float | int | arr | list | tuple | dict | mlist | pobj | obj | fn
    shape: tuple = ()              # arr
    lo: int = 0                    # int: inclusive range of its value
    hi: int = 0
    elem: Ty | None = None         # list: element type
    n: int | None = None           # list: length (None: unknown)
    items: tuple = ()              # tuple, mlist: item types; dict, pobj: (key, type) pairs;
    #                                fn: (parameter type, return type)
    cls: str = ""                  # pobj, obj: the class name; fn: the feature that made it

    def __str__(self) -> str:
        if self.kind == "arr":
            return f"arr{list(self.shape)}"
        if self.kind == "int":
            return f"int[{self.lo}..{self.hi}]"
        if self.kind == "list":
            return f"list[{self.elem}]*{self.n}"
        if self.kind in ("tuple", "dict", "mlist", "pobj"):
            return f"{self.kind}({', '.join(map(str, self.items))})"
        return self.kind


FLOAT = Ty("float")


def A(*shape: int) -> Ty:
    return Ty("arr", tuple(shape))


def INT(lo: int, hi: int) -> Ty:
    return Ty("int", lo=lo, hi=hi)


def LIST(elem: Ty, n: int | None) -> Ty:
    return Ty("list", elem=elem, n=n)


def TUPLE(*items: Ty) -> Ty:
    return Ty("tuple", items=tuple(items))


def DICT(**items: Ty) -> Ty:
    return Ty("dict", items=tuple(items.items()))


def is_float_like(t: Ty) -> bool:
    """Values srcad differentiates: floats, float arrays and containers made only of them."""
    if t.kind in ("float", "arr"):
        return True
    if t.kind == "list":
        return t.elem is not None and is_float_like(t.elem)
    if t.kind in ("tuple", "mlist"):
        return all(is_float_like(i) for i in t.items)
    if t.kind in ("dict", "pobj"):
        return all(is_float_like(v) for _, v in t.items)
    return False


def size(shape: tuple) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def broadcast_parts(shape: tuple) -> list[tuple]:
    """Shapes that broadcast against `shape` without changing it (for the second operand of
    an elementwise operation whose first operand has `shape`)."""
    out = [()]
    for k in range(len(shape)):
        out.append(shape[k:])                                   # trailing axes: (n,) against (m, n)
        out.append(tuple(1 if j == k else d for j, d in enumerate(shape)))  # a length-1 axis
    out.append(shape)
    return sorted(set(out), key=lambda s: (len(s), s))


@dataclass
class Var:
    """A name in scope: its type, whether the function owns it (so writing into it is
    allowed: created by np.zeros, .copy(), [], ...) and whether it is an argument."""

    name: str
    ty: Ty
    owned: bool = False
    arg: bool = False
