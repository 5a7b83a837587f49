"""scipy.special.logsumexp by its source implementation (registered by rules/scipy_special.py),
inlined in place of the call: without return_sign it is one call of the primitive
srcad.logsumexp (scipy's logsumexp, whose rule is in rules/scipy_special.py); with
return_sign=True it returns (log |s|, sign(s)) for s = sum(b exp(a)), as scipy does.

The magnitude is the primitive's at the weights b sign(s): its derivative, b sign(s) exp(a -
out) in a and sign(s) exp(a - out) in b, is that of log |s|. The sign is piecewise constant
(derivative 0), computed from the sum shifted by a's max; at s == 0 it is 0 and the magnitude
-inf, as scipy's (the derivative there is NaN). Real values only.
"""

import numpy as np
import scipy.special as special

#: The shape scipy gives logsumexp of a number with keepdims=True ((1,) in some versions)
NUMBER_KEPT = np.shape(special.logsumexp(0.0, keepdims=True))


def logsumexp_value(a, axis=None, b=None, keepdims=False):
    """scipy.special.logsumexp without return_sign: the primitive srcad.logsumexp (generated
    code calls scipy's function itself: its rule's `runs`)."""
    return special.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    if not return_sign and keepdims and np.ndim(a) == 0 and np.ndim(b) == 0:
        return np.reshape(logsumexp_value(a, axis, b, False), NUMBER_KEPT)  # (scipy's shape)
    if not return_sign:
        return logsumexp_value(a, axis, b, keepdims)
    if b is None:  # (the sum is positive: its sign is 1, and 0 where out is -inf)
        out = logsumexp_value(a, axis, None, keepdims)
        return out, np.sign(np.exp(out))
    shifted = b * np.exp(a - np.max(a, axis=axis, keepdims=True))
    sign = np.sign(np.sum(shifted, axis=axis, keepdims=True))
    out = logsumexp_value(a, axis, b * sign, keepdims)
    return out, np.sum(sign, axis=axis, keepdims=keepdims)  # (the sum of one item: its axes dropped)
