"""Helpers in another module (with a different alias for numpy)."""

import math

import numpy as xp


def softplus(x):
    return math.log1p(math.exp(x))


def scaled_norm(v, scale=0.5):
    return scale * xp.sqrt(xp.sum(v * v))
