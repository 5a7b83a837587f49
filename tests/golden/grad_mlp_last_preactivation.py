def grad_mlp_last_preactivation(params, inputs):
    # srcad 0.1.0: grad of mlp_last_preactivation (loops.py:351)
    # argnums=0; specialised for params: list[(array2f, array1f)], inputs: float[5, 3]
    # saved per loop iteration for the backward sweep:
    #   inputs (line 352, array2f): 8 B * size + 120 B
    #   outputs (line 352, array2f): 8 B * size + 120 B
    #   (temporary) (line 353, array2f): 8 B * size + 120 B
    _stack_inputs = []
    _stack_t = []
    _stack_outputs = []
    _t0 = len(params)
    outputs = None
    for _k in range(_t0):
        _stack_inputs.append(inputs)
        _stack_outputs.append(outputs)
        _t1 = params[_k]
        W = _t1[0]
        b = _t1[1]
        _t2 = inputs @ W
        outputs = _t2 + b
        inputs = np.tanh(outputs)
        _stack_t.append(_t2)
    outputs = _assigned(outputs, 'outputs')
    # adjoint of line 355: return np.sum(outputs)
    outputs_bar = _expand_reduced(1.0, outputs, None, False)
    # adjoint of line 352: for W, b in params:
    params_bar = _zeros_like(params)
    inputs_bar = np.zeros_like(inputs)
    for _k in reversed(range(_t0)):
        outputs = _stack_outputs.pop()
        _t3 = _stack_t.pop()
        inputs_1 = _stack_inputs.pop()
        # adjoint of line 354: inputs = np.tanh(outputs)
        outputs_bar = outputs_bar + inputs_bar * (1.0 - inputs * inputs)
        # adjoint of line 353: outputs = inputs @ W + b
        _t7 = _unbroadcast(outputs_bar, _t3)
        _t8 = params[_k]
        b = _t8[1]
        _t9 = _unbroadcast(outputs_bar, b)
        W = _t8[0]
        inputs_bar = _unbroadcast(_t7 @ W.T, inputs_1)
        _t14 = _unbroadcast(inputs_1.T @ _t7, W)
        # adjoint of line 352: for W, b in params:
        _zeros = _zeros_like(_t8)
        _t15 = _scatter_add(_zeros, 1, _t9)
        _t16 = _scatter_add(_t15, 0, _t14)
        params_bar[_k] = _add(params_bar[_k], _t16)
        outputs_bar = np.zeros_like(outputs)
        inputs = inputs_1
    return params_bar
