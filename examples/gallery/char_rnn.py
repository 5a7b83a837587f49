"""A character-level recurrent network trained by maximum likelihood, in the style of autograd's
rnn example: the parameters live in a dict, the step functions are nested inside the predictor
and close over the parameters, and a helper takes its inputs as *args."""

import numpy as np
from scipy.special import logsumexp

import srcad

TEXT = ("the quick brown fox jumps over the lazy dog. "
        "a lazy dog sleeps while the quick fox runs home.")


def build_dataset(text, seq_length, num_seqs, alphabet):
    """Slices of the text as a (time, sequence, character) array of one-hot rows."""
    index = {c: i for i, c in enumerate(alphabet)}
    starts = np.linspace(0, len(text) - seq_length - 1, num_seqs).astype(int)
    seqs = np.zeros((seq_length, num_seqs, len(alphabet)))
    for j, s in enumerate(starts):
        for t in range(seq_length):
            seqs[t, j, index[text[s + t]]] = 1.0
    return seqs


def concat_and_multiply(weights, *args):
    """Stack the inputs side by side with a column of ones (the bias), then multiply."""
    with_bias = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(with_bias, weights)


def create_rnn_params(input_size, state_size, output_size, param_scale=0.1, rs=None):
    if rs is None:
        rs = np.random.RandomState(0)
    return {"init hiddens": param_scale * rs.randn(1, state_size),
            "change": param_scale * rs.randn(input_size + state_size + 1, state_size),
            "predict": param_scale * rs.randn(state_size + 1, output_size)}


def rnn_predict(params, inputs):
    """Log-probabilities of the next character after each prefix of the sequences."""

    def update_rnn(input, hiddens):
        return np.tanh(concat_and_multiply(params["change"], input, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens = update_rnn(input, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def rnn_log_likelihood(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    loglik = 0.0
    num_time_steps, num_examples, _ = inputs.shape
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * targets[t])
    return loglik / (num_time_steps * num_examples)


def make_problem(seq_length=8, num_seqs=6, state_size=12):
    alphabet = sorted(set(TEXT))
    seqs = build_dataset(TEXT, seq_length + 1, num_seqs, alphabet)
    inputs, targets = seqs[:-1], seqs[1:]
    params = create_rnn_params(len(alphabet), state_size, len(alphabet))
    return params, inputs, targets


def main(steps=20, step_size=0.5):
    params, inputs, targets = make_problem()
    objective = lambda p: -rnn_log_likelihood(p, inputs, targets)  # noqa: E731
    grad = srcad.grad(objective)
    for _ in range(steps):
        g = grad(params)
        params = {k: params[k] - step_size * g[k] for k in params}
    return objective, params


if __name__ == "__main__":
    objective, params = main()
    print(f"negative log likelihood per character: {objective(params):.4f}")
