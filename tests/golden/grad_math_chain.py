def grad_math_chain(x):
    # srcad 0.1.0: grad of math_chain (straight.py:20)
    # argnums=0; specialised for x: float
    _t0 = math.sin(x)
    _t1 = math.cos(x)
    _t2 = -x
    _t4 = math.exp(_t2 * x)
    _t5 = x * x
    math.log1p(_t5)
    # adjoint of line 21: return math.sin(x) * math.cos(x) + math.exp(-x * x) + math.log1p(x...
    _t10 = x / (1.0 + _t5)
    x_bar = 2.0 / (4.0 + _t5) + _t10
    x_bar += _t10
    x_bar += _t2 * _t4
    x_bar -= _t4 * x
    x_bar += _t0 * -_t0
    x_bar += _t1 * _t1
    return x_bar
