def grad_mlp_params(params, x):
    # srcad 0.1.0: grad of mlp_params (family.py:29)
    # argnums=0; specialised for params: {'W1': float[3, 2], 'b1': float[3], 'W2': float[2, 3]}, x: float[2]
    _t0 = params['W1']
    h = np.tanh(_t0 @ x + params['b1'])
    _t4 = params['W2']
    # adjoint of line 31: return np.sum((params["W2"] @ h) ** 2)
    _t6 = 2 * (_t4 @ h)
    _t9 = _unbroadcast(np.expand_dims(_t6, -1) * h, _t4)
    _t11 = _t4.T @ _t6
    params_bar = _zeros_like(params)
    params_bar = _scatter_add(params_bar, 'W2', _t9)
    # adjoint of line 30: h = np.tanh(params["W1"] @ x + params["b1"])
    _t14 = _t11 * (1.0 - h * h)
    params_bar = _scatter_add(params_bar, 'b1', _t14)
    params_bar = _scatter_add(params_bar, 'W1', _unbroadcast(np.expand_dims(_t14, -1) * x, _t0))
    return params_bar
