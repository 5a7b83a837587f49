"""Independent oracles for derivative tests: float64 central finite differences and random
directions. Nothing here uses srcad."""

from __future__ import annotations

import numpy as np


def paths(x, prefix=()):
    """Every scalar position in a pytree of floats and float arrays."""
    if isinstance(x, (float, np.floating)) or (isinstance(x, int) and not isinstance(x, bool)):
        return [prefix]
    if isinstance(x, np.ndarray):
        return [prefix + (i,) for i in np.ndindex(x.shape)]
    if isinstance(x, dict):
        return [p for k in x for p in paths(x[k], prefix + (k,))]
    if isinstance(x, (list, tuple)):
        return [p for i, e in enumerate(x) for p in paths(e, prefix + (i,))]
    return []


def fd_grad(f, args, argnum=0, eps=1e-6):
    """Central finite differences of scalar f with respect to args[argnum] (any pytree)."""
    args = list(args)
    x = args[argnum]
    out = _zeros_like_tree(x)
    for path in paths(x):
        args[argnum] = _perturb_path(x, path, eps)
        fp = float(f(*args))
        args[argnum] = _perturb_path(x, path, -eps)
        fm = float(f(*args))
        out = _set_path(out, path, (fp - fm) / (2 * eps))
    args[argnum] = x
    return out


def fd_jvp(f, args, tangents, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / 2 eps for every argument moving along its tangent."""
    plus = [_axpy(a, t, eps) for a, t in zip(args, tangents)]
    minus = [_axpy(a, t, -eps) for a, t in zip(args, tangents)]
    return (np.asarray(f(*plus), dtype=float) - np.asarray(f(*minus), dtype=float)) / (2 * eps)


def _axpy(a, t, eps):
    if t is None:
        return a
    if isinstance(a, (dict,)):
        return {k: _axpy(a[k], t[k], eps) for k in a}
    if isinstance(a, (list, tuple)):
        return type(a)(_axpy(x, y, eps) for x, y in zip(a, t))
    return a + eps * t


def _perturb_path(x, path, eps):
    if not path:
        return float(x) + eps
    if isinstance(x, np.ndarray):
        y = np.array(x, dtype=float)
        y[path[0]] += eps
        return y
    head, rest = path[0], path[1:]
    if isinstance(x, dict):
        y = dict(x)
        y[head] = _perturb_path(x[head], rest, eps)
        return y
    y = list(x)
    y[head] = _perturb_path(x[head], rest, eps)
    return type(x)(y)


def _zeros_like_tree(x):
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    if isinstance(x, dict):
        return {k: _zeros_like_tree(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_zeros_like_tree(e) for e in x)
    return 0.0


def _set_path(out, path, value):
    if not path:
        return value
    if isinstance(out, np.ndarray):
        out[path[0]] = value
        return out
    head, rest = path[0], path[1:]
    if isinstance(out, dict):
        out[head] = _set_path(out[head], rest, value)
        return out
    y = list(out)
    y[head] = _set_path(out[head], rest, value)
    return type(out)(y)


def assert_tree_close(actual, expected, rtol=1e-5, atol=1e-6, what=""):
    """Compare pytrees of floats/arrays; also checks float-vs-array kind and shapes."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(actual) == set(expected), f"{what}: keys differ"
        for k in expected:
            assert_tree_close(actual[k], expected[k], rtol, atol, f"{what}[{k!r}]")
        return
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), \
            f"{what}: structure differs"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_tree_close(a, e, rtol, atol, f"{what}[{i}]")
        return
    if isinstance(expected, np.ndarray):
        assert np.shape(actual) == expected.shape, f"{what}: shape {np.shape(actual)} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


# -- tree arithmetic and higher-precision differences (for the spec variants) -------------------


def tree_axpy(x, t, eps):
    """x + eps * t for pytrees of floats, arrays, lists and tuples (t None: x unchanged)."""
    return _axpy(x, t, eps)


def tree_random_like(x, rng):
    """A random direction shaped like x (floats for floats, lists for lists)."""
    if isinstance(x, np.ndarray):
        return rng.normal(size=x.shape)
    if isinstance(x, dict):
        return {k: tree_random_like(v, rng) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(tree_random_like(e, rng) for e in x)
    return float(rng.normal())


def tree_vdot(a, b) -> float:
    """The sum of the elementwise products of two pytrees of the same structure."""
    if isinstance(a, dict):
        return sum(tree_vdot(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and not isinstance(b, np.ndarray):
        return sum(tree_vdot(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))


def richardson(d, h):
    """Richardson extrapolation of a central difference quotient d(h) with O(h^2) error:
    (4 d(h / 2) - d(h)) / 3 has O(h^4) error."""
    return (4.0 * d(h / 2.0) - d(h)) / 3.0


def fd_grad_richardson(f, args, argnum=0, h=1e-3):
    """fd_grad with Richardson extrapolation: gradients accurate to ~1e-10 relative."""
    coarse, fine = fd_grad(f, args, argnum, h), fd_grad(f, args, argnum, h / 2.0)
    return _tree_map2(lambda c, d: (4.0 * d - c) / 3.0, coarse, fine)


def fd_directional(f, args, tangents, h=1e-3):
    """d/ds f(args + s * tangents) at 0 (central differences, Richardson-extrapolated)."""
    def d(step):
        plus = [_axpy(a, t, step) for a, t in zip(args, tangents)]
        minus = [_axpy(a, t, -step) for a, t in zip(args, tangents)]
        return (float(f(*plus)) - float(f(*minus))) / (2.0 * step)
    return richardson(d, h)


def fd_second_directional(f, args, u, v, h=1e-3):
    """d^2/(ds dr) f(args + s u + r v) at 0: u^T H v from values of f alone (finite
    differences of finite differences, Richardson-extrapolated), independent of any gradient."""
    def d(step):
        def at(a, b):
            return float(f(*[_axpy(_axpy(x, tu, a), tv, b) for x, tu, tv in zip(args, u, v)]))
        return (at(step, step) - at(step, -step) - at(-step, step) + at(-step, -step)) / (4.0 * step * step)
    return richardson(d, h)


def second_difference(fn, args, i, u, v, h=1e-4):
    """u^T H v of fn in its argument args[i] (an array or float), from the four values
    fn(args[i] +- h u +- h v) (no extrapolation)."""
    def f(du, dv):
        moved = list(args)
        moved[i] = args[i] + h * du * u + h * dv * v
        return float(fn(*moved))
    return (f(1, 1) - f(1, -1) - f(-1, 1) + f(-1, -1)) / (4 * h * h)


def _tree_map2(fn, a, b):
    if isinstance(a, np.ndarray) or not isinstance(a, (list, tuple, dict)):
        return fn(a, b) if not isinstance(a, np.ndarray) else fn(np.asarray(a), np.asarray(b))
    if isinstance(a, dict):
        return {k: _tree_map2(fn, a[k], b[k]) for k in a}
    return type(a)(_tree_map2(fn, x, y) for x, y in zip(a, b))
