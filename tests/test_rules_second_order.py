"""Second derivatives through every differentiable rule: derivative code must itself be
differentiable, since templates only call primitives that have rules.

For the first spec row of each rule (see rule_specs.py), with f the row's scalar function
and g = srcad.grad(f) (checked against finite differences by test_rule_specs.py):
- reverse over reverse: grad of <g(x), w> against central differences of <g(x), w>;
- forward over reverse: jvp(g, x, v) against central differences of g along v;
- both against w^T H v from differences of differences of f itself, which does not use
  srcad's gradient at all. (tests/test_rule_variants.py does the same over many more shapes.)
"""

import itertools
import zlib

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_second_directional
from rule_specs import ROWS
from sourcemod import import_source

import srcad
from srcad.rules.registry import RULES

_counter = itertools.count()

# rows whose second derivative is not a smooth function near the sample (finite differences
# of the gradient would straddle a kink or a NaN), or that only exercise constants
_SKIP_NOTES = ("tie", "NaN", "inf", "at 0", "at x = y = 0", "impure")
# the adjugate's second derivative is det's third, which srcad refuses (test below)
_REFUSED = ("srcad.adjugate", "srcad.adjugate_jvp", "srcad.adjugate_vjp")


def _rows():
    seen = set()
    for row in ROWS:
        rule = RULES.get(row.rule)
        if rule is None or not rule.differentiable or row.rule in seen or row.reduce:
            continue
        if any(s in row.note for s in _SKIP_NOTES) or row.rule.startswith(("operator.i", "srcad.require")) \
                or row.rule in _REFUSED:
            continue
        seen.add(row.rule)
        yield row


ROWS2 = list(_rows())


def _module(row, tmp_path_factory):
    rng = np.random.default_rng(zlib.crc32(row.expr.encode()) + 1)
    args = {name: sample(rng) for name, sample in row.args.items()}
    names = ", ".join(args)
    k = next(_counter)
    src = (f"import math\nimport numpy as np\nimport srcad\n{row.imports}\n\n"
           "W = None\nWG = None\ngf = None\n\n\n"
           f"def f({names}):\n    return np.sum(np.asarray({row.expr}) * W)\n\n\n"
           f"def h({names}):\n    return np.sum(gf({names}) * WG)\n\n\n"
           f"def primal({names}):\n    return {row.expr}\n")
    mod = import_source(tmp_path_factory.mktemp("second"), f"second_{k}", src)
    values = list(args.values())
    mod.W = rng.normal(size=np.shape(np.asarray(mod.primal(*values), dtype=float)))
    floats = [i for i, v in enumerate(values)
              if isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")]
    i = floats[0]
    mod.WG = rng.normal(size=np.shape(values[i]))
    mod.gf = srcad.grad(mod.f, argnums=i)
    return mod, values, i, rng


@pytest.mark.parametrize("row", ROWS2, ids=[f"{r.rule}:{r.expr}" for r in ROWS2])
def test_second_derivatives(row, tmp_path_factory):
    mod, values, i, rng = _module(row, tmp_path_factory)
    tol = dict(rtol=max(row.rtol, 1e-5) * 100, atol=max(row.atol, 1e-6) * 100)
    # reverse over reverse
    got = srcad.grad(mod.h, argnums=i)(*values)
    assert_tree_close(got, fd_grad(mod.h, values, i, eps=1e-5), what=f"{row.rule}: grad of grad", **tol)
    # forward over reverse
    v = values[i]
    t = float(rng.normal()) if isinstance(v, float) else rng.normal(size=np.shape(v))
    tangents = [None] * len(values)
    tangents[i] = t
    _, hv = srcad.jvp(mod.gf, values, tangents)
    eps = 1e-5
    plus = list(values)
    minus = list(values)
    plus[i], minus[i] = v + eps * t, v - eps * t
    ref = (np.asarray(mod.gf(*plus)) - np.asarray(mod.gf(*minus))) / (2 * eps)
    np.testing.assert_allclose(hv, ref, err_msg=f"{row.rule}: jvp of grad", **tol)
    # both against w^T H v from values of f alone
    ws = [None] * len(values)
    ws[i] = mod.WG
    exact = fd_second_directional(mod.f, values, ws, tangents)
    np.testing.assert_allclose(np.sum(mod.WG * np.asarray(hv)), exact, err_msg=f"{row.rule}: w.Hv", **tol)
    np.testing.assert_allclose(np.sum(np.asarray(got) * t), exact, err_msg=f"{row.rule}: (grad of grad).v",
                               **tol)



def _det(a):
    return np.linalg.det(a)


def _det_grad_01(a):
    return srcad.grad(_det)(a)[0, 1]


def _det_hessian_01_12(a):
    return srcad.grad(_det_grad_01)(a)[1, 2]


def test_third_derivatives_of_det_are_refused():
    a = np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
    assert srcad.hessian(_det)(a).shape == (3, 3, 3, 3)  # (second order: the spec rows of det)
    with pytest.raises(srcad.NoRuleError, match="adjugate"):
        srcad.grad(_det_hessian_01_12)(a)
