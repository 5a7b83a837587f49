def grad_ode_euler(k, y0):
    # srcad 0.1.0: grad of ode_euler (loops.py:175)
    # argnums=(0, 1); specialised for k: float, y0: float
    # saved per loop iteration for the backward sweep:
    #   y (line 179, float): 32 B
    _stack_y = []
    y = y0
    t = 0.0
    for _ in range(200):
        _stack_y.append(y)
        y += 0.01 * (-k * y + math.sin(t) * math.exp(-0.1 * t))
        t += 0.01
    # adjoint of line 179: for _ in range(200):
    y_bar = 1.0
    k_bar = 0.0
    for _ in reversed(range(200)):
        y = _stack_y.pop()
        # adjoint of line 180: y = y + dt * (-k * y + math.sin(t) * math.exp(-0.1 * t))
        _t9 = 0.01 * y_bar
        y_bar += -k * _t9
        k_bar -= _t9 * y
    return k_bar, y_bar
