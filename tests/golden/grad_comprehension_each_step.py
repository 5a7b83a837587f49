def grad_comprehension_each_step(x):
    # srcad 0.1.0: grad of comprehension_each_step (loops.py:394)
    # argnums=0; specialised for x: float
    # saved per loop iteration for the backward sweep:
    #   _list (line 397, list[float]): one reference
    #   (temporary) (line 398, float): 32 B
    _stack__list = []
    _stack_t = []
    for i in range(3):
        _list_1 = []
        for j in range(i + 1):
            _list_1.append(x * j)
        _t1 = sum(_list_1)
        _stack__list.append(_list_1)
        _stack_t.append(_t1)
    # adjoint of line 396: for i in range(3):
    x_bar = 0.0
    for i in reversed(range(3)):
        _t3 = _stack_t.pop()
        _list_1 = _stack__list.pop()
        # adjoint of line 398: s = s + sum(ys) * x
        x_bar += _t3
        # adjoint of line 397: ys = [x * j for j in range(i + 1)]  # a new list per step, fil...
        _list_bar = _sum_adjoint(x, _list_1)
        for j in reversed(range(i + 1)):
            _t5 = _list_bar.pop()
            x_bar += _t5 * j
    return x_bar
