def grad_reductions(x):
    # srcad 0.1.0: grad of reductions (straight.py:66)
    # argnums=0; specialised for x: float[2, 3]
    _t0 = np.sum(x, axis=1)
    _t1 = np.mean(x, axis=1, keepdims=True)
    _t2 = _t1.ravel()
    _t3 = x[0]
    _t8 = x.sum(axis=1)
    # adjoint of line 68: + np.prod(x[0]) + np.max(x) + np.min(x, axis=1).sum() + x.mean() +...
    _t12 = _t8 == _broadcast_to(_t8.max(), (2,))
    _t19 = np.size(x)
    x_bar = _expand_reduced(1.0 * _t12 / np.sum(_t12), x, 1, False) + _broadcast_to(1.0, (2, 3)
        ) * (np.size(x.mean()) / _t19)
    _t24 = x == _expand_reduced(np.min(x, axis=1), x, 1, False)
    x_bar = x_bar + _expand_reduced(_broadcast_to(1.0, (2,)), x, 1, False
        ) * _t24 / _expand_reduced(np.sum(_t24, axis=1), x, 1, False)
    _t30 = x == _broadcast_to(np.max(x), (2, 3))
    x_bar = x_bar + 1.0 * _t30 / np.sum(_t30)
    x_bar[0] += np.prod(_t3) / _t3
    # adjoint of line 67: return (np.sum(x, axis=1).dot(np.mean(x, axis=1, keepdims=True).rav...
    x_bar = x_bar + _expand_reduced(np.reshape(_t0, (2, 1)), x, 1, True) * (np.size(_t1) / _t19)
    x_bar = x_bar + _expand_reduced(_t2, x, 1, False)
    return x_bar
