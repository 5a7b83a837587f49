def grad_reductions(x):
    # srcad 0.1.0: grad of reductions (straight.py:70)
    # argnums=0; specialised for x: float[2, 3]
    _t0 = np.sum(x, axis=1)
    _t2 = np.mean(x, axis=1, keepdims=True).ravel()
    _t3 = x[0]
    _t7 = x.sum(axis=1)
    # adjoint of line 72: + np.prod(x[0]) + np.max(x) + np.min(x, axis=1).sum() + x.mean() +...
    _t10 = _t7 == _t7.max()
    x_bar = _expand_reduced(_t10 / np.sum(_t10), x, 1, False) + 0.16666666666666666
    _t16 = x == _expand_reduced(np.min(x, axis=1), x, 1, False)
    x_bar = x_bar + _expand_reduced(_broadcast_to(1.0, (2,)), x, 1, False
        ) * _t16 / _expand_reduced(np.sum(_t16, axis=1), x, 1, False)
    _t21 = x == np.max(x)
    x_bar = x_bar + _t21 / np.sum(_t21)
    x_bar[0] += np.prod(_t3) / _t3
    # adjoint of line 71: return (np.sum(x, axis=1).dot(np.mean(x, axis=1, keepdims=True).rav...
    x_bar = x_bar + _broadcast_to(np.reshape(_t0, (2, 1)), (2, 3)) * 0.3333333333333333
    x_bar = x_bar + _expand_reduced(_t2, x, 1, False)
    return x_bar
