"""np.einsum of two arrays as one batched np.matmul (srcad/runtime/contractions.py) and sums
over one axis of any rank as products with ones (runtime/products.py axis_sum), checked
against NumPy's own np.einsum and np.sum; and the gradient of the GradBench GMM's einsum
against finite differences."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad
import srcad.runtime.contractions as contractions
from srcad.runtime import axis_sum, einsum

RNG = np.random.default_rng(2026)

SPECS = ["ijk,mik->mij", "mij,mik->ijk", "mij,ijk->mik", "ij,jk->ik", "ij,jk", "ij,kj->ik", "ijk,k->ij",
         "i,j->ij", "aBc,cBd->Bad", "ijk,jl->l", "ij,kl->ijkl", "ab,bc->ca", "Ab,ba", "ij,j->i",
         "ijk,ikl->ijl", "ijk,ikl->lji", "abc,cd->db", "a,a->", "ij,ij->i", "ij,ij", "ijk,ijk->k"]


def _operands(spec, low=1, high=6):
    ins = spec.split("->")[0].split(",")
    dims = {c: int(RNG.integers(low, high)) for c in set("".join(ins))}
    return [RNG.normal(size=[dims[c] for c in t]) for t in ins]


def _einsum(spec, x, y, small):
    """rt.einsum, or (small=0) its matmul form at any size."""
    if small is None:
        return einsum(spec, x, y)
    plan = contractions._plan(spec, x.shape, y.shape, small)
    return np.einsum(spec, x, y) if plan is None else contractions._product(plan, x, y)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("small", [0, None])
def test_einsum_is_numpys(spec, small):
    for _ in range(3):
        ops = _operands(spec)
        got, want = _einsum(spec, *ops, small), np.einsum(spec, *ops)
        assert np.shape(got) == np.shape(want) and np.allclose(got, want, rtol=1e-12, atol=1e-12)
    z = [x + 1j * RNG.normal(size=np.shape(x)) for x in _operands(spec)]
    assert np.allclose(_einsum(spec, *z, small), np.einsum(spec, *z), rtol=1e-12, atol=1e-12)


def test_einsum_leaves_the_rest_to_numpy():
    x, y = RNG.normal(size=(20, 30)), RNG.normal(size=(30, 20))
    for args, kw in [(("ii->i", x[:20, :20]), {}), (("ij,jk,kl->il", x, y, x), {}),
                     (("...j,jk->...k", x, y), {}), (("ij,jk->ik", x, y), {"optimize": True}),
                     (("ij,jk->ik", x.astype(int), y.astype(int)), {}), (("ij,jk->ik", x[:, :1], y[:1]), {})]:
        assert np.allclose(einsum(*args, **kw), np.einsum(*args, **kw))
    with pytest.raises(ValueError):  # (NumPy's own error for sizes that do not match)
        einsum("ij,jk->ik", x, x[:5])


@pytest.mark.parametrize("shape", [(40, 30), (6, 7, 8), (3, 4, 5, 6), (70, 1, 3)])
def test_axis_sum_of_any_rank(shape):
    c = RNG.normal(size=shape)
    for axis in range(-len(shape), len(shape)):
        assert np.allclose(axis_sum(c, axis), np.sum(c, axis=axis), rtol=1e-12, atol=1e-12)
    strided = np.swapaxes(c, 0, -1)  # (not C-contiguous: np.sum itself)
    assert np.allclose(axis_sum(strided, 0), np.sum(strided, axis=0))


def batched(ls, xc):
    lxc = np.exp(ls[:, 0, :]) * xc + np.einsum("ijk,mik->mij", ls, xc)
    return np.sum(np.log(np.sum(np.exp(-0.5 * np.sum(lxc ** 2, axis=2)), axis=1)))


def test_gradient_of_a_batched_einsum_and_its_sums():
    ls, xc = RNG.normal(size=(5, 4, 4)) * 0.3, RNG.normal(size=(60, 5, 4))
    grads = srcad.grad(batched, argnums=(0, 1))(ls, xc)
    src = srcad.source(srcad.grad(batched, argnums=(0, 1)), ls, xc)
    assert "_einsum(" in src and "_axis_sum(" in src  # (the product and the sums of rank 3)
    for g, i in zip(grads, (0, 1)):
        assert np.allclose(g, fd_grad_richardson(batched, (ls, xc), i), rtol=1e-6, atol=1e-8)
