"""np.convolve and np.correlate (scipy.signal's convolutions: rules/scipy_signal.py).

A convolution is bilinear in its operands. The full convolution y = a * v has the
adjoints a_bar = correlate(g, v, 'valid') and v_bar = correlate(g, a, 'valid'); a 'same'
or 'valid' output is a window of the full one, so its cotangent is first padded with zeros
to the full output (srcad.conv_embed, whose adjoint is the crop srcad.conv_crop). The
correlation of a and v is the convolution of a with v reversed, in every mode, except where
NumPy's 'same' window starts when v is longer than a (NumPy swaps the operands and reverses
the result): runtime/convolution.py has the windows. The adjoints are convolutions and
correlations themselves, so derivatives of any order follow.
"""

from .. import runtime as rt
from . import typefns as ty
from .registry import defrule, family

family("numpy convolution")

_G = "srcad.conv_embed(g, np.shape(a), np.shape(v), mode, '{}')"
_BACK = "np.reshape({}, np.shape({}))"  # (a 0-d operand's cotangent: NumPy reads it as length 1)
defrule("numpy.convolve", "a, v, mode='full'", let={"G": _G.format("numpy")},
        vjp={"a": _BACK.format("np.correlate(G, np.ravel(v), 'valid')", "a"),
             "v": _BACK.format("np.correlate(G, np.ravel(a), 'valid')", "v")},
        out=ty.array(1), multilinear=("a", "v"), raises="always")
defrule("numpy.correlate", "a, v, mode='valid'", let={"G": _G.format("numpy_corr")},
        vjp={"a": _BACK.format("np.correlate(G, np.flip(np.ravel(v)), 'valid')", "a"),
             "v": _BACK.format("np.flip(np.correlate(G, np.ravel(a), 'valid'))", "v")},
        out=ty.array(1), multilinear=("a", "v"), raises="always")

# the window of a mode, and its adjoint: linear in c
_WINDOW = "c, shape1, shape2, mode='full', convention='scipy'"
defrule("srcad.conv_embed", _WINDOW, vjp={"c": "srcad.conv_crop(g, shape1, shape2, mode, convention)"},
        out=ty.array(None), fn=rt.conv_embed, linear=("c",))
defrule("srcad.conv_crop", _WINDOW, vjp={"c": "srcad.conv_embed(g, shape1, shape2, mode, convention)"},
        out=ty.array(None), fn=rt.conv_crop, linear=("c",))
