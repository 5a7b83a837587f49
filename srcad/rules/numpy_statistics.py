"""numpy's cov, corrcoef and meshgrid, by their *source implementations* (`composite`,
rules/registry.py): plain NumPy, inlined in place of the call, so that both modes and every
order come from the rules of what they call. Each follows NumPy's own code (numpy/lib) step by
step, so that values are NumPy's: the same dtype (float64 at least), the same shapes (cov and
corrcoef of one variable are 0-d), the same operations in the same order.

cov(m, y, rowvar, bias, ddof): m and y 1-d or 2-d, differentiable; ddof an integer (data: an
error if differentiated). fweights, aweights and dtype are refused unless None (NoRuleError
at the call). corrcoef(x, y, rowvar): cov's, divided by the standard deviations and clipped
to [-1, 1] as NumPy clips real results (the clip's derivative is 0 where an entry is beyond
it, as at a diagonal entry rounded to 1 + 2^-52: its true derivative is 0 too); of one
variable, c / c (1.0, or NaN) as NumPy. dtype is refused unless None.

meshgrid(*xi, copy, sparse, indexing): any number of arrays (each flattened, as NumPy's),
indexing 'xy' or 'ij', sparse or not. The result is what NumPy returns: a tuple, but a list
for sparse=True, copy=False.
"""

import warnings

import numpy as np

from .. import runtime as srcad
from .registry import composite, family

family("numpy statistics", raises="always")  # (ValueError: more than 2 dimensions, a bad indexing)


def _variables(m, y, rowvar):
    """The rows of observations cov reads: m's (and y's), as a 2-d float array (m and y may
    be lists or tuples of arrays: np.cov([v, w]))."""
    m = np.asarray(m)
    y = None if y is None else np.asarray(y)
    if np.ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None and np.ndim(y) > 2:
        raise ValueError("y has more than 2 dimensions")
    dtype = np.result_type(m, np.float64) if y is None else np.result_type(m, y, np.float64)
    x = np.atleast_2d(np.asarray(m, dtype=dtype))
    if not rowvar and np.ndim(m) != 1:
        x = srcad.T(x)
    if y is not None:
        yy = np.atleast_2d(np.asarray(y, dtype=dtype))
        if not rowvar and np.shape(yy)[0] != 1:
            yy = srcad.T(yy)
        x = np.concatenate((x, yy), axis=0)
    return x


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """np.cov without weights (numpy/lib/_function_base_impl.py)."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    x = _variables(m, y, rowvar)
    if np.shape(x)[0] == 0:
        return np.zeros((0, 0))
    if ddof is None:
        ddof = 0 if bias else 1
    fact = np.shape(x)[1] - srcad.data_only(ddof, "ddof of numpy.cov")
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    xc = x - np.expand_dims(np.mean(x, axis=1), 1)
    xt = srcad.T(xc)
    if np.iscomplexobj(xc):
        xt = np.conjugate(xt)
    c = np.dot(xc, xt) * np.true_divide(1, fact)
    return np.squeeze(c)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """np.corrcoef: cov's, divided by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if np.ndim(c) == 0:  # (one variable: NumPy's diag raises, and it returns c / c)
        return c / c
    d = np.diag(c)
    stddev = np.sqrt(np.real(d))
    c = c / np.expand_dims(stddev, 1)
    c = c / np.expand_dims(stddev, 0)
    if np.iscomplexobj(c):
        raise TypeError("srcad: numpy.corrcoef of complex values is not supported (NumPy clips their real "
                        "and imaginary parts separately)")
    return np.clip(c, -1, 1)


def _along(x, axis, ndim):
    """x flattened along `axis` of ndim axes (length 1 along the others)."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(np.asanyarray(x), tuple(shape))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """np.meshgrid: each array flattened along its own axis (the first two swapped for 'xy'),
    broadcast to the full grid unless sparse."""
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    swap = indexing == "xy" and ndim > 1
    axes = [1 - k if swap and k < 2 else k for k in range(ndim)]
    output = [_along(xi[i], axes[i], ndim) for i in range(ndim)]
    if not sparse:  # (axes swaps two axes at most: the array along axis k is xi[axes[k]])
        grid = tuple([np.size(xi[axes[k]]) for k in range(ndim)])
        output = [np.broadcast_to(item, grid) for item in output]
    if copy:
        return tuple([np.copy(item) for item in output])
    return output if sparse else tuple(output)


_NONE = {"fweights": (None,), "aweights": (None,), "dtype": (None,)}
composite("numpy.cov", cov, refuses=("ddof",), accepts=_NONE)
composite("numpy.corrcoef", corrcoef, accepts={"dtype": (None,)})
composite("numpy.meshgrid", meshgrid)
