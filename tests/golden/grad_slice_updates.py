def grad_slice_updates(x):
    # srcad 0.1.0: grad of slice_updates (loops.py:113)
    # argnums=0; specialised for x: float[4]
    z = x.copy()
    z[0] = z[1] * 3.0
    z[1:3] += x[2:4] * 2.0
    _t4 = z[-1]
    _t5 = z[0]
    z[-1] = _t4 * _t5
    # adjoint of line 118: return np.sum(z * z)
    z_bar = 2.0 * z
    # adjoint of line 117: z[-1] *= z[0]
    _t7 = z_bar[-1]
    z_bar[-1] = 0.0
    _t8 = _t7 * _t5
    z_bar[0] += _t4 * _t7
    z_bar[-1] += _t8
    # adjoint of line 116: z[1:3] += x[2:4] * 2.0
    _t11 = z_bar[1:3] * 2.0
    x_bar = np.zeros((4,))
    x_bar[2:4] += _t11
    # adjoint of line 115: z[0] = z[1] * 3.0
    _t12 = z_bar[0]
    z_bar[0] = 0.0
    z_bar[1] += _t12 * 3.0
    # adjoint of line 114: z = x.copy()
    x_bar += z_bar
    return x_bar
