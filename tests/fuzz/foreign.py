"""The foreign-array check, run on a sample of programs: the differentiated arguments' float
arrays as dask arrays (srcad/namespaces.py). srcad's derivative code must give the NumPy
derivative (checked against finite differences as well), or refuse with an error at the
user's line; a dask array it would compute is such a refusal, never a computation."""

from __future__ import annotations

import numpy as np

import srcad

from . import trees
from .checks import _FAILED


def _as_dask(tree, da):
    """tree with its float arrays of rank >= 1 as dask arrays (in dicts, lists and tuples)."""
    if isinstance(tree, np.ndarray) and tree.dtype.kind == "f" and tree.ndim:
        return da.from_array(tree, chunks=tuple(max(1, (n + 1) // 2) for n in tree.shape))
    if isinstance(tree, dict):
        return {k: _as_dask(v, da) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_as_dask(v, da) for v in tree]
    if type(tree) is tuple:
        return tuple(_as_dask(v, da) for v in tree)
    return tree


def _computed(tree):
    """The dask arrays in a result computed (outside srcad's guard: the result is the user's)."""
    if hasattr(tree, "compute") and hasattr(tree, "dask"):
        return tree.compute()
    if isinstance(tree, dict):
        return {k: _computed(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_computed(v) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    names = trees.fields(tree)
    if names is not None:
        return trees.rebuild(tree, {k: _computed(getattr(tree, k)) for k in names})
    return tree


def check_dask(run):
    try:
        import dask.array as da
    except ImportError:
        return
    args = tuple(_as_dask(a, da) if i in run.diff else a for i, a in enumerate(run.args))
    if all(a is b for a, b in zip(args, run.args)):
        return  # (no float array to differentiate)
    if run.scalar:
        g = run.attempt("dask", lambda: srcad.grad(run.f, argnums=run.mod.DIFF)(*args))
        ref = run.grad()
        if g is _FAILED or ref is _FAILED:
            return
        g = _computed(g)
        if run.structure("dask", g):
            run.against_fd("dask", run.argvec(g), run.estimate(), "gradient of dask arrays")
            run.tight("dask", run.argvec(g), run.argvec(ref), "gradient of dask arrays differs from NumPy's")
    tangents = tuple(_as_dask(t, da) for t in run.tangents())
    out = run.attempt("dask", lambda: srcad.jvp(run.f, args, tangents))
    ref = run.jvp()
    if out is _FAILED or ref is _FAILED:
        return
    t = _computed(out[1])
    bad = trees.same_structure(t, run.value())
    if bad:
        run.add("wrong", "dask", "structure", f"tangent output of dask arrays: {bad}")
        return
    run.tight("dask", trees.flatten_like(t, run.value()), trees.flatten_like(ref[1], run.value()),
              "jvp of dask arrays differs from NumPy's")
