"""Newton-CG with Hessian-vector products from srcad.hvp, against plain gradient descent.

The Hessian-vector product drives SciPy's own Newton-CG,
`scipy.optimize.minimize(loss, w0, method="Newton-CG", jac=srcad.grad(loss), hessp=...)`,
and a ten-line Newton-CG written out below, which shows what SciPy does with it.

L2-regularised logistic regression on synthetic data (fixed seed), its features on
scales from 0.3 to 3, which makes the problem ill-conditioned. Newton-CG solves
H p = -g at each step by conjugate gradients, which only needs products H v: srcad.hvp
computes them forward-over-reverse (a jvp of the generated gradient), without forming H.
Gradient descent takes steps of 1/L, L a bound on the Hessian's largest eigenvalue.
Both stop when |gradient| < 1e-8. The gradient and H v are checked against their closed
forms and against finite differences.

    python examples/newton_cg_hvp.py
"""

import numpy as np
import scipy.optimize

import srcad

LAM = 1e-2  # L2 regularisation


def loss(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * LAM * np.dot(w, w)


def conjugate_gradient(matvec, b, tol=1e-10, max_iter=50):
    """Solve A x = b for symmetric positive definite A given only x -> A x."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = r @ r
    for _ in range(max_iter):
        if np.sqrt(rr) < tol:
            break
        Ap = matvec(p)
        alpha = rr / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rr, rr_old = r @ r, rr
        p = r + (rr / rr_old) * p
    return x


def newton_cg(w, X, y, tol=1e-8):
    dloss = srcad.grad(loss)
    products = 0
    print(" Newton-CG    iteration  loss                 |gradient|   H v products")
    for it in range(20):
        g = dloss(w, X, y)
        print(f"             {it:3d}        {loss(w, X, y):.15f}  {np.linalg.norm(g):.2e}     {products}")
        if np.linalg.norm(g) < tol:
            break

        def hess_times(v):
            nonlocal products
            products += 1
            return srcad.hvp(loss, (w, X, y), (v, None, None))  # noqa: B023 (used in this iteration only)

        w = w + conjugate_gradient(hess_times, -g)
    return w, it


def scipy_newton_cg(w, X, y):
    """scipy.optimize.minimize's Newton-CG, given the gradient and H p from srcad."""
    products = 0

    def hessp(w, p, X, y):  # scipy's signature: hessp(x, p, *args)
        nonlocal products
        products += 1
        return srcad.hvp(loss, (w, X, y), (p, None, None))

    result = scipy.optimize.minimize(loss, w, args=(X, y), method="Newton-CG", jac=srcad.grad(loss),
                                     hessp=hessp, options={"xtol": 1e-12})
    print(f" scipy.optimize.minimize(method='Newton-CG', hessp=srcad.hvp): {result.message}")
    print(f"             {result.nit} iterations, {products} H p products, loss {result.fun:.15f}, "
          f"|gradient| {np.linalg.norm(result.jac):.2e}")
    return result


def gradient_descent(w, X, y, tol=1e-8, max_iter=20000):
    dloss = srcad.grad(loss)
    lipschitz = 0.25 * np.linalg.norm(X, 2) ** 2 / len(y) + LAM
    print(" gradient descent, step 1/L =", f"{1 / lipschitz:.3f}")
    for it in range(max_iter):
        g = dloss(w, X, y)
        if it in (0, 10, 100, 1000, 10000) or np.linalg.norm(g) < tol:
            print(f"             {it:5d}      {loss(w, X, y):.15f}  {np.linalg.norm(g):.2e}")
        if np.linalg.norm(g) < tol:
            break
        w = w - g / lipschitz
    return w, it


def closed_form(w, X, y, v):
    """The gradient and H v of the loss, derived by hand."""
    s = 1.0 / (1.0 + np.exp(-(X @ w)))
    g = X.T @ (s - y) / len(y) + LAM * w
    hv = X.T @ (s * (1.0 - s) * (X @ v)) / len(y) + LAM * v
    return g, hv


def oracle_error(w, X, y, rng, eps=1e-6):
    v = rng.normal(size=w.shape)
    g_ref, hv_ref = closed_form(w, X, y, v)
    g = srcad.grad(loss)(w, X, y)
    hv = srcad.hvp(loss, (w, X, y), (v, None, None))
    fd_g = (loss(w + eps * v, X, y) - loss(w - eps * v, X, y)) / (2 * eps)  # g . v
    fd_hv = (closed_form(w + eps * v, X, y, v)[0] - closed_form(w - eps * v, X, y, v)[0]) / (2 * eps)
    return max(np.max(np.abs(g - g_ref)), np.max(np.abs(hv - hv_ref)),
               abs(g @ v - fd_g), np.max(np.abs(hv - fd_hv)))


def main():
    rng = np.random.default_rng(0)
    n, d = 500, 10
    X = rng.normal(size=(n, d)) * np.logspace(-0.5, 0.5, d)  # feature scales 0.3 .. 3
    w_true = rng.normal(size=d)
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(X @ w_true)))).astype(float)

    err = oracle_error(rng.normal(size=d), X, y, rng)
    print(f"max |srcad - closed form / finite differences| (gradient, H v): {err:.1e}\n")

    w_newton, it_newton = newton_cg(np.zeros(d), X, y)
    print()
    result = scipy_newton_cg(np.zeros(d), X, y)
    print()
    w_gd, it_gd = gradient_descent(np.zeros(d), X, y)
    print(f"\nNewton-CG: {it_newton} iterations; gradient descent: {it_gd} iterations; "
          f"max |w_newton - w_gd| = {np.max(np.abs(w_newton - w_gd)):.1e}")
    print(f"scipy Newton-CG: {result.nit} iterations; "
          f"max |w_scipy - w_gd| = {np.max(np.abs(result.x - w_gd)):.1e}")
    ok = (err < 1e-6 and np.allclose(w_newton, w_gd, atol=1e-5) and it_newton < 10 < it_gd
          and result.success and np.allclose(result.x, w_gd, atol=1e-5) and result.nit < 20)
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
