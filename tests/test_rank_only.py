"""The rank-only code srcad builds when a function is called with many shapes (or with
srcad.config.shape_variants = 0): no shape is known at transform time, so broadcasting
reductions and shape queries happen at run time. Checked over the corpus like the
shape-specialised code, against finite differences and between modes."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp
from test_corpus_reverse import FAMILIES, _differentiable_positions

import srcad


@pytest.fixture(autouse=True)
def rank_only():
    saved = srcad.config.shape_variants
    srcad.config.shape_variants = 0
    yield
    srcad.config.shape_variants = saved


def _cases():
    for mod in FAMILIES:
        for k, (fn, args) in enumerate(mod.CASES):
            if any(isinstance(a, np.ndarray) for a in args) and _differentiable_positions(args):
                yield pytest.param(fn, args, id=f"{mod.__name__.split('.')[-1]}-{fn.__name__}-{k}")


@pytest.mark.parametrize("fn,args", list(_cases()))
def test_rank_only_grad_and_jvp(fn, args):
    positions = _differentiable_positions(args)
    grads = srcad.grad(fn, argnums=tuple(positions))(*args)
    assert "specialised for" in srcad.source(srcad.grad(fn, argnums=tuple(positions)), *args)
    for i, g in zip(positions, grads):
        assert_tree_close(g, fd_grad(fn, args, i), rtol=1e-5, atol=1e-6, what=fn.__name__)
    rng = np.random.default_rng(5)
    tangents = [rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray) and i in positions else
                (float(rng.normal()) if isinstance(a, float) and i in positions else None)
                for i, a in enumerate(args)]
    if any(t is None and i in positions for i, t in enumerate(tangents)):
        return  # (pytree arguments: covered by test_corpus_forward)
    _, out_dot = srcad.jvp(fn, args, tangents)
    np.testing.assert_allclose(out_dot, fd_jvp(fn, args, tangents), rtol=1e-5, atol=1e-6)


def test_rank_only_code_has_no_shapes_in_it():
    def f(x):
        return np.sum(x[1:] * x[:-1]) + x[0]
    x = np.linspace(-1.0, 1.0, 5)
    g = srcad.grad(f)
    np.testing.assert_allclose(g(x), fd_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    text = srcad.source(g)
    assert "float[5]" not in text and "array1f" in text


def test_many_shapes_switch_to_one_rank_only_version():
    srcad.config.shape_variants = 3
    def f(x):
        return np.sum(np.sin(x[1:]) * x[:-1])
    g = srcad.grad(f)
    for n in range(2, 9):
        x = np.linspace(0.1, 1.0, n)
        np.testing.assert_allclose(g(x), fd_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    assert "array1f" in srcad.source(g)
