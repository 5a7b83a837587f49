def grad_elif_chain(x):
    # srcad 0.1.0: grad of elif_chain (branches.py:16)
    # argnums=0; specialised for x: float
    _t0 = x < -1.0
    if not _t0:
        _t1 = x < 0.0
        if not _t1:
            _t2 = x < 1.0
            if _t2:
                r = math.exp(x)
    # adjoint of line 17: if x < -1.0:
    if _t0:
        x_bar = 0.0
    else:
        # adjoint of line 19: elif x < 0.0:
        if _t1:
            # adjoint of line 20: r = x * x
            x_bar = 1.0 + x
            x_bar += x
        else:
            # adjoint of line 21: elif x < 1.0:
            if _t2:
                # adjoint of line 22: r = math.exp(x)
                x_bar = 1.0 + r
            else:
                x_bar = 4.0
    return x_bar
