"""scipy.signal's convolutions, registered when your code has imported scipy.signal:
convolve, correlate, fftconvolve, oaconvolve (n-d, any mode; `method` only chooses how
the same result is computed) and convolve2d, correlate2d (2-d; boundary='fill' with
fillvalue=0 only: 'wrap', 'symm' or another fill value is a NoRuleError; fftconvolve and
oaconvolve with axes=None only).

As for np.convolve (rules/convolution.py): the cotangent of a 'same' or 'valid' output is
padded to the full output (srcad.conv_embed), then correlated with the other operand
('valid'); correlate(a, b) is convolve(a, flip(b)) in every mode, so its adjoints are a
convolution and a flipped correlation. The adjoints call the same scipy.signal functions,
so derivatives of any order follow.
"""

import scipy.signal as signal

from . import typefns as ty
from .registry import defrule, family

family("scipy.signal", raises="always")  # (ValueError: 'valid' with operands of crossing shapes)

NS = {"signal": signal}
_G = "srcad.conv_embed(g, np.shape(in1), np.shape(in2), mode, '{}')"


def _conv(name: str, params: str, rest: str, back: tuple[str, str], convention: str, **flags):
    """A convolution-like function bilinear in in1 and in2; `rest` are its other arguments,
    `back` the adjoints of in1 and in2 in terms of the padded cotangent G."""
    defrule(f"scipy.signal.{name}", params, let={"G": _G.format(convention)},
            jvp={"in1": f"signal.{name}(t, in2, {rest})", "in2": f"signal.{name}(in1, t, {rest})"},
            vjp={"in1": back[0], "in2": back[1]}, out=ty.array(None), multilinear=("in1", "in2"),
            namespace=NS, **flags)


_conv("convolve", "in1, in2, mode='full', method='auto'", "mode, method",
      ("signal.correlate(G, in2, 'valid', method)", "signal.correlate(G, in1, 'valid', method)"), "scipy")
_conv("correlate", "in1, in2, mode='full', method='auto'", "mode, method",
      ("signal.convolve(G, in2, 'valid', method)", "np.flip(signal.correlate(G, in1, 'valid', method))"),
      "scipy")
for _name in ("fftconvolve", "oaconvolve"):
    _conv(_name, "in1, in2, mode='full', axes=None", "mode",
          (f"signal.{_name}(G, np.flip(in2), 'valid')", f"signal.{_name}(G, np.flip(in1), 'valid')"),
          "scipy", accepts={"axes": (None,)})
_FILL = {"boundary": ("fill",), "fillvalue": (0, 0.0)}
_conv("convolve2d", "in1, in2, mode='full', boundary='fill', fillvalue=0", "mode, boundary, fillvalue",
      ("signal.correlate2d(G, in2, 'valid')", "signal.correlate2d(G, in1, 'valid')"), "scipy", accepts=_FILL)
_conv("correlate2d", "in1, in2, mode='full', boundary='fill', fillvalue=0", "mode, boundary, fillvalue",
      ("signal.convolve2d(G, in2, 'valid')", "np.flip(signal.correlate2d(G, in1, 'valid'))"), "corr2d",
      accepts=_FILL)
