"""The spec rows again at more shapes and keyword arguments (tests/rule_variants.py), each
checked against oracles that do not use srcad's derivatives:

- first order: the gradient with respect to every float argument against Richardson-
  extrapolated central differences; the jvp against a directional difference; and the
  dot-product test <J v, u> = <v, J^T u> between forward and reverse mode;
- second order (differentiable rules): u^T H v from differences of differences of f alone,
  against both forward over reverse (jvp of grad) and reverse over reverse (grad of
  <grad, u>); each of those whole vectors also against differences of the (already checked)
  gradient.
"""

import itertools
import zlib

import numpy as np
import pytest
from oracle import (
    assert_tree_close,
    fd_directional,
    fd_grad_richardson,
    fd_second_directional,
    tree_axpy,
    tree_random_like,
    tree_vdot,
)
from rule_variants import selected
from sourcemod import import_source

import srcad
from srcad.rules.registry import RULES

VARIANTS = selected()
_counter = itertools.count()
# rows whose second derivative is not smooth near the sample, or that only exercise constants
_SKIP_SECOND = ("tie", "NaN", "inf", "at 0", "at x = y = 0", "impure", "beyond both ends")


def _is_float(v) -> bool:
    if isinstance(v, (list, tuple)):
        return len(v) > 0 and all(_is_float(e) for e in v)
    return isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")


def build(v, tmp_path_factory):
    """The variant's module: f (its scalar function) and h = <grad f, U> for second order."""
    args = v.sample()
    names = list(args)
    wrt = [i for i, n in enumerate(names) if (n in v.row.wrt if v.row.wrt else _is_float(args[n]))]
    sig = ", ".join(names)
    ret = v.row.reduce if v.row.reduce else "np.sum(np.asarray(out) * W)"
    dots = " + ".join(f"np.sum(np.asarray(_g[{k}]) * U{k})" for k in range(len(wrt))) or "0.0"
    k = next(_counter)
    src = (f"import math\nimport numpy as np\nimport srcad\n{v.row.imports}\n\n"
           + "".join(f"U{j} = None\n" for j in range(len(wrt))) + "W = None\ngf = None\n\n\n"
           f"def f({sig}):\n    out = {v.expr}\n    return {ret}\n\n\n"
           f"def h({sig}):\n    _g = gf({sig})\n    return {dots}\n\n\n"
           f"def primal({sig}):\n    return {v.expr}\n")
    mod = import_source(tmp_path_factory.mktemp("variants"), f"variant_{k}", src)
    values = list(args.values())
    rng = np.random.default_rng(zlib.crc32(v.id.encode()) + 1)  # the same weights in every run
    if not v.row.reduce:
        mod.W = rng.normal(size=np.shape(np.asarray(mod.primal(*values), dtype=float)))
    return mod, values, wrt, rng


def _directions(values, wrt, rng):
    return [tree_random_like(x, rng) if i in wrt else None for i, x in enumerate(values)]


@pytest.mark.parametrize("v", VARIANTS, ids=[v.id for v in VARIANTS])
def test_first_order(v, tmp_path_factory):
    mod, values, wrt, rng = build(v, tmp_path_factory)
    tol, h = dict(rtol=v.row.rtol, atol=v.row.atol), v.row.fd_step
    grads = srcad.grad(mod.f, argnums=tuple(wrt))(*values)
    for i, g in zip(wrt, grads):
        assert_tree_close(g, fd_grad_richardson(mod.f, values, i, h), what=f"{v.id}: d/d arg {i}", **tol)
    t = _directions(values, wrt, rng)
    _, jv = srcad.jvp(mod.f, values, t)
    rhs = sum(tree_vdot(g, t[i]) for i, g in zip(wrt, grads))
    np.testing.assert_allclose(float(jv), rhs, rtol=1e-9, atol=1e-9, err_msg=f"{v.id}: <Jv,u> != <v,J^T u>")
    np.testing.assert_allclose(float(jv), fd_directional(mod.f, values, t, h), err_msg=f"{v.id}: jvp", **tol)


SECOND = [v for v in VARIANTS if RULES[v.row.rule].differentiable and not v.row.reduce
          and not any(s in v.row.note for s in _SKIP_SECOND)]


@pytest.mark.parametrize("v", SECOND, ids=[v.id for v in SECOND])
def test_second_order(v, tmp_path_factory):
    mod, values, wrt, rng = build(v, tmp_path_factory)
    if not wrt:
        return
    h = v.row.fd_step
    noise = 100 * np.finfo(float).eps * (1.0 + abs(float(mod.f(*values)))) / h ** 2  # rounding in f over h^2
    tol = dict(rtol=max(v.row.rtol, 1e-5) * 10, atol=max(v.row.atol * 10, 1e-5, noise))
    u, w = _directions(values, wrt, rng), _directions(values, wrt, rng)
    exact = fd_second_directional(mod.f, values, u, w, h)  # u^T H w from values of f only
    mod.gf = srcad.grad(mod.f, argnums=tuple(wrt))
    for j, i in enumerate(wrt):
        setattr(mod, f"U{j}", np.asarray(u[i], dtype=float))
    # forward over reverse: H w, one block per argument
    _, hw = srcad.jvp(mod.gf, values, w)
    np.testing.assert_allclose(sum(tree_vdot(u[i], b) for i, b in zip(wrt, hw)), exact,
                               err_msg=f"{v.id}: u.(jvp of grad) vs differences of differences", **tol)
    def along(s, i):
        return np.asarray(mod.gf(*[tree_axpy(x, d, s) for x, d in zip(values, w)])[wrt.index(i)], dtype=float)
    for i, b in zip(wrt, hw):
        ref = (4.0 * (along(h / 2, i) - along(-h / 2, i)) / h - (along(h, i) - along(-h, i)) / (2 * h)) / 3.0
        np.testing.assert_allclose(np.asarray(b, dtype=float), ref, err_msg=f"{v.id}: jvp of grad", **tol)
    # reverse over reverse: the gradient of <grad f, u>
    hu = srcad.grad(mod.h, argnums=tuple(wrt))(*values)
    np.testing.assert_allclose(sum(tree_vdot(b, w[i]) for i, b in zip(wrt, hu)), exact,
                               err_msg=f"{v.id}: (grad of grad).w vs differences of differences", **tol)
    for i, b in zip(wrt, hu):
        assert_tree_close(b, fd_grad_richardson(mod.h, values, i, h), what=f"{v.id}: grad of grad", **tol)
