def grad_list_state(x):
    # srcad 0.1.0: grad of list_state (calls.py:71)
    # argnums=0; specialised for x: float
    # saved per loop iteration for the backward sweep:
    #   state (line 73, list[float]): one reference
    _stack_state = []
    state = [1.0, 2.0]
    for i in range(3):
        _stack_state.append(state)
        out = []
        out.append(state[0] * x)
        out.append(state[1] + x)
        state = out
    state[0]
    state[1]
    # adjoint of line 75: return state[0] + state[1]
    state_bar = _zeros_like(state)
    state_bar[1] = state_bar[1] + 1.0
    state_bar[0] = state_bar[0] + 1.0
    # adjoint of line 73: for i in range(3):
    x_bar = 0.0
    for i in reversed(range(3)):
        state = _stack_state.pop()
        # adjoint of line 67: out.append(state[1] + x)
        _t6 = state_bar.pop()
        x_bar += _t6
        state_bar_1 = _zeros_like(state)
        state_bar_1[1] = state_bar_1[1] + _t6
        # adjoint of line 66: out.append(state[0] * x)
        _t7 = state_bar.pop()
        x_bar += state[0] * _t7
        state_bar_1[0] = state_bar_1[0] + _t7 * x
        state_bar = state_bar_1
    return x_bar
