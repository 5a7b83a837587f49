"""numpy.fft: the discrete Fourier transforms, their real-input and real-output variants,
fftshift/ifftshift (derivatives) and fftfreq/rfftfreq (no derivative).

The transforms make complex values from real ones: srcad differentiates through them as
complex intermediate values (transforms/policy.py; docs/subset.md, "Complex intermediate
values"), with cotangents dL/da + i dL/db for z = a + ib, so that the adjoint of a map that is
linear over the complex numbers is its conjugate transpose:

- fft, ifft, fft2, ifft2, fftn, ifftn (C-linear): the adjoint of a transform with norm= is the
  inverse transform with the dual norm (backward <-> forward, ortho <-> ortho), which is the
  conjugate transpose of the DFT matrix with that scaling; n= and s= zero-pad or truncate
  the input first, and the adjoint of that resizes the cotangent back (srcad.resize_axes);
- rfft, rfftn (a real input, the half spectrum out): the adjoint of keeping the first
  n // 2 + 1 bins is zero-padding the cotangent back to n bins (ifftn's s= does it), then
  the conjugate transpose as above, and the real part (the input is real);
- hfft, ihfft: irfft of the conjugate, the conjugate of rfft (with the norms swapped);
- irfft, irfftn (a half spectrum in, a real output): each bin strictly between 0 and the
  Nyquist frequency stands for itself and its mirror image, so its cotangent counts twice;
  the imaginary parts of bin 0 and (n even) of the Nyquist bin are ignored, so their
  cotangents are real: rfftn of the cotangent with the dual norm, times those weights
  (srcad.irfft_weights), resized back to the input's bins.

Every transform is linear, so its tangent rule is the transform of the tangent.
"""

from __future__ import annotations

import re

from .. import runtime as rt
from ..ir import types as T
from . import typefns as ty
from .registry import defrule, family, nondiff

family("numpy fft", raises="always")  # (n < 1, an axis out of range)

_DUAL = ("('forward' if norm is None or norm == 'backward' else "
         "('backward' if norm == 'forward' else 'ortho'))")


def _complex_like(name: str = "a"):
    def out(sig) -> T.Type:
        return T.Array(ty._ndim_of(sig.type(name)), "c")
    return out


def _real_like(name: str = "a"):
    def out(sig) -> T.Type:
        return T.Array(ty._ndim_of(sig.type(name)), "f")
    return out


_ONE = {"axes": "(axis,)", "s": "(None if n is None else (n,))"}


def _axes(default: str) -> dict:
    return {"axes": f"srcad.fft_axes(a, s, axes, {default})", "s": "s"}


def _full(inverse: str, ax: dict) -> str:
    """The adjoint of a complex transform: its inverse with the dual norm, resized back."""
    return f"srcad.resize_axes(np.fft.{inverse}(g, None, {ax['axes']}, {_DUAL}), a, {ax['axes']})"


def _from_real(ax: dict, norm: str = _DUAL, g: str = "g") -> str:
    """The adjoint of rfftn: the cotangent zero-padded to the full spectrum, transformed back."""
    sizes = f"srcad.fft_sizes(a, {ax['s']}, {ax['axes']})"
    return f"srcad.resize_axes(np.real(np.fft.ifftn({g}, {sizes}, {ax['axes']}, {norm})), a, {ax['axes']})"


def _to_real(ax: dict, norm: str = _DUAL) -> str:
    """The adjoint of irfftn: rfftn of the cotangent with the dual norm, the inner bins twice."""
    weights = f"srcad.irfft_weights(a, {ax['s']}, {ax['axes']})"
    return f"srcad.resize_axes(np.fft.rfftn(g, None, {ax['axes']}, {norm}) * {weights}, a, {ax['axes']})"


def _transform(module: str, x: str, name: str, params: str, adjoint: str, out) -> None:
    """One transform of `module` (numpy.fft, scipy.fft) whose input is called `x`; its tangent
    is NumPy's transform of the tangent."""
    spec = "n, axis, norm" if "n=" in params else "s, axes, norm"
    params, adjoint = re.sub(r"\ba\b", x, params), re.sub(r"\ba\b", x, adjoint)
    jvp = {x: f"np.fft.{name}(t, {spec})"} if module != "numpy.fft" else None  # (numpy's: derived)
    defrule(f"{module}.{name}", params, jvp=jvp, vjp={x: adjoint}, out=out(x),
            linear=(x,), complex="typed", refuses=("n",) if "n=" in params else ("s",))


_P1, _PN, _P2 = ("a, n=None, axis=-1, norm=None", "a, s=None, axes=None, norm=None",
                 "a, s=None, axes=(-2, -1), norm=None")
_ND, _2D = _axes("None"), _axes("(-2, -1)")


def transforms(module: str, x: str) -> None:
    """Register the transforms of `module` (numpy.fft; scipy.fft, which has NumPy's, with
    its input called x; its overwrite_x=, workers= and plan= are not parameters, so a call
    that passes them is refused)."""
    for fwd, inv in (("fft", "ifft"), ("ifft", "fft")):
        _transform(module, x, fwd, _P1, _full(inv + "n", _ONE), _complex_like)
        _transform(module, x, fwd + "2", _P2, _full(inv + "n", _2D), _complex_like)
        _transform(module, x, fwd + "n", _PN, _full(inv + "n", _ND), _complex_like)
    _transform(module, x, "rfft", _P1, _from_real(_ONE), _complex_like)
    _transform(module, x, "rfft2", _P2, _from_real(_2D), _complex_like)
    _transform(module, x, "rfftn", _PN, _from_real(_ND), _complex_like)
    _transform(module, x, "irfft", _P1, _to_real(_ONE), _real_like)
    _transform(module, x, "irfft2", _P2, _to_real(_2D), _real_like)
    _transform(module, x, "irfftn", _PN, _to_real(_ND), _real_like)
    # hfft is irfft of the conjugate and ihfft the conjugate of rfft, with the norms swapped
    # (backward <-> forward), which the dual norm of their adjoints swaps back
    _transform(module, x, "hfft", _P1, f"np.conj({_to_real(_ONE, 'norm')})", _real_like)
    _transform(module, x, "ihfft", _P1, _from_real(_ONE, "norm", "np.conj(g)"), _complex_like)


def shifts_and_frequencies(module: str) -> None:
    """fftshift and ifftshift permute entries, each the other's adjoint; the sample
    frequencies k / (n d) have derivative -ans / d in the sample spacing d."""
    for name, other in (("fftshift", "ifftshift"), ("ifftshift", "fftshift")):
        jvp = {"x": f"np.fft.{name}(t, axes)"} if module != "numpy.fft" else None
        defrule(f"{module}.{name}", "x, axes=None", jvp=jvp,
                vjp={"x": f"np.fft.{other}(g, axes)"}, out=ty.same("x"), linear=("x",), complex="keeps",
                raises="never")
    for name in ("fftfreq", "rfftfreq"):
        defrule(f"{module}.{name}", "n, d=1.0", jvp={"d": "-(t * ans) / d"},
                vjp={"d": "-np.sum(g * ans) / d"},
                out=ty.array(1), refuses=("n",))


transforms("numpy.fft", "a")
shifts_and_frequencies("numpy.fft")

# the helpers (srcad/runtime/fft.py): resizing is linear, its adjoint resizes back
defrule("srcad.resize_axes", "c, like, axes", vjp={"c": "srcad.resize_axes(g, c, axes)"},
        out=ty.same("c"), fn=rt.resize_axes, linear=("c",), complex="keeps")
nondiff("srcad.fft_axes", "a, s=None, axes=None, default=None", out=ty.unknown, fn=rt.fft_axes)
nondiff("srcad.fft_sizes", "a, s, axes", out=ty.unknown, fn=rt.fft_sizes)
nondiff("srcad.irfft_weights", "a, s, axes", out=ty.array(None), fn=rt.irfft_weights)
