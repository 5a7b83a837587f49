"""scipy.fft: the transforms of numpy.fft (rules/numpy_fft.py has their adjoints), with
scipy's parameter names. overwrite_x=, workers= and plan= are not parameters of these rules,
so a call that passes them is refused (an overwritten input would change the values the
derivative reads). Loaded once scipy.fft has been imported (rules/__init__.py)."""

from .numpy_fft import shifts_and_frequencies, transforms
from .registry import family

family("scipy fft", raises="always")
transforms("scipy.fft", "x")
shifts_and_frequencies("scipy.fft")
