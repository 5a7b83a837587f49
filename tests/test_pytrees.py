"""Objects as differentiated arguments (issue 13, item 4): dataclasses and named tuples are
containers of their fields, any other class is one once registered with
`srcad.register_pytree(cls, flatten, unflatten)`. Gradients, tangents, Jacobians and Hessians
come back as the same class; inside the function the object is read by attribute, method,
property and `__call__`, exactly.

The oracle never uses srcad: objects are turned into flat vectors by the helpers below (from
dataclasses.fields and the registered flatten), and finite differences are taken on those."""

import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import srcad

RNG = np.random.default_rng(7)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata={"static": True})

    def __call__(self, x):
        z = self.W @ x + self.b
        return np.tanh(z) if self.act == "tanh" else z

    @property
    def n_out(self):
        return self.W.shape[0]


@dataclasses.dataclass
class Net:
    layers: list
    scale: float

    def loss(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return self.scale * np.sum(h ** 2)


class Affine(NamedTuple):
    A: np.ndarray
    c: float

    def apply(self, x):
        return self.A @ x + self.c


class Gaussian:
    """A registered class: its children are (mean, log_std); `name` is a constant."""

    def __init__(self, mean, log_std, name="q"):
        self.mean, self.log_std, self.name = mean, log_std, name

    def std(self):
        return np.exp(self.log_std)


srcad.register_pytree(Gaussian, lambda g: ((g.mean, g.log_std), g.name),
                      lambda name, children: Gaussian(children[0], children[1], name))


def net_loss(net, x):
    return net.loss(x) + net.layers[0].n_out


def affine_loss(a, x):
    return np.sum(np.sin(a.apply(x)))


def kl(q, x):
    s = q.std()
    return np.sum(s ** 2 + q.mean ** 2 - 2.0 * q.log_std) * 0.5 + np.sum(x * q.mean)


@dataclasses.dataclass
class Scale:
    s: float

    def __call__(self, x):
        return self.s * x


def through_layers(layers, x):
    h = x
    for layer in layers:  # (a Layer or a Scale: an if chain on the class when the code runs)
        h = layer(h)
    return np.sum(h ** 2)


def nested(p, x):
    return p["net"].scale * np.sum(p["q"].mean * x) + np.sum(p["pairs"][0].A)


def make_net():
    return Net([Layer(RNG.normal(size=(4, 3)), RNG.normal(size=4)),
                Layer(RNG.normal(size=(2, 4)), RNG.normal(size=2), act="linear")], 0.7)


X = RNG.normal(size=3)

# -- an oracle that does not use srcad ------------------------------------------------------


def leaves(p):
    """The float leaves of p, in srcad's order (fields, or the registered children)."""
    if dataclasses.is_dataclass(p):
        return [leaf for f in dataclasses.fields(p) if not f.metadata.get("static")
                for leaf in leaves(getattr(p, f.name))]
    if isinstance(p, Gaussian):
        return leaves(p.mean) + leaves(p.log_std)
    if isinstance(p, dict):
        return [leaf for v in p.values() for leaf in leaves(v)]
    if isinstance(p, (list, tuple)):
        return [leaf for v in p for leaf in leaves(v)]
    return [p]


def vector(p) -> np.ndarray:
    return np.concatenate([np.ravel(np.asarray(leaf, dtype=float)) for leaf in leaves(p)])


def rebuild(p, v):
    """p with its float leaves taken from the vector v (in order)."""
    pos = [0]

    def take(x):
        if dataclasses.is_dataclass(x):
            return dataclasses.replace(x, **{f.name: take(getattr(x, f.name)) for f in dataclasses.fields(x)
                                             if not f.metadata.get("static")})
        if isinstance(x, Gaussian):
            return Gaussian(take(x.mean), take(x.log_std), x.name)
        if isinstance(x, dict):
            return {k: take(e) for k, e in x.items()}
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*[take(e) for e in x])
        if isinstance(x, (list, tuple)):
            return type(x)(take(e) for e in x)
        n = int(np.size(x))
        out = v[pos[0]: pos[0] + n]
        pos[0] += n
        return out.reshape(np.shape(x)) if isinstance(x, np.ndarray) else float(out[0])

    return take(p)


def fd_gradient(f, p, x, eps=1e-6):
    v0 = vector(p)
    out = np.zeros_like(v0)
    for k in range(v0.size):
        e = np.zeros_like(v0)
        e[k] = eps
        out[k] = (f(rebuild(p, v0 + e), x) - f(rebuild(p, v0 - e), x)) / (2 * eps)
    return out


def same_structure(got, like):
    """got is an object of like's class with like's constants, at every level (a float leaf
    may be a NumPy scalar or an array of shape ())."""
    if not isinstance(like, (list, tuple, dict, Gaussian)) and not dataclasses.is_dataclass(like):
        assert np.shape(got) == np.shape(like) and not isinstance(got, (list, tuple, dict))
        return
    assert type(got) is type(like), (type(got), type(like))
    if dataclasses.is_dataclass(like):
        for f in dataclasses.fields(like):
            if f.metadata.get("static"):
                assert getattr(got, f.name) == getattr(like, f.name)
            else:
                same_structure(getattr(got, f.name), getattr(like, f.name))
    elif isinstance(like, Gaussian):
        assert got.name == like.name
    elif isinstance(like, dict):
        for k in like:
            same_structure(got[k], like[k])
    elif isinstance(like, (list, tuple)):
        assert len(got) == len(like)
        for a, b in zip(got, like):
            same_structure(a, b)


CASES = [
    ("dataclass with a list of dataclasses", net_loss, make_net),
    ("named tuple with a method", affine_loss, lambda: Affine(RNG.normal(size=(3, 3)), 0.3)),
    ("registered class", kl, lambda: Gaussian(RNG.normal(size=3), RNG.normal(size=3) * 0.1, "post")),
    ("list of objects of two classes", through_layers,
     lambda: [Layer(RNG.normal(size=(3, 3)), RNG.normal(size=3)), Scale(0.7),
              Layer(np.eye(3), np.zeros(3), "x")]),
    ("dict of objects", nested, lambda: {"net": make_net(), "q": Gaussian(RNG.normal(size=3), np.zeros(3)),
                                         "pairs": [Affine(np.eye(3), 1.0)]}),
]


@pytest.mark.parametrize("name,f,make", CASES, ids=[c[0] for c in CASES])
def test_gradients_come_back_as_the_class_and_match_finite_differences(name, f, make):
    p = make()
    want = fd_gradient(f, p, X)
    g = srcad.grad(f)(p, X)
    same_structure(g, p)
    np.testing.assert_allclose(vector(g), want, rtol=1e-5, atol=1e-7)
    value, g2 = srcad.value_and_grad(f)(p, X)
    np.testing.assert_allclose(value, f(p, X))
    np.testing.assert_allclose(vector(g2), want, rtol=1e-5, atol=1e-7)
    out, vjp_fn = srcad.vjp(f, p, X)
    (c, _) = vjp_fn(1.0)
    same_structure(c, p)
    np.testing.assert_allclose(vector(c), want, rtol=1e-5, atol=1e-7)
    j = srcad.jacrev(f)(p, X)
    same_structure(j, p)
    np.testing.assert_allclose(vector(j), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name,f,make", CASES, ids=[c[0] for c in CASES])
def test_forward_mode_takes_tangents_of_the_class(name, f, make):
    p = make()
    u = rebuild(p, RNG.normal(size=vector(p).size))
    want = float(fd_gradient(f, p, X) @ vector(u))
    out, tangent = srcad.jvp(f, (p, X), (u, None))
    np.testing.assert_allclose(out, f(p, X))
    np.testing.assert_allclose(tangent, want, rtol=1e-5, atol=1e-7)
    jf = srcad.jacfwd(f)(p, X)
    same_structure(jf, p)
    np.testing.assert_allclose(vector(jf), fd_gradient(f, p, X), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name,f,make", CASES, ids=[c[0] for c in CASES])
def test_second_order_matches_finite_differences_of_gradients(name, f, make):
    p = make()
    n = vector(p).size
    u, v = RNG.normal(size=n), RNG.normal(size=n)
    eps = 1e-5
    # the oracle: finite differences of finite-difference gradients along v, read along u
    fd_hv = (fd_gradient(f, rebuild(p, vector(p) + eps * v), X, 1e-4)
             - fd_gradient(f, rebuild(p, vector(p) - eps * v), X, 1e-4)) / (2 * eps)
    want = float(u @ fd_hv)
    hv = srcad.hvp(f, (p, X), (rebuild(p, v), None))
    same_structure(hv, p)
    np.testing.assert_allclose(float(u @ vector(hv)), want, rtol=2e-3, atol=1e-4)
    gg = srcad.jvp(srcad.grad(f), (p, X), (rebuild(p, v), None))[1]  # (grad of grad, forward)
    same_structure(gg, p)
    np.testing.assert_allclose(float(u @ vector(gg)), want, rtol=2e-3, atol=1e-4)
    H = srcad.hessian(f)(p, X)  # (an object of p's class of objects of p's class, as JAX nests)
    np.testing.assert_allclose(quadratic(H, p, rebuild(p, u), rebuild(p, v)), want, rtol=2e-3, atol=1e-4)


def quadratic(H, p, u, v) -> float:
    """u . H v for a Hessian nested as p's structure (rows) of p's structure (blocks)."""
    rows, us, vs = leaves_like(H, p), leaves(u), leaves(v)
    total = 0.0
    for row, ui in zip(rows, us):
        same_structure_of(row, p)
        for block, vj in zip(leaves_like(row, p), vs):
            inner = np.tensordot(np.asarray(block), np.asarray(vj), axes=np.ndim(vj))
            total += float(np.tensordot(np.asarray(ui), inner, axes=np.ndim(ui)))
    return total


def leaves_like(h, p):
    """The items of h at the places of p's leaves (h has p's structure; its items may be anything)."""
    if dataclasses.is_dataclass(p):
        return [o for fl in dataclasses.fields(p) if not fl.metadata.get("static")
                for o in leaves_like(getattr(h, fl.name), getattr(p, fl.name))]
    if isinstance(p, Gaussian):
        return leaves_like(h.mean, p.mean) + leaves_like(h.log_std, p.log_std)
    if isinstance(p, dict):
        return [o for k in p for o in leaves_like(h[k], p[k])]
    if isinstance(p, (list, tuple)):
        return [o for a, b in zip(h, p) for o in leaves_like(a, b)]
    return [h]


def same_structure_of(h, p):
    """h has p's classes and constants down to p's leaves (whatever h holds there)."""
    if dataclasses.is_dataclass(p) or isinstance(p, (Gaussian, dict, list, tuple)):
        assert type(h) is type(p)
        if isinstance(p, Gaussian):
            assert h.name == p.name
        for f in dataclasses.fields(p) if dataclasses.is_dataclass(p) else ():
            if f.metadata.get("static"):
                assert getattr(h, f.name) == getattr(p, f.name)
            else:
                same_structure_of(getattr(h, f.name), getattr(p, f.name))
        if isinstance(p, dict):
            for k in p:
                same_structure_of(h[k], p[k])
        if isinstance(p, (list, tuple)):
            for a, b in zip(h, p):
                same_structure_of(a, b)


def returns_the_object(p, x):
    return p, np.sum(p.mean * x)


def test_objects_as_outputs_and_auxiliary_values():
    q = Gaussian(RNG.normal(size=3), RNG.normal(size=3), "post")
    out, tangent = srcad.jvp(returns_the_object, (q, X), (q, None))
    assert isinstance(out[0], Gaussian) and out[0].name == "post"
    assert isinstance(tangent[0], Gaussian) and tangent[0].name == "post"
    np.testing.assert_allclose(tangent[0].mean, q.mean)
    np.testing.assert_allclose(tangent[1], np.sum(q.mean * X))
    g, aux = srcad.grad(lambda q, x: returns_the_object(q, x)[::-1], has_aux=True)(q, X)
    assert isinstance(aux, Gaussian) and aux.name == "post" and aux.mean is q.mean
    np.testing.assert_allclose(g.mean, X)
    np.testing.assert_allclose(g.log_std, 0.0)


def test_a_changed_constant_field_rebuilds_the_code_with_the_new_value():
    net = make_net()
    g1 = srcad.grad(net_loss)(net, X)
    net.layers[1].act = "tanh"
    np.testing.assert_allclose(vector(srcad.grad(net_loss)(net, X)), fd_gradient(net_loss, net, X),
                               rtol=1e-5, atol=1e-7)
    assert not np.allclose(vector(g1), vector(srcad.grad(net_loss)(net, X)))


# -- refusals -------------------------------------------------------------------------------


@dataclasses.dataclass
class Tagged:
    w: np.ndarray
    tag: str


def uses_w(p):
    return np.sum(p.w ** 2)


def test_a_field_that_is_not_a_number_is_refused_naming_its_path():
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(uses_w)(Tagged(np.ones(2), "a"))
    assert "argument p.tag is a str" in str(err.value)
    assert "metadata={'static': True}" in str(err.value)


def indexes_the_object(p):
    return np.sum(p[0])


def iterates_the_object(p):
    s = 0.0
    for v in p:
        s = s + np.sum(v)
    return s


def gives_the_object_to_numpy(p):
    return np.sum(np.asarray(p))


def reads_an_attribute_that_is_not_a_child(q):
    return np.sum(q.mean) * q.weight


@pytest.mark.parametrize("fn", [indexes_the_object, iterates_the_object, gives_the_object_to_numpy])
def test_using_a_differentiated_object_as_a_tuple_is_refused_at_the_line(fn):
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(fn)(Layer(np.ones((2, 2)), np.ones(2)))
    assert err.value.filename == __file__
    assert fn.__code__.co_firstlineno < err.value.lineno <= fn.__code__.co_firstlineno + 3
    assert "differentiated Layer" in str(err.value)


def test_an_attribute_of_a_registered_object_that_is_not_a_child_is_refused():
    q = Gaussian(np.ones(2), np.zeros(2))
    q.weight = 2.0  # (a float flatten does not return: srcad cannot tell how it depends on them)
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(reads_an_attribute_that_is_not_a_child)(q)
    assert "attribute .weight of a differentiated Gaussian" in str(err.value)
    assert err.value.lineno == reads_an_attribute_that_is_not_a_child.__code__.co_firstlineno + 1


def picks_one(p, q, c):
    r = p if c > 0 else q
    return np.sum(r.W)


def test_a_value_that_is_an_object_of_either_class_is_refused_at_the_join():
    layer = Layer(np.ones((2, 2)), np.ones(2))
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(picks_one)(layer, Affine(np.ones((2, 2)), 1.0), 1.0)
    assert err.value.filename == __file__


class Unregistered:
    def __init__(self, w):
        self.w = w


def test_an_unregistered_object_is_refused_by_every_transformation():
    p = Unregistered(np.ones(2))
    calls = [lambda: srcad.grad(uses_w)(p), lambda: srcad.jvp(uses_w, (p,), (p,)),
             lambda: srcad.vjp(uses_w, p), lambda: srcad.jacfwd(uses_w)(p), lambda: srcad.jacrev(uses_w)(p),
             lambda: srcad.hessian(uses_w)(p), lambda: srcad.hvp(uses_w, (p,), (p,))]
    for call in calls:
        with pytest.raises(srcad.TypeSupportError) as err:
            call()
        assert "argument p" in str(err.value) and "register_pytree" in str(err.value)


def test_register_pytree_checks_its_arguments():
    with pytest.raises(srcad.ArgumentError):
        srcad.register_pytree(tuple, lambda t: (t, None), lambda a, c: tuple(c))
    with pytest.raises(srcad.ArgumentError):
        srcad.register_pytree(Unregistered, None, None)


def test_a_tangent_of_another_class_is_refused():
    q = Gaussian(np.ones(2), np.zeros(2))
    with pytest.raises(srcad.ArgumentError):
        srcad.jvp(kl, (q, np.ones(2)), (Layer(np.ones((2, 2)), np.ones(2)), None))


def writes_a_field(p):
    p.W = p.W * 2.0
    return np.sum(p.W)


def test_writing_a_field_of_a_differentiated_object_is_refused_at_the_line():
    with pytest.raises(srcad.UnsafeMutationError) as err:
        srcad.grad(writes_a_field)(Layer(np.ones((2, 2)), np.ones(2)))
    assert err.value.filename == __file__
    assert err.value.lineno == writes_a_field.__code__.co_firstlineno + 1
