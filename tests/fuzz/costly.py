"""The costlier checks, run on a sample of programs: second order (hessian, hvp), the
rank-only code against the shape-specialised code, the persistent cache (cold, then warm
from fresh function objects) and `srcad codegen` (the written module imported and run)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile

import numpy as np

import srcad
import srcad.cli

from . import fd, trees
from .checks import _FAILED
from .program import import_path

_fresh = [0]


def fresh_f(run, name: str | None = None):
    """f from a new import of the program's file: a new function object, no cached code.
    With `name`, the module is imported under that name (again), as a new process would
    import it: the persistent cache names classes by module and qualified name."""
    _fresh[0] += 1
    stem = os.path.splitext(os.path.basename(run.path))[0]
    return import_path(run.path, f"{stem}_{name}" if name else f"{stem}_again{_fresh[0]}").f


def hess_matrix(run, H) -> np.ndarray:
    rows = []
    for a, i in enumerate(run.diff):
        for pi in trees.paths(run.args[i]):
            node = trees.get(H[a] if run.tuple_argnums else H, pi)
            blocks = []
            for b, j in enumerate(run.diff):
                sub = node[b] if run.tuple_argnums else node
                for pj in trees.paths(run.args[j]):
                    leaf = np.asarray(trees.get(sub, pj), dtype=float)
                    want = np.shape(trees.get(run.args[i], pi)) + np.shape(trees.get(run.args[j], pj))
                    if leaf.shape != want:
                        raise ValueError(f"block {i}{pi}/{j}{pj} has shape {leaf.shape}, expected {want}")
                    blocks.append(leaf.reshape(int(np.size(trees.get(run.args[i], pi))), -1))
            rows.append(np.concatenate(blocks, axis=1))
    return np.concatenate(rows, axis=0)


def check_hessian(run):
    H = run.attempt("hessian", lambda: srcad.hessian(run.f, argnums=run.mod.DIFF)(*run.args))
    if H is _FAILED:
        return
    try:
        M = hess_matrix(run, H)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError) as e:
        run.add("wrong", "hessian", "structure", str(e))
        return
    run.memo["hessian_matrix"] = M
    scale = np.max(np.abs(M), initial=0.0)
    run.tight("hessian", M, M.T, "not symmetric", scale=scale, rtol=1e-6)
    g = run.grad()
    if g is _FAILED:
        return
    grad_fn = run.grad_fn()
    est = fd.jacobian(lambda th: run.argvec(grad_fn(*run.with_theta(th))), run.theta)
    if est.any_unreliable:
        run.add("inconclusive", "hessian", "unreliable finite differences of the gradient")
    run.against_fd("hessian", M, est, "Hessian (vs finite differences of grad)")


def check_hvp(run):
    out = run.attempt("hvp", lambda: srcad.hvp(run.f, run.args, run.tangents()))
    M = run.memo.get("hessian_matrix")
    if out is _FAILED or M is None:
        return
    got = np.concatenate([trees.flatten(p)
                          for p in (out if run.tuple_argnums and len(run.diff) > 1 else (out,))])
    v = run.tvec()
    run.tight("hvp", got, M @ v, "hvp differs from hessian @ v", scale=np.abs(M) @ np.abs(v), rtol=1e-6)


def check_rank_only(run):
    f = fresh_f(run)
    old = srcad.config.shape_variants
    srcad.config.shape_variants = 0
    try:
        if run.scalar:
            g, ref = (run.attempt("rank_only", lambda: srcad.grad(f, argnums=run.mod.DIFF)(*run.args)),
                      run.grad())
            if g is not _FAILED and ref is not _FAILED:
                run.tight("rank_only", run.argvec(g), run.argvec(ref), "rank-only grad differs")
        t, ref = run.attempt("rank_only", lambda: srcad.jvp(f, run.args, run.tangents())), run.jvp()
        if t is not _FAILED and ref is not _FAILED:
            run.tight("rank_only", trees.flatten(t[1]), trees.flatten(ref[1]), "rank-only jvp differs")
    finally:
        srcad.config.shape_variants = old


def _count_files(root: str) -> int:
    return sum(len(files) for _, _, files in os.walk(root))


def check_cache(run):
    derive = (lambda f: srcad.grad(f, argnums=run.mod.DIFF)(*run.args)) if run.scalar else \
             (lambda f: srcad.jvp(f, run.args, run.tangents())[1])
    ref = run.grad() if run.scalar else run.jvp()
    if ref is _FAILED:
        return
    ref = run.argvec(ref) if run.scalar else trees.flatten(ref[1])
    old = srcad.config.cache_dir
    with tempfile.TemporaryDirectory() as cache:
        srcad.config.cache_dir = cache
        try:
            cold = run.attempt("cache", lambda: derive(fresh_f(run, "cached")))
            written = _count_files(cache)
            warm = run.attempt("cache", lambda: derive(fresh_f(run, "cached")))
        finally:
            srcad.config.cache_dir = old
        if cold is _FAILED or warm is _FAILED:
            return
        if written and _count_files(cache) != written:
            run.add("wrong", "cache", "warm run wrote new entries", f"{written} files after the cold run, "
                    f"{_count_files(cache)} after the warm run")
        flat = run.argvec if run.scalar else trees.flatten
        run.tight("cache", flat(cold), ref, "cold cached derivative differs")
        run.tight("cache", flat(warm), ref, "warm cached derivative differs")


def type_name(x) -> str:
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, float):
        return "float"
    if isinstance(x, np.ndarray):
        return f"float[{','.join(map(str, x.shape))}]"
    return "any"


def _codegen(run, mode: str, outdir: str):
    stem = os.path.splitext(os.path.basename(run.path))[0]
    out = os.path.join(outdir, f"{stem}_{mode}.py")
    argv = ["codegen", f"{run.path}:f", "--mode", mode, "--types", ",".join(type_name(a) for a in run.args),
            "--argnums", ",".join(map(str, run.diff)), "-o", out]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = run.attempt("codegen", lambda: srcad.cli.main(argv))
    if code is _FAILED:
        return None
    if code != 0:
        text = err.getvalue()
        named = f"{os.path.basename(run.path)}:" in text
        run.add("reject" if named and code == 1 else "crash", "codegen",
                "refused" if named and code == 1 else f"exit {code} without the user's location", text[:3000])
        return None
    return run.attempt("codegen", lambda: import_path(out, f"{stem}_{mode}_gen"))


def check_codegen(run):
    if any(trees.has_object(a) for a in run.args):
        return  # (`--types` cannot name a class: srcad codegen takes floats, ints and arrays)
    with tempfile.TemporaryDirectory() as outdir:
        if run.scalar and run.grad() is not _FAILED:
            mod = _codegen(run, "reverse", outdir)
            if mod is not None and mod is not _FAILED:
                g = run.attempt("codegen", lambda: mod.grad_f(*run.args))
                if g is not _FAILED:
                    flat = trees.flatten(g)
                    run.tight("codegen", flat, run.argvec(run.grad()), "codegen grad_f differs from grad")
        if run.jvp() is not _FAILED:
            mod = _codegen(run, "forward", outdir)
            if mod is not None and mod is not _FAILED:
                res = run.attempt("codegen",
                                  lambda: mod.jvp_f(*run.args, *(run.tangents()[i] for i in run.diff)))
                if res is not _FAILED:
                    run.tight("codegen", trees.flatten(res[1]), trees.flatten(run.jvp()[1]),
                              "codegen jvp_f differs from jvp")
