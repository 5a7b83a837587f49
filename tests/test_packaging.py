"""The distribution: `python -m build` makes an sdist that carries the tests and their data
(so the suite runs from the unpacked archive) and a wheel that carries the package and
nothing else; the metadata names the license, the URLs and the one version; the command
line answers --version; `srcad report` prints what a bug report needs."""

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import srcad
from srcad import report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what is on disk in a clone or an unpacked sdist but is not a source file of the project
# (besides hidden files and folders: .git, .ci, caches of ruff, pytest and hypothesis)
JUNK_DIRS = {"__pycache__", "build", "dist", "site", "plots", "venv"}
JUNK_FILES = {"PKG-INFO", "setup.cfg"}


def _junk(name):
    return name.startswith(".") or name in JUNK_DIRS or name.endswith((".egg-info", ".pyc", ".tmp"))


def _project_files(root):
    found = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not _junk(d)]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if name in JUNK_FILES or _junk(name):
                continue
            found.add(rel)
    return found


def _repository_url():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        return re.search(r'^Repository = "([^"]+)"', f.read(), re.M).group(1)


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """The sdist and the wheel, built offline (--no-isolation: setuptools, wheel and build come
    with the test extras) from a copy of the tree, so no build/ or egg-info lands in it."""
    work = tmp_path_factory.mktemp("packaging")
    tree = work / "tree"
    shutil.copytree(ROOT, tree, ignore=lambda folder, names: [n for n in names if _junk(n)])
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"), "."]
    run = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    sdist = next((work / "dist").glob("*.tar.gz"))
    wheel = next((work / "dist").glob("*.whl"))
    return sdist, wheel


@pytest.mark.xdist_group("packaging")
def test_sdist_carries_the_project(dists):
    sdist, _ = dists
    top = f"srcad-{srcad.__version__}/"
    with tarfile.open(sdist) as tar:
        names = {n[len(top):] for n in tar.getnames() if n.startswith(top) and tar.getmember(n).isfile()}
        pkg_info = tar.extractfile(top + "PKG-INFO").read().decode()
    missing = sorted(_project_files(ROOT) - names)
    assert not missing, f"the sdist lacks {missing[:20]} (MANIFEST.in)"
    for needed in ("LICENSE", "tests/conftest.py", "tests/golden", "tests/errors_src", "examples/refusals.py",
                   "docs/index.md", "mkdocs.yml", "srcad/py.typed"):
        assert any(n == needed or n.startswith(needed + "/") for n in names), needed
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert f"Version: {srcad.__version__}" in pkg_info and "License-Expression: MIT" in pkg_info


@pytest.mark.xdist_group("packaging")
def test_wheel_holds_the_package_and_nothing_else(dists):
    _, wheel = dists
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        info = f"srcad-{srcad.__version__}.dist-info/"
        metadata = whl.read(info + "METADATA").decode()
        entry_points = whl.read(info + "entry_points.txt").decode()
    assert {n.split("/")[0] for n in names} == {"srcad", info[:-1]}
    package = {f for f in _project_files(ROOT) if f.startswith("srcad/")}
    assert package <= names, sorted(package - names)[:10]
    assert "srcad/py.typed" in names and info + "licenses/LICENSE" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert "License-Expression: MIT" in metadata
    assert f"Project-URL: Repository, {_repository_url()}" in metadata
    assert "srcad = srcad.cli:main" in entry_points


def test_generated_modules_name_the_repository():
    from srcad.codegen import standalone

    with open(standalone.__file__, encoding="utf-8") as f:
        text = f.read()
    urls = set(re.findall(r"https?://[^\s)\"']+", text))
    assert urls == {_repository_url()}, urls
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as f:
        assert f.readline().strip() == "MIT License"


def test_version_on_the_command_line():
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, "-m", "srcad", "--version"], capture_output=True, text=True,
                         env=env)
    assert run.returncode == 0 and run.stdout.strip() == f"srcad {srcad.__version__}", run
    assert srcad.__version__ == srcad.version.__version__


def test_report_prints_versions_and_the_generated_code(tmp_path, capsys, monkeypatch):
    (tmp_path / "reported.py").write_text("import numpy as np\n\n\ndef loss(x: float):\n"
                                          "    return np.sin(x) * x\n\n\ndef bad(x: float):\n"
                                          "    return {x}.pop()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert report.main("reported:loss") == 0
    out = capsys.readouterr().out
    import numpy as np

    for expected in (f"srcad {srcad.__version__}", f"python {sys.version.split()[0]}",
                     f"numpy {np.__version__}", "platform ", "srcad.config: cache_dir=", "def grad_loss(x):",
                     "x_bar = np.sin(x) + x * np.cos(x)"):
        assert expected in out, (expected, out)
    report.main(str(tmp_path / "reported.py") + ":bad")
    assert "srcad raises UnsupportedSyntaxError:" in capsys.readouterr().out
