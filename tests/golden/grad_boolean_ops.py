def grad_boolean_ops(x, y):
    # srcad 0.1.0: grad of boolean_ops (branches.py:57)
    # argnums=0; specialised for x: float, y: float
    _t0 = x > 0.0
    if _t0:
        _t0 = y > 0.0
    if not _t0:
        _t0 = x < -5.0
    # adjoint of line 58: if x > 0.0 and y > 0.0 or x < -5.0:
    if _t0:
        x_bar = y
    else:
        x_bar = 1.0
    return x_bar
