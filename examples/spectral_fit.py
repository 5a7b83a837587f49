"""Fitting through complex intermediate values: a filter matched to a power spectrum with
np.fft.rfft, and a feedback gain that moves a matrix's eigenvalues with np.linalg.eigvals.

1. A 9-tap FIR filter h whose power spectrum |rfft(h, 64)|^2 matches a target (a band-pass
   shape), fitted with scipy.optimize.minimize(method="L-BFGS-B", jac=srcad.grad(...)).
2. A gain k for x' = (A + b k^T) x that pushes the largest real part of the eigenvalues of
   A + b k^T below -0.5 (a smooth penalty on every eigenvalue's real part).

Every derivative passes through complex values (the spectrum, the eigenvalues), which srcad
differentiates with the rules marked complex-correct (docs/subset.md, "Complex intermediate
values"). Checks srcad's gradients against central finite differences and a Hessian-vector
product against differences of the gradient.

    python examples/spectral_fit.py
"""

import numpy as np
import scipy.optimize

import srcad

N = 64


def target_spectrum():
    f = np.fft.rfftfreq(N)
    return np.exp(-0.5 * ((f - 0.2) / 0.05) ** 2)


def spectrum_loss(h, target):
    """Squared error between the power spectrum of the filter h and the target."""
    power = np.abs(np.fft.rfft(h, n=N)) ** 2
    return np.sum((power - target) ** 2) + 1e-3 * np.sum(h * h)


def eigen_penalty(k, A, b):
    """A smooth penalty on eigenvalues of A + b k^T to the right of -0.5, and a small gain."""
    lam = np.linalg.eigvals(A + np.outer(b, k))
    excess = np.real(lam) + 0.5
    return np.sum(np.log1p(np.exp(8.0 * excess))) / 8.0 + 1e-3 * np.sum(k * k)


def fd_grad(f, x, *args, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e, *args) - f(x - e, *args)) / (2 * eps)
    return out


def main():
    rng = np.random.default_rng(0)
    target = target_spectrum()
    h0 = 0.3 * rng.normal(size=9)
    g = srcad.grad(spectrum_loss)(h0, target)
    err_h = np.max(np.abs(g - fd_grad(spectrum_loss, h0, target))) / np.max(np.abs(g))
    print(f"filter: max relative |grad - finite differences| at h0 = {err_h:.1e}")
    v = rng.normal(size=9)
    grad = srcad.grad(spectrum_loss)
    hv = srcad.jvp(grad, (h0, target), (v, None))[1]  # forward over reverse
    hv_fd = (grad(h0 + 1e-5 * v, target) - grad(h0 - 1e-5 * v, target)) / 2e-5
    err_hv = np.max(np.abs(hv - hv_fd)) / np.max(np.abs(hv))
    print(f"filter: max relative |Hv - differences of the gradient| = {err_hv:.1e}")
    res = scipy.optimize.minimize(spectrum_loss, h0, args=(target,), jac=srcad.grad(spectrum_loss),
                                  method="L-BFGS-B")
    print(f"filter: L-BFGS-B: loss {spectrum_loss(h0, target):.3f} -> {res.fun:.4f} in {res.nit} iterations")

    A = np.array([[0.2, 1.0, 0.0], [-1.0, 0.1, 0.5], [0.0, -0.3, 0.3]])
    b = np.array([0.0, 0.0, 1.0])
    k0 = np.zeros(3)
    gk = srcad.grad(eigen_penalty)(k0, A, b)
    err_k = np.max(np.abs(gk - fd_grad(eigen_penalty, k0, A, b))) / np.max(np.abs(gk))
    print(f"gain: max relative |grad - finite differences| at k0 = {err_k:.1e}")
    res_k = scipy.optimize.minimize(eigen_penalty, k0, args=(A, b), jac=srcad.grad(eigen_penalty),
                                    method="L-BFGS-B")
    before = np.max(np.real(np.linalg.eigvals(A)))
    after = np.max(np.real(np.linalg.eigvals(A + np.outer(b, res_k.x))))
    print(f"gain: largest real part of the eigenvalues {before:.3f} -> {after:.3f}")

    ok = err_h < 1e-6 and err_hv < 1e-5 and err_k < 1e-6 and res.fun < 0.5 * spectrum_loss(h0, target)
    ok &= after < before
    print("check:", "OK" if ok else "FAILED")


if __name__ == "__main__":
    main()
