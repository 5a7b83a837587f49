def grad_newton_sqrt(a):
    # srcad 0.1.0: grad of newton_sqrt (loops.py:42)
    # argnums=0; specialised for a: float
    # saved per loop iteration for the backward sweep:
    #   x (line 45, float): 32 B
    _stack_x = []
    x = a
    _trips = 0
    while abs(x * x - a) > 1e-12:
        _stack_x.append(x)
        x = 0.5 * (x + a / x)
        _trips += 1
    # adjoint of line 45: while abs(x * x - a) > 1e-12:
    x_bar = 1.0
    a_bar = 0.0
    for _ in range(_trips):
        x = _stack_x.pop()
        # adjoint of line 46: x = 0.5 * (x + a / x)
        _t6 = 0.5 * x_bar
        a_bar += _t6 / x
        x_bar = _t6 + -(_t6 * (a / x)) / x
    # adjoint of line 45: while abs(x * x - a) > 1e-12:
    a_bar += x_bar
    return a_bar
