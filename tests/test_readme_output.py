"""The README shows real output: its example's printed text must match what srcad prints."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_readme_example_output_is_current(tmp_path):
    text = open(os.path.join(ROOT, "README.md")).read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", text, re.S).group(1)
    script = tmp_path / "readme.py"  # the README's output names this file
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip() == shown.rstrip(), \
        "README output is stale: paste the new output into README.md"
