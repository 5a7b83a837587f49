def grad_rows(X, w):
    # srcad 0.1.0: grad of rows (loops.py:17)
    # argnums=(0, 1); specialised for X: float[3, 2], w: float[2]
    # saved per loop iteration for the backward sweep:
    #   (temporary) (line 20, float): 32 B
    _stack_t = []
    for _k in range(3):
        row = X[_k]
        _stack_t.append(np.tanh(np.dot(row, w)))
    # adjoint of line 19: for row in X:
    X_bar = np.zeros((3, 2))
    w_bar = np.zeros((2,))
    for _k in reversed(range(3)):
        _t3 = _stack_t.pop()
        # adjoint of line 20: total = total + np.tanh(np.dot(row, w))
        _t5 = 1.0 - _t3 * _t3
        row = X[_k]
        _t6 = _t5 * w
        w_bar += _t5 * row
        # adjoint of line 19: for row in X:
        X_bar[_k] += _t6
    return X_bar, w_bar
