"""Every ```python block in README.md and docs/*.md runs.

A file's blocks run in order as one script (later blocks may use earlier ones), written to a
temporary file so that srcad can read the functions' sources, in a fresh interpreter with
the repository on PYTHONPATH. Each block sits at its own line numbers in that script, so a
traceback's line number is the line in the Markdown file; a failure names the file and the
block. Blocks that are not meant to run use another fence (```text, ```bash).
"""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```\s*(\S*)\s*$")
RUNNABLE = ("python", "py", "python3")
TIMEOUT = 120

def markdown_files():
    docs = os.path.join(ROOT, "docs")
    names = sorted(n for n in os.listdir(docs) if n.endswith(".md")) if os.path.isdir(docs) else []
    return ["README.md"] + [f"docs/{n}" for n in names]


def python_blocks(text):
    """[(first line number, code)] of the ```python blocks, lines numbered from 1."""
    blocks, language, start, body = [], None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if language is None:
            if match:
                language, start, body = match.group(1).lower() or "text", number + 1, []
        elif line.startswith("```"):
            if language in RUNNABLE:
                blocks.append((start, "\n".join(body)))
            language = None
        else:
            body.append(line)
    assert language is None, "unclosed ``` fence"
    return blocks


def script_of(blocks):
    """The blocks at their Markdown line numbers, blank lines elsewhere."""
    lines = []
    for start, code in blocks:
        lines.extend([""] * (start - 1 - len(lines)))
        lines.extend(code.splitlines())
    return "\n".join(lines) + "\n"


def failing_block(blocks, script, stderr):
    """(block number, first line) of the block whose top-level statement failed: the outermost
    frame in the script."""
    lines = [int(n) for n in re.findall(rf'File "{re.escape(script)}", line (\d+)', stderr)]
    if not lines:
        return None
    found = None
    for number, (start, _) in enumerate(blocks, 1):
        if start <= lines[0]:
            found = (number, start)
    return found


def module_name(path):
    """readme.py, guide.py, ...: named after the document, never shadowing the standard library."""
    stem = os.path.splitext(os.path.basename(path))[0].lower()
    return stem if stem.isidentifier() and stem not in sys.stdlib_module_names else f"doc_{stem}"


def documents_with_code():
    found = []
    for path in markdown_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            if python_blocks(f.read()):
                found.append(path)
    return found


def test_readme_has_code():
    assert "README.md" in documents_with_code()


@pytest.mark.parametrize("path", documents_with_code())
def test_python_blocks_run(path, tmp_path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        blocks = python_blocks(f.read())
    script = str(tmp_path / f"{module_name(path)}.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(script_of(blocks))
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg")
    env.pop("SRCAD_CACHE_DIR", None)
    run = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    if run.returncode == 0:
        return
    where = failing_block(blocks, script, run.stderr)
    if where:
        block = f"block {where[0]} of {len(blocks)} (starting at line {where[1]})"
    else:
        block = f"one of its {len(blocks)} blocks"
    pytest.fail(f"{path}: {block} failed (traceback line numbers are lines of {path})\n"
                f"--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}", pytrace=False)


def test_mkdocs_nav_lists_every_page():
    """(A page listed there may be missing while someone writes it.)"""
    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        nav = re.findall(r"^\s+- [^:\n]+: (\S+\.md)\s*$", f.read(), re.M)
    pages = [path[len("docs/"):] for path in markdown_files() if path.startswith("docs/")]
    missing = sorted(set(pages) - set(nav))
    assert not missing, f"add these pages to the nav in mkdocs.yml: {missing}"
