def grad_break_continue(x):
    # srcad 0.1.0: grad of break_continue (loops.py:50)
    # argnums=0; specialised for x: float
    # saved per loop iteration (value, line, bytes):
    #   %6 (line 55, float): 8 (+ a Python float object, 24)
    _stack_t = []
    s = 0.0
    _trips = 0
    for i in range(20):
        if i % 3 == 0:
            _brk0 = False
            _t2 = None
        else:
            _t2 = x * i
            s += math.sin(_t2)
            _brk0 = s > 1.5
        _trips += 1
        _stack_t.append(_t2)
        if _brk0:
            break
    # adjoint of line 52: for i in range(20):
    x_bar = 0.0
    for i in reversed(range(_trips)):
        _t4 = _stack_t.pop()
        # adjoint of line 53: if i % 3 == 0:
        if not i % 3 == 0:
            # adjoint of line 55: s = s + math.sin(x * i)
            x_bar += math.cos(_t4) * i
    return x_bar
