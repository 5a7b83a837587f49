def grad_matrix_products(A, v):
    # srcad 0.1.0: grad of matrix_products (straight.py:80)
    # argnums=0; specialised for A: float[2, 3], v: float[3]
    w = A @ v
    _t0 = A.T
    # adjoint of line 83: return np.sum(w * w) + np.sum(np.dot(B, v)) + v @ v + np.sum(A.dot(...
    _t5 = _broadcast_to(1.0, (2, 2))
    _t6 = _t0.T
    A_bar = np.dot(_t5, _t6) + np.dot(_t0, _t5).T
    _t11 = np.outer(_broadcast_to(1.0, (3,)), v)
    w_bar = np.reshape(np.dot(np.ravel(v), _broadcast_to(1.0, (3, 2))), (2,)) + w
    w_bar += w
    # adjoint of line 82: B = A.T @ A
    _t12 = _t11 @ _t0
    A_bar += _t6 @ _t11
    A_bar += _t12.T
    # adjoint of line 81: w = A @ v
    A_bar += w_bar[:, None] * v
    return A_bar
