import os
import sys

# One BLAS thread per process, set before NumPy and SciPy load OpenBLAS: the suite runs one
# pytest-xdist worker per core, and threaded BLAS on the tests' tiny matrices only spins
# (scipy.linalg.solve_triangular of a 3x3 took over ten times as long with 2 threads on 2 cores).
# Subprocesses the tests start inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# No srcad.SlowFirstCallWarning: on a loaded machine a transformation may take more than a
# second, and tests that turn warnings into errors would fail by the clock (the warning's own
# tests set srcad.config.slow_call_seconds). Subprocesses inherit it.
os.environ.setdefault("SRCAD_SLOW_CALL_SECONDS", "none")
# Subprocesses (cache, pickling, CLI tests) import srcad afresh: with PYTHONDONTWRITEBYTECODE set
# (as on CI's machines) each one compiled srcad's ~180 modules again (a third of a second). srcad's
# own bytecode is written once, here (still none for the modules tests write and edit: a
# same-size edit within one second would run stale bytecode).
if os.environ.get("PYTHONDONTWRITEBYTECODE"):
    import compileall

    compileall.compile_dir(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "srcad"),
                           quiet=1)

import pytest  # noqa: E402

import srcad.rules  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
srcad.rules.load_all()  # the lazily registered families (scipy) too, for the rule checks


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.py from the current code generator")


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
