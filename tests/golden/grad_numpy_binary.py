def grad_numpy_binary(x, y):
    # srcad 0.1.0: grad of numpy_binary (straight.py:61)
    # argnums=0; specialised for x: array1f, y: array1f
    _t0 = np.maximum(x, y)
    _t1 = np.minimum(x, 0.3)
    _t2 = _t1 * y
    _t3 = _t0 + _t2
    _t4 = np.hypot(x, y)
    _t5 = _t3 + _t4
    _t6 = np.arctan2(x, y)
    _t7 = _t5 + _t6
    _t8 = x > 0.5
    _t9 = x * y
    _t11 = np.where(_t8, _t9, -y)
    _t12 = _t7 + _t11
    _t13 = np.clip(x, 0.2, 0.8)
    _t14 = _t12 + _t13
    _t15 = np.logaddexp(x, y)
    # adjoint of line 62: return np.sum(np.maximum(x, y) + np.minimum(x, 0.3) * y + np.hypot(x, y) + np.arctan2(x, y)
    _t17 = _expand_reduced(1.0, _t14 + _t15, None, False)
    _t18 = _unbroadcast(_t17, _t14)
    _t24 = _unbroadcast(_t18, _t12)
    # adjoint of line 63: + np.where(x > 0.5, x * y, -y) + np.clip(x, 0.2, 0.8) + np.logaddexp(x, y))
    x_bar = _unbroadcast(_unbroadcast(_t17, _t15) * np.exp(x - _t15), x) + _unbroadcast(_t18, _t13
        ) * _clip_mask(x, 0.2, 0.8)
    # adjoint of line 62: return np.sum(np.maximum(x, y) + np.minimum(x, 0.3) * y + np.hypot(x, y) + np.arctan2(x, y)
    _t28 = _unbroadcast(_t24, _t7)
    # adjoint of line 63: + np.where(x > 0.5, x * y, -y) + np.clip(x, 0.2, 0.8) + np.logaddexp(x, y))
    x_bar = x_bar + _unbroadcast(_unbroadcast(np.where(_t8, _unbroadcast(_t24, _t11), 0.0), _t9
        ) * y, x)
    # adjoint of line 62: return np.sum(np.maximum(x, y) + np.minimum(x, 0.3) * y + np.hypot(x, y) + np.arctan2(x, y)
    _t34 = _unbroadcast(_t28, _t5)
    x_bar = x_bar + _unbroadcast(_unbroadcast(_t28, _t6) * (y / (x * x + y * y)), x)
    _t42 = _unbroadcast(_t34, _t3)
    x_bar = x_bar + _unbroadcast(_unbroadcast(_t34, _t4) * (x / _t4), x)
    x_bar = x_bar + _unbroadcast(_unbroadcast(_t42, _t2) * y, _t1) * ((0.3 > x) + 0.5 * (x == 0.3))
    x_bar = x_bar + _unbroadcast(_unbroadcast(_t42, _t0) * ((x > y) + 0.5 * (x == y)), x)
    return x_bar
