"""Forward mode over the corpus: against finite differences along a random direction, and
the dot-product test <J v, u> == <v, J^T u> between forward and reverse mode."""

import numpy as np
import pytest
from oracle import fd_jvp
from test_corpus_reverse import FAMILIES, _differentiable_positions

import srcad


def _random_like(x, rng):
    if isinstance(x, float):
        return float(rng.normal())
    if isinstance(x, np.ndarray):
        return rng.normal(size=x.shape)
    if isinstance(x, dict):
        return {k: _random_like(v, rng) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_random_like(e, rng) for e in x)
    return None


def _inner(a, b):
    if isinstance(a, dict):
        return sum(_inner(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return sum(_inner(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def _cases():
    for mod in FAMILIES:
        for k, (fn, args) in enumerate(mod.CASES):
            if _differentiable_positions(args):
                yield pytest.param(fn, args, id=f"{mod.__name__.split('.')[-1]}-{fn.__name__}-{k}")


@pytest.mark.parametrize("fn,args", list(_cases()))
def test_jvp_matches_finite_differences_and_reverse(fn, args):
    rng = np.random.default_rng(7)
    positions = _differentiable_positions(args)
    tangents = [(_random_like(a, rng) if i in positions else None) for i, a in enumerate(args)]
    out, out_dot = srcad.jvp(fn, args, tangents)
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12, atol=1e-12)
    ref = fd_jvp(fn, args, tangents)
    np.testing.assert_allclose(out_dot, ref, rtol=1e-5, atol=1e-6)
    grads = srcad.grad(fn, argnums=tuple(positions))(*args)
    # <J v, 1> == <v, J^T 1> for a scalar function
    lhs = float(out_dot)
    rhs = sum(_inner(tangents[i], g) for i, g in zip(positions, grads))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)
