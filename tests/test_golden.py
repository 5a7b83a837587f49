"""Golden files of generated source: reviewers read the diff; they double as documentation.

Rewrite them with `python -m pytest tests/test_golden.py --update-golden`.
"""

import builtins
import os

import numpy as np
import pytest
from corpus import branches, calls, family, loops, straight
from sourcemod import import_source

import srcad

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
rng = np.random.default_rng(0)

CASES = {
    "grad_poly": (srcad.grad, straight.poly, (1.3,)),
    "grad_math_chain": (srcad.grad, straight.math_chain, (0.6,)),
    "grad_numpy_binary": (srcad.grad, straight.numpy_binary, (np.ones(3), np.ones(3))),
    "grad_matrix_products": (srcad.grad, straight.matrix_products, (np.ones((2, 3)), np.ones(3))),
    "grad_elif_chain": (srcad.grad, branches.elif_chain, (0.5,)),
    "grad_early_return": (srcad.grad, branches.early_return, (0.5,)),
    "grad_two_calls": (lambda f: srcad.grad(f, argnums=(0, 1)), calls.two_calls, (0.3, 0.5)),
    "value_and_grad_tuple_assign": (srcad.value_and_grad, straight.tuple_assign, (0.5, 0.25)),
    "grad_broadcasting": (srcad.grad, straight.broadcasting, (np.ones((3, 4)), np.ones(4))),
    "grad_reductions": (srcad.grad, straight.reductions, (np.ones((2, 3)),)),
    "grad_boolean_ops": (srcad.grad, branches.boolean_ops, (0.5, 0.7)),
    "grad_ode_euler": (lambda f: srcad.grad(f, argnums=(0, 1)), loops.ode_euler, (0.7, 1.3)),
    "grad_newton_sqrt": (srcad.grad, loops.newton_sqrt, (2.0,)),
    "grad_break_continue": (srcad.grad, loops.break_continue, (0.4,)),
    "grad_nested_loops": (srcad.grad, loops.nested, (0.3, 4)),
    "grad_fill_loop": (srcad.grad, loops.fill_loop, (np.ones(4),)),
    "grad_slice_updates": (srcad.grad, loops.slice_updates, (np.ones(4),)),
    "grad_local_lists": (srcad.grad, loops.local_lists, (0.6,)),
    "grad_carried_tuple": (srcad.grad, loops.carried_tuple, (0.7,)),
    "grad_rnn_cell": (lambda f: srcad.grad(f, argnums=(0, 1)), loops.rnn_cell,
                      (np.ones((3, 3)), np.ones((3, 2)), np.ones((4, 3, 2)))),
    "grad_rnn_cell_batch1": (lambda f: srcad.grad(f, argnums=(0, 1)), loops.rnn_cell,
                             (np.ones((3, 3)), np.ones((3, 1)), np.ones((4, 3, 1)))),
    "grad_rows": (lambda f: srcad.grad(f, argnums=(0, 1)), loops.rows, (np.ones((3, 2)), np.ones(2))),
    "grad_comprehension_each_step": (srcad.grad, loops.comprehension_each_step, (0.7,)),
    "grad_mlp_last_preactivation": (srcad.grad, loops.mlp_last_preactivation,
                                    ([(np.ones((3, 4)), np.ones(4)), (np.ones((4, 2)), np.ones(2))],
                                     np.ones((5, 3)))),
    "grad_list_state": (srcad.grad, calls.list_state, (0.7,)),
    "grad_mlp_params": (srcad.grad, family.mlp_params,
                        ({"W1": np.ones((3, 2)), "b1": np.ones(3), "W2": np.ones((2, 3))}, np.ones(2))),
    "grad_uses_clipped_log": (srcad.grad, family.uses_clipped_log, (0.7,)),
    "grad_grad_scalar_loop": (lambda f: srcad.grad(srcad.grad(f)), family.scalar_loop, (0.3, 4)),
    "jvp_ode_euler": (lambda f: _JvpAll(f), loops.ode_euler, (0.7, 1.3)),
    "jvp_numpy_elementwise": (lambda f: _JvpAll(f), straight.numpy_elementwise, (np.ones(3) * 0.5,)),
}


class _JvpAll:
    """jvp with a tangent for every argument, shaped like a transform for the golden test."""

    def __init__(self, f):
        self.f = f

    def __call__(self, *args):
        return srcad.jvp(self.f, args, args)

    @property
    def __srcad_transform__(self):
        return srcad.api._jvp_of(self.f)


def _generate(transform, fn, args):
    g = transform(fn)
    g(*args)
    return srcad.source(g)


def test_enough_golden_files():
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name, update_golden):
    transform, fn, args = CASES[name]
    text = _generate(transform, fn, args)
    path = os.path.join(GOLDEN, f"{name}.py")
    if update_golden or not os.path.exists(path):
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"generated code changed; review and rerun with --update-golden ({path})"


def test_same_input_same_bytes_across_fresh_transforms():
    for name, (transform, fn, args) in CASES.items():
        assert _generate(transform, fn, args) == _generate(transform, fn, args), name


_LOOP = "def f(x, n):\n    for _ in range(n):\n        x = x * x + 0.5\n    return x\n"


def test_generated_names_do_not_depend_on_the_last_value_the_repl_showed(tmp_path, monkeypatch):
    """After the REPL or doctest displays a value, builtins._ holds it: the loop variable `_`
    is still `_` (it was renamed `__1`, so golden files failed after tests/test_doctests.py
    in the same process)."""
    def generated(where):
        (tmp_path / where).mkdir()
        return srcad.source(srcad.grad(import_source(tmp_path / where, "loop", _LOOP).f), 0.3, 3)
    monkeypatch.delattr(builtins, "_", raising=False)
    plain = generated("plain")
    monkeypatch.setattr(builtins, "_", None, raising=False)  # what doctest leaves behind
    assert "for _ in range(n):" in plain and generated("after_repl") == plain
