"""Vanishing gradients in a tanh RNN, and how orthogonal recurrent weights help.

    h_t = tanh(W h_{t-1} + U x_t),   h_0 = 0,   loss = v . h_T

For every time step t we measure |dloss/dh_t|: the loss's sensitivity to the hidden state t
steps before the end. Each h_t gets an extra additive input delta_t (zero); the gradient
with respect to delta_t is dloss/dh_t, so one srcad.grad call gives all of them. We also
form the Jacobian dh_t/dh_{t-1} of one step with srcad.jacfwd and print its spectral norm:
the gradient shrinks by at most that factor per step. A small random W (spectral norm
about 0.7) makes the gradient vanish; an orthogonal W (every singular value 1) keeps it alive
far longer.

With matplotlib installed (`pip install -e '.[plot]'`), saves the plot as
rnn_gradient_norms.png in the folder plots/rnn_vanishing_gradients/ next to this script
(the environment variable SRCAD_EXAMPLE_PLOTS names another folder), whatever the current
directory, and prints where.

    python examples/rnn_vanishing_gradients.py
"""

import os
import sys

import numpy as np

import srcad

HIDDEN, STEPS = 16, 40


def step(h, W, U, x):
    return np.tanh(W @ h + U @ x)


def loss(deltas, W, U, xs, v):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = step(h, W, U, xs[t]) + deltas[t]
    return np.dot(v, h)


def hidden_states(W, U, xs):
    """h_0 .. h_T by a plain forward run."""
    hs = [np.zeros(HIDDEN)]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + U @ x))
    return hs


def step_jacobian_closed_form(h, W, U, x):
    """dh_t/dh_{t-1} = diag(1 - h_t^2) W."""
    return (1.0 - step(h, W, U, x) ** 2)[:, None] * W


def analyse(name, W, U, xs, v):
    """Gradient norms per step and one-step Jacobians; returns (norms, max error vs oracles)."""
    grads = srcad.grad(loss)(np.zeros((STEPS, HIDDEN)), W, U, xs, v)  # row t: dloss/dh_{t+1}
    norms = np.linalg.norm(grads, axis=1)
    hs = hidden_states(W, U, xs)
    jac = srcad.jacfwd(step)
    jacobians = [jac(hs[t], W, U, xs[t]) for t in range(STEPS)]  # dh_{t+1}/dh_t
    spectral = [np.linalg.norm(J, 2) for J in jacobians]
    print(f"\n{name}: |W|_2 = {np.linalg.norm(W, 2):.3f}")
    print("   t   |dloss/dh_t|   |dh_t/dh_(t-1)|_2")
    for t in range(STEPS, 0, -5):
        print(f"  {t:2d}   {norms[t - 1]:12.3e}   {spectral[t - 1]:10.3f}")

    # oracles: the closed-form Jacobian, and the chain rule backwards from dloss/dh_T = v
    err_jac = max(np.max(np.abs(J - step_jacobian_closed_form(hs[t], W, U, xs[t])))
                  for t, J in enumerate(jacobians))
    backprop = [v]
    for t in range(STEPS - 1, 0, -1):
        backprop.append(step_jacobian_closed_form(hs[t], W, U, xs[t]).T @ backprop[-1])
    chain = np.array(backprop[::-1])
    err_grad = np.max(np.abs(grads - chain)) / np.max(np.abs(chain))
    print(f"  max |jacfwd - closed form| {err_jac:.1e};  max relative |grad - chain rule| {err_grad:.1e}")
    return norms, max(err_jac, err_grad)


def finite_difference_check(W, U, xs, v, eps=1e-6):
    """Central differences of the loss along a few random directions of the deltas."""
    rng = np.random.default_rng(1)
    zeros = np.zeros((STEPS, HIDDEN))
    g = srcad.grad(loss)(zeros, W, U, xs, v)
    worst = 0.0
    for _ in range(3):
        d = rng.normal(size=zeros.shape)
        fd = (loss(eps * d, W, U, xs, v) - loss(-eps * d, W, U, xs, v)) / (2 * eps)
        worst = max(worst, abs(fd - np.sum(g * d)))
    return worst


def plot_folder(example):
    """plots/EXAMPLE/ next to the examples (or under $SRCAD_EXAMPLE_PLOTS), created if needed."""
    root = os.environ.get("SRCAD_EXAMPLE_PLOTS") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "plots")
    folder = os.path.join(root, example)
    os.makedirs(folder, exist_ok=True)
    return folder


def save_plot(path, curves):
    try:
        import matplotlib
    except ImportError:
        print("\nmatplotlib is not installed: no plot (pip install matplotlib)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for label, norms in curves.items():
        ax.semilogy(range(1, STEPS + 1), norms, marker=".", label=label)
    ax.set_xlabel("time step t")
    ax.set_ylabel("|dloss / dh_t|")
    ax.set_title("Gradient norm through a tanh RNN")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"\nsaved {path}")


def main(argv):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(STEPS, 4))
    U = 0.1 * rng.normal(size=(HIDDEN, 4))
    v = rng.normal(size=HIDDEN)
    v /= np.linalg.norm(v)
    W_small = rng.normal(scale=0.35 / np.sqrt(HIDDEN), size=(HIDDEN, HIDDEN))
    W_orth, _ = np.linalg.qr(rng.normal(size=(HIDDEN, HIDDEN)))

    small, err_small = analyse("small random W", W_small, U, xs, v)
    orth, err_orth = analyse("orthogonal W", W_orth, U, xs, v)
    fd_err = finite_difference_check(W_small, U, xs, v)
    print(f"\n|dloss/dh_1| / |dloss/dh_T|: small random W {small[0] / small[-1]:.1e}, "
          f"orthogonal W {orth[0] / orth[-1]:.2f}")
    print(f"max |grad . d - finite difference| along random directions: {fd_err:.1e}")
    save_plot(os.path.join(plot_folder("rnn_vanishing_gradients"), "rnn_gradient_norms.png"),
              {"small random W": small, "orthogonal W": orth})

    ok = max(err_small, err_orth) < 1e-10 and fd_err < 1e-7 and small[0] < 1e-6 * small[-1] < orth[0]
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
