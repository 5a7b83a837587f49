"""Linear regression by gradient descent, with srcad.value_and_grad.

Fits y = w x + b to 100 noisy points of y = 2x + 1 (fixed seed), starting from w = b = 0,
with learning rate 0.1 for 50 epochs. Prints the loss every 10 epochs, the final w and b,
and the gradient function srcad generated. Checks the gradient against its closed form and
against central finite differences.

    python examples/linear_regression.py
"""

import numpy as np

import srcad


def mse(w, b, x, y):
    """Mean squared error of the line w x + b."""
    err = w * x + b - y
    return np.mean(err * err)


def closed_form_grad(w, b, x, y):
    """d mse / d(w, b), derived by hand: 2 mean(err x), 2 mean(err)."""
    err = w * x + b - y
    return 2.0 * np.mean(err * x), 2.0 * np.mean(err)


def central_difference(f, args, i, eps=1e-6):
    up, down = list(args), list(args)
    up[i] += eps
    down[i] -= eps
    return (f(*up) - f(*down)) / (2 * eps)


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, size=100)
    y = 2.0 * x + 1.0 + 0.1 * rng.normal(size=100)

    loss_and_grad = srcad.value_and_grad(mse, argnums=(0, 1))
    w, b, lr = 0.0, 0.0, 0.1
    worst = 0.0
    for epoch in range(1, 51):
        loss, (dw, db) = loss_and_grad(w, b, x, y)
        exact = closed_form_grad(w, b, x, y)
        worst = max(worst, abs(dw - exact[0]), abs(db - exact[1]))
        w, b = w - lr * dw, b - lr * db
        if epoch % 10 == 0:
            print(f"epoch {epoch:2d}  loss {loss:.6f}")
    print(f"final w = {w:.4f}, b = {b:.4f}   (data: y = 2x + 1 + noise)")

    print("\nThe gradient srcad generated:\n")
    print(srcad.source(loss_and_grad))

    fd = [central_difference(mse, (w, b, x, y), i) for i in (0, 1)]
    _, g = loss_and_grad(w, b, x, y)
    fd_err = max(abs(g[0] - fd[0]), abs(g[1] - fd[1]))
    print(f"max |srcad - closed form| over training: {worst:.1e}")
    print(f"max |srcad - finite differences| at the end: {fd_err:.1e}")
    # 50 epochs of lr 0.1 do not fully converge on b; w and b are near 2 and 1
    ok = worst < 1e-12 and fd_err < 1e-7 and abs(w - 2.0) < 0.1 and abs(b - 1.0) < 0.1
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
