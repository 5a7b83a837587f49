def grad_matrix_products(A, v):
    # srcad 0.1.0: grad of matrix_products (straight.py:76)
    # argnums=0; specialised for A: array2f, v: array1f
    w = A @ v
    _t0 = A.T
    B = _t0 @ A
    # adjoint of line 79: return np.sum(w * w) + np.sum(np.dot(B, v)) + v @ v + np.sum(A.dot(A.T)) + np.sum(np.outer(v, w))
    _t10 = _expand_reduced(1.0, A.dot(_t0), None, False)
    _t11 = _T(_t0)
    _t13 = _T(A)
    A_bar = np.dot(_t10, _t11) + np.transpose(np.dot(_t13, _t10))
    _t17 = np.outer(_expand_reduced(1.0, np.dot(B, v), None, False), v)
    _t18 = _expand_reduced(1.0, w * w, None, False)
    w_bar = np.reshape(np.dot(np.ravel(v), _expand_reduced(1.0, np.outer(v, w), None, False)),
        np.shape(w)) + _unbroadcast(_t18 * w, w)
    w_bar = w_bar + _unbroadcast(w * _t18, w)
    # adjoint of line 78: B = A.T @ A
    A_bar = A_bar + _unbroadcast(_t11 @ _t17, A)
    A_bar = A_bar + np.transpose(_unbroadcast(_t17 @ _t13, _t0))
    # adjoint of line 77: w = A @ v
    A_bar = A_bar + _unbroadcast(np.outer(w_bar, v), A)
    return A_bar
