"""Objects made inside the function and carried by a loop or chosen by an if
(frontend/carried.py): `s = s.step()` in a loop's body, `if c: g = G(b)`. Gradients, forward
derivatives and Hessians against finite differences; the cases where the attributes cannot
stand for the object (another reference to it, an iteration ending with the name on something
else) refuse or make the object when the code runs, and never give a derivative that differs
from finite differences."""

import dataclasses

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


@dataclasses.dataclass
class State:
    pos: np.ndarray
    vel: np.ndarray

    def step(self, k, dt):
        return State(self.pos + dt * self.vel, self.vel - dt * k * self.pos)

    def energy(self, k):
        return 0.5 * np.sum(self.vel ** 2) + 0.5 * k * np.sum(self.pos ** 2)


class Walker:  # (a plain class: attributes assigned in __init__)
    def __init__(self, x, t):
        self.x = x
        self.t = t

    def moved(self, rate):
        return Walker(self.x * (1.0 - rate * self.x), self.t + 0.25)


def method_steps(k, x0):
    s = State(x0, np.zeros_like(x0))
    for _ in range(10):
        s = s.step(k, 0.1)
    return s.energy(k)


def built_in_the_body(k, x0):
    s = State(x0, np.zeros_like(x0))
    for i in range(6):
        s = State(s.pos + 0.1 * s.vel, s.vel - 0.1 * k * s.pos * (1.0 + 0.1 * i))
    return np.sum(s.pos ** 2) + s.vel[0]


def while_on_an_attribute(x, rate):
    w = Walker(x, 0.0)
    while w.t < 2.0:
        w = w.moved(rate)
    return w.x + w.t


def while_true_break(x, rate):
    w = Walker(x, 0.0)
    while True:
        w = w.moved(rate)
        if w.t >= 1.0:
            break
    return w.x


def mutated_then_rebound(x, rate):
    w = Walker(x, 0.0)
    for _ in range(3):
        w.x = w.x + rate  # (mutates the object the name refers to, then replaces it)
        w = w.moved(rate)
    return w.x * w.t


def nested_loops(x, rate):
    w = Walker(x, 0.0)
    for _ in range(2):
        for _ in range(3):
            w = w.moved(rate)
        w = Walker(w.x * 0.5, w.t)
    return w.x


def through_a_temporary(x, rate):
    w = Walker(x, 0.0)
    for _ in range(3):
        new = w.moved(rate)
        w = new
    return w.x


def zero_iterations(x, rate, n):
    w = Walker(x, 1.0)
    for _ in range(n):
        w = w.moved(rate)
    w.x = w.x * w.t
    return w.x


CASES = [
    (method_steps, (2.0, np.array([1.0, 0.5]))),
    (built_in_the_body, (1.5, np.array([0.3, -0.8, 1.1]))),
    (while_on_an_attribute, (0.4, 0.3)),
    (while_true_break, (0.4, 0.3)),
    (mutated_then_rebound, (0.4, 0.3)),
    (nested_loops, (0.4, 0.3)),
    (through_a_temporary, (0.4, 0.3)),
    (zero_iterations, (0.4, 0.3, 0)),
    (zero_iterations, (0.4, 0.3, 2)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_against_finite_differences(fn, args):
    for argnum in (0, 1):
        got = srcad.grad(fn, argnums=argnum)(*args)
        np.testing.assert_allclose(got, fd_grad_richardson(fn, list(args), argnum), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("fn,args", CASES[:4], ids=lambda c: getattr(c, "__name__", ""))
def test_forward_mode_and_second_order(fn, args):
    x = args[1]
    tangent = np.ones_like(x) if isinstance(x, np.ndarray) else 1.0
    _, got = srcad.jvp(lambda v: fn(args[0], v), (x,), (tangent,))
    want = np.sum(fd_grad_richardson(fn, list(args), 1) * tangent)
    np.testing.assert_allclose(got, want, rtol=1e-7)
    g = lambda a: fd_grad_richardson(fn, [a] + list(args[1:]), 0)  # noqa: E731 (no srcad in the oracle)
    h = srcad.hessian(fn, argnums=0)(*args)
    np.testing.assert_allclose(h, (g(args[0] + 1e-3) - g(args[0] - 1e-3)) / 2e-3, rtol=1e-5)


def source_has_no_object(fn, args):
    g = srcad.grad(fn)
    g(*args)
    code = [line for line in srcad.source(g).splitlines() if not line.strip().startswith("#")]
    return not any("Walker" in line or "State" in line for line in code)


def test_the_generated_code_carries_numbers_not_objects():
    assert source_has_no_object(method_steps, (2.0, np.array([1.0, 0.5])))
    assert source_has_no_object(while_on_an_attribute, (0.4, 0.3))


# -- where the loop cannot carry the attributes in the object's place ----------------------------

def another_reference(x, rate):
    w = Walker(x, 0.0)
    first = w  # (`first` must keep the object the loop starts from)
    for _ in range(3):
        w = w.moved(rate)
    return w.x + first.x


def rebound_on_some_iterations(x, rate):
    w = Walker(x, 0.0)
    for i in range(4):
        if i % 2 == 0:
            w = w.moved(rate)
    return w.x


def rebound_to_another_class(x, rate):
    w = Walker(x, 0.0)
    for _ in range(2):
        w = State(w.x, w.t)
        w = Walker(w.pos, w.vel)
    return w.x


def rebound_to_fewer_attributes(x, rate):
    w = Walker(x, 0.0)
    w.extra = rate
    for _ in range(2):
        w = w.moved(rate)  # (no `extra`)
    return w.x


def given_a_new_attribute(x, rate):
    w = Walker(x, 0.0)
    for i in range(3):
        if i > 0:
            x = x + w.extra  # (AttributeError in Python on the second iteration)
        w.extra = rate
        w = w.moved(rate)
    return w.x + x


def an_alias_in_the_body(x, rate):
    w = Walker(x, 0.0)
    total = 0.0
    for _ in range(3):
        before = w
        w = w.moved(rate)
        before.x = before.x * 2.0  # (the object `w` referred to, not the new one)
        total = total + before.x * w.x
    return total + w.x


@pytest.mark.parametrize("fn", [another_reference, rebound_on_some_iterations, rebound_to_another_class,
                                rebound_to_fewer_attributes, an_alias_in_the_body])
def test_what_cannot_be_carried_is_exact_or_refused(fn):
    args = (0.4, 0.3)
    try:
        got = srcad.grad(fn)(*args)
    except srcad.SrcadError as e:
        assert e.diagnostics and e.diagnostics[0].file == fn.__code__.co_filename
        return
    np.testing.assert_allclose(got, fd_grad_richardson(fn, list(args), 0), rtol=1e-7)


def test_a_new_attribute_on_the_carried_object_raises_as_python_does():
    with pytest.raises(AttributeError):
        given_a_new_attribute(0.4, 0.3)
    with pytest.raises((srcad.SrcadError, AttributeError)):
        srcad.grad(given_a_new_attribute)(0.4, 0.3)


# -- objects an if chooses -----------------------------------------------------------------------

def replaced_on_one_branch(x, rate):
    w = Walker(x, 0.0)
    if x > 0.3:
        w = w.moved(rate)
    return w.x * (1.0 + w.t)


def made_on_both_branches(x, rate):
    if x * rate > 0.1:
        w = Walker(x * rate, 1.0)
    else:
        w = Walker(x - rate, 2.0)
    return w.x * w.t


def chosen_by_elif_chains_in_a_loop(x, rate):
    w = Walker(x, 0.0)
    for i in range(5):
        if i % 3 == 0:
            w = w.moved(rate)
        elif i % 3 == 1:
            w = Walker(w.x * 0.5 + rate, w.t)
    return w.x + w.t


def dataclass_state_chosen(k, x0):
    s = State(x0, np.zeros_like(x0))
    for i in range(4):
        if i % 2 == 0:
            s = s.step(k, 0.1)
    return s.energy(k)


def chosen_by_a_conditional_expression(x, rate):
    w = Walker(x * rate, 1.0) if x > 0.3 else (Walker(x - rate, 2.0) if x > 0.1 else Walker(x, 0.5))
    return w.x * w.t


def chosen_by_a_conditional_expression_of_an_older_one(x, rate):
    w = Walker(x, 0.0)
    w = w.moved(rate) if x > 0.3 else w
    return w.x + w.t


IF_CASES = [
    (chosen_by_a_conditional_expression, (0.4, 0.3)),
    (chosen_by_a_conditional_expression, (0.2, 0.3)),
    (chosen_by_a_conditional_expression, (0.05, 0.3)),
    (chosen_by_a_conditional_expression_of_an_older_one, (0.4, 0.3)),
    (chosen_by_a_conditional_expression_of_an_older_one, (0.2, 0.3)),
    (replaced_on_one_branch, (0.4, 0.3)),
    (replaced_on_one_branch, (0.2, 0.3)),
    (made_on_both_branches, (0.4, 0.3)),
    (made_on_both_branches, (0.2, 0.3)),
    (chosen_by_elif_chains_in_a_loop, (0.4, 0.3)),
    (dataclass_state_chosen, (2.0, np.array([1.0, 0.5]))),
]


@pytest.mark.parametrize("fn,args", IF_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_objects_chosen_by_an_if_against_finite_differences(fn, args):
    for argnum in (0, 1):
        got = srcad.grad(fn, argnums=argnum)(*args)
        np.testing.assert_allclose(got, fd_grad_richardson(fn, list(args), argnum), rtol=1e-7, atol=1e-10)
    assert source_has_no_object(fn, args)


def other_name_sees_the_change(x, rate):
    w = Walker(x, 0.0)
    first = w
    if x > 0.3:
        w = Walker(x * 2.0, 1.0)
    w.x = w.x + rate  # (changes `first` too when the if did not replace w)
    return first.x * w.t + w.x


def rebound_to_an_older_object(x, rate):
    a, b = Walker(x, 0.0), Walker(rate, 1.0)
    w = a
    if x > 0.3:
        w = b
    b.x = b.x * 3.0  # (w sees it when it is b)
    return w.x * x


def rebound_to_an_older_object_in_a_loop(x, rate):
    a, b = Walker(x, 0.0), Walker(rate, 1.0)
    w = a
    for _ in range(2):
        w = b
        b.x = b.x * 3.0  # (w sees it)
    return w.x * x


@pytest.mark.parametrize("fn", [other_name_sees_the_change, rebound_to_an_older_object,
                                rebound_to_an_older_object_in_a_loop])
@pytest.mark.parametrize("x", [0.4, 0.2])
def test_an_object_also_referred_to_elsewhere_is_exact_or_refused(fn, x):
    try:
        got = srcad.grad(fn)(x, 0.3)
    except srcad.SrcadError as e:
        assert e.diagnostics and e.diagnostics[0].file == fn.__code__.co_filename
        return
    np.testing.assert_allclose(got, fd_grad_richardson(fn, [x, 0.3], 0), rtol=1e-7)
