"""A campaign: many programs over a pool of worker processes, with a time limit per
program enforced from outside (a hang or a crash of the interpreter costs one program and a
new worker, never the campaign), then counts, and failing programs written to disk."""

from __future__ import annotations

import collections
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from .config import FEATURES, Config
from .outcome import ORDER

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECYCLE = 250   # programs per worker process (bounded memory: every program is a module)


class Worker:
    def __init__(self, cfg: Config, workdir: str, log):
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.tmp = tempfile.mkdtemp(dir=workdir)
        env["TMPDIR"] = self.tmp
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.worker", cfg.to_json()],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                     cwd=ROOT, env=env, text=True, bufsize=1)
        self.task = None
        self.started = 0.0
        self.served = 0

    def send(self, task: dict, limit: float):
        self.task, self.started, self.limit = task, time.time(), limit
        self.proc.stdin.write(json.dumps(task) + "\n")
        self.proc.stdin.flush()

    def overdue(self) -> bool:
        return self.task is not None and time.time() - self.started > self.limit

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass
class Tally:
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    by_feature: dict = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    signatures: dict = field(default_factory=dict)   # signature -> list of seeds
    results: list = field(default_factory=list)
    elapsed: float = 0.0

    def add(self, r: dict):
        self.outcomes[r["outcome"]] += 1
        for feat in r.get("features", []):
            self.by_feature[feat][r["outcome"]] += 1
        if r["outcome"] in ("crash", "wrong"):
            self.signatures.setdefault(r["signature"], []).append(r["seed"])
        self.results.append(r)

    def report(self, elapsed: float) -> str:
        n = sum(self.outcomes.values())
        lines = [f"{n} programs in {elapsed:.0f} s ({n / max(elapsed, 1e-9):.1f}/s)",
                 "  " + "  ".join(f"{k}: {self.outcomes.get(k, 0)}" for k in ORDER)]
        lines.append("\nper feature (programs using it):")
        lines.append(f"  {'feature':<14}" + "".join(f"{k:>13}" for k in ORDER))
        for feat in FEATURES:
            c = self.by_feature.get(feat)
            if c:
                lines.append(f"  {feat:<14}" + "".join(f"{c.get(k, 0):>13}" for k in ORDER))
        if self.signatures:
            lines.append("\nfailure signatures (count, first seeds):")
            for sig, seeds in sorted(self.signatures.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"  {len(seeds):>5}  {sig}   {', '.join(seeds[:4])}")
        return "\n".join(lines)


def _safe(seed: str) -> str:
    return seed.replace(":", "_").replace("/", "_")


def write_failure(out: str, r: dict, shrunk: dict | None = None):
    d = os.path.join(out, "failures", _safe(r["seed"]))
    os.makedirs(d, exist_ok=True)
    if r.get("source"):
        with open(os.path.join(d, "original.py"), "w") as fh:
            fh.write(r["source"])
    with open(os.path.join(d, "failure.txt"), "w") as fh:
        fh.write(f"seed {r['seed']}\noutcome {r['outcome']}\nsignature {r['signature']}\n"
                 f"features {', '.join(r.get('features', []))}\n\n")
        for f in r.get("findings", []):
            fh.write(f"--- {f['kind']}:{f['check']}:{f['detail']}\n{f['message']}\n\n")
        if shrunk:
            fh.write("=== after shrinking:\n")
            for f in shrunk.get("findings", []):
                fh.write(f"--- {f['kind']}:{f['check']}:{f['detail']}\n{f['message']}\n\n")
    if shrunk:
        with open(os.path.join(d, "shrunk.py"), "w") as fh:
            fh.write(shrunk["shrunk"])


class Pool:
    """Workers that each run one task at a time; answers come back in completion order."""

    def __init__(self, cfg: Config, jobs: int, workdir: str, log):
        self.cfg, self.workdir, self.log = cfg, workdir, log
        self.workers = [Worker(cfg, workdir, log) for _ in range(jobs)]

    def map(self, tasks, limit_of):
        """Yield (task, answer or None on a hang/death) for every task."""
        pending = list(reversed(tasks))
        while pending or any(w.task for w in self.workers):
            for k, w in enumerate(self.workers):
                if w.task is None and pending:
                    if w.served >= RECYCLE:
                        w.stop()
                        w = self.workers[k] = Worker(self.cfg, self.workdir, self.log)
                    w.send(pending.pop(), limit_of(pending))
            busy = {w.proc.stdout.fileno(): w for w in self.workers if w.task}
            ready, _, _ = select.select(list(busy), [], [], 1.0)
            for fd in ready:
                w = busy[fd]
                line = w.proc.stdout.readline()
                task, w.task = w.task, None
                w.served += 1
                if line:
                    yield task, json.loads(line)
                else:
                    yield task, None
                    self._replace(w)
            for w in list(self.workers):
                if w.overdue():
                    task, w.task = w.task, None
                    yield task, None
                    self._replace(w)

    def _replace(self, w: Worker):
        k = self.workers.index(w)
        w.stop()
        self.workers[k] = Worker(self.cfg, self.workdir, self.log)

    def close(self):
        for w in self.workers:
            w.stop()


def run_campaign(cfg: Config, n: int, seed: str, jobs: int = 1, out: str | None = None,
                 shrink: bool = False, shrink_budget: float = 90.0, shrink_per_signature: int = 1,
                 start: int = 0, progress=print) -> Tally:
    tally, t0 = Tally(), time.time()
    workdir = tempfile.mkdtemp(prefix="srcad-fuzz-")
    if out:
        os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "workers.log"), "w") if out else subprocess.DEVNULL
    pool = Pool(cfg, jobs, workdir, log)
    results_file = open(os.path.join(out, "results.jsonl"), "w", buffering=1) if out else None
    try:
        tasks = [{"op": "run", "seed": f"{seed}:{i}"} for i in range(start, start + n)]
        for k, (task, r) in enumerate(pool.map(tasks, lambda _: cfg.timeout + 30)):
            if r is None:
                r = {"seed": task["seed"], "outcome": "crash", "signature": "crash:worker:hang or died",
                     "features": [],
                     "findings": [{"kind": "crash", "check": "worker", "detail": "hang or died",
                                   "message": "the worker process hung or died on this program"}]}
            tally.add(r)
            if results_file:
                results_file.write(json.dumps({k2: v for k2, v in r.items() if k2 != "source"}) + "\n")
            if out and r["outcome"] in ("crash", "wrong"):
                write_failure(out, r)
            if progress and (k + 1) % 200 == 0:
                progress(f"{k + 1}/{n} " + " ".join(f"{o}={tally.outcomes.get(o, 0)}" for o in ORDER)
                         + f" ({time.time() - t0:.0f} s)")
        if shrink and out:
            _shrink_all(pool, tally, out, shrink_budget, shrink_per_signature, progress)
    finally:
        pool.close()
        if results_file:
            results_file.close()
        shutil.rmtree(workdir, ignore_errors=True)
    tally.elapsed = time.time() - t0
    if out:
        with open(os.path.join(out, "summary.txt"), "w") as fh:
            fh.write(tally.report(tally.elapsed) + "\n")
    return tally


def _shrink_all(pool, tally, out, budget, per_signature, progress):
    by_seed = {r["seed"]: r for r in tally.results}
    tasks = []
    for sig, seeds in tally.signatures.items():
        for s in seeds[:per_signature]:
            r = by_seed[s]
            if r.get("source"):
                tasks.append({"op": "shrink", "seed": s, "source": r["source"], "signature": sig,
                              "budget": budget})
    if progress and tasks:
        progress(f"shrinking {len(tasks)} failing programs (one per signature)")
    for task, answer in pool.map(tasks, lambda _: budget + 60):
        write_failure(out, by_seed[task["seed"]], answer)


def shrink_directory(cfg: Config, out: str, jobs: int, budget: float, per_signature: int,
                     progress=print) -> Tally:
    """Shrink the failures of a finished or interrupted campaign in `out`."""
    tally = Tally()
    with open(os.path.join(out, "results.jsonl")) as fh:
        for line in fh:
            r = json.loads(line)
            src = os.path.join(out, "failures", _safe(r["seed"]), "original.py")
            if os.path.exists(src):
                with open(src) as s:
                    r["source"] = s.read()
            tally.add(r)
    workdir = tempfile.mkdtemp(prefix="srcad-fuzz-")
    with open(os.path.join(out, "workers.log"), "a") as log:
        pool = Pool(cfg, jobs, workdir, log)
        try:
            _shrink_all(pool, tally, out, budget, per_signature, progress)
        finally:
            pool.close()
            shutil.rmtree(workdir, ignore_errors=True)
    return tally
