def grad_local_lists(x):
    # srcad 0.1.0: grad of local_lists (loops.py:129)
    # argnums=0; specialised for x: float
    xs = []
    for i in range(4):
        xs.append(x * i + math.sin(x))
    xs[2]
    _t1 = len(xs)
    xs[-1]
    _list_1 = []
    for _k in range(_t1):
        v = xs[_k]
        if v > 0.0:
            _list_1.append(v * v)
    # adjoint of line 135: return total + sum(ys)
    _list_bar = _sum_adjoint(1.0, _list_1)
    # adjoint of line 134: ys = [v * v for v in xs if v > 0.0]
    xs_bar = _zeros_like(xs)
    for _k in reversed(range(_t1)):
        v = xs[_k]
        if v > 0.0:
            _t11 = _list_bar.pop()
            v_bar = 2.0 * (_t11 * v)
        else:
            v_bar = 0.0
        xs_bar[_k] = xs_bar[_k] + v_bar
    # adjoint of line 133: total = sum(xs) + xs[2] * len(xs) + xs[-1]
    xs_bar[-1] = xs_bar[-1] + 1.0
    xs_bar[2] = xs_bar[2] + 1.0 * _t1
    xs_bar = _add(xs_bar, _sum_adjoint(1.0, xs))
    # adjoint of line 131: for i in range(4):
    x_bar = 0.0
    for i in reversed(range(4)):
        # adjoint of line 132: xs.append(x * i + math.sin(x))
        _t13 = xs_bar.pop()
        x_bar += _t13 * math.cos(x)
        x_bar += _t13 * i
    return x_bar
