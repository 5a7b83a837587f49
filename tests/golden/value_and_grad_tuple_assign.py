def value_and_grad_tuple_assign(x, y):
    # srcad 0.1.0: value_and_grad of tuple_assign (straight.py:45)
    # argnums=0; specialised for x: float, y: float
    _t0 = x * 2.0
    b = y + 1.0
    return b * _t0 + (b - _t0) * 3.0, (-3.0 + b) * 2.0
