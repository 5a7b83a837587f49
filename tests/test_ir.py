"""The IR: SSA construction (Braun et al.), the verifier, and golden printed IR."""

import os

import pytest
from corpus import branches, loops, straight

from srcad.ir import types as T
from srcad.ir.builder import Builder
from srcad.ir.nodes import Apply, Block, Const, For, Function, If, Param, Var
from srcad.ir.printer import format_function
from srcad.ir.verify import IRError, verify
from srcad.pipeline import lowered, typed

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_ir")


def _function(body, names=("x",)):
    return Function("f", tuple(Param(n) for n in names), body)


def test_loop_variable_becomes_carried_and_unchanged_ones_do_not():
    b = Builder()
    x = b.fresh("x", T.FLOAT)
    b.begin_function([x])
    b.write("x", x)
    b.write("s", Const(0.0))
    b.write("c", Const(2.0))  # read in the loop but never written there: not carried
    b.begin_for(Const(0), Const(3), Const(1))
    s = b.apply("operator.mul", (b.read("s"), b.read("c")))
    b.write("s", s)
    b.end_for()
    body = b.end_function((b.read("s"),))
    fn = verify(_function(body))
    (loop,) = [op for op in fn.body.ops if isinstance(op, For)]
    assert len(loop.outs) == 1 and loop.init == (Const(0.0),)
    assert loop.body.ops[0].args == (loop.body.params[1], Const(2.0))


def test_if_joins_only_what_differs():
    b = Builder()
    x = b.fresh("x", T.FLOAT)
    b.begin_function([x])
    b.write("y", x)
    b.write("z", x)
    b.begin_if(x)
    b.write("y", b.apply("operator.neg", (x,)))
    b.begin_else()
    b.end_if()
    body = b.end_function((b.read("y"), b.read("z")))
    fn = verify(_function(body))
    (branch,) = [op for op in fn.body.ops if isinstance(op, If)]
    assert len(branch.outs) == 1
    assert fn.body.yields[1] == x  # z is the same on both paths: no phi


def test_verifier_rejects_use_outside_region_and_double_definition():
    v, w = Var(0, "x"), Var(1, "y")
    inner = Block((), (Apply((w,), "operator.neg", (v,)),), (w,))
    leak = Block((v,), (If((Var(2),), Const(True), inner, Block((), (), (v,))),), (w,))
    with pytest.raises(IRError, match="not visible"):
        verify(_function(leak))
    twice = Block((v,), (Apply((v,), "operator.neg", (v,)),), (v,))
    with pytest.raises(IRError, match="defined twice"):
        verify(_function(twice))


CASES = {
    "lowered_early_return": lambda: lowered(branches.early_return).function,
    "lowered_break_continue": lambda: lowered(loops.break_continue).function,
    "lowered_carried_tuple": lambda: lowered(loops.carried_tuple).function,
    "typed_tuple_assign": lambda: typed(straight.tuple_assign, (T.FLOAT, T.FLOAT), {}),
    "typed_carried_tuple": lambda: typed(loops.carried_tuple, (T.FLOAT,), {}),
    "typed_newton_sqrt": lambda: typed(loops.newton_sqrt, (T.FLOAT,), {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_ir(name, update_golden):
    text = format_function(verify(CASES[name]()))
    path = os.path.join(GOLDEN, f"{name}.txt")
    if update_golden or not os.path.exists(path):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        assert text == f.read(), f"printed IR changed; review and rerun with --update-golden ({path})"
