"""Maximum-likelihood hidden Markov model by gradient ascent, as in autograd's hmm example:
the forward algorithm in log space over a list of sequences of different lengths."""

import numpy as np
from scipy.special import logsumexp

import srcad


def EM_normalize(params):
    log_pi, log_A, log_B = params
    return (log_pi - logsumexp(log_pi),
            log_A - logsumexp(log_A, axis=1, keepdims=True),
            log_B - logsumexp(log_B, axis=1, keepdims=True))


def hmm_log_likelihood(params, seqs):
    log_pi, log_A, log_B = EM_normalize(params)
    total = 0.0
    for seq in seqs:
        log_alpha = log_pi + log_B[:, seq[0]]
        for obs in seq[1:]:
            log_alpha = logsumexp(np.expand_dims(log_alpha, 1) + log_A, axis=0) + log_B[:, obs]
        total = total + logsumexp(log_alpha)
    return total


def make_data(num_states=3, num_outputs=4, lengths=(6, 9, 4)):
    rs = np.random.RandomState(0)
    seqs = [list(rs.randint(num_outputs, size=n)) for n in lengths]
    params = (rs.randn(num_states), rs.randn(num_states, num_states), rs.randn(num_states, num_outputs))
    return params, seqs


def main(steps=20):
    params, seqs = make_data()
    grad = srcad.grad(hmm_log_likelihood)
    for _ in range(steps):
        g = grad(params, seqs)
        params = tuple(p + 0.05 * gp for p, gp in zip(params, g))
    return params, seqs


if __name__ == "__main__":
    params, seqs = main()
    print(f"log likelihood: {hmm_log_likelihood(params, seqs):.4f}")
