"""Items of lists and dicts written over, and lists meeting arrays (fuzz F2:573, F2:730,
F2:1048, F2:395). The derivative of `xs[i] = v` puts a zero in place of the item written
over; the adjoint of what made that item (np.stack, np.concatenate, np.outer, a nested list)
needs a zero of the item's own shape, which can differ from v's. Every gradient is checked
against finite differences, every tangent against a finite-difference directional
derivative."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp

import srcad


def stacked_item_replaced(a, b):
    xs = [np.stack([a, b]), a * b]
    xs[0] = np.stack([b, a * a])  # same shape
    return np.sum(xs[0] ** 2) + np.sum(xs[1])


def concatenated_item_replaced(a, b):
    xs = [np.concatenate([a, b]), a]
    xs[0] = np.concatenate([a, a])
    return np.sum(xs[0] * xs[0]) + np.sum(xs[1])


def outer_item_replaced_by_another_shape(a, b):
    xs = [np.outer(a[:1], b[:1]), a]  # (1, 1)
    xs[0] = np.ones((1, 2)) * b[0]  # (1, 2)
    return np.sum(xs[0]) + np.sum(xs[1] * a)


def nested_list_item_replaced(a, b):
    xs = [[a, b], a]
    xs[0] = [b, b * a]
    return np.sum(xs[0][1]) + np.sum(xs[1])


def dict_item_replaced(a, b):
    d = {"u": np.stack([a, b]), "v": a}
    d["u"] = np.stack([a * b, b])
    return np.sum(d["u"]) + np.sum(d["v"])


def list_minus_array(x, ys):
    # F2:1048: the tangent of a list of arrays minus a 0-d array adds a list and an array
    zs = ys - np.array(x)
    return np.sum(zs * zs)


def zero_d_difference_summed(x, z):
    # F2:395: the tangent of z - x[0] (z 0-d) is a float, which has no .sum()
    d = {"c": z - x[0]}
    return np.sum(d["c"])


A, B = np.array([0.3, 0.5]), np.array([0.7, -0.2])
CASES = [(stacked_item_replaced, (A, B)), (concatenated_item_replaced, (A, B)),
         (outer_item_replaced_by_another_shape, (A, B)), (nested_list_item_replaced, (A, B)),
         (dict_item_replaced, (A, B))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("argnum", [0, 1])
def test_items_written_over_match_finite_differences(fn, args, argnum):
    assert_tree_close(srcad.grad(fn, argnums=argnum)(*args), fd_grad(fn, args, argnum), what="grad")
    v = np.array([0.6, -0.9])
    tangents = [None, None]
    tangents[argnum] = v
    got = srcad.jvp(fn, args, tangents)[1]
    full = [np.zeros(2), np.zeros(2)]
    full[argnum] = v
    assert got == pytest.approx(fd_jvp(fn, args, full), rel=1e-5, abs=1e-6)


def test_a_list_meeting_an_array_in_forward_mode():
    ys = [np.array([-0.5]), np.array([0.25])]
    args = (-0.5, ys)
    want = fd_jvp(list_minus_array, args, (1.0, [np.ones(1), np.zeros(1)]))
    got = srcad.jvp(list_minus_array, args, (1.0, [np.ones(1), np.zeros(1)]))[1]
    assert got == pytest.approx(want, rel=1e-5)
    assert_tree_close(srcad.grad(list_minus_array, argnums=1)(*args), fd_grad(list_minus_array, args, 1))


def test_the_tangent_of_a_zero_d_difference():
    args = ([-0.5], np.array(0.5))
    jac = srcad.jacfwd(zero_d_difference_summed, argnums=(0, 1))(*args)
    assert float(jac[0][0]) == -1.0 and float(jac[1]) == 1.0  # hand-derived


def key_added_after_items(p, x, n):
    # G1:1510: the cotangent of the dict before d['b'] = ... kept the key b, and adding it to
    # the cotangent from d.items() (keys a, w) raised KeyError in the generated code
    d = {"a": x * 2.0, "w": p["w"] * x}
    for _k, v in d.items():
        if n:
            return np.sum(v)
    d["b"] = np.sin(x) * p["w"]
    q = p.copy()
    q["extra"] = x ** 2
    return np.sum(d["a"] * d["w"] + d["b"]) + q["extra"] * np.sum(q["w"])


@pytest.mark.parametrize("n", [0, 1])
def test_a_key_added_to_a_dict_has_no_cotangent_before(n):
    args = ({"w": np.array([0.3, -0.2])}, 0.7, n)
    for i in (0, 1):
        assert_tree_close(srcad.grad(key_added_after_items, argnums=i)(*args),
                          fd_grad(key_added_after_items, args, i))
    tangents = ({"w": np.array([1.0, 0.5])}, 1.0, None)
    _, got = srcad.jvp(key_added_after_items, args, tangents)
    assert got == pytest.approx(fd_jvp(key_added_after_items, args, tangents), rel=1e-6)


def concatenated_then_appended_in_a_loop(n, x, z):
    # G2:594: the tangent of [] + [x] was typed as an array (operator.add of two lists in the
    # tangent template), so the loop's copy of it was np.copy and .append failed
    xs = []
    xs = xs + [x]
    x = xs[0]
    u = z
    for _ in range(n):
        v = x + xs[0] * z
        v, u = u, v
        xs.append(0.5)
    return u + sum(xs)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_concatenated_list_is_appended_to_in_a_loop(n):
    args, tangents = (n, 0.5, 0.3), (None, 1.0, -0.7)
    _, got = srcad.jvp(concatenated_then_appended_in_a_loop, args, tangents)
    assert got == pytest.approx(fd_jvp(concatenated_then_appended_in_a_loop, args, tangents), rel=1e-6)
    for i in (1, 2):
        assert srcad.grad(concatenated_then_appended_in_a_loop, argnums=i)(*args) == pytest.approx(
            fd_grad(concatenated_then_appended_in_a_loop, args, i), rel=1e-6)


def comprehension_item_replaced_after_a_loop(x, y, z):
    # G2:2965: the hessian re-specialised the generated gradient, whose list of cotangents
    # (from y + y of lists) was typed as an array: '.pop() on a ?' named the generated code
    v0 = x[1, 0] * y
    for i0 in range(len(x)):
        if i0 > 0:
            v0 = 0.5 * x[-2][0] - v0
    xs0 = [e * y * y for e in z]
    xs0[1] = x[1, 0]
    return y + v0 + sum(xs0)


def test_hessian_of_a_comprehension_whose_item_is_replaced():
    z = np.array([0.1944, 0.1929, 1.0054])
    args = (np.array([[-0.4199], [0.5634], [0.4992], [-0.3672]]), -0.8911, z)
    assert srcad.grad(comprehension_item_replaced_after_a_loop, argnums=1)(*args) == pytest.approx(
        fd_grad(comprehension_item_replaced_after_a_loop, args, 1), rel=1e-6)
    # f = y + v0 + (z0 + z2) y^2 + x[1, 0] with v0 linear in y: f'' = 2 (z0 + z2)
    assert srcad.hessian(comprehension_item_replaced_after_a_loop, argnums=1)(*args) == pytest.approx(
        2 * (z[0] + z[2]), rel=1e-12)


def mixed_list_item_replaced(x, y):
    # G3:2896: the cotangent of a list whose item (an int, then arrays) is written over went
    # through a run-time test `old is ...` (a dict key added?), whose join typed it '?': its
    # .pop() was refused when the hessian re-specialised the gradient
    xs = [1, np.array([0.3, y[1]]), y * 2.0]
    a0 = np.dot(xs[-1][0:1], xs[0] + np.zeros((1, 2)))
    xs.append(a0 / (1.5 + x * x))
    xs[-3] = 0
    return sum(np.sum(e) for e in xs)


def test_hessian_of_a_mixed_list_whose_item_is_replaced():
    args = (0.57, np.array([-1.4921, 1.3749]))
    for i in (0, 1):
        assert_tree_close(srcad.grad(mixed_list_item_replaced, argnums=i)(*args),
                          fd_grad(mixed_list_item_replaced, args, i))
    g = srcad.grad(mixed_list_item_replaced)
    assert srcad.hessian(mixed_list_item_replaced)(*args) == pytest.approx(
        fd_grad(lambda x, y: g(x, y), args, 0), rel=1e-6)
    assert "is ..." not in srcad.source(g)  # (decided while transforming, not at run time)


def reduced_number_then_early_return(x, n):
    # G4:1264: the cotangent of np.sum of a number was a read-only 0-d broadcast, and the
    # backward sweep added to it in place (ValueError: output array is read-only)
    v0 = x.sum()
    v1 = v0 * v0
    for _ in range(n):
        if v0:
            return v1
    x = v0
    return np.sum(x)


@pytest.mark.parametrize("n", [0, 1])
def test_vjp_of_a_reduced_number(n):
    args = (np.array(-0.5), n)
    _, vjp_fn = srcad.vjp(reduced_number_then_early_return, *args)
    assert vjp_fn(1.0)[0] == pytest.approx(fd_grad(reduced_number_then_early_return, args, 0), rel=1e-6)


def sum_of_nothing(x, n):
    # G10:387: sum([]) is the int 0; its type was 'bottom', and grad refused the function
    # ("f returns a bottom")
    xs = []
    for i in range(n):
        xs.append(x[i] * 0.0)
    return sum(xs)


def test_the_sum_of_an_empty_list_is_a_constant():
    x = np.array([0.3, -0.2])
    # hand-derived: the output is 0 (or 0.0 * x[i] terms) for every x, so the gradient is 0
    assert np.array_equal(srcad.grad(sum_of_nothing)(x, 0), np.zeros(2))
    assert np.array_equal(srcad.grad(sum_of_nothing)(x, 2), np.zeros(2))
    assert srcad.jvp(sum_of_nothing, (x, 0), (np.ones(2), None))[1] == 0.0


# -- a loop over constant keys of a dict: `for k in ("w", "b"): p[k] = ...` (transforms/unroll.py:
# each iteration specialised with its key, which was "a dict key computed at run time" before)

def _params_loss(p, x):
    return np.sum(np.tanh(p["w"] * x + p["b"]) ** 2)


def sgd_over_constant_keys(p0, x):
    p = dict(p0)
    for _ in range(2):
        g = srcad.grad(_params_loss)(p, x)
        for k in ("w", "b"):
            p[k] = p[k] - 0.1 * g[k]
    return _params_loss(p, x)


def sgd_over_the_dict(p0, x):
    p = dict(p0)
    for _ in range(2):
        g = srcad.grad(_params_loss)(p, x)
        for k in p:
            p[k] = p[k] - 0.1 * g[k]
    return _params_loss(p, x)


@pytest.mark.parametrize("fn", [sgd_over_constant_keys, sgd_over_the_dict])
def test_a_loop_over_constant_keys_updates_every_entry(fn):
    p0, x, h = {"w": np.array([1.0, 2.0]), "b": 0.3}, np.array([0.5, -0.2]), 1e-5
    got = srcad.grad(fn)(p0, x)
    want_w = [(fn({"w": p0["w"] + h * e, "b": 0.3}, x) - fn({"w": p0["w"] - h * e, "b": 0.3}, x)) / (2 * h)
              for e in np.eye(2)]
    want_b = (fn({"w": p0["w"], "b": 0.3 + h}, x) - fn({"w": p0["w"], "b": 0.3 - h}, x)) / (2 * h)
    np.testing.assert_allclose(got["w"], want_w, rtol=1e-6)
    assert got["b"] == pytest.approx(want_b, rel=1e-6)


def dict_grown_while_iterated(w, b):
    p = {"w": w, "b": b}
    for k in p:
        p[k + "x"] = p[k] * w  # (RuntimeError in Python: the dict changed size during iteration)
    return p["w"] + p["b"]


def test_a_dict_given_new_keys_in_a_loop_over_keys_is_refused():
    with pytest.raises(RuntimeError):
        dict_grown_while_iterated(0.4, 0.3)
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(dict_grown_while_iterated)(0.4, 0.3)
    assert err.value.diagnostics[0].line == dict_grown_while_iterated.__code__.co_firstlineno + 3


def equal_items_then_one_changed(x):
    xs = [x * 2.0, x * 2.0]
    xs[0] *= 3.0
    return np.sum(xs[0] * xs[1])


def equal_values_per_key_then_one_changed(x):
    d = {k: x * 1.5 for k in ("a", "b")}
    d["a"] *= 3.0
    return np.sum(d["a"] + d["b"] ** 2)


def equal_appends_then_one_changed(x):
    xs = []
    xs.append(np.sin(x))
    xs.append(np.sin(x))
    xs.insert(0, np.sin(x))
    xs[1] *= 2.0
    return np.sum(xs[0] * xs[1] * xs[2])


@pytest.mark.parametrize("fn", [equal_items_then_one_changed, equal_values_per_key_then_one_changed,
                                equal_appends_then_one_changed])
def test_equal_expressions_stay_two_objects_in_a_container_changed_in_place(fn):
    """Two equal expressions are two objects in Python; srcad computed them once (CSE) and
    then refused the in-place change as one of an object the container holds twice."""
    x = np.array([0.3, -0.7, 1.1])
    assert_tree_close(srcad.grad(fn)(x), fd_grad(fn, (x,)), rtol=1e-6)


def keys_listed(x):
    d = {2: x[0], 5: x[1], 3: x[2]}
    ks = list(d)
    e = {"a": x[0], "b": x[1]}
    return ks[1] * x[0] + np.array(list(d)) @ x + sum(tuple(d)) * x[2] + sorted(d)[0] * e[list(e)[1]]


def test_list_of_a_dict_is_its_keys():
    """list(d), tuple(d) and sorted(d) were differentiated as if they held d's values."""
    x = np.array([1.5, 2.5, -0.5])
    assert_tree_close(srcad.grad(keys_listed)(x), fd_grad(keys_listed, (x,)), rtol=1e-6)
    v = np.array([1.0, -2.0, 0.5])
    assert srcad.jvp(keys_listed, (x,), (v,))[1] == pytest.approx(fd_jvp(keys_listed, (x,), (v,)), rel=1e-6)
