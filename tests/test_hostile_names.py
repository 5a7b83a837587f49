"""Generated code is built from the user's function source and srcad's templates only: names
taken from objects (`__name__`, `__qualname__`, parameter names, module names) are data, and
hostile ones neither run as code nor break code generation. Values are checked against
hand-derived derivatives."""

import builtins
import inspect
import math
import types

import numpy as np
import pytest

import srcad
from srcad.api import as_python_function
from srcad.frontend.expr import ext_name
from srcad.identifiers import identifier, is_identifier
from srcad.rules import registry

PAYLOAD = "import builtins; builtins.SRCAD_INJECTED = 1"
HOSTILE = [
    f"x):\n {PAYLOAD}\n def y(",
    f"x(a):\n    return a\n{PAYLOAD}\ndef y",
    f"q\n    {PAYLOAD}\n#",
    "class", "lambda", "None", "1abc", "my-func", "ﬁ", "", "a b", "x\x00y", "x\u2028y",
]


@pytest.fixture(autouse=True)
def nothing_injected():
    rules, by_id = dict(registry.RULES), dict(registry._BY_ID)
    yield
    assert not hasattr(builtins, "SRCAD_INJECTED")
    registry.RULES.clear(), registry.RULES.update(rules)  # (the rules registered here go)
    registry._BY_ID.clear(), registry._BY_ID.update(by_id)


@pytest.mark.parametrize("name", HOSTILE)
def test_identifier_is_a_plain_deterministic_identifier(name):
    got = identifier(name)
    assert is_identifier(got) and got == identifier(name) and got.isascii()


@pytest.mark.parametrize("name", HOSTILE)
def test_function_name_and_qualname(name):
    def f(x):
        return x * x * x

    f.__name__ = name
    f.__qualname__ = name
    g = srcad.grad(f)
    assert g(2.0) == pytest.approx(12.0)
    text = srcad.source(g)
    assert text.startswith("def grad_f(x):")  # the name from the source, never from __name__
    code_lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert "SRCAD_INJECTED" not in "".join(code_lines)
    assert srcad.jvp(f, (2.0,), (1.0,)) == (pytest.approx(8.0), pytest.approx(12.0))


class Hostile:
    """A callable whose __name__ is hostile, with a rule (a primitive to srcad)."""

    def __init__(self, name):
        self.__name__ = name

    def __call__(self, x):
        return 2.0 * x


@pytest.mark.parametrize("name", HOSTILE)
def test_callable_with_a_rule_transformed_directly(name):
    obj = Hostile(name)
    srcad.defrule(obj, "x", jvp="2.0 * t", vjp="2.0 * g")
    wrapper = as_python_function(obj)
    assert is_identifier(wrapper.__name__)
    assert srcad.grad(obj)(1.5) == pytest.approx(2.0)


@pytest.mark.parametrize("name", HOSTILE)
def test_callable_object_reached_from_a_global(name):
    obj = Hostile(name)
    srcad.defrule(obj, "x", jvp="2.0 * t", vjp="2.0 * g")
    assert is_identifier(ext_name(obj))
    namespace = {"obj": obj}
    exec(compile("def f(x):\n    return obj(x) * x\n", "<hostile-global>", "exec"), namespace)
    import linecache

    src = "def f(x):\n    return obj(x) * x\n"
    linecache.cache["<hostile-global>"] = (len(src), None, src.splitlines(True), "<hostile-global>")
    assert srcad.grad(namespace["f"])(1.5) == pytest.approx(4 * 1.5)  # d/dx 2 x^2


def test_module_with_a_hostile_name(tmp_path):
    evil = types.ModuleType(f"x):\n {PAYLOAD}\n def y(")
    evil.factor = 3.0
    assert is_identifier(ext_name(evil))
    src = "def f(x):\n    return x * x * evil.factor\n"
    import linecache

    linecache.cache["<hostile-module>"] = (len(src), None, src.splitlines(True), "<hostile-module>")
    namespace = {"evil": evil}
    exec(compile(src, "<hostile-module>", "exec"), namespace)
    assert srcad.grad(namespace["f"])(2.0) == pytest.approx(12.0)
    srcad.config.cache_dir = str(tmp_path / "cache")
    try:  # not importable by a cached module: simply not cached
        namespace2 = {"evil": evil}
        exec(compile(src, "<hostile-module>", "exec"), namespace2)
        assert srcad.grad(namespace2["f"])(1.0) == pytest.approx(6.0)
    finally:
        srcad.config.cache_dir = None


def test_signature_with_unnormalised_parameter_names():
    obj = Hostile("scale_by_two")
    obj.__signature__ = inspect.Signature([inspect.Parameter("ﬁ", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    srcad.defrule(obj, "x", jvp="2.0 * t", vjp="2.0 * g")
    wrapper = as_python_function(obj)
    assert all(is_identifier(p) for p in inspect.signature(wrapper).parameters)
    assert srcad.grad(obj)(3.0) == pytest.approx(2.0)


def test_keyword_only_parameters_are_passed_by_keyword():
    @srcad.custom_vjp
    def scaled(x, *, k=2.0):
        return k * x

    scaled.defvjp(lambda x, k=2.0: (k * x, k), lambda k, g: (k * g, None))
    wrapper = as_python_function(scaled)
    assert wrapper(3.0) == pytest.approx(6.0)
    assert srcad.grad(scaled)(3.0) == pytest.approx(2.0)


def test_comments_cannot_end_their_line():
    def f(x):
        return math.sin(x)

    f.__qualname__ = f"evil\n    {PAYLOAD}\n    #"
    g = srcad.grad(f)
    assert g(0.5) == pytest.approx(math.cos(0.5))
    assert "evil\\n" in srcad.source(g)
    assert np.isclose(srcad.grad(g)(0.5), -math.sin(0.5))
