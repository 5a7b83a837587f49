"""What srcad refuses, and why that is a feature.

srcad never returns a derivative it cannot vouch for: a value it does not know how to
differentiate is an error naming your file, line and column and saying what to do, never a
constant with a silent zero derivative. This script differentiates a few functions as a new
user might write them, prints what srcad says, and checks the derivatives it does return
against finite differences.

    python examples/refusals.py
"""

import dataclasses
import math
import os

import numpy as np

import srcad


class Params:
    """A plain class: srcad cannot tell which of its attributes to differentiate."""

    def __init__(self, w, b):
        self.w, self.b = w, b


@dataclasses.dataclass
class DataParams:
    w: np.ndarray
    b: float


def loss_of_object(p, x):
    return np.sum((x @ p.w + p.b) ** 2)


def loss_of_dict(p, x):
    return np.sum((x @ p["w"] + p["b"]) ** 2)


def residuals(w, x):
    return x @ w - 1.0  # a vector: grad needs a scalar (use jacrev or vjp)


def power(x, n):
    return x ** n  # n is an int argument


def log_barrier(x):
    return math.log(x - 1.0)  # raises ValueError for x <= 1, and so does its gradient


def with_complex(x):
    # complex intermediate values pass only through rules that hold for them (np.exp does,
    # np.cumsum does not): docs/subset.md, "Complex intermediate values"
    return np.sum(np.real(np.cumsum(np.exp(1j * x))))


def explain(title, thunk):
    """Run thunk; print its result or the error srcad raised (its first lines)."""
    try:
        value = thunk()
    except (srcad.SrcadError, ValueError) as e:
        lines = str(e).splitlines()
        where = next((ln.strip() for ln in lines if "refusals.py:" in ln), "")
        print(f"{title}\n    {type(e).__name__}: {lines[0]}")
        if where:
            print(f"    at {os.path.basename(where.split(':')[0])}:{':'.join(where.split(':')[1:3])}")
        return None
    print(f"{title}\n    {value}")
    return value


def fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def main():
    x = np.array([[0.5, -1.0], [2.0, 0.3]])
    w = np.array([0.2, -0.4])
    explain("grad with respect to an object of a plain class:",
            lambda: srcad.grad(loss_of_object)(Params(w, 0.1), x))
    gd = explain("the same loss with a dataclass (or a class registered with srcad.register_pytree):",
                 lambda: srcad.grad(loss_of_object)(DataParams(w, 0.1), x))
    g = explain("the same loss with a dict of parameters:",
                lambda: srcad.grad(loss_of_dict)({"w": w, "b": 0.1}, x))
    explain("grad of a vector-valued function:", lambda: srcad.grad(residuals)(w, x))
    jac = explain("jacrev of it instead:", lambda: srcad.jacrev(residuals)(w, x))
    d = explain("d/dx x**n with n = 3 (an int argument that is not differentiated):",
                lambda: srcad.grad(power)(1.5, 3))
    dn = explain("d/dn x**n: a named int argument is promoted to float:",
            lambda: srcad.grad(power, argnums=1)(1.5, 3))
    explain("grad of log(x - 1) at x = 0.5, where the function itself raises:",
            lambda: srcad.grad(log_barrier)(0.5))
    explain("a complex intermediate value in np.cumsum:", lambda: srcad.grad(with_complex)(np.ones(3)))

    ok = np.allclose(g["w"], fd(lambda v: loss_of_dict({"w": v, "b": 0.1}, x), w), atol=1e-6)
    ok &= isinstance(gd, DataParams) and np.allclose(gd.w, g["w"]) and np.isclose(gd.b, g["b"])
    ok &= np.allclose(jac, np.stack([fd(lambda v, i=i: residuals(v, x)[i], w) for i in range(2)]), atol=1e-6)
    ok &= abs(d - 3 * 1.5 ** 2) < 1e-12 and abs(dn - 1.5 ** 3 * math.log(1.5)) < 1e-12
    print("check:", "OK" if ok else "FAILED")


if __name__ == "__main__":
    main()
