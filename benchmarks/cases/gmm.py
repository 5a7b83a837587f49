"""The ADBench GMM objective (microsoft/ADBench, src/python/modules/PyTorch/gmm_objective.py):
the log-likelihood of n points under k Gaussians in d dimensions, each with a precision
factor Q = diag(exp(q)) + L built from `icf` (log-diagonal first, then the strictly lower
triangle column by column), plus ADBench's log-Wishart prior. Written as a loop over the k
components, each vectorised over the n points; gradient w.r.t. alphas, means, icf."""

import math

import numpy as np

from ..case import Case, Size
from ..peers import SAME

torch = None  # bound to the torch module by peers.py when PyTorch is installed


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k = alphas.shape[0]
    lower = np.tril(np.ones((d, d)), -1) > 0
    index = d - 1 + np.cumsum(lower.T).reshape(d, d).T    # icf column of L[r, c] (r > c)
    qs = icf[:, :d]
    qdiags = np.exp(qs)
    sum_qs = np.sum(qs, axis=1)
    terms = []
    for j in range(k):
        L = np.where(lower, icf[j][index], 0.0)
        xc = x - means[j]
        z = xc * qdiags[j] + xc @ L.T
        terms.append(alphas[j] + sum_qs[j] - 0.5 * np.sum(z * z, axis=1))
    inner = np.array(terms)
    mx = np.max(inner, axis=0)
    lse = mx + np.log(np.sum(np.exp(inner - mx), axis=0))
    amax = np.max(alphas)
    lse_alphas = amax + np.log(np.sum(np.exp(alphas - amax)))
    nu = d + wishart_m + 1
    c = nu * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - 0.25 * d * (d - 1) * math.log(math.pi)
    for i in range(d):
        c = c - math.lgamma(0.5 * (nu - i))
    prior = (0.5 * wishart_gamma ** 2 * (np.sum(qdiags ** 2) + np.sum(icf[:, d:] ** 2))
             - wishart_m * np.sum(sum_qs) - k * c)
    return -0.5 * n * d * math.log(2.0 * math.pi) + np.sum(lse) - n * lse_alphas + prior


def _softmax(a, axis=None):
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def gmm_objective_grad(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k = alphas.shape[0]
    lower = np.tril(np.ones((d, d)), -1) > 0
    index = d - 1 + np.cumsum(lower.T).reshape(d, d).T
    cols, rows = np.triu_indices(d, 1)                    # the lower triangle, column by column
    qdiags = np.exp(icf[:, :d])
    Qs = np.where(lower, icf[:, index], 0.0) + qdiags[:, :, None] * np.eye(d)
    inner = np.empty((k, n))
    zs = []
    for j in range(k):
        z = (x - means[j]) @ Qs[j].T
        zs.append(z)
        inner[j] = np.einsum("ij,ij->i", z, z)
    inner = alphas[:, None] + np.sum(icf[:, :d], axis=1)[:, None] - 0.5 * inner
    w = _softmax(inner, axis=0)                          # posterior of component j for point i
    w_total = np.sum(w, axis=1)
    alphas_bar = w_total - n * _softmax(alphas)
    means_bar = np.empty_like(means)
    icf_bar = np.empty_like(icf)
    gamma2 = wishart_gamma * wishart_gamma
    icf_bar[:, :d] = w_total[:, None] + gamma2 * qdiags * qdiags - wishart_m
    icf_bar[:, d:] = gamma2 * icf[:, d:]
    for j in range(k):
        G = zs[j] * -w[j][:, None]                       # d objective / d z
        M = G.T @ (x - means[j])                         # d objective / d Q_j
        icf_bar[j, :d] += np.diagonal(M) * qdiags[j]
        icf_bar[j, d:] += M[rows, cols]
        means_bar[j] = -(np.sum(G, axis=0) @ Qs[j])
    return alphas_bar, means_bar, icf_bar


def gmm_objective_torch(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k = alphas.shape[0]
    lower = torch.tril(torch.ones((d, d)), -1) > 0
    index = d - 1 + torch.cumsum(lower.T.reshape(-1), 0).reshape(d, d).T
    qs = icf[:, :d]
    qdiags = torch.exp(qs)
    sum_qs = torch.sum(qs, dim=1)
    terms = []
    for j in range(k):
        L = torch.where(lower, icf[j][index], 0.0)
        xc = x - means[j]
        z = xc * qdiags[j] + xc @ L.T
        terms.append(alphas[j] + sum_qs[j] - 0.5 * torch.sum(z * z, dim=1))
    lse = torch.logsumexp(torch.stack(terms), dim=0)
    nu = d + wishart_m + 1
    c = nu * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - 0.25 * d * (d - 1) * math.log(math.pi)
    for i in range(d):
        c = c - math.lgamma(0.5 * (nu - i))
    prior = (0.5 * wishart_gamma ** 2 * (torch.sum(qdiags ** 2) + torch.sum(icf[:, d:] ** 2))
             - wishart_m * torch.sum(sum_qs) - k * c)
    return (-0.5 * n * d * math.log(2.0 * math.pi) + torch.sum(lse)
            - n * torch.logsumexp(alphas, dim=0) + prior)


def inputs(d, k, n):
    """Drawn like ADBench's data generator: alphas, icf ~ N(0, 1), means, x ~ U(0, 1)."""
    def build():
        rng = np.random.default_rng(4)
        icf = rng.normal(0.0, 1.0, (k, d * (d + 1) // 2))
        return (rng.normal(0.0, 1.0, k), rng.uniform(0.0, 1.0, (k, d)), icf, rng.uniform(0.0, 1.0, (n, d)),
                1.0, 0)
    return build


CASE = Case(
    name="gmm", forward=gmm_objective, hand_grad=gmm_objective_grad, argnums=(0, 1, 2),
    sizes=(Size("d=2,k=5,n=1e3", inputs(2, 5, 1000)),
           Size("d=10,k=25,n=1e4", inputs(10, 25, 10_000), quick=False)),
    peers={"autograd": SAME, "jax": SAME, "torch": gmm_objective_torch}, memory=True,
)
