def grad_fill_loop(x):
    # srcad 0.1.0: grad of fill_loop (loops.py:106)
    # argnums=0; specialised for x: float[4]
    y = np.zeros(4)
    for i in range(4):
        y[i] = x[i] ** 2 + x[i - 1]
    # adjoint of line 108: for i in range(len(x)):
    y_bar = np.copy(x)
    x_bar = y
    for i in reversed(range(4)):
        # adjoint of line 109: y[i] = x[i] ** 2 + x[i - 1]
        _t5 = y_bar[i]
        y_bar[i] = 0.0
        x_bar[i - 1] += _t5
        x_bar[i] += _t5 * (2 * x[i])
    return x_bar
