"""scipy.integrate: `odeint` and `solve_ivp` called inside a function srcad differentiates,
differentiable with respect to the initial state, the time points (odeint's t; solve_ivp's
t_span and t_eval) and the float values in `args`, in both modes (srcad/odes.py: the adjoint
method in reverse mode, the tangent system in forward mode). Registered when your code has
imported scipy.integrate.

Each is a source implementation (`composite`) that calls a function with srcad's own rules
(srcad.custom_vjp style, srcad/custom.py), so the generated code calls the solver directly and
the right-hand side's derivatives are srcad's (a vjp and a jvp generated from its source).
Refused, where the call is written: odeint's full_output, solve_ivp's dense_output and events
(compute what you need at t_eval points instead). Inside a differentiated function solve_ivp
returns a named tuple with the fields t, y, success, status, message, nfev, njev, nlu. With
t_eval=None only the first and last columns of sol.y (and of sol.t) are differentiable: the
times in between are the solver's choice; asking for a derivative through them is an error
in reverse mode and NaN in forward mode (pass t_eval to choose the times).
"""

from __future__ import annotations

import inspect

import numpy as np
from scipy import integrate

from .. import odes
from ..custom import RUNTIME
from ..errors import TypeSupportError
from ..ir import types as T
from .registry import composite, family

family("scipy.integrate")


# -- odeint -----------------------------------------------------------------------------------

def odeint(func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None,
           rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0,
           mxhnil=0, mxordn=12, mxords=5, printmessg=0, tfirst=False):
    """scipy.integrate.odeint, as srcad calls it (with srcad's derivative rules below)."""
    return integrate.odeint(func, y0, t, args=tuple(args), Dfun=Dfun, col_deriv=col_deriv, ml=ml, mu=mu,
                            rtol=rtol, atol=atol, tcrit=tcrit, h0=h0, hmax=hmax, hmin=hmin, ixpr=ixpr,
                            mxstep=mxstep, mxhnil=mxhnil, mxordn=mxordn, mxords=mxords,
                            printmessg=printmessg, tfirst=tfirst)


_ODEINT_PARAMS = tuple(inspect.signature(odeint).parameters)
_TOLERANCES = ("rtol", "atol", "mxstep", "hmax", "hmin")  # (they govern the backward solve too)


def _odeint_fwd(*values):
    ys = odeint(*values)
    return ys, (dict(zip(_ODEINT_PARAMS, values)), ys)


def _backward_odeint(o):
    def solve(aug, state, t_from, t_to):
        return integrate.odeint(aug, state, [t_from, t_to], **{k: o[k] for k in _TOLERANCES})[-1]
    return solve


def _odeint_bwd(res, g):
    o, ys = res
    field = odes.Field(o["func"], o["args"], o["tfirst"])
    ts = np.asarray(o["t"], dtype=float)
    y0f = np.asarray(o["y0"], dtype=float).reshape(-1)
    g = np.asarray(g, dtype=float).reshape(ys.shape)
    tau_bar, t0_bar, y0_bar, p_bar = odes.adjoint(field, ts, ys, g, ts[0], y0f, _backward_odeint(o))
    tau_bar[0] += t0_bar
    cts = dict(y0=odes.shaped(y0_bar, o["y0"]), t=odes.shaped(tau_bar, o["t"]), args=field.split(p_bar))
    return tuple(cts.get(k) for k in _ODEINT_PARAMS)


def _odeint_jvp(primals, tangents):
    o, d = dict(zip(_ODEINT_PARAMS, primals)), dict(zip(_ODEINT_PARAMS, tangents))
    field = odes.Field(o["func"], o["args"], o["tfirst"])
    ts = np.asarray(o["t"], dtype=float)
    y0f = np.asarray(o["y0"], dtype=float).reshape(-1)
    t_dot, y0_dot = odes.tangent_of(d["t"], ts), odes.tangent_of(d["y0"], y0f)

    def solve(system, state):
        return integrate.odeint(system, state, ts, **{k: o[k] for k in _TOLERANCES})

    # (the value as the plain solve gives it: the same whatever the tangents, as jacfwd needs)
    ys = odeint(*primals)
    _, ys_dot = odes.tangents(field, y0f, ts[0], y0_dot, t_dot[0], odes.args_tangents(o["args"], d["args"]),
                              solve)
    ys_dot[0] = y0_dot  # (y(t[0]) is y0, whatever t[0] is)
    ys_dot[1:] = odes.moved(field, ts[1:], ys[1:], ys_dot[1:], t_dot[1:])
    return ys, ys_dot


def _length(t) -> int | None:
    if isinstance(t, T.Array) and t.shape is not None and len(t.shape) == 1:
        return t.shape[0]
    if isinstance(t, T.Float):
        return 1
    items = getattr(t, "items", None) or getattr(t, "elts", None)
    return len(items) if items is not None and isinstance(t, (T.List, T.Tuple)) else None


def _size(y) -> int | None:
    if isinstance(y, T.Array) and y.shape is not None:
        return int(np.prod(y.shape))
    return _length(y)


def _odeint_type(arg_types):
    _, y0, t = arg_types[:3]
    n, m = _size(y0), _length(t)
    return T.Array(2, "f", (m, n) if n is not None and m is not None else None)


def _literal(bound, name, allowed, hint):
    value = bound.get(name, allowed)
    if value is RUNTIME or (value != allowed and value is not allowed):
        return f"{name}={value!r} is not supported when differentiating", hint
    return None


def _odeint_validate(bound):
    return _literal(bound, "full_output", 0, "call odeint without full_output")


_ODEINT = odes.custom(odeint, _odeint_fwd, _odeint_bwd, _odeint_jvp, _odeint_type, _odeint_validate)
_ODEINT.lifts = "args"
_ODEINT.refuses = tuple(p for p in _ODEINT_PARAMS if p not in ("func", "y0", "t", "args"))
composite("scipy.integrate.odeint", _ODEINT, refuses=_ODEINT.refuses)


# -- solve_ivp --------------------------------------------------------------------------------

def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, dense_output=False, events=None,
              vectorized=False, args=None, rtol=1e-3, atol=1e-6, first_step=None, max_step=np.inf,
              min_step=0.0, jac=None, jac_sparsity=None, lband=None, uband=None):
    """scipy.integrate.solve_ivp, as srcad calls it: its result as a named tuple (odes.OdeResult)."""
    sol = integrate.solve_ivp(fun, t_span, y0, method=method, t_eval=t_eval, vectorized=vectorized,
                              args=args, **_ivp_options(locals()))
    return odes.OdeResult(sol.t, sol.y, bool(sol.success), int(sol.status), str(sol.message), int(sol.nfev),
                          int(sol.njev), int(sol.nlu))


_IVP_PARAMS = tuple(inspect.signature(solve_ivp).parameters)
_IVP_STEPS = ("rtol", "atol", "first_step", "max_step", "min_step")


def _ivp_options(o, steps_only=False) -> dict:
    """solve_ivp's solver options (those not at their defaults: the methods differ in which they take)."""
    names = _IVP_STEPS if steps_only else _IVP_STEPS + ("jac", "jac_sparsity", "lband", "uband")
    defaults = inspect.signature(solve_ivp).parameters
    return {k: o[k] for k in names if k in ("rtol", "atol") or not _same(o[k], defaults[k].default)}


def _same(a, b) -> bool:
    return a is b or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b)


def _ivp_fwd(*values):
    sol = solve_ivp(*values)
    return sol, (dict(zip(_IVP_PARAMS, values)), sol)


def _backward_ivp(o):
    def solve(aug, state, t_from, t_to):
        got = integrate.solve_ivp(lambda t, s: aug(s, t), (t_from, t_to), state, method=o["method"],
                                  **_ivp_options(o, True))
        return got.y[:, -1]
    return solve


def _ivp_bwd(res, g):
    o, sol = res
    field = odes.Field(o["fun"], o["args"] or (), True)
    ys, gy = sol.y.T, np.asarray(g.y, dtype=float).T
    gt = np.asarray(g.t, dtype=float).reshape(-1) if np.ndim(g.t) else np.zeros(len(sol.t))
    t0 = float(o["t_span"][0])
    if o["t_eval"] is None:
        _interior_unused(gy, gt)
    y0f = np.asarray(o["y0"], dtype=float).reshape(-1)
    tau_bar, t0_bar, y0_bar, p_bar = odes.adjoint(field, sol.t, ys, gy, t0, y0f, _backward_ivp(o))
    tau_bar = tau_bar + gt
    if o["t_eval"] is None:  # (sol.t is t_span[0], the solver's times, t_span[1])
        span = [t0_bar + tau_bar[0], tau_bar[-1]] if len(tau_bar) > 1 else [t0_bar + tau_bar[0], 0.0]
        cts = dict(t_span=odes.shaped(np.array(span), o["t_span"]))
    else:
        cts = dict(t_span=odes.shaped(np.array([t0_bar, 0.0]), o["t_span"]),
                   t_eval=odes.shaped(tau_bar, o["t_eval"]))
    cts.update(y0=odes.shaped(y0_bar, o["y0"]), args=field.split(p_bar) if o["args"] is not None else None)
    return tuple(cts.get(k) for k in _IVP_PARAMS)


def _interior_unused(gy, gt):
    if np.any(gy[1:-1]) or np.any(gt[1:-1]):
        raise TypeSupportError("srcad: a derivative reaches sol.y or sol.t at times solve_ivp chose "
                               "(t_eval=None): they are not differentiable; pass t_eval= with the times "
                               "you need (only the first and last columns are, without it)")


def _ivp_jvp(primals, tangents):
    o, d = dict(zip(_IVP_PARAMS, primals)), dict(zip(_IVP_PARAMS, tangents))
    sol = solve_ivp(*primals)
    field = odes.Field(o["fun"], o["args"] or (), True)
    y0f = np.asarray(o["y0"], dtype=float).reshape(-1)
    span_dot = odes.tangent_of(d["t_span"], np.zeros(2))
    y0_dot = odes.tangent_of(d["y0"], y0f)

    def solve(system, state):
        got = integrate.solve_ivp(lambda t, s: system(s, t), o["t_span"], state, method=o["method"],
                                  t_eval=sol.t, **_ivp_options(o, True))
        return got.y.T

    args_dot = odes.args_tangents(o["args"] or (), d["args"] or ())
    _, ys_dot = odes.tangents(field, y0f, float(o["t_span"][0]), y0_dot, span_dot[0], args_dot, solve)
    if o["t_eval"] is None:
        taus_dot = np.full(len(sol.t), np.nan)  # (the solver's own times: no derivative)
        taus_dot[0], taus_dot[-1] = span_dot
        ys_dot[1:-1] = np.nan
    else:
        taus_dot = odes.tangent_of(d["t_eval"], sol.t)
    ys_dot = odes.moved(field, sol.t, sol.y.T, ys_dot, np.nan_to_num(taus_dot))
    zero = odes.OdeResult(taus_dot, ys_dot.T, *sol[2:])
    return sol, zero


def _ivp_type(arg_types):
    y0, t_eval = arg_types[2], arg_types[4]
    n, m = _size(y0), (None if isinstance(t_eval, T.NoneT) else _length(t_eval))
    known = n is not None and m is not None
    elts = (T.Array(1, "f", (m,) if m is not None else None), T.Array(2, "f", (n, m) if known else None),
            T.BOOL, T.INT, T.STR, T.INT, T.INT, T.INT)
    return T.Tuple(elts, odes.OdeResult._fields, odes.OdeResult)


def _ivp_validate(bound):
    return (_literal(bound, "dense_output", False, "call solve_ivp with t_eval= at the times you need")
            or _literal(bound, "events", None, "events are not differentiable: solve for the event time "
                        "with srcad.custom_root on the solution, or stop at fixed times with t_eval="))


_IVP = odes.custom(solve_ivp, _ivp_fwd, _ivp_bwd, _ivp_jvp, _ivp_type, _ivp_validate)
_IVP.lifts = "args"
_IVP.refuses = tuple(p for p in _IVP_PARAMS if p not in ("fun", "t_span", "y0", "t_eval", "args"))
composite("scipy.integrate.solve_ivp", _IVP, refuses=_IVP.refuses)
