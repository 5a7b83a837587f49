"""A pytree object (a dataclass) that a transformation of srcad.grad does not differentiate
on: found by the fuzzer's pytree_obj feature (NF1:100, 521). jvp(grad(f, argnums=(0, 1)))
with a None tangent for the object gave the object's gradient as 0.0, silently."""

import dataclasses

import numpy as np
import pytest

import srcad


@dataclasses.dataclass
class P:
    w: np.ndarray


def cubic(x, p):
    return x * np.sum(p.w ** 3)


P0 = P(np.array([1.0, 2.0]))


def test_a_nested_gradient_in_an_object_given_as_itself_is_refused_not_zero():
    with pytest.raises(srcad.TypeSupportError, match="argument p is a P object"):
        srcad.jvp(srcad.grad(cubic, argnums=(0, 1)), (0.5, P0), (1.0, None))


def test_hessian_in_a_float_and_an_object():
    # hand-derived: d2/dx2 = 0, d2/dx dw = 3 w**2, d2/dw2 = diag(6 x w)
    # (nested as JAX's: the gradient's structure outside, then the tuple of argnums)
    (hxx, hxp), hp = srcad.hessian(cubic, argnums=(0, 1))(0.5, P0)
    hpx, hpp = hp.w
    assert hxx == 0.0
    assert np.allclose(hxp.w, [3.0, 12.0]) and np.allclose(hpx, [3.0, 12.0])
    assert np.allclose(hpp.w, np.diag([3.0, 6.0]))
    # with a zero tangent given for the object, jvp of the gradient is right too
    (gx, gp), (tx, tp) = srcad.jvp(srcad.grad(cubic, argnums=(0, 1)), (0.5, P0), (1.0, P(np.zeros(2))))
    assert gx == pytest.approx(9.0) and np.allclose(gp.w, [1.5, 6.0]) and np.allclose(tp.w, [3.0, 12.0])


@dataclasses.dataclass
class Q:
    w: np.ndarray
    b: float


def squared_or_b(q, y):
    return np.sum(q.w) ** 2 if y > 0.0 else q.b


def test_the_hessian_in_an_object_keeps_its_structure_through_a_branch():
    # fuzzer NF1:245 and others: a tuple of objects instead of an object of objects
    q = Q(np.array([-1.5]), 0.75)
    for h in (srcad.hessian(squared_or_b)(q, 0.5), srcad.jacfwd(srcad.grad(squared_or_b))(q, 0.5)):
        assert isinstance(h, Q) and isinstance(h.w, Q) and isinstance(h.b, Q)
        # hand-derived: d2/dw2 = 2, the rest 0 (f = sum(w)**2 on this branch)
        assert np.allclose(h.w.w, [[2.0]]) and np.allclose(h.w.b, [0.0])
        assert np.allclose(h.b.w, [0.0]) and h.b.b == 0.0
