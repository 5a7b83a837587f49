import os
import sys

import pytest

import srcad.rules

sys.path.insert(0, os.path.dirname(__file__))
srcad.rules.load_all()  # the lazily registered families (scipy) too, for the rule checks


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.py from the current code generator")


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
