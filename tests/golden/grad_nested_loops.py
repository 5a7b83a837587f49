def grad_nested(x, n):
    # srcad 0.1.0: grad of nested (loops.py:70)
    # argnums=0; specialised for x: float, n: int
    # adjoint of line 72: for i in range(n):
    x_bar = 0.0
    for i in reversed(range(n)):
        # adjoint of line 74: for j in range(i):
        t_bar = 1.0
        for j in reversed(range(i)):
            # adjoint of line 75: t = t * 0.5 + math.cos(x + j)
            x_bar += t_bar * -math.sin(x + j)
            t_bar *= 0.5
        # adjoint of line 73: t = x * i
        x_bar += t_bar * i
    return x_bar
