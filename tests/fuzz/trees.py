"""Pytrees of floats and float arrays as flat vectors, independently of srcad: a leaf is a
Python float, a NumPy float or a float array (of any rank, 0-d too); containers are dicts,
lists and tuples (named tuples too), dataclass objects (their fields) and objects whose class
lists its children's attribute names in `__fz_fields__` (the fuzzer's classes registered with
srcad.register_pytree); ints, bools, strings and None are not differentiated (they are kept
as they are)."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Attr:
    """A path step that reads an object's attribute (a dataclass field, a registered child)."""
    name: str


def fields(x) -> list[str] | None:
    """The attribute names of an object pytree's children, or None for anything else."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return [f.name for f in dataclasses.fields(x)]
    names = getattr(type(x), "__fz_fields__", None)
    return list(names) if names is not None else None


def rebuild(x, children: dict):
    """An object of x's class with the given children (the other attributes kept)."""
    if dataclasses.is_dataclass(x):
        return dataclasses.replace(x, **children)
    out = copy.copy(x)
    for k, v in children.items():
        setattr(out, k, v)
    return out


def is_leaf(x) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (float, np.floating)):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def paths(tree, prefix=()) -> list[tuple]:
    """Paths (tuples of keys/indices) of the float leaves, in a fixed order."""
    if is_leaf(tree):
        return [prefix]
    if isinstance(tree, dict):
        return [p for k in tree for p in paths(tree[k], prefix + (k,))]
    if isinstance(tree, (list, tuple)):
        return [p for i, e in enumerate(tree) for p in paths(e, prefix + (i,))]
    names = fields(tree)
    if names is not None:
        return [p for k in names for p in paths(getattr(tree, k), prefix + (Attr(k),))]
    return []


def get(tree, path):
    for k in path:
        tree = getattr(tree, k.name) if isinstance(k, Attr) else tree[k]
    return tree


def flatten(tree) -> np.ndarray:
    parts = [np.ravel(np.asarray(get(tree, p), dtype=float)) for p in paths(tree)]
    return np.concatenate(parts) if parts else np.zeros(0)


def flatten_like(tree, like) -> np.ndarray:
    """The entries of `tree` at the float leaves of `like` (a tangent of an output whose
    leaves may be ints: srcad gives those a tangent 0.0, finite differences no entry)."""
    parts = [np.ravel(np.asarray(get(tree, p), dtype=float)) for p in paths(like)]
    return np.concatenate(parts) if parts else np.zeros(0)


def unflatten(like, vec: np.ndarray):
    """A tree of `like`'s structure and leaf kinds holding the entries of vec."""
    pos = [0]

    def build(x):
        if is_leaf(x):
            if isinstance(x, np.ndarray):
                n = x.size
                out = np.asarray(vec[pos[0]:pos[0] + n], dtype=float).reshape(x.shape).copy()
            else:
                n, out = 1, float(vec[pos[0]])
            pos[0] += n
            return out
        if isinstance(x, dict):
            return {k: build(v) for k, v in x.items()}
        if isinstance(x, tuple) and hasattr(x, "_fields"):  # a named tuple
            return type(x)(*[build(e) for e in x])
        if isinstance(x, (list, tuple)):
            return type(x)(build(e) for e in x)
        names = fields(x)
        if names is not None:
            return rebuild(x, {k: build(getattr(x, k)) for k in names})
        return x
    return build(like)


def size(tree) -> int:
    return int(sum(np.size(get(tree, p)) for p in paths(tree)))


def same_structure(got, like) -> str | None:
    """None if `got` has `like`'s structure (dict keys, lengths, array shapes, float for
    float), else what differs."""
    if is_leaf(like):
        if isinstance(like, np.ndarray) and like.shape == () and isinstance(got, (float, np.floating)):
            return None  # a scalar for a 0-d array: accepted (NumPy's operators treat them alike)
        if isinstance(like, np.ndarray):
            if not isinstance(got, np.ndarray) or got.shape != like.shape:
                return f"expected an array of shape {like.shape}, got {type(got).__name__} {np.shape(got)}"
            return None
        if isinstance(got, (dict, list, tuple)) or np.ndim(got) != 0:
            return f"expected a float, got {type(got).__name__} {np.shape(got)}"
        return None
    if isinstance(like, dict):
        if not isinstance(got, dict) or set(got) != set(like):
            return f"expected a dict with keys {sorted(like)}, got {type(got).__name__}"
        for k in like:
            bad = same_structure(got[k], like[k])
            if bad:
                return f"[{k!r}]: {bad}"
        return None
    if isinstance(like, tuple) and hasattr(like, "_fields") and type(got) is not type(like):
        return f"expected a {type(like).__name__} (a named tuple), got {type(got).__name__}"
    if isinstance(like, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(like):
            return f"expected a {type(like).__name__} of {len(like)}, got {type(got).__name__}"
        for i, (g, e) in enumerate(zip(got, like)):
            bad = same_structure(g, e)
            if bad:
                return f"[{i}]: {bad}"
        return None
    names = fields(like)
    if names is not None:
        if type(got) is not type(like):
            return f"expected a {type(like).__name__} object, got {type(got).__name__}"
        for k in names:
            bad = same_structure(getattr(got, k), getattr(like, k))
            if bad:
                return f".{k}: {bad}"
    return None


def has_object(tree) -> bool:
    """Does the tree hold an object (a dataclass, a registered class)?"""
    if fields(tree) is not None:
        return True
    if isinstance(tree, dict):
        return any(has_object(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return any(has_object(v) for v in tree)
    return False


def random_like(tree, rng: np.random.Generator):
    return unflatten(tree, rng.uniform(-1.0, 1.0, size(tree)))
