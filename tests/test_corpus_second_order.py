"""Jacobians and second order over the whole corpus, against finite differences.

- jacfwd (batched forward mode) and jacrev (reverse mode, one backward sweep per output) of
  each scalar function equal its finite-difference gradient;
- u . H v from `hessian` (forward over reverse) and from `hvp` equals the second-order
  central difference [f(x+hu+hv) - f(x+hu-hv) - f(x-hu+hv) + f(x-hu-hv)] / 4h^2.

Each function is differentiated with respect to its first float or float-array argument.
"""

import numpy as np
import pytest
from oracle import fd_grad
from test_corpus_reverse import FAMILIES

import srcad

H = 1e-4  # the second difference: truncation ~H^2, rounding ~1e-16 / H^2 (and no kink crossed)


def _first_float(args):
    for i, a in enumerate(args):
        if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
            return i
    return None


def _cases():
    for mod in FAMILIES:
        for k, (fn, args) in enumerate(mod.CASES):
            i = _first_float(args)
            if i is not None:
                yield pytest.param(fn, args, i, id=f"{mod.__name__.split('.')[-1]}-{fn.__name__}-{k}")


def _moved(args, i, d):
    out = list(args)
    out[i] = args[i] + d
    return out


def _second_difference(fn, args, i, u, v):
    f = lambda du, dv: float(fn(*_moved(args, i, H * du * u + H * dv * v)))  # noqa: E731
    return (f(1, 1) - f(1, -1) - f(-1, 1) + f(-1, -1)) / (4 * H * H)


def _direction(x, rng):
    return float(rng.normal()) if isinstance(x, float) else rng.normal(size=np.shape(x))


@pytest.mark.parametrize("fn,args,i", list(_cases()))
def test_jacfwd_and_jacrev_match_finite_differences(fn, args, i):
    ref = np.asarray(fd_grad(fn, args, i), dtype=float)
    fwd = np.asarray(srcad.jacfwd(fn, argnums=i)(*args), dtype=float)
    rev = np.asarray(srcad.jacrev(fn, argnums=i)(*args), dtype=float)
    assert fwd.shape == rev.shape == np.shape(args[i])
    np.testing.assert_allclose(fwd, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rev, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn,args,i", list(_cases()))
def test_hessian_and_hvp_match_second_differences(fn, args, i):
    rng = np.random.default_rng(11)
    x = args[i]
    u, v = _direction(x, rng), _direction(x, rng)
    ref = _second_difference(fn, args, i, u, v)
    hess = np.asarray(srcad.hessian(fn, argnums=i)(*args), dtype=float)
    assert hess.shape == np.shape(x) * 2
    n = int(np.size(x))
    u_hv = float(np.ravel(u) @ hess.reshape(n, n) @ np.ravel(v))
    tangents = [None] * len(args)
    tangents[i] = v
    hv = np.asarray(srcad.hvp(fn, args, tangents), dtype=float)
    scale = max(1.0, abs(ref))
    assert abs(u_hv - ref) <= 1e-4 * scale, (u_hv, ref)
    assert abs(float(np.sum(np.asarray(u) * hv)) - ref) <= 1e-4 * scale
