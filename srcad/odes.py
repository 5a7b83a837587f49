"""ODE solutions inside a function srcad differentiates: `scipy.integrate.odeint` and
`scipy.integrate.solve_ivp` (rules/integrate.py routes calls of them here), differentiated with
respect to the initial state, the time points and the extra arguments `args`.

The derivative is that of the exact solution of the ODE, computed to the solver's tolerance,
not that of the solver's steps:

- reverse mode, by the adjoint method: the solution is solved backwards from the last output
  time to the first together with the adjoint a (da/dt = -(df/dy)^T a) and the cotangents of
  the float arguments (dp/dt = -(df/dp)^T a), the cotangents of the outputs added at each output
  time; each backward piece uses the user's solver (method, rtol, atol);
- forward mode, by the tangent system: dy'/dt = (df/dy) y' + (df/dp) p', solved alongside the
  state with the user's solver.

A time point moves its output along the field: d y(t_i)/d t_i = f(y_i, t_i); the initial time
moves the whole solution: d y(t)/d t0 = -Phi(t, t0) f(y0, t0). The right-hand side's
derivatives (a vjp and a jvp) are srcad's own, generated from its source like any function's
(`DERIVATIVES`, filled in by srcad/implicit.py, which sees the public transforms); a right-hand
side srcad cannot differentiate is the usual error at its line.
"""

from __future__ import annotations

import collections

import numpy as np

from .custom import CustomRule

#: "vjp": (fun, primals) -> (out, vjp_fn); "jvp": (fun, primals, tangents) -> (out, tangent)
DERIVATIVES: dict = {}

#: solve_ivp's result inside a differentiated function: sol.t, sol.y and the solver's report
OdeResult = collections.namedtuple("OdeResult", "t y success status message nfev njev nlu")


def _floats(x) -> bool:
    return isinstance(x, (float, np.floating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "f") or (
        isinstance(x, (list, tuple)) and len(x) > 0 and all(_floats(e) for e in x))


class Field:
    """The right-hand side as f(y, t) of flat float arrays: the user's function with its
    argument order (odeint's func(y, t, *args), solve_ivp's or tfirst's fun(t, y, *args))."""

    def __init__(self, func, args, tfirst: bool):
        self.func, self.args, self.tfirst = func, tuple(args), tfirst
        self.diff = tuple(i for i, a in enumerate(self.args) if _floats(a))
        self.sizes = tuple(int(np.size(self.args[i])) for i in self.diff)
        self.scalars = all(isinstance(self.args[i], (float, np.floating)) for i in self.diff)
        self._vjp = self._jvp = None  # (srcad's derivatives of func for these arguments' kinds)

    def primals(self, y, t) -> tuple:
        t = float(t)
        return ((t, y) if self.tfirst else (y, t)) + self.args

    def __call__(self, y, t):
        return np.asarray(self.func(*self.primals(y, t)), dtype=float).reshape(-1)

    def vjp(self, y, t, a):
        """(f, a^T df/dy, a^T df/dp for the float arguments, flat)."""
        primals = self.primals(y, t)
        if self._vjp is None:
            self._vjp = DERIVATIVES["vjp"](self.func, primals)
        out, back = self._vjp(primals)
        cts = back(_like(out, a))
        y_bar = cts[1 if self.tfirst else 0]
        y_bar = np.zeros_like(a) if y_bar is None else np.asarray(y_bar, dtype=float).reshape(-1)
        if self.scalars:  # (float arguments: their cotangents are numbers)
            p_bar = np.array([0.0 if cts[2 + i] is None else cts[2 + i] for i in self.diff], dtype=float)
        else:
            parts = [_flat(cts[2 + i], n) for i, n in zip(self.diff, self.sizes)]
            p_bar = np.concatenate(parts) if parts else np.zeros(0)
        return np.asarray(out, dtype=float).reshape(-1), y_bar, p_bar

    def jvp(self, y, t, y_dot, args_dot):
        """(f, (df/dy) y' + (df/dp) p')."""
        t_args = tuple(args_dot[i] if i in self.diff else None for i in range(len(self.args)))
        tangents = ((0.0, y_dot) if self.tfirst else (y_dot, 0.0)) + t_args
        primals = self.primals(y, t)
        if self._jvp is None:
            self._jvp = DERIVATIVES["jvp"](self.func, primals, tangents)
        out, out_dot = self._jvp(primals, tangents)
        return np.asarray(out, dtype=float).reshape(-1), np.asarray(out_dot, dtype=float).reshape(-1)

    def split(self, p_bar) -> tuple:
        """The flat argument cotangents as one per argument (None for those not floats)."""
        out, k = [None] * len(self.args), 0
        for i, n in zip(self.diff, self.sizes):
            out[i] = shaped(p_bar[k:k + n], self.args[i])
            k += n
        return tuple(out)


def _like(out, a):
    """The cotangent a (flat) in the structure of the right-hand side's output `out`."""
    if isinstance(out, (list, tuple)):
        return type(out)(float(v) for v in a)
    if isinstance(out, np.ndarray):
        return a.reshape(out.shape)
    return float(a[0])


def _flat(c, n):
    return np.zeros(n) if c is None else np.asarray(c, dtype=float).reshape(-1)


def shaped(c, like):
    """A flat cotangent in the shape and container of its argument (None for ints)."""
    if not _floats(like):
        return None
    if isinstance(like, (list, tuple)):
        return type(like)(float(v) for v in c)
    if isinstance(like, np.ndarray):
        return np.asarray(c, dtype=float).reshape(like.shape)
    return float(c[0])


def adjoint(field, taus, ys, g, t0, y0, solve):
    """Cotangents (of the output times, of t0, of y0, of the float arguments, flat) of outputs
    ys at times taus (solved from (t0, y0)) with cotangent g, by the adjoint method:
    `solve(aug, state, t_from, t_to)` solves the augmented system backwards."""
    n, m = ys.shape[1], sum(field.sizes)
    a, p_bar, tau_bar = np.zeros(n), np.zeros(m), np.zeros(len(taus))

    def aug(state, t):
        f, y_bar, q_bar = field.vjp(state[:n], t, state[n:2 * n])
        return np.concatenate([f, -y_bar, -q_bar])

    for i in reversed(range(len(taus))):
        if np.any(g[i]):
            a = a + g[i]
            tau_bar[i] = float(np.dot(g[i], field(ys[i], taus[i])))
        t_to = taus[i - 1] if i > 0 else t0
        if t_to != taus[i] and np.any(a):
            state = solve(aug, np.concatenate([ys[i], a, p_bar]), taus[i], t_to)
            a, p_bar = state[n:2 * n], state[2 * n:]
    t0_bar = -float(np.dot(a, field(y0, t0)))
    return tau_bar, t0_bar, a, p_bar


def tangents(field, y0, t0, y0_dot, t0_dot, args_dot, solve):
    """(ys, ys_dot) by the tangent system, `solve(fun, state)` giving the states at the output
    times; the output times' own tangents are added by the caller."""
    n = y0.size

    def system(state, t):
        f, f_dot = field.jvp(state[:n], t, state[n:], args_dot)
        return np.concatenate([f, f_dot])

    start = y0_dot - field(y0, t0) * t0_dot
    states = solve(system, np.concatenate([y0, start]))
    return states[:, :n], states[:, n:]


def moved(field, taus, ys, ys_dot, taus_dot):
    """Add the tangents of the output times: d y(t_i) = f(y_i, t_i) dt_i."""
    for i in range(len(taus)):
        if taus_dot[i]:
            ys_dot[i] = ys_dot[i] + field(ys[i], taus[i]) * taus_dot[i]
    return ys_dot


def tangent_of(t, like):
    """A tangent given for `like` as a float array of its shape (0.0 or None: zeros)."""
    if t is None or (np.ndim(t) == 0 and np.ndim(like) != 0 and not t):
        return np.zeros(np.shape(like))
    return np.asarray(t, dtype=float).reshape(np.shape(like))


def args_tangents(args, t_args):
    if not isinstance(t_args, (tuple, list)):
        return tuple(None for _ in args)
    return tuple(None if (t is None or not _floats(a)) else tangent_of(t, a) for a, t in zip(args, t_args))


def custom(fun, fwd, bwd, jvp, result_type=None, validate=None) -> CustomRule:
    """`fun` with srcad's own rules; differentiating the derivative code again is an error."""
    name = fun.__name__
    for f in (fwd, bwd, jvp):
        f.__srcad_refusal__ = (f"{f.__name__}, the derivative code of {name} (a second-order "
                               f"derivative through {name})", f"srcad differentiates {name} once, in "
                               "either mode: for a Hessian, take finite differences of srcad.grad, or "
                               "write the solver as a loop srcad differentiates")
    rule = CustomRule(fun)
    rule.defvjp(fwd, bwd)
    rule.defjvp(jvp)
    rule.result_type, rule.validate = result_type, validate
    return rule
