def jvp_ode_euler(k, y0, k_dot, y0_dot):
    # srcad 0.1.0: jvp of ode_euler (loops.py:175)
    # argnums=(0, 1); specialised for k: float, y0: float
    y = y0
    t = 0.0
    y_dot = y0_dot
    for _ in range(200):
        _t1 = -k
        _t13 = 0.01 * (-k_dot * y + _t1 * y_dot)
        y += 0.01 * (_t1 * y + math.sin(t) * math.exp(-0.1 * t))
        y_dot += _t13
        t += 0.01
    return y, y_dot
