def grad_numpy_binary(x, y):
    # srcad 0.1.0: grad of numpy_binary (straight.py:65)
    # argnums=0; specialised for x: float[3], y: float[3]
    # adjoint of line 67: + np.where(x > 0.5, x * y, -y) + np.clip(x, 0.2, 0.8) + np.logaddex...
    x_bar = np.exp(x - np.logaddexp(x, y)) + np.where(_clip_mask(x, 0.2, 0.8), _broadcast_to(
        1.0, (3,)), 0.0)
    x_bar = x_bar + np.where(x > 0.5, y, 0.0)
    # adjoint of line 66: return np.sum(np.maximum(x, y) + np.minimum(x, 0.3) * y + np.hypot(...
    x_bar = x_bar + y / (x * x + y * y)
    x_bar = x_bar + x / np.hypot(x, y)
    x_bar = x_bar + np.where(x < 0.3, y, np.where(x == 0.3, 0.5 * y, 0.0))
    x_bar = x_bar + np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0))
    return x_bar
