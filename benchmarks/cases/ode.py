"""A scalar ODE, dy/dt = -k y + sin(t) exp(-c t), integrated by the explicit midpoint
method (RK2) on Python floats; gradient of y(10) w.r.t. k and y0."""

import math

from ..case import Case, Size


def ode_final(k, y0, c, n):
    dt = 10.0 / n
    y = y0
    for i in range(n):
        t = i * dt
        ym = y + 0.5 * dt * (-k * y + math.sin(t) * math.exp(-c * t))
        tm = t + 0.5 * dt
        y = y + dt * (-k * ym + math.sin(tm) * math.exp(-c * tm))
    return y


def ode_final_grad(k, y0, c, n):
    dt = 10.0 / n
    half = 0.5 * dt
    ys = [0.0] * n
    yms = [0.0] * n
    y = y0
    for i in range(n):
        t = i * dt
        ym = y + half * (-k * y + math.sin(t) * math.exp(-c * t))
        tm = t + half
        ys[i] = y
        yms[i] = ym
        y = y + dt * (-k * ym + math.sin(tm) * math.exp(-c * tm))
    # one step is linear in y: dy'/dy = a and dy'/dk = b y - dt ym, with constant a and b
    a = 1.0 - dt * k * (1.0 - half * k)
    b = dt * k * half
    y_bar, k_bar = 1.0, 0.0
    for y, ym in zip(reversed(ys), reversed(yms)):
        k_bar += y_bar * (b * y - dt * ym)
        y_bar *= a
    return k_bar, y_bar


def inputs(n):
    return lambda: (0.7, 1.5, 0.3, n)


CASE = Case(
    name="ode_rk2", forward=ode_final, hand_grad=ode_final_grad, argnums=(0, 1),
    sizes=(Size("steps=100", inputs(100)),
           Size("steps=1e4", inputs(10_000), quick=False, peer_limit=("jax", "jax.jit"))),
    # sin and exp only see the float t, so every peer runs this very function
    peers={"autograd": ode_final, "jax": ode_final, "torch": ode_final}, memory=True,
)
