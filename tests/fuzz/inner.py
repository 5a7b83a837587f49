"""The oracle's `srcad`: a program of the "nested_transform" feature calls srcad inside the
function under test (`srcad.grad(nt0)(x, y)`), and a finite-difference oracle that ran that
program as it is would trust srcad's own inner derivative at the primal level. The oracle's
copy of the program imports this module as `srcad` instead: its grad, value_and_grad, jacfwd,
jacrev, hessian, jvp and vjp are finite differences with Richardson extrapolation (fd.py) of
the inner function, which know nothing of srcad; anything else (`srcad.register_pytree`) is
the real srcad's. An inner estimate that is not reliable (a kink, a branch flipping, a raise
within the steps) raises `Unreliable`, which makes the outer finite differences unreliable
there too (inconclusive, never wrong).

The generator gives these functions floats and float arrays only (its nested helpers take
`a` and maybe `b`, each a float or an array)."""

from __future__ import annotations

import os
import re

import numpy as np

import srcad as _srcad

from . import fd, trees

_IMPORT = re.compile(r"^import srcad$", re.M)
_worst = [0.0]  # the largest relative error bound of an inner estimate since the last reset
_shift = [0.0]  # inner estimates are moved by this many error bounds (check_value's sensitivity)


class Unreliable(ArithmeticError):
    """An inner finite-difference estimate the oracle cannot trust."""


def __getattr__(name):
    return getattr(_srcad, name)


def oracle_source(source: str) -> str | None:
    """The program with this module as its `srcad`, or None when it does not import srcad
    (or uses it only to register classes)."""
    if not _IMPORT.search(source) or not re.search(r"srcad\.(grad|value_and_grad|jac|hessian|jvp|vjp)",
                                                    source):
        return None
    return _IMPORT.sub(f"import {__name__} as srcad", source, count=1)


def oracle_f(path: str):
    """The oracle's f for the program at `path`, or None if it has no nested transformation."""
    from .program import load

    with open(path) as fh:
        text = oracle_source(fh.read())
    return None if text is None else load(text, os.path.dirname(path), "oracle").f


def check_value(run, F):
    """f's value at the point, computed with srcad's inner derivatives, against the oracle's
    (with finite differences), up to what the inner estimates' error bounds allow."""
    _worst[0] = 0.0
    try:
        want = trees.flatten(F(*run.args))
        if _sensitive(F, run.args, want):
            return  # (a branch decided by a value within the estimates' error: `if 0 < w*w - v4`)
    except Unreliable:
        return
    got = trees.flatten(run.value())
    rtol = 1e-6 + 1e3 * _worst[0]
    if fd.tight_mismatch(got, want, scale=1.0, rtol=rtol):
        run.add("wrong", "nested", "value vs finite differences of the inner function",
                f"f's value with srcad's inner derivatives, and with finite differences (rtol {rtol:.1e}):\n"
                f"  {got[:8]}\n  {want[:8]}")


def _sensitive(F, args, want) -> bool:
    """Does f's value move by more than the estimates' error allows when every inner estimate
    moves by its error bound, up or down?"""
    rtol = 1e-6 + 1e3 * _worst[0]
    try:
        for shift in (1.0, -1.0):
            _shift[0] = shift
            try:
                moved = trees.flatten(F(*args))
            except Exception:  # noqa: BLE001 (an assert or raise of f the shifted estimates reach)
                return True
            if fd.tight_mismatch(moved, want, scale=1.0, rtol=rtol):
                return True
        return False
    finally:
        _shift[0] = 0.0


# -- finite differences of float and array arguments ---------------------------------
def _leaf(v) -> np.ndarray:
    return np.array(v, dtype=float)


def _back(like: np.ndarray, vec: np.ndarray):
    return float(np.ravel(vec)[0]) if like.shape == () else np.reshape(vec, like.shape)


def _jacobian(fun, args: tuple, argnum: int) -> np.ndarray:
    """d fun(*args) / d args[argnum], shaped out.shape + arg.shape (a float for 0-d)."""
    x0 = _leaf(args[argnum])
    out0 = np.asarray(fun(*args), dtype=float)

    def F(theta):
        a = list(args)
        a[argnum] = _back(x0, theta)
        return np.ravel(np.asarray(fun(*a), dtype=float))

    est = _trusted(fd.jacobian(F, np.ravel(x0).copy()))
    shape = out0.shape + x0.shape
    return float(est.value[0, 0]) if shape == () else est.value.reshape(shape)


def _trusted(est: fd.Estimate) -> fd.Estimate:
    if est.any_unreliable:
        raise Unreliable("inner finite differences are not reliable")
    _worst[0] = max(_worst[0], float(np.max(est.error / (1 + np.abs(est.value)), initial=0.0)))
    # an entry within its error bound of 0 is 0: exact zeros (linear or constant dependence) are far
    # more common than tiny derivatives, and a branch on one (`if sum(H * H) > 0`) must not flip
    est.value[np.abs(est.value) <= est.error] = 0.0
    est.value[...] = est.value + _shift[0] * est.error
    return est


def _each(argnums, one):
    return tuple(one(k) for k in argnums) if isinstance(argnums, tuple) else one(argnums)


def jacfwd(fun, argnums=0):
    return lambda *args: _each(argnums, lambda k: _jacobian(fun, args, k))


jacrev = jacfwd


def grad(fun, argnums=0):
    def g(*args):
        if np.ndim(fun(*args)) != 0:
            raise TypeError("grad of a function whose output is not a scalar")
        return jacfwd(fun, argnums)(*args)
    return g


def value_and_grad(fun, argnums=0):
    return lambda *args: (fun(*args), grad(fun, argnums)(*args))


def hessian(fun, argnums=0):
    return jacfwd(jacrev(fun, argnums), argnums)


def jvp(fun, primals, tangents):
    """The derivative of fun(p + eps t) in eps, by finite differences in eps."""
    ps, ts = [_leaf(p) for p in primals], [_leaf(t) for t in tangents]
    out0 = np.asarray(fun(*primals), dtype=float)

    def F(eps):
        return np.ravel(np.asarray(fun(*(_back(p, p + eps[0] * t) for p, t in zip(ps, ts))), dtype=float))

    est = _trusted(fd.jacobian(F, np.zeros(1)))
    return fun(*primals), _back(out0, est.value[:, 0])


def vjp(fun, *primals):
    out = fun(*primals)

    def vjp_fn(ct):
        u = np.ravel(_leaf(ct))
        cts = []
        for k, p in enumerate(primals):
            J = np.asarray(_jacobian(fun, primals, k), dtype=float).reshape(u.size, -1)
            cts.append(_back(_leaf(p), u @ J))
        return tuple(cts)
    return out, vjp_fn
