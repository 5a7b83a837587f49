def grad_broadcasting(x, b):
    # srcad 0.1.0: grad of broadcasting (straight.py:75)
    # argnums=0; specialised for x: float[3, 4], b: float[4]
    _t3 = 1.0 + b
    y = x * b + b ** 2 - x / _t3
    # adjoint of line 77: return np.sum(y * y)
    y_bar = 2.0 * y
    # adjoint of line 76: y = x * b + b ** 2 - x / (1.0 + b)
    x_bar = -y_bar / _t3 + y_bar * b
    return x_bar
