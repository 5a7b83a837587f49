"""Spec rows for convolutions: np.convolve and np.correlate (srcad/rules/convolution.py) and
scipy.signal's (srcad/rules/scipy_signal.py, when scipy is installed), in every mode, with
either operand the longer one (NumPy swaps them; scipy's 'valid' too)."""

from rule_specs import normal, row

for _fn in ("convolve", "correlate"):
    row(f"numpy.{_fn}", f"np.{_fn}(x, y$kw)", x=normal(6), y=normal(3),
        alts={"kw": ["", ", 'same'", ", mode='valid'", ", 'full'"]},
        shapes=({"y": (6,)}, {"y": (8,)}, {"y": (7,)}, {"x": (2,)}, {"x": (1,)}, {"y": (1,)}, {"x": "list"},
                {"y": "0d"}, {"x": (4,), "y": (4,)}))
    row(f"numpy.{_fn}", f"np.{_fn}(x, y, 'same')", x=normal(2), y=normal(5), note="the second operand longer")

try:
    import scipy.signal  # noqa: F401
except ImportError:
    scipy = None

if scipy is not None:
    SS = "import scipy.signal"

    def signal(rule, expr, **args):
        row(f"scipy.signal.{rule}", expr, imports=SS, **args)

    for _fn, _kw in (("convolve", ", method='direct'"), ("correlate", ", method='fft'"),
                     ("fftconvolve", ", axes=None"), ("oaconvolve", "")):
        signal(_fn, f"scipy.signal.{_fn}(x, y$kw)", x=normal(5, 4), y=normal(3, 2),
               alts={"kw": ["", ", 'same'", ", mode='valid'", ", 'full'", f", 'same'{_kw}"]},
               shapes=({"x": (3, 2), "y": (5, 4)}, {"x": (6,), "y": (3,)}, {"x": (2, 3, 4), "y": (2, 2, 2)},
                       {"x": (4, 4), "y": (4, 4)}, {"y": (1, 1)}, {"x": "list"}))
    for _fn in ("convolve2d", "correlate2d"):
        signal(_fn, f"scipy.signal.{_fn}(x, y$kw)", x=normal(5, 4), y=normal(3, 2),
               alts={"kw": ["", ", 'same'", ", mode='valid'", ", 'full', 'fill', 0", ", boundary='fill'",
                            ", 'same', fillvalue=0.0"]},
               shapes=({"x": (3, 2), "y": (5, 4)}, {"x": (4, 4), "y": (4, 4)}, {"x": (2, 5), "y": (2, 2)},
                       {"y": (1, 1)}, {"x": "list"}))
