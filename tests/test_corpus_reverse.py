"""Reverse mode over the corpus, against float64 central finite differences."""

import numpy as np
import pytest
from corpus import branches, calls, closures, generators, loops, objects, straight, unpacking
from oracle import assert_tree_close, fd_grad

import srcad

FAMILIES = [straight, branches, calls, loops, closures, unpacking, generators, objects]


def _differentiable_positions(args):
    return [i for i, a in enumerate(args)
            if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")
            or isinstance(a, (tuple, list, dict))]


def _cases():
    for mod in FAMILIES:
        for k, (fn, args) in enumerate(mod.CASES):
            for i in _differentiable_positions(args):
                yield pytest.param(fn, args, i, id=f"{mod.__name__.split('.')[-1]}-{fn.__name__}-{k}-arg{i}")


@pytest.mark.parametrize("fn,args,argnum", list(_cases()))
def test_grad_matches_finite_differences(fn, args, argnum):
    g = srcad.grad(fn, argnums=argnum)(*args)
    ref = fd_grad(fn, args, argnum)
    assert_tree_close(g, ref, rtol=1e-5, atol=1e-6, what=fn.__name__)
    if isinstance(args[argnum], float):
        assert isinstance(g, float), f"a float argument must get a float gradient, got {type(g)}"


@pytest.mark.parametrize("fn,args", [pytest.param(fn, args, id=fn.__name__) for mod in FAMILIES
                                      for fn, args in mod.CASES[:3]])
def test_value_and_grad_value_is_the_function_value(fn, args):
    value, _ = srcad.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)
