"""Nested functions, closures, lambdas, functions as values, *args/**kwargs and star-unpacking,
generators (issue 13, items 1-3). The derivatives of tests/corpus/closures.py, unpacking.py and
generators.py are
checked by the corpus tests (reverse, forward, second order, against finite differences);
here: Python's semantics (late binding, the values the functions return), the refusals,
each at the user's line, and what surrounds the transformation (caching on the function
given, lambdas on one line)."""

import functools

import numpy as np
import pytest
from corpus import closures, generators, unpacking
from errors_src import closures_bad as bad
from oracle import fd_grad

import srcad


@pytest.mark.parametrize("fn,args", [pytest.param(fn, args, id=f"{fn.__name__}-{k}")
                                      for k, (fn, args) in enumerate(closures.CASES + unpacking.CASES
                                                                          + generators.CASES)])
def test_values_are_pythons(fn, args):
    # (late binding decides the values: a closure reads a variable when it is called)
    value, _ = srcad.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12, atol=1e-12)


def test_late_binding_reads_the_value_at_the_call():
    # late_binding(x) = x ** 3 (a was reassigned after the lambda was made), not x
    assert srcad.grad(closures.late_binding)(0.5) == pytest.approx(3 * 0.5 ** 2)


def pitfall_called_inside(x):
    fs = []
    for i in range(3):
        fs.append(i)
        g = lambda: i * x  # noqa: E731, B023 (i of this iteration: the loop is still running)
        fs[i] = g()
    return fs[0] + fs[1] + fs[2]


def test_closure_in_a_loop_reads_the_current_iteration():
    assert srcad.grad(pitfall_called_inside)(2.0) == pytest.approx(0 + 1 + 2)


def _line(text):
    with open(bad.__file__) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


REFUSED = [
    (bad.recursive_nested, (1.0,), srcad.RecursionNotSupportedError, "RECURSE", "fact -> "),
    (bad.mutually_recursive, (1.0,), srcad.RecursionNotSupportedError, "ODD", "odd -> "),
    (bad.chosen_by_branch, (1.0, True), srcad.UnsupportedSyntaxError, "BRANCH", "used as a value"),
    (bad.returns_a_closure, (1.0,), srcad.UnsupportedSyntaxError, "RETURNED", "used as a value"),
    (bad.given_to_a_library, (1.0,), srcad.UnsupportedSyntaxError, "LIBRARY", "used as a value"),
    (bad.grad_of_a_lambda_inside, (1.0,), srcad.UnsupportedSyntaxError, "GRAD_INSIDE", "module level"),
    (bad.star_of_a_list_argument, (1.0, [1.0, 2.0]), srcad.UnsupportedSyntaxError, "STAR_LIST",
     "length is not known"),
    (bad.star_into_defaults, (1.0, [1.0, 2.0]), srcad.UnsupportedSyntaxError, "STAR_DEFAULTS",
     "length is not known"),
    (bad.double_star_of_an_argument, (1.0, {"b": 2.0}), srcad.UnsupportedSyntaxError, "DOUBLE_STAR",
     "keys are not known"),
    (bad.map_of_an_unknown_function, (1.0, [np.sin]), srcad.UnsupportedSyntaxError, "MAP_UNKNOWN",
     "computed at run time"),
    (bad.decorated_nested, (1.0,), srcad.UnsupportedSyntaxError, "DECORATED", "decorators"),
    (bad.reads_after_scope_in_branch, (1.0, True), srcad.UnsupportedSyntaxError, "JOINED",
     "used as a value"),
    (bad.heterogeneous_loop, (1.0,), srcad.UnsupportedSyntaxError, "HETEROGENEOUS", "used as a value"),
    (bad.made_per_item, (1.0,), srcad.UnsupportedSyntaxError, "PER_ITEM", "scope that has ended"),
    (bad.changed_through_an_alias, (1.0,), srcad.UnsafeMutationError, "ALIAS", "writes into"),
    (bad.generator_kept, (1.0,), srcad.UnsupportedSyntaxError, "KEPT_GENERATOR", "not consumed"),
    (bad.loop_leaves_a_generator, (1.0,), srcad.UnsupportedSyntaxError, "BREAK_GENERATOR", "half way"),
    (bad.generator_given_to_zip, (1.0,), srcad.UnsupportedSyntaxError, "ZIP_GENERATOR", "not consumed"),
    (bad.is_a_generator, (1.0,), srcad.UnsupportedSyntaxError, "TOP_GENERATOR", "is a generator"),
    (bad.closure_as_an_index, (1.0,), srcad.UnsupportedSyntaxError, "INDEX", "used as a value"),
    (bad.reassigned_after_the_inner_loop, (1.0,), srcad.UnsupportedSyntaxError, "REASSIGNED_LATER",
     "used as a value"),
]


@pytest.mark.parametrize("fn,args,cls,marker,text", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refusals_name_the_users_line(fn, args, cls, marker, text):
    for transform in (lambda: srcad.grad(fn)(*args),
                      lambda: srcad.jvp(fn, args, (1.0,) + (None,) * (len(args) - 1))):
        with pytest.raises(cls) as err:
            transform()
        d = err.value.diagnostics[0]
        assert d.file == bad.__file__ and d.line == _line(f"# {marker}"), str(err.value)
        assert text in str(err.value)


def test_star_into_parameters_checks_the_length_when_the_code_runs():
    def area(x, xs):
        return unpacking._area(*xs) * x
    g = srcad.grad(area)
    assert g(2.0, [3.0, 4.0]) == pytest.approx(12.0)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        g(2.0, [3.0, 4.0, 5.0])


def test_code_is_specialised_on_the_function_given():
    g = srcad.grad(closures.activation)
    x = np.array([0.3, -0.4])
    for act in (np.tanh, np.sin, closures._relu, lambda z: z ** 3):
        np.testing.assert_allclose(g(x, act), fd_grad(closures.activation, (x, act)), rtol=1e-6)
        assert f"act: {getattr(act, '__qualname__', '')}" in srcad.source(g, x, act)
    assert "np.tanh(x)" in srcad.source(g, x, np.tanh)  # (the rule of numpy.tanh, called directly)


def _helper_of_a_lambda(t):
    return t * t


def test_a_helper_a_function_argument_calls_is_rebound(monkeypatch):
    lam = lambda t: _helper_of_a_lambda(t) + 1.0  # noqa: E731
    g = srcad.grad(closures.activation)
    x = np.array([0.5])
    assert g(x, lam) == pytest.approx(3 * 0.5 ** 2 + 1.0)
    monkeypatch.setitem(globals(), "_helper_of_a_lambda", lambda t: t * t * t)
    assert g(x, lam) == pytest.approx(4 * 0.5 ** 3 + 1.0)


def test_lambdas_on_one_line_are_told_apart():
    square, cube = srcad.grad(lambda x: x ** 2), srcad.grad(lambda x: x ** 3)
    assert (square(2.0), cube(2.0)) == (4.0, 12.0)
    fs = [lambda x: 2.0 * x * x, lambda x: 3.0 * x * x]
    assert [srcad.grad(f)(1.0) for f in fs] == [4.0, 6.0]
    for act in (np.tanh, lambda z: z * z):  # (a for header does not parse alone)
        assert srcad.grad(lambda x: np.sum(act(x)))(np.array([0.5]))[0] == pytest.approx(  # noqa: B023
            1.0 if act is not np.tanh else 1 - np.tanh(0.5) ** 2)


def test_generated_code_inlines_nested_functions():
    text = srcad.source(srcad.grad(closures.char_rnn_step), *closures.CASES[11][1])
    assert "update_rnn" not in text.split("\n", 3)[3]  # (no call left: inlined)
    assert "adjoint of line" in text


def _cube(z):
    return z ** 3


def test_grad_of_a_lambda_inside_that_reads_no_local_variable():
    # the inner lambda reads only a global: it is a function of its own, transformed by srcad
    g = srcad.grad(lambda y: srcad.grad(lambda z: _cube(z) * 2.0)(y) * y)  # 6 y^3
    assert g(2.0) == pytest.approx(18.0 * 4.0)
    assert srcad.grad(g)(2.0) == pytest.approx(36.0 * 2.0)


class _Model:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.sin(z) * 2.0


def test_a_bound_method_given_again_reuses_the_code(monkeypatch):
    from srcad import pipeline

    built = []
    original = pipeline.build
    monkeypatch.setattr(pipeline, "build", lambda *a, **k: built.append(a[0]) or original(*a, **k))
    monkeypatch.setattr(srcad.dispatch, "build", pipeline.build)
    g = srcad.grad(closures.activation)
    m, x = _Model(2.0), np.array([0.3])
    for _ in range(3):  # (m.act is a new bound method object each time)
        np.testing.assert_allclose(g(x, m.act), fd_grad(closures.activation, (x, m.act)), rtol=1e-6)
    assert len(built) == 1


def test_two_functions_with_one_name_stay_two(tmp_path):
    """An `if` choosing between mod_a.f and mod_b.f (both named f) was folded into one of
    them: constants compared by name. A silently wrong value and derivative before."""
    from sourcemod import import_source

    a = import_source(tmp_path, "one_name_a", "def f(x):\n    return 2.0 * x\n")
    b = import_source(tmp_path, "one_name_b", "def f(x):\n    return 3.0 * x\n")
    chooser = import_source(tmp_path, "one_name_chooser", (
        "def chosen(x, c, fa, fb):\n"
        "    g = fa if c > 0 else fb\n"
        "    return x * g(2.0)\n"))
    for c, want in ((1, 4.0), (-1, 6.0)):
        value, grad = srcad.value_and_grad(chooser.chosen)(1.0, c, a.f, b.f)
        assert (value, grad) == (want, want)


def test_a_list_argument_holding_functions_is_specialised_on_them():
    g = srcad.grad(bad.list_of_function_arguments)
    assert g(1.0, [np.sin]) == pytest.approx(np.cos(1.0), rel=1e-12)  # by hand
    assert g(1.0, [np.cos]) == pytest.approx(-np.sin(1.0), rel=1e-12)  # rebuilt for the other one
    assert g(1.0, [np.sin, np.cos]) == pytest.approx(np.cos(1.0), rel=1e-12)  # (its items known: was refused)


def apply_twice(fn, v, w):
    return fn(v) * w + v


def helper_with_a_lambda(a, b):
    return apply_twice(lambda t: t * b, a, 0.5)


def reentered_through_a_partial(x):
    return apply_twice(functools.partial(helper_with_a_lambda, b=x), x, 2.0)


def reentered_through_a_lambda(x):
    return apply_twice(lambda a: apply_twice(lambda t: t * x, a, 0.5), x, 2.0)


def reentered_three_deep(x):
    inner = lambda a, b: apply_twice(lambda c: c * a * b, b + 1.0, 1.0) - b - 1.0  # noqa: E731
    return apply_twice(lambda a: apply_twice(lambda b: inner(a, b), 2.0 * a, 1.0) - 2.0 * a, x, 1.0) - x


def recursion_passing_a_lambda(fn, x, n):
    if n == 0:
        return fn(x)
    return recursion_passing_a_lambda(lambda a: fn(a) * 2.0, x, n - 1)


@pytest.mark.parametrize("fn,derivative", [
    # fuzz 8900:4, 8900:7: a helper that calls its function argument, entered again from inside
    # that function with another lambda, was taken for recursion and refused
    (reentered_through_a_partial, lambda x: 2.0 * x + 3.0),  # (x*x*0.5 + x)*2 + x
    (reentered_through_a_lambda, lambda x: 2.0 * x + 3.0),
    (reentered_three_deep, lambda x: 12.0 * x * x + 4.0 * x),  # x * 2x * (2x + 1)
])
def test_a_helper_entered_again_through_its_function_argument_is_inlined(fn, derivative):
    for x in (1.5, -0.7):
        assert srcad.grad(fn)(x) == pytest.approx(derivative(x), rel=1e-12)
        assert srcad.grad(fn)(x) == pytest.approx(fd_grad(fn, (x,), 0), rel=1e-6)


def test_recursion_passing_a_lambda_is_refused_at_the_users_line():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="lambda .made at line"):
        srcad.grad(lambda x: recursion_passing_a_lambda(lambda a: a * a, x, 3))(1.5)
