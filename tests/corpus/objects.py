"""Objects of the user's classes made inside the differentiated function (frontend/objects.py),
written the way people write them: small model classes, distributions, accumulators, cells
with state, dataclasses, subclasses with super(), alternative constructors. Every case is
differentiated by the corpus tests in reverse and forward mode and to second order, against
finite differences."""

import dataclasses
import math

import numpy as np


class Gaussian:
    def __init__(self, mu, sigma):
        self.mu = mu
        self.sigma = sigma

    def logpdf(self, v):
        z = (v - self.mu) / self.sigma
        return -0.5 * z * z - np.log(self.sigma) - 0.5 * math.log(2.0 * math.pi)


DATA = np.array([0.3, -1.1, 0.8, 2.0])


def gaussian_likelihood(theta):
    g = Gaussian(theta[0], np.exp(theta[1]))
    return np.sum(g.logpdf(DATA))


@dataclasses.dataclass
class Linear:
    w: np.ndarray
    b: float = 0.0

    def __call__(self, X):
        return X @ self.w + self.b


X_DATA = np.array([[1.0, 2.0], [0.5, -1.0], [-0.3, 0.7]])


def dataclass_model(w, b):
    model = Linear(w, b=b)
    r = model(X_DATA) - np.array([1.0, 0.0, 2.0])
    return np.sum(r * r)


class Cell:
    def __init__(self, W, h0):
        self.W = W
        self.h = h0
        self.steps = 0

    def step(self, xt):
        self.h = np.tanh(self.W @ self.h + xt)
        self.steps += 1
        return self.h


def cell_with_state(W, xs):
    cell = Cell(W, np.zeros(2))
    for t in range(xs.shape[0]):
        cell.step(xs[t])
    return np.sum(cell.h * cell.h) / cell.steps


class Running:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, v):
        self.total += v
        self.count += 1
        return self

    @property
    def mean(self):
        return self.total / self.count

    @staticmethod
    def square(v):
        return v * v

    @classmethod
    def of(cls, v):
        r = cls()
        r.add(v)
        return r


def accumulator(x):
    r = Running()
    for i in range(x.shape[0]):
        r.add(Running.square(x[i]))
    return r.mean + Running.of(x[0]).total


class Shape:
    def __init__(self, scale):
        self.scale = scale

    def area(self, a):
        return self.scale * a


class Square(Shape):
    def __init__(self, scale, side):
        super().__init__(scale)
        self.side = side

    def area(self, a):
        return super().area(a) * self.side ** 2


def subclass_with_super(x):
    return Square(x, x * x + 1.0).area(2.0)


class Clipped:
    def __init__(self, v, limit=1.0):
        if v > limit:
            self.v = limit * np.sin(v)
        else:
            self.v = v * v
        self.limit = limit

    def value(self):
        return self.v * self.limit


def attribute_set_in_branches(x):
    return Clipped(x).value() + Clipped(0.5 * x, limit=2.0).value()


class Buffer:
    def __init__(self, n):
        self.buf = np.zeros(n)

    def put(self, i, v):
        self.buf[i] = v


def array_attribute_written(x):
    b = Buffer(3)
    for i in range(3):
        b.put(i, x[i] * (i + 1.0))
    return np.sum(b.buf ** 2)


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def prod(self):
        return self.a * self.b


def objects_made_in_loop(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        p = Pair(x[i], x[i + 1])
        s = s + p.prod()
    return s


def _energy(system, q):
    return 0.5 * system.k * q * q + system.m * math.cos(q)


class System:
    def __init__(self, k, m=1.0):
        self.k = k
        self.m = m

    def energy(self, q):
        return _energy(self, q)


def object_given_to_helper(k, q):
    return System(k, m=0.5).energy(q) + _energy(System(k * k), q)


@dataclasses.dataclass(frozen=True)
class Config:
    rate: float
    decay: float = 0.9


def frozen_dataclass(x):
    c = Config(x * 0.1)
    y = x
    for _ in range(3):
        y = y - c.rate * y * c.decay
    return y


class Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec2(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def dot(self, o):
        return self.x * o.x + self.y * o.y


def vector_operators(q):
    p, v = Vec2(q[0], q[1]), Vec2(0.5, -0.2)
    w = v + 0.1 * (-p * 2.0)
    p2 = p + w * 0.1
    p2 += w
    return p2.dot(p2) + (p2 - Vec2(1.0, 0.0)).dot(w)


def state_carried_by_a_loop(q):
    # (a new Vec2 every iteration: the loop carries its attributes, frontend/carried.py)
    p, w = Vec2(q[0], q[1]), Vec2(0.5, -0.25)
    for _ in range(4):
        p = p + w * p.dot(p) * 0.1
    return p.x * p.y


@dataclasses.dataclass
class Particle:
    x: float
    v: float

    def moved(self, k, dt):
        return Particle(self.x + dt * self.v, self.v - dt * k * np.sin(self.x))


def state_stepped_by_a_method_in_a_while(k, x0):
    s, t = Particle(x0, 0.0), 0.0
    while t < 1.0:
        s = s.moved(k, 0.125)
        t = t + 0.125
    return s.x * s.x + s.v


CASES = [
    (gaussian_likelihood, (np.array([0.2, -0.3]),)),
    (dataclass_model, (np.array([0.5, -0.4]), 0.3)),
    (cell_with_state, (np.array([[0.5, -0.2], [0.1, 0.4]]),
                       np.array([[0.3, -0.1], [0.2, 0.5], [-0.4, 0.1]]))),
    (accumulator, (np.array([0.5, -1.2, 2.0]),)),
    (subclass_with_super, (0.7,)),
    (attribute_set_in_branches, (1.3,)),
    (attribute_set_in_branches, (0.4,)),
    (array_attribute_written, (np.array([0.3, -0.7, 1.1]),)),
    (objects_made_in_loop, (np.array([0.3, -0.7, 1.1, 0.5]),)),
    (object_given_to_helper, (1.5, 0.4)),
    (frozen_dataclass, (0.8,)),
    (vector_operators, (np.array([0.3, -0.8]),)),
    (state_carried_by_a_loop, (np.array([0.3, -0.8]),)),
    (state_stepped_by_a_method_in_a_while, (1.3, 0.4)),
]
