"""The "startup" group (issue 6): how long the first gradient call of a new process takes,
without the persistent cache, with an empty cache (transform, compile and write the entry)
and with a warm cache (read the entry; no transformation).

Each measurement runs in a fresh interpreter, so that nothing srcad caches in memory
helps; only the first call is timed (imports and argument building are not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from .cases import GROUPS
from .report import Table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PROBE = """
import json, sys, time
sys.path.insert(0, {root!r})
import srcad
from benchmarks.cases import {module} as mod
case = mod.CASE
args = case.sizes[0].build()
srcad.config.cache_dir = {cache!r}
g = srcad.grad(case.forward, argnums=case.argnums)
t0 = time.perf_counter(); g(*args); t1 = time.perf_counter()
for _ in range(3):
    t2 = time.perf_counter(); g(*args); t3 = time.perf_counter()
print(json.dumps({{"first": t1 - t0, "steady": t3 - t2}}))
"""


def _probe(module: str, cache: str | None) -> dict:
    code = _PROBE.format(root=ROOT, module=module, cache=cache)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        return {"error": run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def startup_rows(only=None) -> list:
    rows = []
    for group in ("core", "loops"):
        for case in GROUPS[group]:
            if only not in (None, "startup", case.name):
                continue
            module = case.forward.__module__.rsplit(".", 1)[-1]
            with tempfile.TemporaryDirectory() as cache:
                rows.append((case.name, case.sizes[0].label, _probe(module, None), _probe(module, cache),
                             _probe(module, cache)))
    return rows


def _ms(result: dict, key: str = "first") -> str:
    return "error" if "error" in result else f"{result[key] * 1e3:.1f}"


def startup_table(rows) -> Table:
    headers = ["case", "size", "no cache ms", "cold cache ms", "warm cache ms", "cold/warm", "steady µs"]
    table = Table(headers)
    for name, size, plain, cold, warm in rows:
        ratio = "-" if "error" in cold or "error" in warm else f"{cold['first'] / warm['first']:.1f}"
        steady = "-" if "error" in warm else f"{warm['steady'] * 1e6:,.0f}"
        table.rows.append([name, size, _ms(plain), _ms(cold), _ms(warm), ratio, steady])
        for label, result in (("no cache", plain), ("cold", cold), ("warm", warm)):
            if "error" in result:
                table.notes.append(f"{name} {label}: {result['error']}")
    table.problems = len(table.notes)
    return table
