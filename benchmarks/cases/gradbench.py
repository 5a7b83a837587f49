"""The GradBench group (github.com/gradbench/gradbench, evals ode, lse, kmeans, gmm, lstm):
each objective written in NumPy from the eval's definition (its README and C++ reference
`cpp/gradbench/evals/*.hpp`), timed as GradBench reports it, derivative against primal.

- ode: y' = (x_0, x_1 y_0, x_2 y_1, ...), y(0) = 0, s steps of classical Runge-Kutta to t = 2;
  gradient of the last component of y(2) w.r.t. x (each stage joins x[:1] and x[1:] * y[:-1]
  with np.concatenate, as a NumPy user writes it).
- lse: a + log(sum(exp(x - a))) with a = max(x).
- kmeans: sum over points of the squared distance to the nearest centroid, gradient w.r.t. the
  centroids.
- gmm: the ADBench GMM objective, vectorised over points and components (einsum), as the
  GradBench PyTorch tool writes it; gradient w.r.t. alphas, means, icf.
- lstm: the ADBench diagonal LSTM, l layers, over a sequence of c characters of b bits;
  gradient w.r.t. the main and extra parameters. No hand-written gradient: checked against
  autograd's when installed.
"""

import math

import numpy as np

from ..case import Case, Size
from ..peers import SAME
from . import gmm as adbench_gmm
from .logsumexp import logsumexp, logsumexp_grad


def ode_fun(x, y):
    return np.concatenate([x[:1], x[1:] * y[:-1]])


def ode(x, s):
    # (ode_fun written out, so that the peers' NumPy replaces np here too)
    h = 2.0 / s
    y = np.zeros_like(x)
    for _ in range(s):
        k1 = np.concatenate([x[:1], x[1:] * y[:-1]])
        y1 = y + h / 2 * k1
        k2 = np.concatenate([x[:1], x[1:] * y1[:-1]])
        y2 = y + h / 2 * k2
        k3 = np.concatenate([x[:1], x[1:] * y2[:-1]])
        y3 = y + h * k3
        k4 = np.concatenate([x[:1], x[1:] * y3[:-1]])
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[-1]


def ode_grad(x, s):
    h = 2.0 / s
    y = np.zeros_like(x)
    stages = []
    for _ in range(s):
        k1 = ode_fun(x, y)
        y1 = y + h / 2 * k1
        k2 = ode_fun(x, y1)
        y2 = y + h / 2 * k2
        k3 = ode_fun(x, y2)
        y3 = y + h * k3
        k4 = ode_fun(x, y3)
        stages.append((y, y1, y2, y3))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    x_bar = np.zeros_like(x)
    y_bar = np.zeros_like(x)
    y_bar[-1] = 1.0
    xs = x[1:]

    def through_f(k_bar, y_in):  # z = f(x, y_in): z[0] = x[0], z[1:] = x[1:] * y_in[:-1]
        x_bar[0] += k_bar[0]
        x_bar[1:] += k_bar[1:] * y_in[:-1]
        y_in_bar = np.zeros_like(x)
        y_in_bar[:-1] = xs * k_bar[1:]
        return y_in_bar

    for y0, y1, y2, y3 in reversed(stages):
        y3_bar = through_f(h / 6 * y_bar, y3)
        y2_bar = through_f(h / 3 * y_bar + h * y3_bar, y2)
        y1_bar = through_f(h / 3 * y_bar + h / 2 * y2_bar, y1)
        y0_bar = through_f(h / 6 * y_bar + h / 2 * y1_bar, y0)
        y_bar = y_bar + y3_bar + y2_bar + y1_bar + y0_bar
    return x_bar


def ode_inputs(n, s):
    return lambda: (np.random.RandomState(31337).rand(n), s)


def kmeans_cost(centroids, points):
    d = np.sum(points ** 2, axis=1)[None, :] + np.sum(centroids ** 2, axis=1)[:, None] \
        - 2.0 * (centroids @ points.T)
    return np.sum(np.min(d, axis=0))


def kmeans_grad(centroids, points):
    d = np.sum(points ** 2, axis=1)[None, :] + np.sum(centroids ** 2, axis=1)[:, None] \
        - 2.0 * (centroids @ points.T)
    nearest = np.argmin(d, axis=0)
    counts = np.bincount(nearest, minlength=centroids.shape[0]).astype(float)
    sums = np.zeros_like(centroids)
    np.add.at(sums, nearest, points)
    return 2.0 * (counts[:, None] * centroids - sums)


def kmeans_inputs(n, k, d):
    def build():
        rng = np.random.RandomState(0)
        points = rng.rand(n, d)
        return (points[rng.choice(n, k, replace=False)] + 0.01, points)
    return build


def _lower_index(d):
    """icf column of L[r, c] for r > c (ADBench: the strict lower triangle column by column),
    and the mask of the strict lower triangle."""
    lower = np.tril(np.ones((d, d)), -1) > 0
    return d - 1 + np.cumsum(lower.T).reshape(d, d).T * lower, lower


def _multigammaln(a, p):
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(math.lgamma(a - 0.5 * j) for j in range(p))


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k = alphas.shape[0]
    qs = icf[:, :d]
    qdiags = np.exp(qs)
    sum_qs = np.sum(qs, axis=1)
    index, lower = _lower_index(d)
    Ls = icf[:, index] * lower
    xc = x[:, None, :] - means[None, :, :]
    Lxc = qdiags * xc + np.einsum("ijk,mik->mij", Ls, xc)
    inner = alphas + sum_qs - 0.5 * np.sum(Lxc ** 2, axis=2)
    mx = np.max(inner, axis=1)
    slse = np.sum(mx + np.log(np.sum(np.exp(inner - mx[:, None]), axis=1)))
    am = np.max(alphas)
    lse_alphas = am + np.log(np.sum(np.exp(alphas - am)))
    nu = d + wishart_m + 1
    prior = np.sum(0.5 * wishart_gamma * wishart_gamma * (np.sum(qdiags ** 2, axis=1)
                                                          + np.sum(icf[:, d:] ** 2, axis=1))
                   - wishart_m * sum_qs)
    c = nu * d * math.log(wishart_gamma / math.sqrt(2.0))
    return (-n * d * 0.5 * math.log(2 * math.pi) + slse - n * lse_alphas
            + prior - k * (c - _multigammaln(0.5 * nu, d)))


def gmm_objective_grad(alphas, means, icf, x, wishart_gamma, wishart_m):
    """The gradient of gmm_objective as a NumPy expert writes it for this (vectorised) form:
    the forward quantities once, the adjoint of each step by hand, every einsum over the
    components as a batched np.matmul."""
    n, d = x.shape
    qdiags = np.exp(icf[:, :d])
    index, lower = _lower_index(d)
    Ls = icf[:, index] * lower
    xck = x[None, :, :] - means[:, None, :]                          # (k, n, d)
    Lxc = qdiags[:, None, :] * xck + np.matmul(xck, Ls.transpose(0, 2, 1))
    inner = alphas[:, None] + np.sum(icf[:, :d], axis=1)[:, None] - 0.5 * np.sum(Lxc * Lxc, axis=2)
    e = np.exp(inner - np.max(inner, axis=0))
    w = e / np.sum(e, axis=0)                                        # (k, n) posteriors
    w_total = np.sum(w, axis=1)
    ea = np.exp(alphas - np.max(alphas))
    G = Lxc * -w[:, :, None]                                         # d objective / d Lxc
    gamma2 = wishart_gamma * wishart_gamma
    icf_bar = np.empty_like(icf)
    icf_bar[:, :d] = (w_total[:, None] - wishart_m + qdiags * (np.sum(G * xck, axis=1) + gamma2 * qdiags))
    icf_bar[:, d:] = gamma2 * icf[:, d:]
    Ls_bar = np.matmul(G.transpose(0, 2, 1), xck)                    # (k, d, d)
    icf_bar[:, index[lower]] += Ls_bar[:, lower]
    xc_bar = np.sum(G, axis=1)                                       # summed over points
    means_bar = -(qdiags * xc_bar + np.matmul(xc_bar[:, None, :], Ls)[:, 0, :])
    return w_total - n * ea / np.sum(ea), means_bar, icf_bar


def lstm_objective(main_params, extra_params, state, sequence):
    layers = main_params.shape[0] // 2
    b = sequence.shape[1]
    hidden = [state[2 * i] for i in range(layers)]
    cell = [state[2 * i + 1] for i in range(layers)]
    total = 0.0
    for t in range(sequence.shape[0] - 1):
        out = sequence[t] * extra_params[0]
        for i in range(layers):
            w, bias = main_params[2 * i], main_params[2 * i + 1]
            forget = 1.0 / (1.0 + np.exp(-(out * w[:b] + bias[:b])))
            ingate = 1.0 / (1.0 + np.exp(-(hidden[i] * w[b:2 * b] + bias[b:2 * b])))
            outgate = 1.0 / (1.0 + np.exp(-(out * w[2 * b:3 * b] + bias[2 * b:3 * b])))
            change = np.tanh(hidden[i] * w[3 * b:] + bias[3 * b:])
            cell[i] = cell[i] * forget + ingate * change
            hidden[i] = outgate * np.tanh(cell[i])
            out = hidden[i]
        ypred = out * extra_params[1] + extra_params[2]
        lse = np.log(np.sum(np.exp(ypred)) + 2.0)
        total = total + np.sum(sequence[t + 1] * (ypred - lse))
    return -total / ((sequence.shape[0] - 1) * b)


def lstm_inputs(layers, c, b):
    def build():
        rng = np.random.RandomState(0)
        return (rng.normal(0, 0.5, (2 * layers, 4 * b)), rng.normal(0, 0.5, (3, b)),
                rng.normal(0, 0.5, (2 * layers, b)), rng.rand(c, b))
    return build


def _autograd_reference(f, argnums):
    """The gradient autograd computes of the same source (a check, not a timed column)."""
    def reference(*args):
        import autograd
        import autograd.numpy as anp

        from ..case import rebind
        g = autograd.grad(lambda *p: rebind(f, np=anp)(*p[:len(argnums)], *args[len(argnums):]),
                          argnums)
        return g(*args[:len(argnums)], *args[len(argnums):])
    return reference


ODE = Case(
    name="gb_ode", forward=ode, hand_grad=ode_grad,
    sizes=(Size("n=1000,s=10", ode_inputs(1000, 10)),
           # (jax.jit compiles the 400 unrolled stages for minutes: 20 s already at s=10, loaded)
           Size("n=1000,s=100", ode_inputs(1000, 100), quick=False, peer_limit=("jax", "jax.jit"))),
    peers={"autograd": SAME, "jax": SAME}, memory=True,
)
LSE = Case(
    name="gb_lse", forward=logsumexp, hand_grad=logsumexp_grad,
    sizes=(Size("n=1e4", lambda: (np.random.RandomState(0).rand(10_000),)),
           Size("n=1e6", lambda: (np.random.RandomState(0).rand(1_000_000),), quick=False)),
    peers={"autograd": SAME, "jax": SAME},
)
KMEANS = Case(
    name="gb_kmeans", forward=kmeans_cost, hand_grad=kmeans_grad,
    sizes=(Size("n=1000,k=10,d=8", kmeans_inputs(1000, 10, 8)),
           Size("n=10000,k=100,d=8", kmeans_inputs(10_000, 100, 8), quick=False)),
    peers={"autograd": SAME, "jax": SAME},
)
GMM = Case(
    name="gb_gmm", forward=gmm_objective, hand_grad=gmm_objective_grad, argnums=(0, 1, 2),
    sizes=(Size("d=2,k=5,n=1e3", adbench_gmm.inputs(2, 5, 1000)),
           Size("d=10,k=25,n=1e4", adbench_gmm.inputs(10, 25, 10_000), quick=False)),
    peers={"autograd": SAME, "jax": SAME},
)
LSTM = Case(
    name="gb_lstm", forward=lstm_objective, hand_grad=None, argnums=(0, 1),
    check=_autograd_reference(lstm_objective, (0, 1)),
    # (jax.jit traces the Python loop into one program of c * l cells: minutes to compile here)
    sizes=(Size("l=2,c=100,b=14", lstm_inputs(2, 100, 14), peer_limit=("jax", "jax.jit")),
           Size("l=4,c=1024,b=14", lstm_inputs(4, 1024, 14), quick=False, peer_limit=("jax", "jax.jit"))),
    peers={"autograd": SAME, "jax": SAME},
)
CASES = (ODE, LSE, KMEANS, GMM, LSTM)
