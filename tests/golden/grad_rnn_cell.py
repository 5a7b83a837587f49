def grad_rnn_cell(W, h0, xs):
    # srcad 0.1.0: grad of rnn_cell (loops.py:185)
    # argnums=(0, 1); specialised for W: float[3, 3], h0: float[3, 2], xs: float[4, 3, 2]
    # saved per loop iteration for the backward sweep:
    #   h (line 187, float[3, 2]): 168 B
    _stack_h = []
    h = h0
    for t in range(4):
        _stack_h.append(h)
        h = np.tanh(W @ h + xs[t])
    # adjoint of line 189: return np.sum(h * h)
    h_bar = 2.0 * h
    # adjoint of line 187: for t in range(xs.shape[0]):
    _t0 = W.T
    W_bar = np.zeros((3, 3))
    for t in reversed(range(4)):
        h_1 = _stack_h.pop()
        # adjoint of line 188: h = np.tanh(W @ h + xs[t])  # the adjoint reads h before and a...
        _t7 = h_bar * (1.0 - h * h)
        W_bar += _t7 @ h_1.T
        h_bar = _t0 @ _t7
        h = h_1
    return W_bar, h_bar
