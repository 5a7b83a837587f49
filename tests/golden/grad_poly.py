def grad_poly(x):
    # srcad 0.1.0: grad of poly (straight.py:10)
    # argnums=0; specialised for x: float
    # adjoint of line 11: return 3.0 * x ** 3 - 2.0 * x + 1.0 / x
    x_bar = -(1.0 / x) / x + -2.0
    x_bar += 3.0 * (3 * x ** 2)
    return x_bar
