"""Bad input never gives a silently wrong derivative: it raises a SrcadError naming the
file, line and column of the user's source and saying what to do instead."""

import numpy as np
import pytest
from errors_src import bad

import srcad


def _lines(err):
    return [d.line for d in err.value.diagnostics]


def line_of(text):
    """The line of tests/errors_src/bad.py that contains `text` (1-based)."""
    with open(bad.__file__) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


def test_every_unsupported_construct_reported_at_once():
    with pytest.raises(srcad.UnsupportedSyntaxError) as err:
        srcad.grad(bad.many_problems)(1.0)
    lines = _lines(err)
    assert lines == [line_of("try:"), line_of("except ValueError"), line_of('with open("f")'),
                     line_of("global G")]
    text = str(err.value)
    assert f"bad.py:{line_of('try:')}:4:" in text and "try" in text and "hint:" in text
    assert all(d.file.endswith("bad.py") for d in err.value.diagnostics)


@pytest.mark.parametrize("fn,text", [(bad.yields, "yield x")])
def test_unsupported_syntax(fn, text):
    with pytest.raises(srcad.UnsupportedSyntaxError) as err:
        srcad.grad(fn)(1.0)
    assert line_of(text) in _lines(err)


@pytest.mark.parametrize("fn", [bad.lambda_inside, bad.nested_def])
def test_nested_functions_once_refused_now_differentiate(fn):
    assert srcad.grad(fn)(1.0) == 2.0  # d/dx (2 x)


def test_call_without_rule_on_active_value():
    with pytest.raises(srcad.NoRuleError) as err:
        srcad.grad(bad.opaque)(1.0)
    assert _lines(err) == [line_of("CustomThing()(x)")]
    assert "defrule" in str(err.value) or "custom_vjp" in str(err.value)


def test_unknown_keyword_is_refused_not_ignored():
    with pytest.raises(srcad.NoRuleError) as err:
        srcad.grad(bad.unknown_kwarg)(np.ones(3))
    assert _lines(err) == [line_of("where=x > 0")]
    assert "where" in str(err.value)


@pytest.mark.parametrize("fn,args,text", [
    (bad.alias_after_write, (1.0,), "y[0] = x"),
    (bad.view_then_write, (np.ones(3),), "y[0] = 5.0"),
    (bad.write_through_list, (np.ones(3),), "e[0] = 7.0"),
    (bad.write_after_store, (1.0,), "row[0] = x * i"),
    (bad.hidden_put, (np.ones(3),), "np.put(y, [0, 1, 2], x)"),
    (bad.appends_into_initial_state, (1.0,), "into the caller's list"),
    (bad.fresh_list_written_after_store, (1.0,), "history holds this very list"),
])
def test_unsafe_mutation(fn, args, text):
    with pytest.raises(srcad.UnsafeMutationError) as err:
        srcad.grad(fn, argnums=len(args) - 1)(*args)
    assert line_of(text) in _lines(err)
    assert "copy" in str(err.value)


def test_writes_into_arguments_once_refused_now_go_into_a_copy():
    """An argument written into (`x[0] = 1.0`, `xs.append(x)`, `np.add.at(x, ...)`) is copied on
    entry (transforms/owning.py): the caller's object is left as it was. By hand: sum(x) with
    x[0] replaced has gradient (0, 1, 1); xs.append(x) returning x, 1; sum(x*x) after
    x[0] += 2 (twice 1.0), 2 (x0 + 2, x1, x2)."""
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(srcad.grad(bad.mutates_arg)(x), [0.0, 1.0, 1.0])
    xs = [1.0]
    assert srcad.grad(bad.appends_to_arg, argnums=1)(xs, 2.0) == 1.0 and xs == [1.0]
    np.testing.assert_allclose(srcad.grad(bad.hidden_add_at)(x), 2.0 * (x + [2.0, 0.0, 0.0]), rtol=1e-15)
    np.testing.assert_array_equal(x, [0.5, -1.0, 2.0])


def test_complex_literal_is_refused():
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(bad.complex_literal)(1.0)
    assert line_of("x * 2j") in _lines(err)


def test_recursion_is_a_clear_error():
    with pytest.raises(srcad.RecursionNotSupportedError) as err:
        srcad.grad(bad.recursive)(1.0, 3)
    assert line_of("return recursive(") in _lines(err)


def test_inactive_unknown_call_is_fine():
    np.random.seed(0)
    g = srcad.grad(bad.random_in_loss)(1.0)
    assert 0.0 <= g <= 1.0


def test_function_without_source():
    namespace = {}
    exec("def f(x):\n    return x * x\n", namespace)
    with pytest.raises(srcad.SourceUnavailableError, match="source"):
        srcad.grad(namespace["f"])(1.0)


def test_errors_are_srcad_errors():
    for cls in (srcad.UnsupportedSyntaxError, srcad.NoRuleError, srcad.UnsafeMutationError,
                srcad.NonScalarOutputError, srcad.SourceUnavailableError):
        assert issubclass(cls, srcad.SrcadError)


def test_fence_lists_every_gast_node():
    import inspect

    import gast

    from srcad.frontend.fence import HANDLED, REJECTED
    names = {n for n, c in vars(gast).items() if inspect.isclass(c) and issubclass(c, gast.AST)}
    missing = sorted(names - HANDLED - set(REJECTED) - {"AST"})
    assert not missing, f"gast node types neither handled nor rejected: {missing}"


def test_sampler_parameters_are_refused_not_zero():
    with pytest.raises(srcad.NoRuleError) as err:
        srcad.grad(bad.samples_with_active_mean)(np.array([0.1, 0.2]))
    assert _lines(err) == [line_of("np.random.normal(mu, 1.0)")]
    assert "reparameterised" in str(err.value)
    with pytest.raises(srcad.NoRuleError):
        srcad.jvp(bad.samples_with_active_mean, (np.zeros(2),), (np.ones(2),))



def test_indexing_an_object_with_a_differentiated_value_is_refused():
    with pytest.raises(srcad.NoRuleError) as err:
        srcad.grad(bad.indexes_an_object)(np.ones(2))
    assert _lines(err) == [line_of("np.r_[x, 0:2]")]
    assert "np.concatenate" in str(err.value)


def test_dict_keys_computed_at_run_time_are_refused():
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(bad.dict_with_runtime_keys)(1.5)
    assert _lines(err) == [line_of("out[k] = x * 2.0")]
