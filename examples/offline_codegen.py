"""Ship a derivative as a plain Python file: `srcad codegen`, then use it without srcad.

1. writes a small model, springs.py, into a temporary directory;
2. runs `python -m srcad codegen springs.py:energy ... -o springs_grad.py` there;
3. runs `python -m srcad check springs_grad.py` (is it stale against springs.py?);
4. imports springs_grad in a fresh interpreter where srcad cannot be imported
   (sys.modules['srcad'] = None), calls the gradient and compares it with central finite
   differences of springs.energy.

    python examples/offline_codegen.py
"""

import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap

MODEL = '''\
import numpy as np


def energy(x, k):
    """Energy of a chain of masses at heights x: springs of rest length 1, and a sine field."""
    e = 0.0
    for i in range(len(x) - 1):
        stretch = x[i + 1] - x[i] - 1.0
        e = e + 0.5 * k * stretch * stretch
    return e + 9.81 * np.sum(np.sin(x))
'''

# use_it.py: runs in a fresh interpreter, in the temporary directory
USE_IT = '''\
import sys
sys.modules["srcad"] = None               # any `import srcad` now raises ImportError
try:
    import srcad  # noqa: F401
except ImportError:
    print("in a fresh interpreter: srcad is not importable")

import numpy as np
import springs
import springs_grad

x, k = np.linspace(0.0, 4.0, 6), 3.0
gx, gk = springs_grad.grad_energy(x, k)
print("dE/dx =", np.round(gx, 6))
print("dE/dk =", round(gk, 6))

eps = 1e-6
fd_x = np.array([(springs.energy(x + eps * e, k) - springs.energy(x - eps * e, k)) / (2 * eps)
                 for e in np.eye(len(x))])
fd_k = (springs.energy(x, k + eps) - springs.energy(x, k - eps)) / (2 * eps)
err = max(np.max(np.abs(gx - fd_x)), abs(gk - fd_k))
print(f"max |generated - finite differences| = {err:.1e}")
sys.exit(0 if err < 1e-6 else 1)
'''


def run(args, cwd, env):
    print("$ python", " ".join(args))
    done = subprocess.run([sys.executable] + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    print(textwrap.indent((done.stdout + done.stderr).rstrip(), "  "))
    return done.returncode


def main():
    package = importlib.util.find_spec("srcad")  # where srcad is, without importing it
    if package is None:
        sys.exit("srcad is not importable: pip install -e . or set PYTHONPATH to the repository")
    srcad_root = os.path.dirname(os.path.dirname(package.origin))
    with tempfile.TemporaryDirectory() as work:
        for name, text in (("springs.py", MODEL), ("use_it.py", USE_IT)):
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        with_srcad = dict(os.environ, PYTHONPATH=srcad_root)
        codegen = ["-m", "srcad", "codegen", "springs.py:energy", "--types", "array1,float",
                   "--argnums", "0,1", "-o", "springs_grad.py"]
        codes = [run(codegen, work, with_srcad)]
        if codes[0] == 0:
            with open(os.path.join(work, "springs_grad.py")) as f:
                print("\nThe generated module, springs_grad.py:\n")
                print(f.read())
        codes.append(run(["-m", "srcad", "check", "springs_grad.py"], work, with_srcad))
        print()
        without_srcad = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        codes.append(run(["use_it.py"], work, without_srcad))
    ok = codes == [0, 0, 0]
    print("check:", "OK" if ok else f"FAILED (exit codes {codes})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
