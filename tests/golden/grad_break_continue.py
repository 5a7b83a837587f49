def grad_break_continue(x):
    # srcad 0.1.0: grad of break_continue (loops.py:50)
    # argnums=0; specialised for x: float
    s = 0.0
    _trips = 0
    for i in range(20):
        if i % 3 == 0:
            _brk0 = False
        else:
            s += math.sin(x * i)
            _brk0 = s > 1.5
        _trips += 1
        if _brk0:
            break
    # adjoint of line 52: for i in range(20):
    x_bar = 0.0
    for i in reversed(range(_trips)):
        # adjoint of line 53: if i % 3 == 0:
        if not i % 3 == 0:
            # adjoint of line 55: s = s + math.sin(x * i)
            x_bar += math.cos(x * i) * i
    return x_bar
