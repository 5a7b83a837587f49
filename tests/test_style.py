"""The repository stays ruff clean under the configuration in pyproject.toml (the lint rules
the project chose: pycodestyle, pyflakes, import order, bugbear, pyupgrade; 110 columns)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    try:
        import ruff  # noqa: F401  (the test extras install it)
    except ImportError:
        exe = shutil.which("ruff")
        if exe is None:
            pytest.fail("ruff is not installed: pip install -e '.[test]'")
        return [exe]
    return [sys.executable, "-m", "ruff"]


def test_ruff_is_clean():
    out = subprocess.run([*_ruff(), "check", "--no-cache", str(ROOT)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
