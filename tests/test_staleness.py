"""Source that matches the code that runs: a file edited after import is refused
(StaleSourceError), and the check has no false positives on the shapes of code users write
(decorators, methods, closures, lambdas, exec'd code, asserts rewritten by pytest, srcad's
own generated code, `from __future__ import annotations`). Gradients are checked against
finite differences or hand-derived formulas."""

from __future__ import annotations

import functools
import importlib.util
import linecache
import math
import os
import sys
import textwrap

import numpy as np
import pytest
from oracle import fd_grad

import srcad
from srcad.frontend.source import parse_function
from srcad.frontend.staleness import code_fingerprint


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


# -- edits after import ---------------------------------------------------------------------------

MODULE = """
    import math

    def helper(v):
        return v * 3.0

    def f(x):
        return helper(x) * x

    def g(x):
        return math.sin(x) * x
"""


def test_edited_function_is_refused(tmp_path):
    mod, path = _load(tmp_path, "stale_a", MODULE)
    path.write_text(path.read_text().replace("helper(x) * x", "helper(x) * x * x"))
    with pytest.raises(srcad.StaleSourceError) as info:
        srcad.grad(mod.f)(2.0)
    message = str(info.value)
    assert f"the source of f in {path} changed since the function was defined" in message
    assert "reload the module" in message and f"{path}:7:" in message
    assert isinstance(info.value, srcad.SourceUnavailableError)


def test_edited_helper_is_refused(tmp_path):
    mod, path = _load(tmp_path, "stale_b", MODULE)
    path.write_text(path.read_text().replace("v * 3.0", "v * 4.0"))
    with pytest.raises(srcad.StaleSourceError, match="the source of helper"):
        srcad.grad(mod.f)(2.0)


def test_reloading_the_module_fixes_it(tmp_path):
    mod, path = _load(tmp_path, "stale_c", MODULE)
    path.write_text(path.read_text().replace("v * 3.0", "v * 4.0"))
    with pytest.raises(srcad.StaleSourceError):
        srcad.grad(mod.f)(2.0)
    mod, _ = _load(tmp_path, "stale_c", path.read_text())
    assert srcad.grad(mod.f)(2.0) == pytest.approx(16.0)  # hand-derived: d/dx 4 x^2 = 8 x


def test_edits_elsewhere_in_the_file_are_fine(tmp_path):
    mod, path = _load(tmp_path, "stale_d", MODULE)
    path.write_text(path.read_text() + "\n\ndef added_later(y):\n    return y\n")
    assert srcad.grad(mod.g)(0.5) == pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5))


def test_lines_moved_by_an_edit_above_are_refused(tmp_path):
    mod, path = _load(tmp_path, "stale_e", MODULE)
    path.write_text("# a new first line\n" + path.read_text())
    with pytest.raises(srcad.StaleSourceError):
        srcad.grad(mod.g)(0.5)


def test_edited_lambda_is_refused(tmp_path):
    mod, path = _load(tmp_path, "stale_f", "scale = lambda x: x * 3.0\n")
    path.write_text("scale = lambda x: x * 4.0\n")
    with pytest.raises(srcad.StaleSourceError):
        srcad.grad(mod.scale)(1.0)


def test_exec_code_whose_linecache_entry_changed_is_refused():
    src = "def cube(x):\n    return x ** 3\n"
    linecache.cache["<exec cube>"] = (len(src), None, src.splitlines(True), "<exec cube>")
    ns = {}
    exec(compile(src, "<exec cube>", "exec"), ns)
    assert srcad.grad(ns["cube"])(2.0) == pytest.approx(12.0)
    new = src.replace("** 3", "** 4")
    linecache.cache["<exec cube>"] = (len(new), None, new.splitlines(True), "<exec cube>")
    with pytest.raises(srcad.StaleSourceError):  # (what a new transform of it would read)
        parse_function(ns["cube"])


# -- no false positives -------------------------------------------------------------------------

def plain_decorator(fn):
    return fn


@plain_decorator
def decorated(x: float) -> float:
    return math.sin(x) * np.cos(x)


def double(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@double
def wrapped(x):
    return x * x


class Model:
    __scale = 3.0

    @staticmethod
    def energy(x):
        return x * x * Model.__scale  # mangled: Model._Model__scale

    def method(self, x):
        return x * self.__scale


class Child(Model):
    def method(self, x):
        return super().method(x) * 2.0


def make_closure(a):
    b = a * 2.0

    def inner(x):
        return x * a + b * x * x
    return inner


def with_assert(x):
    assert x > 0, "x must be positive"
    return x * x * x


def with_nested_class(x):
    class Local:
        k = 2.0
    return x * x * Local.k


square = lambda x: x * x  # noqa: E731
pair = [lambda u: u * 3.0, lambda v: v * v * v]
multi_line = (lambda x, y:  # noqa: E731
              x * y
              + x)


def _fd(fn, x):
    return fd_grad(fn, (x,))


@pytest.mark.parametrize("fn", [decorated, make_closure(1.5), with_assert, square, pair[0], pair[1]],
                         ids=["decorator", "closure", "pytest-assert", "lambda", "list0", "list1"])
def test_fresh_functions_are_accepted(fn):
    assert srcad.grad(fn)(0.7) == pytest.approx(_fd(fn, 0.7), rel=1e-6)


def test_functools_wraps_differentiates_the_code_that_runs():
    """srcad reads the wrapper's own source (the code that runs), not `__wrapped__`'s."""
    assert srcad.grad(wrapped)(3.0) == pytest.approx(12.0)  # hand-derived: d/dx 2 x^2 = 4 x


def test_multi_line_lambda_and_argnums():
    assert srcad.grad(multi_line, argnums=1)(2.0, 5.0) == pytest.approx(2.0)


@pytest.mark.parametrize("fn", [Model.energy, Model.method, Child.method, with_nested_class,
                                make_closure(2.0), multi_line])
def test_parsing_checks_without_false_positives(fn):
    assert parse_function(fn).node is not None


def test_future_annotations_module(tmp_path):
    mod, _ = _load(tmp_path, "future_mod", """
        from __future__ import annotations
        import numpy as np

        def f(x: np.ndarray) -> float:
            y: float = 2.0
            return float(np.sum(x * x)) * y
    """)
    x = np.array([0.5, -1.0])
    assert srcad.grad(mod.f)(x) == pytest.approx(4.0 * x)


def test_generated_code_differentiated_again():
    def h(x):
        return x ** 4 + math.sin(x)

    g2 = srcad.grad(srcad.grad(h))
    assert g2(0.7) == pytest.approx(12 * 0.7 ** 2 - math.sin(0.7))
    g3 = srcad.grad(g2)
    assert g3(0.7) == pytest.approx(24 * 0.7 - math.cos(0.7))


def test_exec_code_with_a_linecache_entry():
    src = "import math\n\ndef tanh2(x):\n    return math.tanh(x) ** 2\n"
    linecache.cache["<exec tanh2>"] = (len(src), None, src.splitlines(True), "<exec tanh2>")
    ns = {}
    exec(compile(src, "<exec tanh2>", "exec"), ns)
    assert srcad.grad(ns["tanh2"])(0.3) == pytest.approx(2 * math.tanh(0.3) * (1 - math.tanh(0.3) ** 2))


def test_fingerprint_ignores_lines_and_sees_constants():
    a = compile("def f(x):\n    return x * 0.0\n", "a.py", "exec").co_consts[0]
    b = compile("\n\n\ndef f(x):\n    return x * 0.0\n", "b.py", "exec").co_consts[0]
    c = compile("def f(x):\n    return x * -0.0\n", "a.py", "exec").co_consts[0]
    assert code_fingerprint(a) == code_fingerprint(b) != code_fingerprint(c)


CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "staleness_cases.py")


def _case_functions(mod):
    K = mod.make_method_closure()
    return [mod.decorated, mod.C.m, mod.C.s, mod.C.lam, mod.outer(1), mod.outer, K.meth, mod.gen,
            mod.with_try, mod.multi, mod.pair[0], mod.pair[1], mod.curried, mod.nested_lambda(2), mod.docstr,
            mod.Outer.Inner.deep, mod.with_nested_class, mod.mixed]


def test_every_shape_of_code_is_accepted_and_edits_are_seen(tmp_path):
    """Decorators, super(), __private names, closures with nonlocal and classes inside,
    generators, try, lambdas (multi-line, in lists, curried), docstrings with lines outdented,
    nested classes, module aliases next to imports, `from __future__ import annotations`."""
    with open(CASES) as f:
        mod, path = _load(tmp_path, "staleness_cases_copy", f.read())
    for fn in _case_functions(mod):
        parse_function(fn)  # no StaleSourceError
    text = path.read_text()
    text = text.replace("return x * a + b + k", "return x * a + b - k")
    path.write_text(text.replace("x * y +", "x * y -"))
    for fn in (mod.outer(1), mod.multi):
        with pytest.raises(srcad.StaleSourceError):
            parse_function(fn)
    for fn in (mod.decorated, mod.C.m, mod.pair[1]):  # unchanged text: still fine
        parse_function(fn)



def test_a_lambda_made_in_a_comprehension_is_not_taken_for_stale_source(tmp_path):
    """Before Python 3.12 a comprehension is a function (`<listcomp>`), and a lambda made in
    one at module level was rebuilt inside a class while checking its source: a false
    StaleSourceError for `[grad(lambda v: ...)(x) for x in xs]` in a script."""
    import importlib.util

    path = tmp_path / "comprehension_script.py"
    path.write_text("import numpy as np\nimport srcad\n\n"
                    "GOT = [srcad.grad(lambda v: v * v * 3.0)(x) for x in (0.5, 1.0, -2.0)]\n"
                    "TOTAL = sum(srcad.grad(lambda v, s=s: np.sin(v) * s)(0.3) for s in (1.0, 2.0))\n")
    spec = importlib.util.spec_from_file_location("comprehension_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.GOT, [3.0, 6.0, -12.0], rtol=1e-15)
    np.testing.assert_allclose(module.TOTAL, 3.0 * np.cos(0.3), rtol=1e-15)
