"""Convolutions: where a mode's output lies in the full convolution (or correlation), and
the zero padding that is the adjoint of that crop.

The derivative of a convolution (srcad/rules/convolution.py) pads the cotangent of a
'same' or 'valid' output back to the full output (conv_embed) and correlates it with the
other operand; conv_crop, the crop itself, is conv_embed's adjoint. Conventions for where
'same' starts along an axis, for operands of lengths m (first) and n (second):
- "numpy": np.convolve, (min(m, n) - 1) // 2, and its length is max(m, n);
- "numpy_corr": np.correlate, (n - 1) // 2 for m >= n, else m // 2 (NumPy swaps the
  operands and reverses the result), length max(m, n);
- "scipy": scipy.signal.convolve, correlate, fftconvolve, oaconvolve and convolve2d,
  (n - 1) // 2, length m;
- "corr2d": scipy.signal.correlate2d, n // 2, length m.
'valid' starts at min(m, n) - 1 with length |m - n| + 1; 'full' is all of it.
"""

import numpy as np

__all__ = ["conv_embed", "conv_crop"]


def _conv_window(shape1, shape2, mode, convention):
    """The full output's shape and the slices of it that a mode keeps."""
    s1, s2 = tuple(shape1), tuple(shape2)
    if convention.startswith("numpy"):
        s1, s2 = s1 or (1,), s2 or (1,)
    full = tuple(m + n - 1 for m, n in zip(s1, s2))
    keep = []
    for m, n in zip(s1, s2):
        if mode == "full":
            start, size = 0, m + n - 1
        elif mode == "valid":
            start, size = min(m, n) - 1, abs(m - n) + 1
        elif convention == "numpy":
            start, size = (min(m, n) - 1) // 2, max(m, n)
        elif convention == "numpy_corr":
            start, size = ((n - 1) // 2 if m >= n else m // 2), max(m, n)
        elif convention == "corr2d":
            start, size = n // 2, m
        else:
            start, size = (n - 1) // 2, m
        keep.append(slice(start, start + size))
    return full, tuple(keep)


def conv_embed(c, shape1, shape2, mode="full", convention="scipy"):
    """The cotangent c of a convolution's output in `mode`, padded with zeros to the full
    output of operands of shapes shape1 and shape2 (the adjoint of conv_crop)."""
    full, keep = _conv_window(shape1, shape2, mode, convention)
    out = np.zeros(full)
    out[keep] = np.reshape(c, out[keep].shape)
    return out


def conv_crop(c, shape1, shape2, mode="full", convention="scipy"):
    """The part of a full convolution output c that `mode` keeps (the adjoint of conv_embed)."""
    full, keep = _conv_window(shape1, shape2, mode, convention)
    return np.array(np.reshape(c, full)[keep], dtype=float)
