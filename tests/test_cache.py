"""The opt-in persistent cache: a new process reuses generated code; edits invalidate it;
concurrent writers are safe."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import math, sys
    import numpy as np
    import srcad

    def f(x, w):
        s = 0.0
        for i in range(len(x)):
            s = s + math.tanh(w * x[i]) ** 2
        return s * SCALE

    SCALE = 2.0

    g = srcad.grad(f, argnums=1)
    value = g(np.array([0.1, 0.5, -0.7]), 0.3)
    cached = g.latest().function.__code__.co_filename.endswith(".py")
    print(repr(float(value)), "cached" if cached else "built")
""")


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env(cache_dir):
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    return dict(os.environ, SRCAD_CACHE_DIR=str(cache_dir), PYTHONPATH=path)


def _run(path, cache_dir):
    env = _env(cache_dir)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                         cwd=str(path.parent))
    assert out.returncode == 0, out.stderr
    value, how = out.stdout.split()
    return float(value), how


def _expected():
    import math
    x, w = [0.1, 0.5, -0.7], 0.3
    # hand-derived: d/dw sum tanh(w x)^2 * 2 = sum 4 tanh(w x) (1 - tanh^2) x
    return sum(4 * math.tanh(w * xi) * (1 - math.tanh(w * xi) ** 2) * xi for xi in x)


def test_second_process_uses_the_cache_and_edits_invalidate(tmp_path):
    script = tmp_path / "cached_mod.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    v1, how1 = _run(script, cache)
    v2, how2 = _run(script, cache)
    assert (how1, how2) == ("built", "cached")
    assert abs(v1 - _expected()) < 1e-12 and v1 == v2
    script.write_text(SCRIPT.replace("SCALE = 2.0", "SCALE = 3.0"))
    v3, how3 = _run(script, cache)
    assert how3 == "built" and abs(v3 - 1.5 * v1) < 1e-12


def test_concurrent_writers(tmp_path):
    script = tmp_path / "racy_mod.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    env = _env(cache)
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=str(tmp_path)) for _ in range(4)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    values = {float(o[0].split()[0]) for o in outs}
    assert len(values) == 1 and abs(values.pop() - _expected()) < 1e-12
    assert not [f for f in cache.rglob("*.tmp")]
    _, how = _run(script, cache)
    assert how == "cached"


NESTED = textwrap.dedent("""
    import numpy as np
    import srcad

    def f(x):
        return x ** 3 * srcad.stop_gradient(x)

    def g(p):
        return p["a"] ** 2 * np.sum(p["w"] ** 3)

    # hand-derived: d2/dx2 [x^3 c] = 6 x c with c = x held constant; d2 g/da2 = 2 sum(w^3)
    print(srcad.grad(srcad.grad(f))(2.0), srcad.hessian(f)(2.0),
          srcad.hessian(g)({"a": 0.5, "w": np.array([0.1, -0.3])})["a"]["a"])
""")


def test_transforms_of_transforms_cold_and_warm(tmp_path):
    script = tmp_path / "nested.py"
    script.write_text(NESTED)
    cache_dir = tmp_path / "cache"
    runs = []
    for _ in range(2):  # cold, then warm: the same numbers
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=_env(cache_dir), cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        runs.append([float(v) for v in out.stdout.split()])
    want = [24.0, 24.0, 2 * (0.1 ** 3 - 0.3 ** 3)]
    for got in runs:
        assert got == [pytest.approx(w) for w in want]
