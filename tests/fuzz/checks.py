"""The checks run on one program: srcad's transformations against finite differences and
against each other. Results of transformations are computed once (memoised) and shared by
the checks that need them; `only` restricts which checks run (the shrinker reruns just the
one that failed)."""

from __future__ import annotations

import warnings
import zlib

import numpy as np

import srcad

from . import fd, inner, trees
from .outcome import Finding, crash_detail, located, short_traceback

FIRST_ORDER = ["grad", "value_and_grad", "budget", "jvp", "vjp", "jacfwd", "jacrev"]
SECOND_ORDER = ["hessian", "hvp"]
ROUND_TRIPS = ["rank_only", "cache", "codegen"]
ALL = FIRST_ORDER + SECOND_ORDER + ROUND_TRIPS

_FAILED = object()


class Timeout(BaseException):
    """Raised by the worker's alarm: not an Exception, so no check swallows it."""


class Checks:
    def __init__(self, mod, path: str, seed: str):
        self.mod, self.path, self.f = mod, path, mod.f
        self.args = mod.make_args()
        self.tuple_argnums = isinstance(mod.DIFF, tuple)
        self.diff = list(mod.DIFF) if self.tuple_argnums else [mod.DIFF]
        self.rng = np.random.default_rng(zlib.crc32(seed.encode()))
        self.findings: list[Finding] = []
        self.memo: dict = {}

    # -- bookkeeping ---------------------------------------------------------------
    def add(self, kind, check, detail, message=""):
        self.findings.append(Finding(kind, check, detail, message))

    def attempt(self, check: str, thunk):
        """Run a srcad call; a SrcadError naming the user's line is a rejection, anything
        else that raises is a crash. Returns _FAILED after either."""
        try:
            return thunk()
        except srcad.SrcadError as e:
            if located(e, self.path):
                self.add("reject", check, type(e).__name__, str(e)[:3000])
            else:
                self.add("crash", check, f"{type(e).__name__} without the user's location",
                         short_traceback(e))
        except Timeout:
            raise
        except Exception as e:  # noqa: BLE001 - every other exception is a crash
            self.add("crash", check, crash_detail(e), short_traceback(e))
        return _FAILED

    def once(self, key, thunk):
        if key not in self.memo:
            self.memo[key] = thunk()
        return self.memo[key]

    # -- the point, its perturbations, finite differences -----------------------------
    def with_theta(self, theta: np.ndarray) -> tuple:
        args, pos = list(self.args), 0
        for i in self.diff:
            n = trees.size(self.args[i])
            args[i] = trees.unflatten(self.args[i], theta[pos:pos + n])
            pos += n
        return tuple(args)

    @property
    def theta(self) -> np.ndarray:
        return np.concatenate([trees.flatten(self.args[i]) for i in self.diff])

    def fd_f(self):
        """What finite differences differentiate: f, or the oracle's copy of a program that
        calls srcad inside f, whose `srcad` is finite differences (fuzz/inner.py)."""
        return self.once("oracle", lambda: inner.oracle_f(self.path) or self.f)

    def estimate(self) -> fd.Estimate:
        def build():
            F = self.fd_f()
            try:
                est = fd.jacobian(lambda th: trees.flatten(F(*self.with_theta(th))), self.theta)
            except inner.Unreliable:  # (the oracle's inner derivative, at the point itself)
                shape = (trees.flatten(self.value()).size, self.theta.size)
                est = fd.Estimate(np.zeros(shape), np.zeros(shape), np.ones(shape, dtype=bool))
            if est.any_unreliable:
                self.add("inconclusive", "fd", "unreliable finite differences")
            if F is not self.f:
                inner.check_value(self, F)
            return est
        return self.once("fd", build)

    def argvec(self, per_arg) -> np.ndarray:
        """Flatten a result with one entry per differentiated argument (a tuple for tuple
        argnums) into the order of self.theta."""
        parts = per_arg if self.tuple_argnums else (per_arg,)
        return np.concatenate([trees.flatten(p) for p in parts]) if parts else np.zeros(0)

    def structure(self, check, per_arg) -> bool:
        parts = per_arg if self.tuple_argnums else (per_arg,)
        if self.tuple_argnums and (not isinstance(per_arg, tuple) or len(per_arg) != len(self.diff)):
            self.add("wrong", check, "structure",
                     f"expected a tuple of {len(self.diff)}, got {type(per_arg).__name__}")
            return False
        for p, i in zip(parts, self.diff):
            bad = trees.same_structure(p, self.args[i])
            if bad:
                self.add("wrong", check, "structure", f"argument {i}: {bad}")
                return False
        return True

    def against_fd(self, check, got, est: fd.Estimate, what: str):
        if est.value.size == 0 and np.size(got):  # an output with no float leaves (sum([]) is
            if np.any(np.asarray(got, dtype=float) != 0.0):  # the int 0): its derivative is 0
                self.add("wrong", check, f"{what} of an int output",
                         f"{what} of an output that is not a float is not 0: {np.ravel(got)[:5]}")
            return
        wrong, _ = fd.fd_mismatch(got, est)
        if wrong.any():
            idx = np.argwhere(wrong)[:5].tolist()
            self.add("wrong", check, f"{what} vs finite differences",
                     f"{what} at entries {idx}:\n"
                     f"  srcad: {np.asarray(got).reshape(est.value.shape)[wrong][:5]}\n"
                     f"  finite differences: {est.value[wrong][:5]} (error bound {est.error[wrong][:5]})")

    def tight(self, check, a, b, what: str, scale=None, rtol=1e-7):
        if fd.tight_mismatch(a, b, scale, rtol):
            kind = "inconclusive" if self.noisy() else "wrong"  # (see fd.rounding_noise)
            self.add(kind, check, what if kind == "wrong" else f"{what}, where f is rounding noise",
                     f"{what}:\n  {np.asarray(a).ravel()[:8]}\n  {np.asarray(b).ravel()[:8]}")
            return False
        return True

    def noisy(self) -> bool:
        """Is f's value at the point rounding noise (huge terms that cancel)?"""
        def probe():
            try:
                F = self.fd_f()
                return fd.rounding_noise(lambda th: trees.flatten(F(*self.with_theta(th))), self.theta,
                                         self.estimate())
            except Exception:
                return False
        return self.once("noisy", probe)

    # -- the transformations (memoised) --------------------------------------------------
    def value(self):
        return self.once("value", lambda: self.f(*self.args))

    @property
    def scalar(self) -> bool:
        y = self.value()
        return not isinstance(y, (dict, list, tuple)) and np.ndim(y) == 0

    def grad_fn(self):
        return self.once("grad_fn", lambda: srcad.grad(self.f, argnums=self.mod.DIFF))

    def grad(self):
        return self.once("grad", lambda: self.attempt("grad", lambda: self.grad_fn()(*self.args)))

    def tangents(self):
        def build():
            return tuple(trees.random_like(a, self.rng) if i in self.diff else None
                         for i, a in enumerate(self.args))
        return self.once("tangents", build)

    def tvec(self) -> np.ndarray:
        return np.concatenate([trees.flatten(self.tangents()[i]) for i in self.diff])

    def jvp(self):
        return self.once("jvp", lambda: self.attempt(
            "jvp", lambda: srcad.jvp(self.f, self.args, self.tangents())))

    # -- first order -------------------------------------------------------------------
    def check_grad(self):
        g = self.grad()
        if g is _FAILED or not self.structure("grad", g):
            return
        self.against_fd("grad", self.argvec(g), self.estimate(), "gradient")

    def check_budget(self):
        """grad with a memory budget so small that every checkpointable loop runs in
        recomputed segments of one or a few iterations (warned about, as too small)."""
        def call():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return srcad.grad(self.f, argnums=self.mod.DIFF, memory_budget=64)(*self.args)
        g = self.attempt("budget", call)
        if g is _FAILED or not self.structure("budget", g):
            return
        self.against_fd("budget", self.argvec(g), self.estimate(), "gradient with memory_budget")

    def check_value_and_grad(self):
        out = self.attempt("value_and_grad",
                           lambda: srcad.value_and_grad(self.f, argnums=self.mod.DIFF)(*self.args))
        g = self.grad()
        if out is _FAILED or g is _FAILED:
            return
        value, g2 = out
        self.tight("value_and_grad", value, self.value(), "value differs from f(x)")
        if self.structure("value_and_grad", g2):
            self.tight("value_and_grad", self.argvec(g2), self.argvec(g), "gradient differs from grad")

    def check_jvp(self):
        out = self.jvp()
        if out is _FAILED:
            return
        y, t = out
        self.tight("jvp", trees.flatten(y), trees.flatten(self.value()), "primal output differs from f(x)")
        bad = trees.same_structure(t, self.value())
        if bad:
            self.add("wrong", "jvp", "structure", f"tangent output: {bad}")
            return
        v = self.tvec()
        tvec = trees.flatten_like(t, self.value())
        self.against_fd("jvp", tvec, fd.projected(self.estimate(), right=v), "J v")
        if self.scalar:
            g = self.grad()
            if g is not _FAILED:
                gv = self.argvec(g)
                self.tight("jvp", float(np.asarray(t)), float(gv @ v), "jvp differs from <grad, v>",
                           scale=np.abs(gv) @ np.abs(v))

    def check_vjp(self):
        res = self.attempt("vjp", lambda: srcad.vjp(self.f, *self.args))
        if res is _FAILED:
            return
        out, fn = res
        self.tight("vjp", trees.flatten(out), trees.flatten(self.value()), "primal output differs from f(x)")
        u = trees.random_like(self.value(), self.rng)
        cts = self.attempt("vjp", lambda: fn(u))
        if cts is _FAILED:
            return
        if not isinstance(cts, tuple) or len(cts) != len(self.args):
            self.add("wrong", "vjp", "structure",
                     f"expected {len(self.args)} cotangents, got {type(cts).__name__}")
            return
        per_arg = tuple(cts[i] for i in self.diff)
        if not self.structure("vjp", per_arg if self.tuple_argnums else per_arg[0]):
            return
        uvec = trees.flatten(u)
        ct = np.concatenate([trees.flatten(c) for c in per_arg])
        self.against_fd("vjp", ct, fd.projected(self.estimate(), left=uvec), "u^T J")
        jv = self.jvp()
        if jv is not _FAILED:
            v, tvec = self.tvec(), trees.flatten_like(jv[1], self.value())
            self.tight("vjp", ct @ v, uvec @ tvec, "<vjp(u), v> differs from <u, jvp(v)>",
                       scale=np.abs(ct) @ np.abs(v) + np.abs(uvec) @ np.abs(tvec))

    def jac_matrix(self, jac) -> np.ndarray:
        y = self.value()
        rows = []
        for po in trees.paths(y):
            node, so = trees.get(jac, po), int(np.size(trees.get(y, po)))
            blocks = []
            for k, i in enumerate(self.diff):
                sub = node[k] if self.tuple_argnums else node
                for pa in trees.paths(self.args[i]):
                    leaf = np.asarray(trees.get(sub, pa), dtype=float)
                    want = np.shape(trees.get(y, po)) + np.shape(trees.get(self.args[i], pa))
                    if leaf.shape != want:
                        raise ValueError(f"block {po}/{i}{pa} has shape {leaf.shape}, expected {want}")
                    blocks.append(leaf.reshape(so, -1))
            rows.append(np.concatenate(blocks, axis=1))
        return np.concatenate(rows, axis=0) if rows else np.zeros((0, self.theta.size))

    def check_jacobians(self):
        mats = {}
        for name, fn in (("jacfwd", srcad.jacfwd), ("jacrev", srcad.jacrev)):
            jac = self.attempt(name, lambda fn=fn: fn(self.f, argnums=self.mod.DIFF)(*self.args))
            if jac is _FAILED:
                continue
            try:
                mats[name] = self.jac_matrix(jac)
            except (AttributeError, KeyError, IndexError, TypeError, ValueError) as e:
                self.add("wrong", name, "structure", str(e))
                continue
            self.against_fd(name, mats[name], self.estimate(), "Jacobian")
        if len(mats) == 2:
            self.tight("jacrev", mats["jacrev"], mats["jacfwd"], "jacrev differs from jacfwd")
