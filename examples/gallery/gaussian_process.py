"""Gaussian-process regression: the kernel hyperparameters by maximising the log marginal
likelihood, written as in autograd's gaussian_process example (a closure factory,
`make_gp_funs`, returning the functions that are differentiated)."""

import numpy as np

import srcad


def make_gp_funs(cov_func, num_cov_params):
    """Functions that compute the GP predictive mean and the log marginal likelihood."""

    def unpack_kernel_params(params):
        mean = params[0]
        cov_params = params[2:]
        noise_scale = np.exp(params[1]) + 0.0001
        return mean, cov_params, noise_scale

    def predict(params, x, y, xstar):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_f_f = cov_func(cov_params, xstar, xstar)
        cov_y_f = cov_func(cov_params, x, xstar)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        pred_mean = mean + np.dot(np.linalg.solve(cov_y_y, cov_y_f).T, y - mean)
        pred_cov = cov_f_f - np.dot(np.linalg.solve(cov_y_y, cov_y_f).T, cov_y_f)
        return pred_mean, pred_cov

    def log_marginal_likelihood(params, x, y):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        prior_mean = mean * np.ones(len(y))
        r = y - prior_mean
        sign, logdet = np.linalg.slogdet(cov_y_y)
        return -0.5 * (np.dot(r, np.linalg.solve(cov_y_y, r)) + logdet + len(y) * np.log(2 * np.pi))

    return num_cov_params + 2, predict, log_marginal_likelihood


def rbf_covariance(kernel_params, x, xp):
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs ** 2, axis=2))


def build_toy_dataset(n_data=20, noise_std=0.1):
    rs = np.random.RandomState(0)
    inputs = np.concatenate([np.linspace(0, 3, num=n_data // 2), np.linspace(6, 8, num=n_data // 2)])
    targets = (np.cos(inputs) + rs.randn(n_data) * noise_std) / 2.0
    inputs = (inputs - 4.0) / 2.0
    return inputs.reshape((len(inputs), 1)), targets


def main(steps=60):
    D = 1
    num_params, predict, log_marginal_likelihood = make_gp_funs(rbf_covariance, num_cov_params=D + 1)
    X, y = build_toy_dataset()
    objective = lambda params: -log_marginal_likelihood(params, X, y)  # noqa: E731
    params = 0.1 * np.random.RandomState(1).randn(num_params)
    grad = srcad.grad(objective)
    for _ in range(steps):
        params = params - 0.02 * grad(params)
    return objective, params


if __name__ == "__main__":
    objective, params = main()
    print(f"negative log marginal likelihood: {objective(params):.4f}")
