"""SRCAD_DEBUG=types: generated code checks each value against the type srcad inferred for it
(codegen/typechecks.py, runtime/typecheck.py). The types it found wrong (a list argument's
tangent typed as an array, a batched solve against one vector typed at b's rank, the pieces of
an array typed as a list, a repeated list typed as an array) stay right here, and a budget of
fuzzed programs runs with the checks on."""

import numpy as np
import pytest
import scipy.linalg
from fuzz.run import run_seed
from oracle import fd_grad_richardson, fd_second_directional
from test_fuzz import CI_CONFIG

import srcad
from srcad.runtime import check_type

RNG = np.random.default_rng(5)


@pytest.fixture
def checked(monkeypatch):
    monkeypatch.setattr(srcad.config, "debug", "types")


def test_check_type_accepts_and_refuses():
    check_type(np.ones((2, 3)), ("array", 2, (2, 3), "f"), "x", "here")
    check_type(1.5, ("number",), "x", "here")
    check_type([1.0], ("list",), "x", "here")
    check_type(3, ("array", 0, None, "i"), "n", "here")
    for value, expect in [([1.0, 2.0], ("array", 1, None, "f")), (np.ones(3), ("array", 2, None, "f")),
                          (np.ones(3), ("array", 1, (4,), "f")), (2.5, ("array", 0, None, "i")),
                          (np.ones(2, complex), ("array", 1, None, "f")), ((1.0,), ("list",))]:
        with pytest.raises(AssertionError, match="srcad inferred"):
            check_type(value, expect, "v", "f.py:3")


def batched_solve(a, b):
    return np.sum(np.sin(scipy.linalg.solve_triangular(a + 3.0 * np.eye(3), b)) ** 2)


def stacked_rows(x):
    return np.sum(np.concatenate(x) ** 3)


def power_of_list(x):
    return np.sum(np.linalg.matrix_power(x + np.eye(3), 2) * np.arange(9.0).reshape(3, 3))


def repeated(x):
    xs = [x[0], x[1] * x[2]] * 3
    return np.sum(np.array(xs) ** 2 * np.arange(6.0))


def test_the_types_it_found_wrong_are_right(checked):
    a, b = RNG.normal(size=(2, 3, 3)), RNG.normal(size=3)
    g = srcad.grad(batched_solve, argnums=(0, 1))
    assert "_check_type(" in srcad.source(g, a, b)
    for got, i in zip(g(a, b), (0, 1)):
        assert np.allclose(got, fd_grad_richardson(batched_solve, (a, b), i), rtol=1e-6, atol=1e-8)
    x = RNG.normal(size=(2, 3))
    assert np.allclose(srcad.hessian(stacked_rows)(x).reshape(6, 6),
                       np.diag(6.0 * x.ravel()), atol=1e-9)  # (d^2/dx^2 of x^3, each entry alone)
    m = (0.3 * RNG.normal(size=(3, 3))).tolist()
    v = (RNG.normal(size=(3, 3))).tolist()
    gm = srcad.grad(power_of_list)
    _, hv = srcad.jvp(gm, (m,), (v,))  # (forward over reverse: the tangent of a list argument)
    step = 1e-5
    fd = (np.asarray(gm((np.asarray(m) + step * np.asarray(v)).tolist()))
          - np.asarray(gm((np.asarray(m) - step * np.asarray(v)).tolist()))) / (2 * step)
    assert np.allclose(np.asarray(hv), fd, rtol=1e-6, atol=1e-7)
    x = RNG.normal(size=3)
    assert np.allclose(srcad.grad(repeated)(x), fd_grad_richardson(repeated, (x,)), rtol=1e-7)


def reversed_plus(x, y):
    c0 = lambda a: a * (y[-1][-1] + a[::-1])  # noqa: E731 (a float plus an array: the tangents too)
    return np.sum(c0(np.linspace(-0.8, 0.9, 8).reshape((4, 2)) @ x[[1, 2]]))


def test_a_float_tangent_plus_an_array_one_is_an_array(checked):
    """srcad.add of a float's tangent and an array's was typed as the float (fuzz 8200:1073)."""
    x, y = RNG.normal(size=4), RNG.normal(size=(1, 4))
    hess = srcad.hessian(reversed_plus, argnums=(0, 1))(x, y)[1][1].reshape(4, 4)  # (the y-y block)
    step, want = 1e-4, np.zeros((4, 4))

    def at(i, j, di, dj):
        z = y.copy()
        z[0, i] += di
        z[0, j] += dj
        return reversed_plus(x, z)

    for i in range(4):
        for j in range(4):  # (central second differences of f itself)
            want[i, j] = (at(i, j, step, step) - at(i, j, step, -step) - at(i, j, -step, step)
                          + at(i, j, -step, -step)) / (4 * step ** 2)
    assert np.allclose(hess, want, atol=1e-5)


@pytest.mark.parametrize("index", range(6))  # (long campaigns run outside CI: docs/reliability.md)
def test_fuzzed_programs_with_type_checks(index, checked, tmp_path):
    result = run_seed(f"types:{index}", CI_CONFIG, str(tmp_path))
    assert result["outcome"] not in ("crash", "wrong"), result.get("source", "") + "\n" + "\n".join(
        f"{f['kind']}: {f['message']}" for f in result["findings"])


def written_through_an_ellipsis(x):
    y = np.zeros((2,))
    for _ in range(2):
        y[...] = np.tanh(x) + y
    return np.sum(y * y)


def test_a_write_through_an_ellipsis_keeps_every_position_under_second_order(checked):
    """`y[...] = v` writes each position once: the mask of the positions that keep their
    value is the bool True (fuzz 11800:15 found it typed as an array, under hessian)."""
    x = np.array([1.0, 0.2])
    got = srcad.hessian(written_through_an_ellipsis)(x)
    e = np.eye(2)
    want = np.array([[fd_second_directional(written_through_an_ellipsis, (x,), (e[i],), (e[j],))
                      for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def written_through_a_list_key(x, z):
    y0 = z[1].copy()
    y0[[1]] += x
    return np.sum(np.sin(y0)) + z[2]


def test_the_positions_a_list_key_writes_into_an_array_of_unknown_type(checked):
    """The mask of the positions that keep their value was typed the bool True whenever the
    written value's type was not an array's, as for a row of a list of mixed items (fuzz
    14000:631; the check then failed under hessian). By hand, with y = (z10, z11 + x):
    f = sin z10 + sin(z11 + x) + z2, so d2f/dx2 = -sin(z11 + x), d2f/dx dz1 = (0, -sin(z11 + x))
    and d2f/dz1^2 = diag(-sin z10, -sin(z11 + x))."""
    x, z = 1.2139, [np.array([0.3185, 0.8516, -1.0394]), np.array([-0.6827, -0.5826]), -0.6017]
    hess = srcad.hessian(written_through_a_list_key, argnums=(0, 1))(x, z)
    s = -np.sin(z[1][1] + x)
    assert hess[0][0] == pytest.approx(s, rel=1e-12)
    np.testing.assert_allclose(hess[0][1][1], [0.0, s], rtol=1e-12)
    np.testing.assert_allclose(hess[1][1][1][1], np.diag([-np.sin(z[1][0]), s]), rtol=1e-12)
    np.testing.assert_allclose(hess[1][1][1][0], np.zeros((2, 3)))  # (d grad_z1 / d z0)
