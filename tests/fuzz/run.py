"""One program through every check: the entry point of workers and of the shrinker."""

from __future__ import annotations

import contextlib
import random
import signal
import time
import warnings

import numpy as np

import srcad

from . import costly, foreign
from .checks import Checks, Timeout
from .config import Config
from .outcome import Finding, first_of, short_traceback, worst
from .program import load, tame

RUNNERS = {
    "grad": lambda r: r.check_grad() if r.scalar else None,
    "value_and_grad": lambda r: r.check_value_and_grad() if r.scalar else None,
    "budget": lambda r: r.check_budget() if r.scalar else None,
    "jvp": lambda r: r.check_jvp(),
    "vjp": lambda r: r.check_vjp(),
    "jacfwd": lambda r: r.check_jacobians(),
    "jacrev": lambda r: r.check_jacobians(),
    "hessian": lambda r: costly.check_hessian(r) if r.scalar else None,
    "hvp": lambda r: (costly.check_hessian(r) if "hessian_matrix" not in r.memo else None,
                      costly.check_hvp(r)) if r.scalar else None,
    "rank_only": costly.check_rank_only,
    "cache": costly.check_cache,
    "codegen": costly.check_codegen,
    "dask": foreign.check_dask,
}


ALL_CHECKS = list(RUNNERS)


def sampled_checks(cfg: Config, seed: str) -> list[str]:
    """Which checks a program gets: every first-order one, the costly ones on a sample
    (decided by the seed, so a rerun of the seed runs the same checks)."""
    rng = random.Random(f"checks/{seed}")
    names = ["grad", "value_and_grad", "budget", "jvp", "vjp", "jacfwd"]
    if rng.random() < cfg.hessian:
        names += ["hessian", "hvp"]
    for name in ("rank_only", "cache", "codegen", "dask"):
        if rng.random() < getattr(cfg, name):
            names.append(name)
    return names


def raising_point(run: Checks) -> list[Finding]:
    """f raises at the point: every derivative must raise too, never return a number."""
    calls = {"grad": lambda: srcad.grad(run.f, argnums=run.mod.DIFF)(*run.args),
             "jvp": lambda: srcad.jvp(run.f, run.args, run.tangents()),
             "vjp": lambda: srcad.vjp(run.f, *run.args)}
    for name, call in calls.items():
        try:
            call()
        except Timeout:
            raise
        except Exception:  # noqa: BLE001 - any exception is the right answer here
            continue
        run.add("wrong", name, "returned where f raises", "f raises at the point but srcad returned a value")
    if not run.findings:
        run.add("pass", "raises", "f raises and so do its derivatives")
    return run.findings


def check_module(mod, path: str, seed: str, checks: list[str]) -> list[Finding]:
    run = Checks(mod, path, seed)
    try:
        run.value()
    except Timeout:
        raise
    except Exception:  # noqa: BLE001
        return raising_point(run)
    done = set()
    for name in checks:
        key = "jacobians" if name in ("jacfwd", "jacrev") else name
        if key not in done:
            done.add(key)
            RUNNERS[name](run)
    return run.findings


def output_kind(mod) -> str:
    """What f returns at the point: 'raises', or its structure (float leaves as 'f',
    arrays with their shapes) - the shrinker keeps this unchanged."""
    try:
        out = mod.f(*mod.make_args())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}"
    if not tame(out, scalar=False):
        return "untame"
    if isinstance(out, (dict, list, tuple)) or np.ndim(out) != 0:
        return repr(jax_like_structure(out))
    return "scalar"


def jax_like_structure(out):
    if isinstance(out, dict):
        return {k: jax_like_structure(v) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(jax_like_structure(v) for v in out)
    return np.shape(out)


def check_source(source: str, workdir: str, seed: str, checks: list[str],
                 want_kind: str | None = None) -> list[Finding]:
    """Load and check a program's text (also the shrinker's predicate: with `want_kind`,
    a program whose output kind differs has no findings)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        mod = load(source, workdir)
        if want_kind is not None and output_kind(mod) != want_kind:
            return []
        return check_module(mod, mod.__file__, seed, checks)


def summary(findings: list[Finding]) -> dict:
    kind = worst(findings)
    top = first_of(findings, kind)
    return {"outcome": kind, "signature": top.signature if top else "pass",
            "findings": [f.as_dict() for f in findings if f.kind != "pass"]}


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise Timeout in the main thread after `seconds` (a hang in srcad, in generated code
    or in a program)."""
    def fire(signum, frame):
        raise Timeout()
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_seed(seed: str, cfg: Config, workdir: str) -> dict:
    """Generate the program of `seed` and check it; the result is JSON-able."""
    from .program import generate

    start = time.time()
    result = {"seed": seed, "features": [], "attempts": 0}
    source = None
    try:
        with time_limit(cfg.timeout):
            prog = generate(seed, cfg, workdir)
            source = prog.source
            result.update(features=prog.features, attempts=prog.attempts)
            findings = check_source(prog.source, workdir, seed, sampled_checks(cfg, seed))
    except Timeout:
        findings = [Finding("crash", "timeout", "hang", f"no result within {cfg.timeout} s")]
    except Exception as e:  # noqa: BLE001 - a bug of the fuzzer itself; reported as such
        findings = [Finding("crash", "fuzzer", f"fuzzer {type(e).__name__}", short_traceback(e))]
    result.update(summary(findings))
    if result["outcome"] in ("crash", "wrong") and source:
        result["source"] = source
    result["time"] = round(time.time() - start, 3)
    return result


def shrink_failure(source: str, signature: str, seed: str, workdir: str, budget: float,
                   per_candidate: float = 4.0) -> dict:
    """Shrink a failing program; the predicate reruns only the check that failed."""
    from .shrink import shrink

    check = signature.split(":")[1]
    checks = [check] if check in RUNNERS else list(RUNNERS)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kind = output_kind(load(source, workdir))

    def still_fails(text: str) -> bool:
        try:
            with time_limit(per_candidate):
                findings = check_source(text, workdir, seed, checks, kind)
        except Timeout:
            return signature == "crash:timeout:hang"
        except Exception:  # noqa: BLE001 - a candidate that breaks the fuzzer is not kept
            return False
        return any(f.signature == signature for f in findings)

    text, tried = shrink(source, still_fails, budget)
    try:
        with time_limit(per_candidate):
            findings = check_source(text, workdir, seed, checks)
    except BaseException as e:  # noqa: BLE001
        findings = [Finding("crash", "shrink", type(e).__name__, short_traceback(e))]
    header = f"# shrunk from srcad fuzz program {seed} ({tried} candidates tried); fails with {signature}\n"
    return {"seed": seed, "signature": signature, "shrunk": header + text, "tried": tried,
            "findings": [f.as_dict() for f in findings if f.kind != "pass"]}
