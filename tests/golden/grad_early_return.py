def grad_early_return(x):
    # srcad 0.1.0: grad of early_return (branches.py:35)
    # argnums=0; specialised for x: float
    _t0 = x > 1.0
    if not _t0:
        z = math.exp(x)
    # adjoint of line 36: if x > 1.0:
    if _t0:
        # adjoint of line 37: return x * x
        x_bar = 2.0 * x
    else:
        # adjoint of line 38: z = math.exp(x)
        x_bar = 1.0 + z
    return x_bar
