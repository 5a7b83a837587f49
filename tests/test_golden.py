"""Golden files of generated source: reviewers read the diff; they double as documentation.

Rewrite them with `python -m pytest tests/test_golden.py --update-golden`.
"""

import os

import numpy as np
import pytest

import srcad
from corpus import branches, calls, straight

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
}


def _generate(transform, fn, args):
    g = transform(fn)
    g(*args)
    return srcad.source(g)


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
