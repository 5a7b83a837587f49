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


# -- the policy, case by case ----------------------------------------------------------------------

import complex_cases as cc  # noqa: E402

X = np.array([0.3, -0.7, 1.1])


def _refused(run, *words):
    with pytest.raises(srcad.TypeSupportError) as e:
        run()
    assert "complex_cases.py" in str(e.value) and all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("how", ["grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "grad of grad"])
def test_a_complex_operand_is_refused_at_the_users_line_in_every_transformation(how):
    f = cc.cumsum_of_complex
    run = {"grad": lambda: srcad.grad(f)(X), "jvp": lambda: srcad.jvp(f, (X,), (X,)),
           "vjp": lambda: srcad.vjp(f, X), "jacfwd": lambda: srcad.jacfwd(f)(X),
           "jacrev": lambda: srcad.jacrev(f)(X), "hessian": lambda: srcad.hessian(f)(X),
           "grad of grad": lambda: srcad.grad(lambda x: srcad.grad(f)(x)[0])(X)}[how]
    _refused(run, "np.cumsum cannot take complex values", "np.real, np.imag or np.abs")


@pytest.mark.parametrize("how", ["grad", "jvp", "jacfwd", "hessian"])
def test_complex_correct_rules_differentiate_in_every_transformation(how):
    f, x = cc.sin_of_complex, X
    exact = np.real((1 + 2j) * np.cos(x * (1 + 2j)))  # d/dx Re sin((1 + 2i) x), by hand
    exact2 = np.diag(np.real(-(1 + 2j) ** 2 * np.sin(x * (1 + 2j))))  # and its second derivative
    if how == "grad":
        np.testing.assert_allclose(srcad.grad(f)(x), exact, rtol=1e-12)
    elif how == "jvp":
        np.testing.assert_allclose(srcad.jvp(f, (x,), (np.ones(3),))[1], np.sum(exact), rtol=1e-12)
    elif how == "jacfwd":
        np.testing.assert_allclose(srcad.jacfwd(srcad.grad(f))(x), exact2, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_allclose(srcad.hessian(f)(x), exact2, rtol=1e-10, atol=1e-12)


def test_complex_arguments_and_outputs_are_still_refused():
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(cc.sin_of_complex)(X + 0j)
    with pytest.raises(srcad.TypeSupportError):
        srcad.jvp(cc.sin_of_complex, (X,), (X * 1j,))
    with pytest.raises((srcad.NonScalarOutputError, srcad.TypeSupportError)):
        srcad.grad(cc.returns_complex)(X)
    with pytest.raises(srcad.TypeSupportError):
        srcad.jvp(cc.returns_complex, (X,), (X,))
    with pytest.raises(srcad.TypeSupportError):
        srcad.jacrev(cc.returns_complex)(X)
    with pytest.raises(srcad.TypeSupportError):
        srcad.vjp(cc.returns_complex, X)


def test_a_complex_value_joined_with_one_of_another_kind_is_refused():
    _refused(lambda: srcad.grad(cc.complex_or_none)(X, True), "joined")


def test_a_complex_value_written_into_a_real_array_is_refused():
    _refused(lambda: srcad.grad(cc.write_complex_into_real)(X), "written into an array of real numbers")


def test_complex_values_in_arrays_loops_and_branches():
    for f, args in ((cc.write_complex_into_complex, (X,)), (cc.loop_of_complex, (X,)),
                    (cc.branch_of_complex, (X, True)), (cc.branch_of_complex, (X, False)),
                    (cc.with_complex_constant, (X, 0.5 - 2j)), (cc.spectral_energy, (X,))):
        assert_tree_close(srcad.grad(f)(*args), fd_grad(f, list(args)), rtol=1e-5, atol=1e-7, what=f.__name__)
        assert_tree_close(srcad.hessian(f)(*args), _fd_hessian(f, args), rtol=1e-4, atol=1e-5,
                          what=f.__name__)


def _fd_hessian(f, args, eps=1e-5):
    """Central differences of the gradient (itself checked against finite differences above)."""
    x = args[0]
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((srcad.grad(f)(x + e, *args[1:]) - srcad.grad(f)(x - e, *args[1:])) / (2 * eps))
    return np.stack(cols, axis=-1)


def test_a_custom_rule_may_not_take_complex_values():
    _refused(lambda: srcad.grad(cc.custom_of_complex)(X), "custom rule")


def fractional_power_of_a_negative_float(x):
    return np.real((-x) ** 0.5)


def test_a_python_power_that_turns_complex_is_refused_where_it_happens():
    # Python makes (-2.0) ** 0.5 complex (NumPy would give nan): a value typed real must be
    # real, so the generated code checks the power and refuses at its line
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(fractional_power_of_a_negative_float)(2.0)
    assert err.value.diagnostics[0].line == fractional_power_of_a_negative_float.__code__.co_firstlineno + 1
    assert srcad.grad(fractional_power_of_a_negative_float)(-2.0) == pytest.approx(-0.5 * 2.0 ** -0.5)
