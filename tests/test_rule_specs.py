"""Every rule, checked: gradients of each spec row against float64 finite differences, and a
completeness test that fails when a registered rule has no row."""

import itertools
import zlib

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp
from rule_specs import INTERNAL, ROWS
from sourcemod import import_source

import srcad
from srcad.rules.registry import RULES

_counter = itertools.count()


def _module_for(row, tmp_path_factory):
    rng = np.random.default_rng(zlib.crc32(row.expr.encode()))  # the same samples in every run
    args = {name: sample(rng) for name, sample in row.args.items()}
    names = list(row.args)
    k = next(_counter)
    body = f"    out = {row.expr}\n"
    body += f"    return {row.reduce}\n" if row.reduce else "    return np.sum(np.asarray(out) * W)\n"
    src = (f"import math\nimport numpy as np\n{row.imports}\n\nW = None\n\n\n"
           f"def f({', '.join(names)}):\n{body}\n\n"
           f"def primal({', '.join(names)}):\n    return {row.expr}\n")
    mod = import_source(tmp_path_factory.mktemp("specs"), f"spec_{k}", src)
    if not row.reduce:
        out = np.asarray(mod.primal(*args.values()), dtype=float)
        mod.W = rng.normal(size=out.shape)
    return mod, args


def _float_args(row, args):
    if row.wrt:
        return list(row.wrt)
    return [n for n, v in args.items()
            if isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.rule}:{r.expr}" for r in ROWS])
def test_reverse_matches_finite_differences(row, tmp_path_factory):
    mod, args = _module_for(row, tmp_path_factory)
    values = list(args.values())
    names = list(args)
    for name in _float_args(row, args):
        i = names.index(name)
        got = srcad.grad(mod.f, argnums=i)(*values)
        ref = fd_grad(mod.f, values, i)
        assert_tree_close(got, ref, rtol=row.rtol, atol=row.atol, what=f"{row.rule} d/d{name}")


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.rule}:{r.expr}" for r in ROWS])
def test_forward_matches_reverse_and_finite_differences(row, tmp_path_factory):
    """The dot-product test between modes along a random direction, and FD for the jvp."""
    mod, args = _module_for(row, tmp_path_factory)
    values = list(args.values())
    names = list(args)
    wrt = [names.index(n) for n in _float_args(row, args)]
    rng = np.random.default_rng(3)
    tangents = [None] * len(values)
    for i in wrt:
        v = values[i]
        tangents[i] = float(rng.normal()) if isinstance(v, float) else rng.normal(size=np.shape(v))
    _, jv = srcad.jvp(mod.f, values, tangents)
    grads = srcad.grad(mod.f, argnums=tuple(wrt))(*values)
    rhs = sum(float(np.sum(np.asarray(g) * tangents[i])) for i, g in zip(wrt, grads))
    np.testing.assert_allclose(float(jv), rhs, rtol=1e-9, atol=1e-9,
                               err_msg=f"{row.rule}: <Jv,u> != <v,J^T u>")
    np.testing.assert_allclose(float(jv), fd_jvp(mod.f, values, tangents), rtol=row.rtol * 10,
                               atol=row.atol * 10, err_msg=f"{row.rule}: jvp vs finite differences")


def test_every_rule_has_a_spec_row():
    covered = {r.rule for r in ROWS} | set(INTERNAL)
    srcads_own = {name for name, rule in RULES.items() if rule.family != "user"}  # not tests' rules
    missing = sorted(srcads_own - covered)
    assert not missing, f"rules without a spec row in tests/rule_specs.py: {missing}"


def test_spec_rows_name_registered_rules():
    unknown = sorted({r.rule for r in ROWS} - set(RULES))
    assert not unknown, f"spec rows for rules that are not registered: {unknown}"
