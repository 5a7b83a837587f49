"""A long short-term memory network over characters, in the style of autograd's lstm example:
one weight matrix per gate, the cell update and the output layer nested inside the predictor
as closures over the parameters, the likelihood summed over the time steps."""

import numpy as np
from scipy.special import logsumexp

import srcad

TEXT = ("she sells sea shells by the sea shore, "
        "and the shells she sells are surely sea shells.")


def sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def one_hot_sequences(text, alphabet, seq_length, num_seqs):
    """num_seqs windows of the text, shaped (time, sequence, character)."""
    lookup = dict(zip(alphabet, range(len(alphabet))))
    eye = np.eye(len(alphabet))
    starts = np.linspace(0, len(text) - seq_length, num_seqs).astype(int)
    windows = [[eye[lookup[c]] for c in text[s:s + seq_length]] for s in starts]
    return np.array(windows).transpose((1, 0, 2))


def concat_and_multiply(weights, *args):
    stacked = np.concatenate(list(args) + [np.ones((len(args[0]), 1))], axis=1)
    return stacked @ weights


def init_lstm_params(input_size, state_size, output_size, param_scale=0.1, seed=0):
    rs = np.random.RandomState(seed)
    gate_shape = (input_size + state_size + 1, state_size)
    return {"init cells": param_scale * rs.randn(1, state_size),
            "init hiddens": param_scale * rs.randn(1, state_size),
            "change": param_scale * rs.randn(*gate_shape),
            "forget": param_scale * rs.randn(*gate_shape),
            "ingate": param_scale * rs.randn(*gate_shape),
            "outgate": param_scale * rs.randn(*gate_shape),
            "predict": param_scale * rs.randn(state_size + 1, output_size)}


def lstm_predict(params, inputs):
    def update_lstm(input, hiddens, cells):
        change = np.tanh(concat_and_multiply(params["change"], input, hiddens))
        forget = sigmoid(concat_and_multiply(params["forget"], input, hiddens))
        ingate = sigmoid(concat_and_multiply(params["ingate"], input, hiddens))
        outgate = sigmoid(concat_and_multiply(params["outgate"], input, hiddens))
        cells = cells * forget + ingate * change
        hiddens = outgate * np.tanh(cells)
        return hiddens, cells

    def hiddens_to_output_probs(hiddens):
        logits = concat_and_multiply(params["predict"], hiddens)
        return logits - logsumexp(logits, axis=1, keepdims=True)

    batch = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], batch, axis=0)
    cells = np.repeat(params["init cells"], batch, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for input in inputs:
        hiddens, cells = update_lstm(input, hiddens, cells)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def lstm_log_likelihood(params, inputs, targets):
    logprobs = lstm_predict(params, inputs)
    num_time_steps, num_examples = inputs.shape[:2]
    total = sum(np.sum(lp * tg) for lp, tg in zip(logprobs, targets))
    return total / (num_time_steps * num_examples)


def make_problem(seq_length=8, num_seqs=5, state_size=10):
    alphabet = sorted(set(TEXT))
    seqs = one_hot_sequences(TEXT, alphabet, seq_length + 1, num_seqs)
    params = init_lstm_params(len(alphabet), state_size, len(alphabet))
    return params, seqs[:-1], seqs[1:]


def main(steps=20, step_size=0.5):
    params, inputs, targets = make_problem()
    training_loss = lambda p: -lstm_log_likelihood(p, inputs, targets)  # noqa: E731
    loss_grad = srcad.grad(training_loss)
    for _ in range(steps):
        grads = loss_grad(params)
        for name in params:
            params[name] = params[name] - step_size * grads[name]
    return training_loss, params


if __name__ == "__main__":
    training_loss, params = main()
    print(f"negative log likelihood per character: {training_loss(params):.4f}")
