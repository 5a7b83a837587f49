"""Finite differences with Richardson extrapolation, and the comparisons built on them.

For each input entry j, central differences D(h) = (F(x + h e_j) - F(x - h e_j)) / 2h at
h, h/2 and h/4 are extrapolated twice (D = F' + c2 h^2 + c4 h^4 + ...):

    R1 = (4 D(h/2) - D(h)) / 3,   R2 = (4 D(h/4) - D(h/2)) / 3,   R = (16 R2 - R1) / 15

and |R - R2| + |R1 - R2| / 15 + roundoff bounds the error of R. The same extrapolation from
h/2, h/4 and h/8 gives the value; the two must agree within that bound, since a kink that the
larger steps cross can fool one extrapolation into a small error estimate (fuzz H1:5228: a
clip 0.004 away). An entry whose error bound
is large compared with the derivative (a kink or a jump between the steps, a branch flipping,
rapid oscillation), which is not finite, or at which F raises, is `unreliable`: comparisons
there are inconclusive, never wrong."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EPS = np.finfo(float).eps
H0 = 1e-2            # the largest step (arguments are O(1) by construction)
UNRELIABLE = 1e-4    # relative error bound above which the estimate is not trusted


@dataclass
class Estimate:
    value: np.ndarray      # (m, n): d out_i / d in_j
    error: np.ndarray      # (m, n): bound on |value - true|
    unreliable: np.ndarray  # (m, n) bool

    @property
    def any_unreliable(self) -> bool:
        return bool(self.unreliable.any())


def jacobian(F, x: np.ndarray, h0: float = H0) -> Estimate:
    """F: vector -> vector (raising is allowed); x: the point."""
    y0 = np.asarray(F(x), dtype=float)
    m, n = y0.size, x.size
    value, error = np.zeros((m, n)), np.zeros((m, n))
    bad = np.zeros((m, n), dtype=bool)
    for j in range(n):
        try:
            ds, mids, fmax = [], [], np.max(np.abs(y0), initial=0.0)
            for h in (h0, h0 / 2, h0 / 4, h0 / 8):
                e = np.zeros(n)
                e[j] = h
                fp, fm = np.asarray(F(x + e), dtype=float), np.asarray(F(x - e), dtype=float)
                if fp.shape != y0.shape or fm.shape != y0.shape:
                    raise ValueError("output shape changes nearby")
                fmax = max(fmax, np.max(np.abs(fp), initial=0.0), np.max(np.abs(fm), initial=0.0))
                ds.append((fp - fm) / (2 * h))
                mids.append((fp + fm) / 2 - y0)  # O(h^2) where f is continuous at x
        except Exception:
            bad[:, j] = True
            continue
        coarse, coarse_err = _extrapolate(*ds[:3])
        r, err = _extrapolate(*ds[1:])
        err = err + np.abs(r - coarse) + coarse_err + 64 * EPS * fmax / (h0 / 8)
        value[:, j], error[:, j] = r, err
        # f(x) apart from its values on both sides (a branch that rounding decides at x
        # exactly, as np.sum(x[::-1]) < np.sum(x)): the derivative at x is not their slope
        jump = np.abs(mids[2]) > np.abs(mids[0]) / 4 + 1e-9 * (1 + fmax)
        jump |= np.abs(mids[3]) > np.abs(mids[1]) / 4 + 1e-9 * (1 + fmax)
        with np.errstate(invalid="ignore"):
            bad[:, j] = ~np.isfinite(r) | ~(err <= UNRELIABLE * (1 + np.abs(r))) | jump
    return Estimate(value.reshape(m, n), error, bad)


def rounding_noise(F, x: np.ndarray, est: Estimate) -> bool:
    """Is F's value at x rounding noise? Moving one coordinate by a few units in the last place
    changes a well-conditioned F by about |dF/dx| times that; when F is a sum of huge terms
    that cancel (values of 1e28 whose difference is O(1)), it jumps by the terms' own rounding
    error, and every mode's derivative is as much rounding noise as the value: their
    disagreement says nothing about srcad."""
    y0 = np.asarray(F(x), dtype=float)
    slope = np.where(est.unreliable, 0.0, np.abs(est.value))
    for j in range(x.size):
        step = 4 * np.spacing(max(abs(float(x[j])), 1e-300))
        size = np.max(np.abs(y0), initial=0.0)
        expected = (np.max(slope[:, j], initial=0.0) + 1.0) * 8 * step + 8 * EPS * size
        for k in (1, -1, 2, -2):
            e = np.zeros(x.size)
            e[j] = k * step
            try:
                change = np.max(np.abs(np.asarray(F(x + e), dtype=float) - y0), initial=0.0)
            except Exception:
                continue
            if not change <= 1e4 * expected:
                return True
    return False


def _extrapolate(d1, d2, d3):
    """Richardson's value from differences at steps h, h/2, h/4, and a bound on its error."""
    r1, r2 = (4 * d2 - d1) / 3, (4 * d3 - d2) / 3
    r = (16 * r2 - r1) / 15
    return r, np.abs(r - r2) + np.abs(r1 - r2) / 15


def fd_mismatch(got: np.ndarray, est: Estimate, rows=None) -> tuple[np.ndarray, np.ndarray]:
    """(wrong, inconclusive) masks of `got` (shaped like est.value, or its rows) against the
    estimate: wrong where a reliable estimate disagrees beyond its error bound."""
    value, error, bad = est.value, est.error, est.unreliable
    if rows is not None:
        value, error, bad = value[rows], error[rows], bad[rows]
    got = np.asarray(got, dtype=float).reshape(value.shape)
    tol = 20 * error + 1e-6 * (1 + np.abs(value))
    with np.errstate(invalid="ignore"):
        off = ~(np.abs(got - value) <= tol)
    return off & ~bad, bad


def projected(est: Estimate, left=None, right=None) -> Estimate:
    """The estimate of u^T J (left=u) or J v (right=v), with its error bound."""
    value, error, bad = est.value, est.error, est.unreliable
    if right is not None:
        w = np.abs(right)
        used = w > 0
        return Estimate((value @ right)[:, None], (error @ w)[:, None],
                        (bad[:, used].any(axis=1))[:, None])
    w = np.abs(left)
    used = w > 0
    return Estimate((left @ value)[None, :], (w @ error)[None, :], bad[used].any(axis=0)[None, :])


def tight_mismatch(a, b, scale=None, rtol: float = 1e-7) -> bool:
    """Do two results of exact transformations disagree beyond roundoff? (NaN where the
    other is finite is a mismatch; both NaN is not.)"""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return True
    both_nan = np.isnan(a) & np.isnan(b)
    s = np.abs(a) + np.abs(b) + (0.0 if scale is None else np.asarray(scale, dtype=float))
    with np.errstate(invalid="ignore"):
        ok = (np.abs(a - b) <= rtol * s + 1e-12) | both_nan | (a == b)
    return not bool(np.all(ok))
