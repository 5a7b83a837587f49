"""What a benchmark case is: a forward function, its hand-written gradient, inputs per size
and optional peer implementations.

A peer is a function of the case's arguments written with another library's array
namespace; `peers.py` turns it into that library's gradient. `rebind` makes one from the
forward function itself when the library mirrors NumPy (autograd.numpy, jax.numpy).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Size:
    label: str                    # what the table prints in the size column
    build: Callable[[], tuple]    # returns the argument tuple of the forward function
    quick: bool = True            # part of `run.py --quick`
    peer_limit: tuple = ()        # peers too slow at this size (skipped, shown as "skip")


@dataclass(frozen=True)
class Case:
    name: str
    forward: Callable
    hand_grad: Callable           # same arguments as forward; returns a tuple iff argnums is one
    sizes: tuple
    argnums: object = 0
    peers: dict = field(default_factory=dict)   # peer name -> forward written for that peer
    memory: bool = False          # also measure tracemalloc peaks (loop cases)
    # with no hand-written gradient (hand_grad None): a reference gradient the others are
    # checked against (not timed), e.g. autograd's
    check: Callable | None = None
    faults: bool = False          # also count minor page faults per call (vectorised cases)

    @property
    def wrt(self) -> tuple:
        return self.argnums if isinstance(self.argnums, tuple) else (self.argnums,)

    def unpack(self, gradient, to_numpy=None) -> tuple:
        """A gradient as a tuple of float arrays, one per differentiated argument."""
        parts = tuple(gradient) if isinstance(self.argnums, tuple) else (gradient,)
        return tuple(np.asarray(to_numpy(p) if to_numpy else p, dtype=float) for p in parts)


def fresh(f):
    """A new function object with f's code and a copy of its globals: srcad transforms it
    again from scratch (function objects with the same code and the same globals dict share
    generated code, srcad/sharing.py, which would make a first call a cache hit)."""
    return types.FunctionType(f.__code__, dict(f.__globals__), f.__name__, f.__defaults__, f.__closure__)


def rebind(f, **names):
    """f with some of its global names (np, math, ...) bound to other modules."""
    return types.FunctionType(f.__code__, {**f.__globals__, **names}, f.__name__,
                              f.__defaults__, f.__closure__)
