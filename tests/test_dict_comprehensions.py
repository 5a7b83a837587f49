"""Dict comprehensions and loops that fill a dict (frontend/loops.py `comprehension`,
transforms/unroll.py): srcad tracks a dict's keys while transforming, so a loop whose keys are
known then (a dict's keys, its items, a tuple of keys, a range of at most 32 iterations) is
specialised iteration by iteration. Gradients are checked against Richardson-extrapolated
finite differences, tangents against finite-difference directional derivatives."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_directional, fd_grad_richardson, tree_random_like

import srcad


def sgd_step(p, g, lr):
    return {k: p[k] - lr * g[k] for k in p}


def loss_after_a_step(p, lr):
    q = sgd_step(p, {k: 2.0 * v for k, v in p.items()}, lr)
    return np.sum(q["w"] ** 2) + np.sum(np.sin(q["b"]))


def items_scaled(p, s):
    q = {k: v * s for k, v in p.items() if k != "b"}
    return sum(np.sum(v ** 3) for v in q.values()) + len(q)


def range_keys(x):
    d = {i: x[i] ** 2 for i in range(3)}
    return d[0] * d[2] + d[1]


def formatted_keys(x):
    d = {f"layer{i}": np.tanh(x * (i + 1)) for i in range(3)}
    return np.sum(d["layer0"] * d["layer2"])


def zipped_keys(x):
    d = {k: v for k, v in zip(("a", "b"), (x, np.exp(x)))}
    return np.sum(d["a"] * d["b"])


def new_dict_in_a_loop_over_keys(p, x):
    out = {}
    for k in p:
        out[k] = p[k] * x
    for k, v in p.items():
        out[k + "_sq"] = v * v
    return np.sum(out["w"] * out["b_sq"][0]) + np.sum(out["w_sq"])


def statement_range_keys(x):
    d = {}
    for i in range(4):
        d["c" + str(i)] = x[i] * x[(i + 1) % 4]
    return d["c0"] + d["c3"] * d["c1"]


def updated_while_iterating_items(p, lr):
    q = {k: v * 1.0 for k, v in p.items()}
    for k, v in q.items():  # (writing the values of existing keys while iterating is fine)
        q[k] = v - lr * np.sin(v)
    return np.sum(q["w"] ** 2) + np.sum(q["b"])


def items_view_sees_a_later_key_changed(p, s):
    d = {"a": p["w"] * s, "b": p["b"] * 2.0}
    total = 0.0
    for k, v in d.items():
        if k == "a":
            d["b"] = v[:1] * 10.0  # (the view gives this new value for "b")
        total = total + np.sum(v)
    return total


def nested_comprehensions(p, s):
    layers = {"l1": p, "l2": {k: v * s for k, v in p.items()}}
    scaled = {n: {k: np.tanh(v) * 2.0 for k, v in layer.items()} for n, layer in layers.items()}
    return np.sum(scaled["l1"]["w"] ** 2) + np.sum(scaled["l2"]["b"]) * np.sum(scaled["l2"]["w"])


def dict_of_pairs(x):
    d = dict([("a", x), ("b", 2.0 * x), ("a", x ** 2)])  # (a key again: first place, last value)
    e = dict(((1, x[0]), (True, x[1] * 3.0), (2, x[2])))  # (1 and True: one key)
    f = dict([["p", x[0]], ["q", x[1] * 2.0]], q=x[2], r=x[0] ** 2)  # (lists of two; keywords after)
    return np.sum(d["a"] * d["b"]) + len(d) + e[1] * e[2] + len(e) + f["p"] * f["q"] * f["r"] + len(f)


def list_display_keys(x):  # (a list display iterated where it is written: its items are known)
    d = {k: x * (i + 1.0) for i, k in enumerate(["p", "q"])}
    for k, v in zip(["p", "q"], [x[1], np.sin(x[0])]):
        d[k] = d[k] * v
    for c in [2, 0.5]:
        d["q"] = d["q"] + c * x
    return np.sum(d["p"] * d["q"]) + sum(x[0] ** e for e in [2, 3])


P = {"w": np.array([0.3, -0.7]), "b": np.array([0.2])}
X = np.array([0.4, -0.9, 1.3, 0.6])
CASES = [(loss_after_a_step, (P, 0.1)), (items_scaled, (P, 1.3)), (range_keys, (X[:3],)),
         (formatted_keys, (X,)), (zipped_keys, (X,)), (new_dict_in_a_loop_over_keys, (P, 0.7)),
         (statement_range_keys, (X,)), (updated_while_iterating_items, (P, 0.3)),
         (items_view_sees_a_later_key_changed, (P, 1.7)), (nested_comprehensions, (P, 0.6)),
         (dict_of_pairs, (X,)), (list_display_keys, (X,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_against_finite_differences(fn, args):
    for argnum in range(len(args)):
        got = srcad.grad(fn, argnums=argnum)(*args)
        assert_tree_close(got, fd_grad_richardson(fn, args, argnum), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_tangent_against_finite_differences(fn, args):
    rng = np.random.default_rng(3)
    tangents = tuple(tree_random_like(a, rng) for a in args)
    value, tangent = srcad.jvp(fn, args, tangents)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-14)
    np.testing.assert_allclose(tangent, fd_directional(fn, args, tangents), rtol=1e-7, atol=1e-9)


def test_a_dict_comprehension_returned_keeps_its_keys_in_order():
    got = srcad.grad(lambda p: np.sum(sgd_step(p, p, 0.5)["w"]) * 2.0)(P)
    assert list(sgd_step(P, P, 0.5)) == ["w", "b"]
    assert_tree_close(got, {"w": np.ones(2), "b": np.zeros(1)}, rtol=1e-15)  # d/dp 2 sum(0.5 p_w)


def keys_from_values(x):
    d = {float(v): v * v for v in x}
    return sum(d.values())


def too_many_keys(x):
    d = {i: x[i % 2] for i in range(40)}
    return d[0] + d[39]


def changes_the_dict_it_iterates(p):
    for k in p:
        p[k + "2"] = p[k]
    return np.sum(p["w"])


@pytest.mark.parametrize("fn, arg, text", [
    (keys_from_values, X, "keys known only at run time"),
    (too_many_keys, X, "keys known only at run time"),
    (changes_the_dict_it_iterates, P, "new keys in a loop over its keys"),
])
def test_what_cannot_be_followed_is_refused_at_the_users_line(fn, arg, text):
    with pytest.raises(srcad.SrcadError, match=text) as info:
        srcad.grad(fn)(arg)
    assert "test_dict_comprehensions.py:" in str(info.value)
