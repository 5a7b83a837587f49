"""Matrix functions by the block-triangular identity, and chained products: numpy's
matrix_power and multi_dot (scipy.linalg's expm and logm use the same identity, in
rules/scipy_linalg.py).

For a matrix function f given by a power series (A^n, exp, log, inverse...), the
derivative of f at A along E is the upper right block of f applied to the block matrix
[[A, E], [0, A]] (Higham, Functions of Matrices, 2008, thm 3.6), and its adjoint is the
same at A^T (for real coefficients). The derivative code calls f itself, so f's rule
differentiates it again (second derivatives work on 4n x 4n blocks).

matrix_power's n is an int, not differentiated; a negative n inverts a (LinAlgError for a
singular a, as NumPy).
"""

import numpy as np

from . import typefns as ty
from .registry import composite, defrule, family

family("numpy linalg", raises="always")


def frechet(call: str, a: str, e: str) -> str:
    """The derivative of the matrix function `call` ("np.linalg.matrix_power({}, n)": `{}` is
    its matrix) at the matrix a along e, as template text."""
    n = f"np.shape({a})[-1]"
    block = (f"np.concatenate([np.concatenate([{a}, {e}], axis=-1), "
             f"np.concatenate([np.zeros_like({a}), {a}], axis=-1)], axis=-2)")
    return f"{call.format(block)}[..., :{n}, {n}:]"


_POWER = "np.linalg.matrix_power({}, n)"
defrule("numpy.linalg.matrix_power", "a, n", jvp={"a": frechet(_POWER, "a", "t")},
        vjp={"a": frechet(_POWER, "srcad.T(a)", "g")}, out=ty.rank("a"))


def multi_dot(arrays, *, out=None):
    """np.linalg.multi_dot: the product of the arrays in the order written (NumPy picks
    the order of the multiplications; the product is the same up to rounding)."""
    result = arrays[0]
    for i in range(1, len(arrays)):
        result = np.dot(result, arrays[i])
    return result


composite("numpy.linalg.multi_dot", multi_dot)
