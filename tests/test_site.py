"""The documentation site builds with `mkdocs build --strict` (a broken link, a missing page,
a link to a file outside docs/ or an API reference entry that does not resolve fails it; not
run with -q, which hides the warnings strict mode counts), its root is a home page, the API
reference is generated from the docstrings, and the examples page holds every example."""

import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(ROOT, "examples", "*.py")))
pytestmark = pytest.mark.xdist_group("site")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                          os.path.join(ROOT, "mkdocs.yml"), "-d", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def _page(site, name):
    return (site / name / "index.html" if name else site / "index.html").read_text(encoding="utf-8")


def test_site_builds_strictly_with_a_home_page(site):
    home = _page(site, "")
    assert "Source-transformation automatic differentiation" in home and "srcad.grad(loss)" in home
    for page in ("guide", "api", "faq", "debugging", "changelog", "stability", "examples"):
        assert (site / page / "index.html").is_file(), page


def test_api_reference_comes_from_the_docstrings(site):
    import srcad

    api = _page(site, "api")
    for name in ("grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "hvp", "vmap",
                 "source", "SlowFirstCallWarning", "SrcadError"):
        assert f'id="srcad.{name}"' in api, name
    first_line = srcad.grad.__doc__.splitlines()[0].split("`")[0].strip()
    assert first_line in api, first_line


def test_examples_page_holds_every_example(site):
    page = _page(site, "examples")
    for name in EXAMPLES:
        assert f'id="{name}"' in page, name
        with open(os.path.join(ROOT, "examples", name + ".py"), encoding="utf-8") as f:
            last_def = [line for line in f if line.startswith("def ")][-1].split("(")[0]
        assert last_def.replace("def ", "") in page, (name, last_def)
