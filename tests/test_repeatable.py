"""Jacobians and Hessians that srcad assembles from one jvp per column evaluate the function
once per column: a function that draws from a random generator that advances between calls
(a RandomState closed over, as in autograd's bbvi example) would mix draws across columns and
give a Jacobian of no single function. srcad checks that the evaluations agree and raises
NondeterministicError at the function's line otherwise; a generator seeded inside the
function gives the Hessian of that draw (checked against finite differences)."""

import numpy as np
import pytest

import srcad
from tests.oracle import fd_grad_richardson as fd

RS = np.random.RandomState(0)


def draws_from_a_global_generator(p):
    s = RS.randn(3) * np.exp(p[1]) + p[0]
    return np.sum(s ** 3)


def zero_at_the_point(p):
    return p * RS.randn(2)  # (at p = 0 the value never changes: the tangents do)


def seeded_inside(p):
    rs = np.random.RandomState(7)
    s = rs.randn(3) * np.exp(p[1]) + p[0]
    return np.sum(s ** 3)


def vector_draw(p):
    return RS.randn(2) * p + np.sin(p)


P = np.array([0.1, 0.2])


@pytest.mark.parametrize("make", [srcad.hessian, lambda f: srcad.jacfwd(srcad.grad(f))])
def test_a_generator_that_advances_is_refused(make):
    with pytest.raises(srcad.NondeterministicError, match="evaluates it once per column") as e:
        make(draws_from_a_global_generator)(P)
    assert e.value.filename.endswith("test_repeatable.py")
    assert e.value.lineno == draws_from_a_global_generator.__code__.co_firstlineno


def test_the_first_column_is_evaluated_again():
    with pytest.raises(srcad.NondeterministicError):
        srcad.jacfwd(zero_at_the_point, batched=False)(np.zeros(2))


def test_jacfwd_of_a_vector_function():
    with pytest.raises(srcad.NondeterministicError):
        srcad.jacfwd(vector_draw, batched=False)(P)


def test_a_generator_seeded_inside_gives_the_hessian_of_its_draw():
    H = srcad.hessian(seeded_inside)(P)
    fd_H = np.array([fd(lambda q, e=e: float(fd(seeded_inside, (q,)) @ e), (P,)) for e in np.eye(2)])
    assert H == pytest.approx(fd_H, rel=1e-5, abs=1e-6)
    assert H[0, 1] == pytest.approx(H[1, 0], rel=1e-12)
