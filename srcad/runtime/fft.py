"""Helpers of the rules of numpy.fft (srcad/rules/numpy_fft.py): which axes and lengths a
transform uses, resizing along axes (the adjoint of the zero-padding or truncation that
n= and s= ask for), and the weights of the bins of a half spectrum (irfft's adjoint)."""

from __future__ import annotations

import numpy as np

__all__ = ["fft_axes", "fft_sizes", "irfft_weights", "resize_axes"]


def fft_axes(a, s=None, axes=None, default=None):
    """The axes an n-dimensional FFT of `a` transforms, as NumPy picks them: `axes`, else the
    last len(s) axes when s is given, else `default` (None: all axes)."""
    ndim = np.ndim(a)
    if axes is not None:
        return tuple(int(ax) % ndim for ax in axes)
    if s is not None:
        return tuple(range(ndim - len(s), ndim))
    if default is not None:
        return tuple(int(ax) % ndim for ax in default)
    return tuple(range(ndim))


def fft_sizes(a, s, axes):
    """The lengths of the transform along `axes`: s, or a's lengths there."""
    if s is not None:
        return tuple(int(n) for n in s)
    shape = np.shape(a)
    return tuple(shape[ax] for ax in axes)


def resize_axes(c, like, axes):
    """c truncated or zero-padded at the end along `axes` to the lengths `like` has there."""
    c = np.asarray(c)
    target = np.shape(like)
    for ax in axes:
        n, m = c.shape[ax], target[ax]
        if n > m:
            c = np.take(c, np.arange(m), axis=ax)
        elif n < m:
            widths = [(0, 0)] * c.ndim
            widths[ax] = (0, m - n)
            c = np.pad(c, widths)
    return c


def irfft_weights(a, s, axes):
    """How often each bin of the half spectrum `a` counts in irfftn(a, s, axes) along its last
    axis: twice, except the zero-frequency bin and (for an even length) the Nyquist bin, whose
    imaginary parts are ignored. Shaped to broadcast against rfftn's result along that axis."""
    ax = axes[-1]
    n = int(s[-1]) if s is not None else 2 * (np.shape(a)[ax] - 1)
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * np.ndim(a)
    shape[ax] = n // 2 + 1
    return w.reshape(shape)
