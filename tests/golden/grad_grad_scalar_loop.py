def grad_grad_scalar_loop(x, n):
    # srcad 0.1.0: grad of grad_scalar_loop (<srcad grad_scalar_loop a818c80cc0>:1)
    # argnums=0; specialised for x: float, n: int
    # saved per loop iteration for the backward sweep:
    #   s (line 8, float): 32 B
    #   s_bar (line 14, float): 32 B
    #   s (line 15, float): 32 B
    #   (temporary) (line 17, float): 32 B
    #   (temporary) (line 17, float): 32 B
    _stack_s = []
    _stack_s_1 = []
    _stack_s_bar = []
    _stack_t = []
    _stack_t_1 = []
    _stack_s_2 = []
    s = 0.0
    for i in range(n):
        _stack_s.append(s)
        _stack_s_2.append(s)
        s = s * x + math.sin(s + x)
    s_bar = 1.0
    for i in reversed(range(n)):
        _stack_s_bar.append(s_bar)
        s = _stack_s_2.pop()
        _t3 = s + x
        _t4 = math.cos(_t3)
        _t5 = s_bar * _t4
        s_bar_1 = _t5 + s_bar * x
        _stack_s_1.append(s)
        _stack_t.append(_t3)
        _stack_t_1.append(_t4)
        s_bar = s_bar_1
    # adjoint of line 14: for i in reversed(range(n)):
    _stack_s_bar_1 = _zeros_like(_stack_s_2)
    s_bar_bar = 0.0
    x_bar = 0.0
    for i in range(n):
        _t7 = _stack_t_1.pop()
        _t8 = _stack_t.pop()
        s_bar = _stack_s_bar.pop()
        s = _stack_s_1.pop()
        # adjoint of line 19: s_bar_1 = _t5 + s_bar * x
        s_bar_bar_1 = s + s_bar_bar * x
        x_bar += s_bar * s_bar_bar
        # adjoint of line 18: x_bar += _t5
        _t5_bar = s_bar_bar + 1.0
        # adjoint of line 17: _t5 = s_bar * math.cos(s + x)
        s_bar_bar = s_bar_bar_1 + _t5_bar * _t7
        _t15 = s_bar * _t5_bar * -math.sin(_t8)
        s_bar += _t15
        x_bar += _t15
        # adjoint of line 15: s = _stack_s.pop()
        _stack_s_bar_1.append(s_bar)
    # adjoint of line 8: for i in range(n):
    s_bar = 0.0
    for i in reversed(range(n)):
        s = _stack_s.pop()
        # adjoint of line 10: s = s * x + math.sin(s + x)
        _t18 = s_bar * math.cos(s + x)
        x_bar += _t18
        s_bar_1 = _t18 + s_bar * x
        x_bar += s * s_bar
        # adjoint of line 9: _stack_s.append(s)
        _t21 = _stack_s_bar_1.pop()
        s_bar = s_bar_1 + _t21
    return x_bar
