"""Implicit differentiation: the derivative of a solution by the implicit function theorem,
never by differentiating the iterations that found it.

    x = srcad.fixed_point(f, x0, params)           # x = f(x, params), by iteration from x0
    x = srcad.custom_root(F, x0, params)           # F(x, params) = 0, by Newton's method
    x = srcad.custom_root(F, x0, params, solve=lambda G, x0: scipy.optimize.root(G, x0).x)

Both are functions with srcad's own derivative rules (srcad/custom.py), usable inside a
function srcad differentiates, in both modes, with respect to `params` (any float, array, or
tuple/list/dict of them); the initial guess x0 gets a zero derivative. The derivatives of f
and F are srcad's, generated from their source:

- fixed point x = f(x, p): x' = (I - df/dx)^-1 (df/dp) p' (forward: iterate x' <- df/dx x' + df/dp p');
  p_bar = (df/dp)^T u with u = x_bar + (df/dx)^T u (reverse: iterate with one vjp of f at the
  solution);
- root F(x, p) = 0: x' = -(dF/dx)^-1 (dF/dp) p'; p_bar = -(dF/dp)^T (dF/dx)^-T x_bar. The linear
  systems are solved by `tangent_solve(matvec, b)` (matvec(v) is dF/dx v in forward mode and
  (dF/dx)^T v in reverse mode), by default densely (srcad.jacfwd of F).

This module also gives srcad/odes.py the right-hand side's derivatives (`odes.DERIVATIVES`).
"""

from __future__ import annotations

import numpy as np

from . import api, compose, odes
from .errors import SrcadError
from .ir import types as T


def _vjp(fun, primals):
    return api.vjp_of(fun)(*primals)


def _jvp(fun, primals, tangents):
    return api.jvp(fun, primals, tangents)


def _vjp_caller(fun, primals):
    """`call(primals) -> (out, vjp_fn)` for many calls with arguments of the kinds of `primals`
    (a solver's steps): after one call through srcad.vjp (which builds and checks), the
    generated forward and backward functions are called directly. The caller passes the same
    objects but for floats and float arrays of unchanged shapes (the state and the time)."""
    tr = api.vjp_of(fun)
    tr(*primals)
    built = tr._latest
    if built.structs or built.sequences or built.backward is None or len(primals) != tr._nparams:
        return lambda p: tr(*p)
    wrt, n = built.wrt, len(primals)

    def call(p):
        out, _, residuals = built.function(*p)

        def back(ct):
            full = [None] * n
            for i, c in zip(wrt, built.backward(*residuals, ct)):
                full[i] = c
            return full
        return out, back
    return call


def _jvp_caller(fun, primals, tangents):
    """`call(primals, tangents) -> (out, tangent)`, as _vjp_caller (the same tangents given)."""
    tr = api._jvp_of(fun)
    tr(primals, tangents)
    built = tr._latest
    if built.structs or len(primals) != tr._nparams:
        return lambda p, d: tr(p, d)
    wrt = built.wrt
    return lambda p, d: built.function(*p, *(d[i] for i in wrt))


odes.DERIVATIVES.update(vjp=_vjp_caller, jvp=_jvp_caller)


def _distance(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / (1.0 + np.abs(b)))) if a.size else 0.0


def _iterate(step, start, tol: float, max_iter: int, what: str):
    """Iterate x <- step(x) from start until the relative change is at most tol."""
    x = start
    for _ in range(max_iter):
        new = step(x)
        if _distance(new, x) <= tol:
            return new
        x = new
    raise SrcadError(f"{what} did not converge in {max_iter} iterations (last relative change "
                     f"{_distance(step(x), x):.3g}): the implicit derivative needs a solution; "
                     "raise max_iter, loosen tol, or check that the map is a contraction")


def _as_x(v, like):
    return float(v) if isinstance(like, (float, int, np.floating)) else np.asarray(v, dtype=float)


# -- fixed points -----------------------------------------------------------------------------

def _fixed_point(f, x0, params, tol=1e-12, max_iter=10000):
    x0 = _as_x(x0, x0)
    return _iterate(lambda x: _as_x(f(x, params), x0), x0, tol, max_iter, "fixed_point")


def _fixed_point_fwd(f, x0, params, tol=1e-12, max_iter=10000):
    x = _fixed_point(f, x0, params, tol, max_iter)
    return x, (f, x, params, tol, max_iter)


def _fixed_point_bwd(res, g):
    f, x, params, tol, max_iter = res
    _, back = _vjp(f, (x, params))
    g = _as_x(g, x)
    u = _iterate(lambda u: g + _as_x(back(u)[0], x), g, tol, max_iter, "fixed_point's adjoint")
    return None, _as_x(np.zeros_like(x), x), back(u)[1], None, None


def _fixed_point_jvp(primals, tangents):
    f, x0, params, tol, max_iter = primals
    x = _fixed_point(f, x0, params, tol, max_iter)
    p_dot = tangents[2]

    def step(v):
        return _as_x(_jvp(f, (x, params), (v, p_dot))[1], x)

    return x, _iterate(step, _as_x(np.zeros_like(x), x), tol, max_iter, "fixed_point's tangent")


def _same_as_x0(arg_types):
    return T.without_shapes(arg_types[1]) if isinstance(arg_types[1], T.Array) else arg_types[1]


fixed_point = odes.custom(_fixed_point, _fixed_point_fwd, _fixed_point_bwd, _fixed_point_jvp, _same_as_x0)
fixed_point.refuses = ("tol", "max_iter")
fixed_point.__doc__ = """The solution of x = f(x, params), by iteration from x0 until the relative
change is at most tol; its derivative in params by the implicit function theorem (the
module's docstring), so f must be a contraction near the solution."""


# -- roots ------------------------------------------------------------------------------------

def _jacobian(F, x, params):
    """dF/dx at x as an (n, n) matrix (n = x.size), and x's size."""
    jac = compose.jacfwd(F, argnums=0)(x, params)
    n = int(np.size(x))
    return np.asarray(jac, dtype=float).reshape(n, n), n


def _newton(G, x0, F, params, tol=1e-12, max_iter=100):
    x = _as_x(x0, x0)
    for _ in range(max_iter):
        jac, n = _jacobian(F, x, params)
        step = np.linalg.solve(jac, np.asarray(G(x), dtype=float).reshape(n))
        x = _as_x(np.asarray(x, dtype=float) - step.reshape(np.shape(x)), x0)
        if float(np.max(np.abs(step))) <= tol * (1.0 + float(np.max(np.abs(x)))):
            return x
    raise SrcadError(f"custom_root: Newton's method did not converge in {max_iter} iterations; "
                     "give custom_root a solve=(G, x0) -> x of your own")


def _root(F, x0, params, solve=None, tangent_solve=None):
    def G(x):
        return F(x, params)
    if solve is None:
        return _newton(G, x0, F, params)
    return _as_x(solve(G, x0), x0)


def _dense_solve(F, x, params, transpose: bool):
    jac, n = _jacobian(F, x, params)
    jac = jac.T if transpose else jac
    return lambda _matvec, b: _as_x(np.linalg.solve(jac, np.asarray(b, dtype=float).reshape(n))
                                    .reshape(np.shape(x)), x)


def _root_fwd(F, x0, params, solve=None, tangent_solve=None):
    x = _root(F, x0, params, solve)
    return x, (F, x, params, tangent_solve)


def _root_bwd(res, g):
    F, x, params, tangent_solve = res
    _, back = _vjp(F, (x, params))
    linear = tangent_solve or _dense_solve(F, x, params, True)
    u = _as_x(linear(lambda w: _as_x(back(w)[0], x), _as_x(g, x)), x)
    p_bar = back(u)[1]
    return None, _as_x(np.zeros_like(x), x), _negate(p_bar), None, None


def _negate(c):
    if c is None:
        return None
    if isinstance(c, (tuple, list)):
        return type(c)(_negate(e) for e in c)
    if isinstance(c, dict):
        return {k: _negate(v) for k, v in c.items()}
    return -c


def _root_jvp(primals, tangents):
    F, x0, params, solve, tangent_solve = primals
    x = _root(F, x0, params, solve)
    p_dot = tangents[2]
    b = -np.asarray(_jvp(F, (x, params), (_as_x(np.zeros_like(x), x), p_dot))[1], dtype=float)
    linear = tangent_solve or _dense_solve(F, x, params, False)
    return x, _as_x(linear(lambda v: _as_x(_jvp(F, (x, params), (v, None))[1], x), _as_x(b, x)), x)


custom_root = odes.custom(_root, _root_fwd, _root_bwd, _root_jvp, _same_as_x0)
custom_root.__doc__ = """The solution x of F(x, params) = 0: by `solve(G, x0) -> x` (G(x) = F(x,
params); scipy.optimize.root, brentq, your own) or by default Newton's method with srcad's
Jacobian; its derivative in params by the implicit function theorem, with the linear systems
solved by `tangent_solve(matvec, b)` (default: dense)."""
