"""Spec rows of scipy.integrate (srcad/rules/integrate.py): odeint and solve_ivp differentiated
in the initial state, the times and args against finite differences (solved tightly, so that
the solver's error stays below the differences' resolution). Each row reduces its output
itself: second derivatives through an ODE solve are refused (tests/test_odes.py)."""

from rule_specs import normal, row, uniform

IMPORTS = """from scipy.integrate import odeint, solve_ivp


def _rhs(y, t, k, c):
    return -k * y + c * np.sin(t)


def _ivp_rhs(t, y, k):
    return np.array([y[1], -k * y[0] - 0.1 * y[1]])
"""
TOL = "rtol=1e-12, atol=1e-12"

row("scipy.integrate.odeint", f"odeint(_rhs, y0, np.cumsum(dt), args=(k, c), {TOL})", y0=normal(2),
    dt=uniform(0.2, 0.5, 3), k=uniform(0.5, 1.5), c=normal(), imports=IMPORTS,
    reduce="np.sum(out[1:] ** 2)", note="times as cumulative steps")
row("scipy.integrate.solve_ivp", f"solve_ivp(_ivp_rhs, (t0, 2.0), y0, args=(k,), t_eval=t0 + np.cumsum(dt), "
    f"{TOL})", y0=normal(2), t0=uniform(-0.5, 0.0), dt=uniform(0.2, 0.5, 3), k=uniform(0.5, 1.5),
    imports=IMPORTS, reduce="np.sum(out.y ** 2) + np.sum(out.t)", note="t_eval")
