"""Complex intermediate values (docs/subset.md, "Complex intermediate values"): the rules
marked complex-correct differentiate twice (the rows of tests/rule_specs_complex.py, against
finite differences); every other rule refuses a complex operand at the user's line, in every
transformation; complex arguments and outputs stay refused."""

from __future__ import annotations

import re

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad
from rule_specs import ROWS
from rule_specs_complex import CROWS
from sourcemod import import_source
from test_rules_second_order import _module, fd_second_directional

import srcad
from srcad.rules.registry import RULES

COMPLEX_ROWS = [r for r in ROWS if r.rule in CROWS and RULES[r.rule].differentiable]


@pytest.mark.parametrize("row", COMPLEX_ROWS, ids=[f"{r.rule}:{r.expr}" for r in COMPLEX_ROWS])
def test_second_derivatives_through_complex_values(row, tmp_path_factory):
    mod, values, i, rng = _module(row, tmp_path_factory)
    tol = dict(rtol=max(row.rtol, 1e-5) * 100, atol=max(row.atol, 1e-6) * 100)
    got = srcad.grad(mod.h, argnums=i)(*values)  # reverse over reverse
    assert_tree_close(got, fd_grad(mod.h, values, i, eps=1e-5), what=f"{row.rule}: grad of grad", **tol)
    v = values[i]
    t = rng.normal(size=np.shape(v))
    tangents = [None] * len(values)
    tangents[i] = t
    _, hv = srcad.jvp(mod.gf, values, tangents)  # forward over reverse
    ws = [None] * len(values)
    ws[i] = mod.WG
    exact = fd_second_directional(mod.f, values, ws, tangents)
    np.testing.assert_allclose(np.sum(mod.WG * np.asarray(hv)), exact, err_msg=f"{row.rule}: w.Hv", **tol)
    assert np.isrealobj(got) and np.isrealobj(hv)


# -- every other rule refuses a complex operand ---------------------------------------------------

def _refusal_rows():
    """A spec row of each differentiable rule that is not complex-correct and reads an argument x,
    with x made complex inside the function."""
    seen = set()
    for row in ROWS:
        rule = RULES.get(row.rule)
        if rule is None or rule.complex or not rule.differentiable or row.rule in seen or rule.source:
            continue
        if "x" not in row.args or not re.search(r"\bx\b", row.expr) or row.reduce:
            continue
        sample = row.args["x"](np.random.default_rng(0))
        if not (isinstance(sample, float) or isinstance(sample, np.ndarray) and sample.dtype.kind == "f"):
            continue
        seen.add(row.rule)
        yield row


REFUSAL_ROWS = list(_refusal_rows())


def _complex_module(row, tmp_path_factory):
    expr = re.sub(r"\bx\b", "(x + 0.25j)", row.expr)
    names = ", ".join(row.args)
    src = (f"import math\nimport numpy as np\n{row.imports}\n\n\n"
           f"def f({names}):\n    return np.sum(np.abs(np.asarray({expr})) ** 2)\n")
    mod = import_source(tmp_path_factory.mktemp("cplx"), f"cplx_{abs(hash(row.expr))}", src)
    rng = np.random.default_rng(0)
    return mod, [s(rng) for s in row.args.values()], list(row.args).index("x")


@pytest.mark.parametrize("row", REFUSAL_ROWS, ids=[r.rule for r in REFUSAL_ROWS])
def test_rules_that_are_not_complex_correct_refuse_complex_operands(row, tmp_path_factory):
    mod, values, i = _complex_module(row, tmp_path_factory)
    tangents = [None] * len(values)
    tangents[i] = np.ones_like(values[i]) if isinstance(values[i], np.ndarray) else 1.0
    for what, run in (("grad", lambda: srcad.grad(mod.f, argnums=i)(*values)),
                      ("jvp", lambda: srcad.jvp(mod.f, values, tangents)),
                      ("hessian", lambda: srcad.hessian(mod.f, argnums=i)(*values))):
        try:
            run()
        except srcad.TypeSupportError as e:
            assert "complex" in str(e) and "cplx_" in str(e), (what, str(e))  # (at the user's line)
            continue
        except (TypeError, ValueError, np.linalg.LinAlgError):
            continue  # (NumPy itself refuses a complex argument)
        raise AssertionError(f"{row.rule}: {what} of {row.expr} with a complex x was not refused")
