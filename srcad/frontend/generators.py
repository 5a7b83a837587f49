"""Generators consumed where they are called: `for v in gen(...)`, a comprehension over
`gen(...)`, `list(gen(...))`, `tuple`, `sum`, `sorted`, `min`, `max`, `any`, `all`. A mixin
of FunctionLowerer (lower.py).

The generator's body is inlined where it is consumed, and each `yield v` runs the consumer
there: the loop body with `v` as its target (or an append to the list being built). This is
Python's order of evaluation exactly — the generator and the loop take turns — so a
generator that reads what the loop body changes sees the change:

    def unpack_layers(params):               for W, b in unpack_layers(params):
        for i in range(0, len(params), 2):       h = np.tanh(h @ W + b)
            yield params[i], params[i + 1]

A loop over a generator may not leave early (`break`, `return`: the generator would stop
half way, which srcad does not follow); a generator called anywhere else (kept in a
variable, passed to a helper, given to `zip` or `enumerate`) is refused where it is called.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .closures import Closure
from .resolve import own_nodes

#: Builtins that consume an iterable completely, in order, running nothing in between.
CONSUMERS = (list, tuple, sum, sorted, min, max, any, all)


def is_generator(fn) -> bool:
    """Is fn a generator function (a def with `yield` in its own body)?"""
    if isinstance(fn, Closure):
        return any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in own_nodes(fn.node))
    code = getattr(fn, "__code__", None)
    return code is not None and bool(code.co_flags & 0x20)  # (inspect.CO_GENERATOR)


@dataclass
class GeneratorSpace:
    """What a loop over a generator call iterates: the generator and its arguments."""

    fn: object
    args: list
    kw: list


class GeneratorLowering:
    yield_to = None  # the consumer of this generator's values (set when it is inlined)

    def generator_space(self, it) -> GeneratorSpace | None:
        """For a call of a generator function: the generator and its arguments (evaluated
        now, as Python does before the first iteration); None for anything else."""
        fn = self._static_callee(it)
        if fn is None or not is_generator(fn):
            return None
        args, kw = self.call_args(it)
        return GeneratorSpace(fn, args, kw)

    def iterate_generator(self, space: GeneratorSpace, target, lower_body, node, jumps, on_item=None) -> None:
        """`for target in gen(...): lower_body()`, the generator inlined here (`on_item(v)`
        takes each value instead, when given)."""
        if {"brk", "ret"} & set(jumps):
            raise self.error(UnsupportedSyntaxError, node, "'break' or 'return' in a loop over a "
                             "generator is not supported (the generator would stop half way)",
                             "collect the values first (vs = list(gen(...))) and loop over the list")

        def consume(value) -> None:
            depth = len(self.loops)
            brk, cont = self.flag(f"brk{depth}"), self.flag(f"cont{depth}")
            self.loops.append((brk, cont))
            self.write_key(brk, Const(False))
            self.write_key(cont, Const(False))
            if on_item is not None:
                on_item(value)
            else:
                self.assign(target, value)
                lower_body()
            self.loops.pop()
            self.b.kill(brk)
            self.b.kill(cont)

        self.inline_generator(space.fn, space.args, space.kw, consume, node)

    def generator_list(self, it) -> object:
        """The list of the values the generator call `it` yields."""
        space = self.generator_space(it)
        acc = ("gen", next(self.ctx.counter), "_list")
        self.b.var_hints[acc] = "_list"
        self.write_key(acc, self.emit("srcad.list", (), node=it))

        def append(value) -> None:
            self.write_key(acc, self.emit("srcad.list_append", (self.b.read(acc), value), node=it))

        with self.loop_writing({acc}):
            self.iterate_generator(space, None, None, it, (), on_item=append)
        out = self.b.read(acc)
        self.b.kill(acc)
        return out

    def inline_generator(self, fn, args, kw, consume, node) -> None:
        """Inline the generator fn, its values going to `consume`."""
        self.check_recursion(fn, node)
        callee = self.lowerer_of(fn)
        callee.yield_to = consume
        callee.inline(args, kw, node, self)

    def expr_Call(self, node):
        one_call = len(node.args) == 1 and isinstance(node.args[0], gast.Call)
        fn = self._static_callee(node) if one_call else None
        if any(fn is c for c in CONSUMERS):
            if is_generator(self._static_callee(node.args[0])):
                items = self.generator_list(node.args[0])
                kw = [(k.arg, self.value(k.value)) for k in node.keywords if k.arg is not None]
                return self.call_static(fn, [items], kw, node)
        return super().expr_Call(node)

    def expr_Yield(self, node):
        if self.yield_to is None:
            raise self.error(UnsupportedSyntaxError, node, "'yield' outside a generator srcad consumes")
        value = Const(None) if node.value is None else self.value(node.value)
        self.yield_to(value)
        return Const(None)  # (what `x = yield v` receives from a for loop or list())

    def expr_YieldFrom(self, node):
        if self.yield_to is None:
            raise self.error(UnsupportedSyntaxError, node, "'yield from' outside a generator srcad consumes")
        self.iterate(node.value, None, lambda: None, node, on_item=self.yield_to)
        return Const(None)

    def refuse_generator_call(self, fn, node):
        name = getattr(fn, "qualname", None) or getattr(fn, "__qualname__", "the generator")
        return self.error(UnsupportedSyntaxError, node, f"a call of the generator {name} that is not "
                          "consumed where it is called", "iterate it where you call it: for v in "
                          f"{name.split('.')[-1]}(...), or list(...), tuple(...), sum(...) of the call")
