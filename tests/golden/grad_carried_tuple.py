def grad_carried_tuple(x):
    # srcad 0.1.0: grad of carried_tuple (loops.py:87)
    # argnums=0; specialised for x: float
    # saved per loop iteration for the backward sweep:
    #   state (line 89, float): 32 B
    _stack_state = []
    state = x
    state_1 = 0.0
    for _ in range(5):
        _stack_state.append(state)
        _t1 = state + 0.1 * state_1
        state_1 -= 0.1 * math.sin(state)
        state = _t1
    # adjoint of line 89: for _ in range(5):
    state_bar = state_1
    state_bar_1 = state
    for _ in reversed(range(5)):
        state = _stack_state.pop()
        # adjoint of line 91: state = (p + 0.1 * v, v - 0.1 * math.sin(p))
        state_bar_2 = 0.1 * -state_bar_1 * math.cos(state) + state_bar
        state_bar_1 += 0.1 * state_bar
        state_bar = state_bar_2
    return state_bar
