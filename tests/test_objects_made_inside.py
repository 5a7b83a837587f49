"""Objects of the user's classes made inside the differentiated function (frontend/objects.py):
Python's semantics (aliases, attributes assigned on some paths, class attributes, properties),
the refusals, each at the user's line, and generated code that holds no object. The
derivatives of tests/corpus/objects.py are checked by the corpus tests."""

import dataclasses

import numpy as np
import pytest
from oracle import fd_grad, fd_jvp

import srcad


class Point:
    dims = 2  # (a class attribute: read when the code runs)

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y

    @property
    def total(self):
        return self.x + self.y


def through_an_alias(v):
    p = Point(v[0], v[1])
    q = p
    q.x = q.x * 3.0  # (p sees it: one object)
    return p.norm2() + p.total * Point.dims + p.dims


def test_an_alias_writes_the_same_object():
    v = np.array([0.4, -1.3])
    x, y = v
    want = np.array([18.0 * x + 6.0, 2.0 * y + 2.0])  # 9x^2 + y^2 + 2 (3x + y) + 2, by hand
    np.testing.assert_allclose(srcad.grad(through_an_alias)(v), want, rtol=1e-14)
    code = [ln for ln in srcad.source(srcad.grad(through_an_alias)).splitlines() if "#" not in ln]
    assert not any("Point(" in ln or "norm2" in ln for ln in code)  # (inlined: no object in the code)


def assigned_in_one_branch(x, c):
    p = Point(x, x)
    if c > 0:
        p.extra = x * x
    return p.extra + p.x


def test_an_attribute_assigned_on_some_paths_raises_where_python_does():
    assert srcad.grad(assigned_in_one_branch)(1.5, 1.0) == pytest.approx(4.0, rel=1e-15)
    with pytest.raises(AttributeError):
        assigned_in_one_branch(1.5, -1.0)
    with pytest.raises(UnboundLocalError):  # (the read of the unassigned attribute raises)
        srcad.grad(assigned_in_one_branch)(1.5, -1.0)


def returned(x):
    return Point(x, x)


def kept_in_a_list(x):
    ps = [Point(x, 1.0), Point(1.0, x)]
    return ps[0].norm2()


def appended_to_a_list(x):
    ps = [Point(x, 1.0)]
    ps.append(Point(1.0, x))
    return ps[0].norm2() + ps[1].norm2()


def filled_in_a_loop(x):
    ps = {}
    for i in range(2):
        ps[i] = Point(x * (i + 1), 1.0)
    return ps[0].norm2() + 10.0 * ps[1].norm2()


def chosen_by_a_branch(x):  # (not assigned to a name: `p = A if c else B` is joined, carried.py)
    p = 2.0 * (Point(x, 1.0) if x > 0 else Point(1.0, x)).norm2()
    return p


def given_to_a_library_function(x):
    p = Point(x, 1.0)
    return float(np.sum(np.asarray([p.x]))) + len(repr(p))


class OwnNew:
    def __new__(cls, *args):
        return super().__new__(cls)

    def __init__(self, a):
        self.a = a


def own_new(x):
    return OwnNew(x).a


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float


def frozen_write(x):
    f = Frozen(x)
    f.a = 2.0 * x
    return f.a


def method_replaced(x):
    p = Point(x, x)
    n = p.norm2()
    p.norm2 = lambda: 0.0
    return n + p.norm2()


class Counter:
    step = 1.0  # (read through the object until an instance attribute hides it)


def class_default_then_instance(x):
    c = Counter()
    s = 0.0
    for i in range(3):
        s = s + c.step * x  # (the class's 1.0 in the first iteration)
        c.step = x * (i + 2)
    return s + Counter.step


class Optimizer:
    lr = 0.1

    def __init__(self, lr=None):
        if lr is not None:
            self.lr = lr

    def step(self, w, g):
        return w - self.lr * g


def optional_override(w, lr):
    return np.sum(Optimizer().step(w, w) ** 2) + np.sum(Optimizer(lr).step(w, w) ** 2)


def test_class_attributes_until_the_instance_has_its_own():
    x = 0.6
    assert srcad.grad(class_default_then_instance)(x) == pytest.approx(1.0 + 10.0 * x, rel=1e-14)  # x + 5x^2
    w, lr = np.array([1.0, -2.0]), 0.5
    np.testing.assert_allclose(srcad.grad(optional_override)(w, lr), 2.0 * (0.9 ** 2 + (1 - lr) ** 2) * w,
                               rtol=1e-14)
    assert srcad.grad(optional_override, argnums=1)(w, lr) == pytest.approx(
        fd_grad(optional_override, (w, lr), 1), rel=1e-6)


@pytest.mark.parametrize("fn,text,line", [
    # (an object the generated code would hold is made when the code runs, as before srcad made
    # objects while transforming: an error where a differentiated value meets it)
    (returned, "need not hold it", 1),
    (kept_in_a_list, "need not hold it", 2),
    (chosen_by_a_branch, "need not hold it", 1),
    (given_to_a_library_function, "need not hold it", 2),
    (own_new, "no derivative rule", 1),
    # (a container of objects made inside that grows or changes: named as such, not as the caller's)
    (appended_to_a_list, "holding objects of your class made inside the function", 2),
    (filled_in_a_loop, "holding objects of your class made inside the function", 3),
    # (what srcad cannot do with an object made inside: made when the code runs, as before)
    (frozen_write, "can only assign to local variables", 2),
    (method_replaced, "can only assign to local variables", 3),
])
def test_refusals_name_the_users_line(fn, text, line):
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(fn)(0.7)
    d = err.value.diagnostics[0]
    assert text in str(err.value) + d.hint
    assert d.file == fn.__code__.co_filename and d.line == fn.__code__.co_firstlineno + line


class Timer:
    def __init__(self):
        self.ticks = 0


def object_in_aux(x):
    return np.sum(x * x), {"timer": Timer(), "n": x.shape[0]}


def test_an_object_the_code_holds_but_nothing_differentiates_is_made_when_the_code_runs():
    x = np.array([1.0, -2.0])
    g, aux = srcad.grad(object_in_aux, has_aux=True)(x)
    np.testing.assert_allclose(g, 2.0 * x, rtol=1e-15)
    assert isinstance(aux["timer"], Timer) and aux["timer"].ticks == 0 and aux["n"] == 2


class Stepper:
    def __init__(self, rate):
        self.rate = rate
        self.history = []

    def step(self, y):
        self.history.append(y)
        return y - self.rate * y * y


def list_attribute(y0, rate):
    s = Stepper(rate)
    y = y0
    for _ in range(4):
        y = s.step(y)
    return y + 0.5 * sum(s.history)


def test_a_list_attribute_and_forward_mode_against_finite_differences():
    for k in (0, 1):
        args = (0.6, 0.3)
        g = srcad.grad(list_attribute, argnums=k)(*args)
        assert g == pytest.approx(fd_grad(list_attribute, args, k), rel=1e-6)
        tangents = (1.0, 0.0) if k == 0 else (0.0, 1.0)
        assert srcad.jvp(list_attribute, args, tangents)[1] == pytest.approx(g, rel=1e-12)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def prod(self):
        return self.a * self.b


@dataclasses.dataclass
class Counted:
    a: float
    n: int = dataclasses.field(init=False, default=3)


def slots_and_a_field_left_out_of_init(x):
    s = Slotted(x[0], x[1])
    s.b = s.b * 2.0
    return s.prod() + Counted(x[0]).n * x[1]


def test_slots_and_fields_left_out_of_init():
    x = np.array([0.7, -1.3])
    want = np.array([2.0 * x[1], 2.0 * x[0] + 3.0])  # 2 x0 x1 + 3 x1, by hand
    np.testing.assert_allclose(srcad.grad(slots_and_a_field_left_out_of_init)(x), want, rtol=1e-15)


@dataclasses.dataclass
class Scaled:
    a: float
    scale: dataclasses.InitVar[float] = 1.0
    b: float = 0.5

    def __post_init__(self, scale):
        self.a = self.a * scale


def init_only_variable(x):
    return Scaled(x[0], 3.0).a + Scaled(x[1]).a * Scaled(x[0], b=x[1]).b


def test_init_only_variables_reach_post_init():
    x = np.array([0.7, -1.3])
    want = np.array([3.0, 2.0 * x[1]])  # 3 x0 + x1 * x1, by hand
    np.testing.assert_allclose(srcad.grad(init_only_variable)(x), want, rtol=1e-15)


class Walker:
    def __init__(self, x, t):
        self.x = x
        self.t = t

    def moved(self, r):
        return Walker(self.x * (1.0 - r * self.x), self.t + 0.25)


def kept_from_a_loop(x, r):  # (an iteration's object outlives it: refused)
    w, keep = Walker(x, 0.0), None
    for i in range(3):
        w = w.moved(r)
        if i == 1:
            keep = w
    return w.x + keep.x


def walked(x, r):
    w = Walker(x, 0.0)
    for _ in range(3):
        w = w.moved(r)
    return w.x


def test_what_one_function_needs_does_not_change_how_another_is_transformed():
    """An object-making line marked, for one function, to make its object when the code runs
    stays as it was for the next function (refusals do not depend on what ran before)."""
    want = fd_grad(walked, (0.4, 0.3))
    with pytest.raises(srcad.SrcadError):
        srcad.grad(kept_from_a_loop)(0.4, 0.3)
    np.testing.assert_allclose(srcad.grad(walked)(0.4, 0.3), want, rtol=1e-7)


class Dense:
    def __init__(self, W, act=np.tanh):
        self.W = W
        self.act = act

    def __call__(self, h):
        return self.act(h @ self.W)


class Acc:
    def __init__(self, v):
        self.v = v


def layers_in_a_display(W1, W2, x):
    h = x
    for layer in [Dense(W1), Dense(W2, np.sin)]:
        h = layer(h)
    return np.sum(h ** 2)


def layers_by_name_with_continue(W1, W2, x):
    layers = (Dense(W1), Dense(W2), Dense(W1.T))
    h = x
    for layer in layers:
        if np.sum(layer.W) > 100.0:
            continue
        h = layer(h) + h
    return np.sum(h)


def objects_written_through_the_loop(W1, W2, x):
    a, b = Acc(np.sum(W1 * x)), Acc(1.0)
    for c in [a, b]:
        c.v = c.v + np.sum(W2) * c.v
    return a.v * b.v


def layers_from_a_comprehension(W1, W2, x):
    h = x
    for layer in [Dense(W1 * (k + 1)) for k in range(2)]:  # (over a range of literals: one object each)
        h = layer(h) + h
    return np.sum(h) + sum(np.sum(layer.W) for layer in [Dense(W) for W in (W2, W1)])


def two_loops_one_target(W1, W2, x):  # (the target names an object before the second loop)
    layers = [Dense(W1 * (k + 1.0)) for k in range(2)]
    more = [Dense(W2.T * s, np.sin) for s in (0.5, 1.5)]  # (over a tuple of literals)
    h = x
    for layer in layers:
        h = layer(h)
    for layer in more:
        h = layer(h) + h
    for layer in layers:
        h = layer(h)
    return np.sum(h ** 2) + np.sum(layer.W)


@pytest.mark.parametrize("fn", [layers_in_a_display, layers_by_name_with_continue,
                                objects_written_through_the_loop, layers_from_a_comprehension,
                                two_loops_one_target])
def test_a_loop_over_objects_made_inside_runs_once_per_object(fn):
    rng = np.random.default_rng(5)
    args = (rng.normal(size=(2, 2)) * 0.5, rng.normal(size=(2, 2)) * 0.5, np.array([0.3, -0.8]))
    for argnum in range(3):
        np.testing.assert_allclose(srcad.grad(fn, argnums=argnum)(*args), fd_grad(fn, args, argnum),
                                   rtol=1e-6, atol=1e-8)
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    value, tangent = srcad.jvp(fn, args, tangents)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-14)
    np.testing.assert_allclose(tangent, fd_jvp(fn, args, tangents), rtol=1e-6, atol=1e-8)


def layers_with_break(W1, x):
    h = x
    for layer in [Dense(W1), Dense(W1)]:
        h = layer(h)
        if np.sum(h) > 0.0:
            break
    return np.sum(h)


def test_a_loop_over_objects_with_break_stays_refused():
    with pytest.raises(srcad.SrcadError):
        srcad.grad(layers_with_break)(np.eye(2), np.array([0.3, -0.8]))
