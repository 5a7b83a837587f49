"""Optional peers: HIPS autograd, JAX (eager and jit) and PyTorch, each imported only if installed.

`gradients(case, args)` yields (label, make, unpack) for each installed peer: `make()`
converts the inputs to the peer's arrays and returns a zero-argument callable computing the
gradient, `unpack(result)` turns its result into a tuple of NumPy arrays. A case lists its
peers in `Case.peers`: the value SAME means "the forward function itself, with np and math
rebound to the peer's NumPy namespace"; otherwise it is the forward written for that peer,
whose global name `torch` (say) is bound to the peer's module here.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import math
import types

import numpy as np

from .case import rebind

SAME = "same source"


class Rebound:
    """As SAME, with more global names bound to modules of the peer: Rebound(stats=
    "jax.scipy.stats") for a forward function that calls stats.norm.logpdf."""

    def __init__(self, **modules: str):
        self.modules = modules
LABELS = ("autograd", "jax", "jax.jit", "torch")
_PACKAGE = {"autograd": "autograd", "jax": "jax", "jax.jit": "jax", "torch": "torch"}
_MODULES: dict = {}


def module(name: str):
    """The imported package, or None when it is not installed (JAX set to float64)."""
    if name not in _MODULES:
        try:
            _MODULES[name] = importlib.import_module(name)
        except ImportError:
            _MODULES[name] = None
        if name == "jax" and _MODULES[name] is not None:
            _MODULES[name].config.update("jax_enable_x64", True)
    return _MODULES[name]


def installed(label: str) -> bool:
    return module(_PACKAGE[label]) is not None


def versions() -> dict:
    """Package name -> version string, or None when not installed."""
    out = {}
    for package in ("autograd", "jax", "torch"):
        out[package] = importlib.metadata.version(package) if module(package) is not None else None
    return out


def _math_like(xnp):
    """A stand-in for `math` whose functions accept the peer's traced scalars."""
    funcs = {n: getattr(xnp, n) for n in ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh")}
    return types.SimpleNamespace(**funcs, pi=math.pi, e=math.e, lgamma=math.lgamma)


def forward_for(case, label: str, xnp):
    """The case's forward function for a peer (label), given the peer's NumPy-like module."""
    package = _PACKAGE[label]
    spec = case.peers.get(package)
    if spec == SAME:
        return rebind(case.forward, np=xnp, math=_math_like(xnp))
    if isinstance(spec, Rebound):
        more = {name: importlib.import_module(path) for name, path in spec.modules.items()}
        return rebind(case.forward, np=xnp, math=_math_like(xnp), **more)
    return rebind(spec, **{package: module(package)})


def _autograd(case, args):
    autograd = module("autograd")
    fwd = forward_for(case, "autograd", importlib.import_module("autograd.numpy"))
    if isinstance(case.argnums, int):
        return functools.partial(autograd.grad(fwd, case.argnums), *args)
    wrt = case.wrt

    def packed(params, *rest):
        full, it, rest_it = [], iter(params), iter(rest)
        for i in range(len(args)):
            full.append(next(it) if i in wrt else next(rest_it))
        return fwd(*full)

    params = tuple(args[i] for i in wrt)
    rest = tuple(a for i, a in enumerate(args) if i not in wrt)
    return functools.partial(autograd.grad(packed, 0), params, *rest)


def _jax(case, args, jit: bool):
    jax = module("jax")
    fwd = forward_for(case, "jax", importlib.import_module("jax.numpy"))
    g = jax.grad(fwd, case.argnums)
    if jit:
        static = tuple(i for i, a in enumerate(args) if not isinstance(a, np.ndarray) and i not in case.wrt)
        g = jax.jit(g, static_argnums=static)
    jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    return functools.partial(lambda *a: jax.block_until_ready(g(*a)), *jargs)


def _torch(case, args):
    torch = module("torch")
    fwd = forward_for(case, "torch", torch)

    def tensor(i, a):
        if isinstance(a, np.ndarray):
            return torch.tensor(a, requires_grad=i in case.wrt and a.dtype.kind == "f")
        if i in case.wrt:
            return torch.tensor(float(a), dtype=torch.float64, requires_grad=True)
        return a

    targs = tuple(tensor(i, a) for i, a in enumerate(args))
    inputs = [targs[i] for i in case.wrt]

    def run():
        out = fwd(*targs)
        grads = torch.autograd.grad(out, inputs)
        return grads if isinstance(case.argnums, tuple) else grads[0]

    return run


def _to_numpy(p):
    return p.detach().numpy() if hasattr(p, "detach") else p


def gradients(case, args, skip=()):
    """(label, make, unpack) for every installed peer the case lists: make() returns the
    zero-argument gradient call (None when this size skips the peer)."""
    makers = {"autograd": _autograd, "jax": functools.partial(_jax, jit=False),
              "jax.jit": functools.partial(_jax, jit=True), "torch": _torch}
    unpack = functools.partial(case.unpack, to_numpy=_to_numpy)
    for label in LABELS:
        if _PACKAGE[label] not in case.peers or not installed(label):
            continue
        yield label, (None if label in skip else functools.partial(makers[label], case, args)), unpack
