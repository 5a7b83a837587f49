"""A hierarchical model's log density written with scipy.stats (issue 14): J groups, n
observations y_i ~ Normal(mu + tau eta_g(i), sigma), group effects eta_j ~ t(4), counts
c_j ~ Poisson(exp(mu + tau eta_j)), mu ~ Normal(0, 5), tau and sigma ~ Gamma(2) on the log
scale (with their Jacobians). Gradient w.r.t. theta = (mu, log tau, log sigma, eta_1..eta_J).
The peers run the same source with np and stats bound to autograd's or JAX's scipy.stats."""

import numpy as np
import scipy.stats as stats

from ..case import Case, Size
from ..peers import Rebound


def log_density(theta, y, group, counts):
    mu, log_tau, log_sigma = theta[0], theta[1], theta[2]
    eta = theta[3:]
    tau, sigma = np.exp(log_tau), np.exp(log_sigma)
    m = mu + tau * eta
    lp = np.sum(stats.norm.logpdf(y, m[group], sigma))
    lp = lp + np.sum(stats.t.logpdf(eta, 4.0))
    lp = lp + np.sum(stats.poisson.logpmf(counts, np.exp(m)))
    lp = lp + stats.norm.logpdf(mu, 0.0, 5.0)
    lp = lp + stats.gamma.logpdf(tau, 2.0) + log_tau + stats.gamma.logpdf(sigma, 2.0) + log_sigma
    return lp


def log_density_grad(theta, y, group, counts):
    """Derived by hand: d/dm_j of the likelihoods, then the chain rule through m = mu + tau eta."""
    mu, log_tau, log_sigma = theta[0], theta[1], theta[2]
    eta = theta[3:]
    tau, sigma = np.exp(log_tau), np.exp(log_sigma)
    m = mu + tau * eta
    resid = (y - m[group]) / sigma
    dm = np.bincount(group, weights=resid / sigma, minlength=len(eta)) + counts - np.exp(m)
    out = np.empty_like(theta)
    out[0] = np.sum(dm) - mu / 25.0
    out[1] = np.sum(dm * eta) * tau + 2.0 - tau
    out[2] = np.sum(resid * resid - 1.0) + 2.0 - sigma
    out[3:] = dm * tau - 5.0 * eta / (4.0 + eta * eta)
    return out


def inputs(j, n):
    def build():
        rng = np.random.default_rng(14)
        group = rng.integers(0, j, n)
        effects = rng.normal(0.0, 0.5, j)
        y = 0.3 + effects[group] + rng.normal(0.0, 0.8, n)
        counts = rng.poisson(np.exp(0.3 + effects))
        theta = np.concatenate([[0.2, -0.5, -0.1], rng.normal(0.0, 1.0, j)])
        return theta, y, group, counts
    return build


CASE = Case(
    name="hierarchical_stats", forward=log_density, hand_grad=log_density_grad,
    sizes=(Size("J=8,n=1e3", inputs(8, 1000)), Size("J=100,n=1e5", inputs(100, 100_000), quick=False)),
    peers={"autograd": Rebound(stats="autograd.scipy.stats"), "jax": Rebound(stats="jax.scipy.stats")},
)
