"""Check the hand-written derivatives against central finite differences:

    python benchmarks/check_hand.py

For each case (smallest size) and each differentiated argument a, compares <grad_a, v> with
(f(a + eps v) - f(a - eps v)) / (2 eps) for a random direction v; the hand-written Hessian
product and Jacobian of the forward group are checked the same way against the gradient
and the map. Run it after adding or changing a case.
"""

from __future__ import annotations

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks import forward  # noqa: E402
from benchmarks.cases import GROUPS  # noqa: E402
from benchmarks.cases.rosenbrock import rosenbrock_grad, rosenbrock_hvp  # noqa: E402

EPS = 1e-6


def central(f, x, v):
    return (f(x + EPS * v) - f(x - EPS * v)) / (2 * EPS)


def check(name: str, fd, analytic) -> bool:
    err = float(np.max(np.abs(np.asarray(fd) - np.asarray(analytic))))
    ok = err <= 1e-5 * max(1.0, float(np.max(np.abs(analytic))))
    print(f"{'ok   ' if ok else 'FAIL '} {name}: max abs error {err:.2e}")
    return ok


def main() -> int:
    rng = np.random.default_rng(0)
    ok = True
    for case in (c for cases in GROUPS.values() for c in cases):
        args = case.sizes[0].build()
        for i, g in zip(case.wrt, case.unpack((case.hand_grad or case.check)(*args))):
            v = rng.normal(size=np.shape(args[i]))

            def along(a, i=i):
                return case.forward(*args[:i], a, *args[i + 1:])  # noqa: B023 (called at once)

            ok &= check(f"{case.name} {case.sizes[0].label} arg {i}", central(along, args[i], v),
                        np.sum(g * v))
    x, v = rng.normal(size=50), rng.normal(size=50)
    ok &= check("rosenbrock hvp", central(rosenbrock_grad, x, v), rosenbrock_hvp(x, v))
    A = rng.normal(size=(20, 20)) / np.sqrt(20)
    x = rng.normal(size=20)
    ok &= check("tanh_map jacobian", central(lambda y: forward.tanh_map(y, A), x, v[:20]),
                forward.tanh_map_jacobian(x, A) @ v[:20])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
