def grad_uses_clipped_log(x):
    # srcad 0.1.0: grad of uses_clipped_log (family.py:83)
    # argnums=0; specialised for x: float
    # saved per loop iteration for the backward sweep:
    #   (temporary) (line 86, ?): one reference
    _stack_t = []
    s = 0.0
    for i in range(3):
        _t2, _t3 = _clipped_log_fwd(x * (i + 1.0))
        s += _t2
        _stack_t.append(_t3)
    # adjoint of line 85: for i in range(3):
    x_bar = s
    for i in reversed(range(3)):
        _t4 = _stack_t.pop()
        # adjoint of line 86: s = s + clipped_log(x * (i + 1.0))
        _t5 = _clipped_log_bwd(_t4, x)
        _t6 = i + 1.0
        x_bar = x_bar + _custom_cotangents(_t5, (x * _t6,))[0] * _t6
    return x_bar
