"""Text form of the IR, for tests, `srcad show --stage ssa` and debugging.

    def f(%x0: float, %n1: int):
      %s4 = for %i2 in range(0, %n1, 1) carry(%s3 = 0.0):
        %5: float = mul(%s3, %x0)
        yield %5
      return %s4
"""

from __future__ import annotations

from .nodes import Apply, Atom, Block, For, Function, If, Var, While


def _atom(a: Atom) -> str:
    return repr(a)


def _typed(v: Var) -> str:
    return f"{v!r}: {v.type}"


def _outs(outs: tuple[Var, ...]) -> str:
    return ", ".join(map(_typed, outs))


def _apply(op: Apply) -> str:
    args = [_atom(a) for a in op.args] + [f"{k}={_atom(a)}" for k, a in op.kw]
    line = f"{op.prim}({', '.join(args)})"
    return f"{_outs(op.outs)} = {line}" if op.outs else line


def _carry(params: tuple[Var, ...], init: tuple[Atom, ...]) -> str:
    pairs = ", ".join(f"{p!r} = {_atom(i)}" for p, i in zip(params, init))
    return f" carry({pairs})" if pairs else ""


def _block_lines(block: Block, indent: str, keyword: str = "yield") -> list[str]:
    lines: list[str] = []
    for op in block.ops:
        lines.extend(_op_lines(op, indent))
    lines.append(f"{indent}{keyword} {', '.join(map(_atom, block.yields))}".rstrip())
    return lines


def _op_lines(op, indent: str) -> list[str]:
    inner = indent + "  "
    if isinstance(op, Apply):
        return [indent + _apply(op)]
    head = f"{indent}{_outs(op.outs)} = " if op.outs else indent
    if isinstance(op, If):
        return (
            [f"{head}if {_atom(op.cond)}:"]
            + _block_lines(op.then, inner)
            + [f"{indent}else:"]
            + _block_lines(op.orelse, inner)
        )
    if isinstance(op, For):
        i, carried = op.body.params[0], op.body.params[1:]
        rng = f"range({_atom(op.start)}, {_atom(op.stop)}, {_atom(op.step)})"
        if op.reverse:
            rng = f"reversed({rng})"
        flags = " exits" if op.exits else ""
        return [f"{head}for {i!r} in {rng}{_carry(carried, op.init)}{flags}:"] + _block_lines(
            op.body, inner
        )
    if isinstance(op, While):
        flags = " exits" if op.exits else ""
        return (
            [f"{head}while{_carry(op.cond.params, op.init)}{flags}:"]
            + _block_lines(op.cond, inner, "cond")
            + [f"{indent}do{_carry(op.body.params, op.init)}:"]
            + _block_lines(op.body, inner)
        )
    raise TypeError(op)


def format_function(fn: Function) -> str:
    params = ", ".join(_typed(p) for p in fn.body.params)
    lines = [f"def {fn.name}({params}):"] + _block_lines(fn.body, "  ", "return")
    return "\n".join(lines) + "\n"
