"""A pytree object (a dataclass) that a transformation of srcad.grad does not differentiate
on: found by the fuzzer's pytree_obj feature (NF1:100, 521). jvp(grad(f, argnums=(0, 1)))
with a None tangent for the object gave the object's gradient as 0.0, silently."""

import collections
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


@dataclasses.dataclass
class R:
    w: np.ndarray
    b: float


def sum_times_b_or_linear(x, q):
    if x < 0.5:
        return np.sum(q.w) * q.b
    return x * q.w[1] + q.b


@pytest.mark.parametrize("x", [0.25, 0.75])
def test_the_hessian_in_an_object_with_an_early_return(x):
    # fuzzer 9501:705: the generated gradient named two dead temporaries `_zeros` (the
    # object's zeros, then an array's) on the two paths of an `if`, and the Hessian refused the
    # join in srcad's own code, without the user's location
    q = R(np.array([1.25, -0.5]), 0.75)
    (hxx, hxq), hq = srcad.hessian(sum_times_b_or_linear, argnums=(0, 1))(x, q)
    hwx, hwq = hq.w
    hbx, hbq = hq.b
    # hand-derived: x < 0.5: f = sum(w) b, so d2/dw db = 1 and the rest 0;
    # x >= 0.5: f = x w[1] + b, so d2/dx dw[1] = 1 and the rest 0
    cross = [0.0, 1.0] if x > 0.5 else [0.0, 0.0]
    wb = [0.0, 0.0] if x > 0.5 else [1.0, 1.0]
    assert hxx == 0.0 and np.allclose(hxq.w, cross) and hxq.b == 0.0
    assert np.allclose(hwx, cross) and np.allclose(hwq.w, np.zeros((2, 2))) and np.allclose(hwq.b, wb)
    assert hbx == 0.0 and np.allclose(hbq.w, wb) and hbq.b == 0.0


@dataclasses.dataclass
class Tagged:
    w: np.ndarray
    b: float
    tag: str = dataclasses.field(default="s", metadata={"static": True})


def sines_over_the_rows(p, y):
    s = 0.0
    for r in p.w:
        s = s + np.sin(r * y) * p.b
    return s


def test_jvp_of_a_gradient_carried_through_a_loop_keeps_the_object():
    # fuzzer 9501:570, 636: the gradient of p, carried through the backward loop, was split
    # into its items (passes/scalarize.py) and packed again as a plain tuple; jvp of the
    # gradient then saw the static field's str among the outputs (a NonScalarOutputError
    # without the user's location)
    w, b, y = np.array([0.3, -0.5]), 0.8, 0.7
    p, t = Tagged(w, b), Tagged(np.array([1.0, -2.0]), 0.5)
    (gp, gy), (tp, ty) = srcad.jvp(srcad.grad(sines_over_the_rows, argnums=(0, 1)), (p, y), (t, 1.0))
    assert isinstance(gp, Tagged) and isinstance(tp, Tagged) and tp.tag == "s"
    # hand-derived: f = b sum sin(w y); its gradient and that gradient's derivative along t
    c, s = np.cos(w * y), np.sin(w * y)
    assert np.allclose(gp.w, b * y * c) and np.isclose(gp.b, s.sum()) and np.isclose(gy, b * (w * c).sum())
    dw = -b * y * y * s * t.w + y * c * t.b + b * (c - w * y * s) * 1.0
    db = (y * c * t.w).sum() + (w * c).sum() * 1.0
    dy = (b * (c - w * y * s) * t.w).sum() + (w * c).sum() * t.b - b * (w * w * s).sum() * 1.0
    assert np.allclose(tp.w, dw) and np.isclose(tp.b, db) and np.isclose(ty, dy)
    h = srcad.hessian(sines_over_the_rows, argnums=(0, 1))(p, y)
    assert np.allclose(h[0].w[0].w, np.diag(-b * y * y * s)) and np.allclose(h[1][1], -b * (w * w * s).sum())


Pair = collections.namedtuple("Pair", "a b")


def second_if_positive(p, q, x):
    r = p
    for _ in range(2):
        r = q if x > 0.0 else r
    return r


def test_a_named_tuple_carried_through_a_loop_stays_one():
    # the same splitting packed a named tuple output again as a plain tuple
    p, q = Pair(1.0, 2.0), Pair(3.0, 4.0)
    out, tangent = srcad.jvp(second_if_positive, (p, q, 0.5), (Pair(1.0, 0.0), Pair(0.0, 1.0), 0.0))
    assert isinstance(out, Pair) and isinstance(tangent, Pair)
    assert tuple(out) == (3.0, 4.0) and tuple(tangent) == (0.0, 1.0)  # the output is q: its tangent
