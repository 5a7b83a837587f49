"""Functions for tests/test_complex.py (in a file, so that srcad can read their source)."""

import numpy as np

import srcad


def sin_of_complex(x):
    return np.sum(np.real(np.sin(x * (1 + 2j))))  # complex-correct: derivative


def cumsum_of_complex(x):
    return np.sum(np.real(np.cumsum(x * 1j)))  # np.cumsum is not complex-correct


def returns_complex(x):
    return np.sum(x * 1j)


def complex_or_none(x, flag):
    z = x * 1j if flag else None
    return np.sum(np.real(z))


def write_complex_into_real(x):
    y = np.zeros(3)
    y[0] = x[0] * 1j
    return np.sum(np.real(y))


def write_complex_into_complex(x):
    y = np.zeros(3, dtype=complex)
    y[0] = x[0] * (1 + 1j)
    y[1:] = x[1:] ** 2 * 1j
    return np.sum(np.imag(y) + np.real(y) ** 2)


def loop_of_complex(x):
    s = 0.0
    for k in range(3):
        s = s * x[k] + np.exp(1j * x[k])
    return np.abs(s) ** 2


def branch_of_complex(x, flag):
    z = np.exp(1j * x) if flag else x * 2.0
    return np.sum(np.real(z) + np.abs(z))


@srcad.custom_vjp
def double(x):
    return 2.0 * x


double.defvjp(lambda x: (2.0 * x, None), lambda res, g: (2.0 * g,))


def custom_of_complex(x):
    return np.sum(np.real(double(x * 1j)))


def spectral_energy(x):
    X = np.fft.rfft(x, norm="ortho")
    return np.sum(np.abs(X[1:]) ** 2) + np.max(np.real(np.linalg.eigvals(np.outer(x, x[::-1]))))


def with_complex_constant(x, c):
    return np.sum(np.abs(x * c + 1.0) ** 2)
