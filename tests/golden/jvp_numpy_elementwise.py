def jvp_numpy_elementwise(x, x_dot):
    # srcad 0.1.0: jvp of numpy_elementwise (straight.py:60)
    # argnums=(0,); specialised for x: float[3]
    _t0 = np.exp(x)
    _t6 = np.sqrt(x)
    _t11 = np.tanh(x)
    _t15 = np.cos(x)
    _t30 = np.reciprocal(x)
    _t42 = x / 3.0
    return (_t0 + np.log(x) + _t6 + _t11 * _t15 + np.square(x) + _t30 + np.arctan(x) + np.sinh(
        _t42) + np.log1p(x) + np.power(x, 1.5)).sum(), (x_dot * _t0 + x_dot / x + x_dot * (0.5 /
        _t6) + (x_dot * (1.0 - _t11 * _t11) * _t15 + _t11 * (x_dot * -np.sin(x))) + x_dot * (
        2.0 * x) + x_dot * -(_t30 * _t30) + x_dot / (1.0 + x * x) + x_dot / 3.0 * np.cosh(_t42) +
        x_dot / (1.0 + x) + x_dot * (1.5 * x ** 0.5)).sum()
