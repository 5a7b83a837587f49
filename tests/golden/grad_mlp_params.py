def grad_mlp_params(params, x):
    # srcad 0.1.0: grad of mlp_params (family.py:29)
    # argnums=0; specialised for params: {'W1': float[3, 2], 'b1': float[3], 'W2': float[2, 3]}, x: float[2]
    h = np.tanh(params['W1'] @ x + params['b1'])
    _t4 = params['W2']
    # adjoint of line 31: return np.sum((params["W2"] @ h) ** 2)
    _t6 = 2 * (_t4 @ h)
    _t8 = _t6[:, None] * h
    _t10 = _t4.T @ _t6
    params_bar = _zeros_like(params)
    params_bar = _scatter_add(params_bar, 'W2', _t8)
    # adjoint of line 30: h = np.tanh(params["W1"] @ x + params["b1"])
    _t13 = _t10 * (1.0 - h * h)
    params_bar = _scatter_add(params_bar, 'b1', _t13)
    params_bar = _scatter_add(params_bar, 'W1', _t13[:, None] * x)
    return params_bar
