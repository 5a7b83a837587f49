"""The examples in srcad's docstrings run, and show what they say (`>>>` lines: doctest)."""

import doctest
import importlib
from pathlib import Path

import pytest

SRCAD = Path(__file__).resolve().parents[1] / "srcad"
MODULES = sorted(".".join(("srcad",) + p.relative_to(SRCAD).with_suffix("").parts).removesuffix(".__init__")
                 for p in SRCAD.rglob("*.py") if ">>>" in p.read_text())


def test_the_examples_are_found():
    assert "srcad.examples" in MODULES and len(MODULES) >= 3


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module)
    assert any(t.examples for t in tests), f"{name} has '>>>' outside its docstrings"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} examples in {name} failed (see the output above)"
