def grad_fill_loop(x):
    # srcad 0.1.0: grad of fill_loop (loops.py:106)
    # argnums=0; specialised for x: float[4]
    _t0 = len(x)
    y = np.zeros(_t0)
    for i in range(_t0):
        y[i] = x[i] ** 2 + x[i - 1]
    # adjoint of line 110: return np.sum(y * x)
    _t2 = _expand_reduced(1.0, y * x, None, False)
    # adjoint of line 108: for i in range(len(x)):
    y_bar = _unbroadcast(_t2 * x, y)
    x_bar = _unbroadcast(y * _t2, x)
    for i in reversed(range(_t0)):
        # adjoint of line 109: y[i] = x[i] ** 2 + x[i - 1]
        _t10 = y_bar[i]
        y_bar[i] = 0.0
        x_bar[i - 1] += _t10
        x_bar[i] += _t10 * (2 * x[i])
    return x_bar
