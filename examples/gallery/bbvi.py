"""Black-box stochastic variational inference with a diagonal Gaussian, in the style of
autograd's black_box_svi example: a factory closes over the target density and returns the
objective, its gradient and the unpacker. The samples come from a seed passed in, so one call
is a deterministic function of the parameters (the reparameterisation trick)."""

import numpy as np

import srcad


def norm_logpdf(x, loc, scale):
    """log N(x; loc, scale**2), written out because scipy.stats has no rules."""
    z = (x - loc) / scale
    return -0.5 * z ** 2 - np.log(scale) - 0.5 * np.log(2.0 * np.pi)


def black_box_variational_inference(logprob, D, num_samples):
    """The negative evidence lower bound of a D-dimensional diagonal Gaussian approximation."""

    def unpack_params(params):
        mean, log_std = params[:D], params[D:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def variational_objective(params, t, seed=0):
        mean, log_std = unpack_params(params)
        rs = np.random.RandomState(seed + t)
        samples = rs.randn(num_samples, D) * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples, t))
        return -lower_bound

    gradient = srcad.grad(variational_objective)
    return variational_objective, gradient, unpack_params


def log_density(x, t):
    """A funnel: the scale of the first coordinate is the exponential of the second."""
    mu, log_sigma = x[:, 0], x[:, 1]
    sigma_density = norm_logpdf(log_sigma, 0, 1.35)
    mu_density = norm_logpdf(mu, -0.5, np.exp(log_sigma))
    return sigma_density + mu_density


def banana_density(x, t):
    """A curved two-dimensional density: the second coordinate bends around the square of the first."""
    a, b = x[:, 0], x[:, 1]
    return norm_logpdf(a, 0.0, 1.0) + norm_logpdf(b, 0.5 * a ** 2 - 1.0, 0.5)


def adam(grad, x, num_iters=100, step_size=0.1, b1=0.9, b2=0.999, eps=1e-8):
    m = np.zeros(len(x))
    v = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * (g ** 2) + b2 * v
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (np.sqrt(vhat) + eps)
    return x


def main(steps=50, logprob=log_density):
    D = 2
    objective, gradient, unpack_params = black_box_variational_inference(logprob, D, num_samples=200)
    init_mean = -1 * np.ones(D)
    init_log_std = -5 * np.ones(D)
    init_params = np.concatenate([init_mean, init_log_std])
    params = adam(gradient, init_params, num_iters=steps, step_size=0.1)
    return objective, init_params, params, unpack_params


if __name__ == "__main__":
    objective, init_params, params, unpack_params = main()
    mean, log_std = unpack_params(params)
    print(f"negative ELBO {objective(init_params, 0):.3f} -> {objective(params, 0):.3f}")
    print(f"mean {mean}, std {np.exp(log_std)}")
