import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.py from the current code generator")


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
