"""Regression tests for silently wrong derivatives found by trying srcad on other projects'
programs and on random programs (the soundness issue, items 1-13). Each compares against an
independent oracle: finite differences (tests/oracle.py) or a hand-derived formula."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad

import srcad


def _check_all_modes(f, args, argnum=0):
    """grad, jvp (one random direction), jacfwd and jacrev of f against finite differences."""
    ref = fd_grad(f, args, argnum)
    assert_tree_close(srcad.grad(f, argnums=argnum)(*args), ref, what="grad")
    x = args[argnum]
    v = np.random.default_rng(0).normal(size=np.shape(x))
    v = float(v) if np.ndim(x) == 0 else v
    tangents = [None] * len(args)
    tangents[argnum] = v
    _, t = srcad.jvp(f, tuple(args), tuple(tangents))
    np.testing.assert_allclose(t, np.sum(np.asarray(ref) * v), rtol=1e-5, atol=1e-6, err_msg="jvp")
    assert_tree_close(srcad.jacfwd(f, argnums=argnum)(*args), ref, what="jacfwd")
    assert_tree_close(srcad.jacrev(f, argnums=argnum)(*args), ref, what="jacrev")


# 1. tuple concatenation is concatenation, not addition


def tuple_concat(x, y):
    t = (x,) + (y,)
    return t[0] * t[1] * t[1]


def tuple_concat_arrays(x, w):
    args = (x,) + (np.ones(3), w)
    return np.sum(args[0] * args[1] * args[2] ** 2)


def tuple_repeat(x):
    t = (x, 2.0) * 2
    return t[0] * t[2] + t[1] * t[3]


def test_tuple_concatenation():
    assert srcad.grad(tuple_concat, argnums=(0, 1))(2.0, 3.0) == (9.0, 12.0)
    assert srcad.jvp(tuple_concat, (2.0, 3.0), (1.0, 0.0)) == (18.0, 9.0)
    _check_all_modes(tuple_concat, [2.0, 3.0], 1)
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.5, 2.0, -0.5])
    _check_all_modes(tuple_concat_arrays, [x, w], 0)
    _check_all_modes(tuple_concat_arrays, [x, w], 1)
    _check_all_modes(tuple_repeat, [1.5])


def tuple_plus_array(t, x):
    return np.sum(t + x)  # NumPy converts the tuple: elementwise


def test_a_tuple_meeting_an_array_is_numpy_arithmetic():
    _check_all_modes(tuple_plus_array, [(1.0, 2.0), np.array([0.5, 1.5])], 1)
    g = srcad.grad(tuple_plus_array)((1.0, 2.0), np.array([0.5, 1.5]))
    assert type(g) is tuple and g == (1.0, 1.0)


# 2. concatenation onto an empty list


def empty_list_concat(x):
    lst = []
    lst = lst + [x * x]
    return lst[0]


def empty_list_concat_loop(x):
    lst = []
    for i in range(3):
        lst = lst + [x * i]
    return lst[2] * x


def test_concatenation_onto_an_empty_list():
    assert srcad.grad(empty_list_concat)(2.0) == 4.0
    assert srcad.jvp(empty_list_concat, (2.0,), (1.0,)) == (4.0, 4.0)
    assert srcad.grad(empty_list_concat_loop)(2.0) == 8.0  # d/dx 2x^2
    assert srcad.jvp(empty_list_concat_loop, (2.0,), (1.0,)) == (8.0, 8.0)
    _check_all_modes(empty_list_concat_loop, [1.5])


# 5. ints promoted in every transformation; builtin sum over a generator of list items


def test_int_arguments_in_jacfwd_and_generators():
    assert srcad.jacfwd(lambda t: t * t)(3) == 6.0
    assert srcad.grad(lambda xs: sum(v * v for v in xs))([1, 2]) == [2.0, 4.0]
    assert srcad.grad(lambda xs: sum(v * v for v in xs))([1.0, 2.0]) == [2.0, 4.0]


# 7. jacfwd of builtin sum over a list of arrays (the batch axis of list items)


def sum_of_list(x):
    return sum([x * 2.0, np.sin(x)])


def dict_of_items(x):
    d = {"a": x, "b": x ** 2}
    return d["a"] * d["b"]


def test_jacfwd_of_containers_of_arrays():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(srcad.jacfwd(sum_of_list)(x), np.diag(2.0 + np.cos(x)))
    np.testing.assert_allclose(srcad.jacfwd(dict_of_items)(x), np.diag(3 * x ** 2))


# 8. a Python list where NumPy applies: NumPy's conversion, not list semantics


def list_plus_array(x):
    return np.sum(np.asarray(x) * 2.0 + x)


def list_times_array(x, w):
    return np.sum(w * x)


def test_lists_used_as_arrays():
    g = srcad.grad(list_plus_array)([1.0, 2.0])
    assert type(g) is list and g == [3.0, 3.0]
    w = np.array([0.5, -2.0])
    g = srcad.grad(list_times_array)([1.0, 2.0], w)
    assert type(g) is list
    np.testing.assert_allclose(g, w)
    _, vjp_fn = srcad.vjp(list_times_array, [1.0, 2.0], w)
    assert type(vjp_fn(1.0)[0]) is list


def list_repeated(x):
    return np.sum(np.array(x * 2) ** 2)  # x * 2 repeats the list: x0, x1, x0, x1


def test_list_repetition_is_repetition():
    np.testing.assert_allclose(srcad.grad(list_repeated)([1.0, 3.0]), [4.0, 12.0])
    assert list_repeated([1.0, 3.0]) == 20.0


def unknown_concat(x, n):
    t = (x,)
    for _ in range(n):
        t = t + (x,)  # the length changes every iteration
    return t[0]


def test_concatenation_srcad_cannot_type_is_refused():
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(unknown_concat)(1.0, 3)
    assert err.value.filename == __file__


# 12. attributes of global objects: code is specialised on their current types

import types  # noqa: E402

config = types.SimpleNamespace(scale=2.0)


def scaled_total(x):
    return np.sum(config.scale * x)


class Model:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(self.w * x ** 2)


def test_a_global_attribute_that_changes_type_gets_new_code():
    g = srcad.grad(scaled_total)
    try:
        assert g(1.5) == 2.0
        config.scale = np.array([1.0, 2.0, 3.0])
        assert g(1.5) == 6.0  # d/dx sum(scale * x) for an array scale
        assert_tree_close(g(np.ones(3)), config.scale)
        config.scale = 1.0 + 2.0j
        with pytest.raises(srcad.TypeSupportError) as err:
            g(1.5)
        assert err.value.lineno == scaled_total.__code__.co_firstlineno + 1
    finally:
        config.scale = 2.0


def test_attributes_of_a_bound_method_self_are_read_and_typed_on_each_call():
    m = Model(2.0)
    g = srcad.grad(m.loss)
    assert_tree_close(g(np.ones(3)), 4.0 * np.ones(3))
    m.w = np.array([1.0, 0.0, 1.0])
    assert_tree_close(g(np.ones(3)), fd_grad(m.loss, [np.ones(3)]))


# 13. a transform called inside differentiated code is inlined for the caller's shapes


def cubes(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 3
    return s


d_cubes = srcad.grad(cubes)


def uses_inner_gradient(x):
    return np.sum(d_cubes(x) * x)  # sum(3 x^3)


def test_inner_transforms_are_not_the_code_of_their_last_direct_call():
    d_cubes(np.ones(2))  # built for shape (2,) first
    x = np.array([1.0, 2.0, 3.0])
    assert_tree_close(srcad.grad(uses_inner_gradient)(x), 9 * x ** 2)
    _, t = srcad.jvp(uses_inner_gradient, (x,), (np.ones(3),))
    assert t == pytest.approx(np.sum(9 * x ** 2))
    assert_tree_close(srcad.jacfwd(uses_inner_gradient)(x), 9 * x ** 2)


# found by the fuzzer (tests/fuzz): minimal programs


def index_in_branch(x, n):
    a0 = np.full(1, 0.5)
    return x[0, n] if a0 else 0.5


def row_written_by_broadcast(y):
    y2 = np.zeros(y.shape)
    y2[0] = y[:, 0]  # shape (1,) broadcast into a row of shape (2,)
    return np.mean(y2)


def test_hessian_of_an_index_stored_in_one_branch():
    x = np.array([[0.5, 0.25]])
    assert_tree_close(srcad.hessian(index_in_branch)(x, 0), np.zeros((1, 2, 1, 2)))


def test_item_assignment_of_a_broadcast_value():
    y = np.array([[0.5, 0.25]])
    _check_all_modes(row_written_by_broadcast, [y])
    assert_tree_close(srcad.grad(row_written_by_broadcast)(y), np.array([[1.0, 0.0]]))


def value_in_untaken_branch(n, x):
    v = 0.5
    if n == 0:
        y = x[0, n]
        v = y
    return v


def list_slot_of_another_shape(A, y):
    xs = [y]
    xs[0] = A @ y  # shape (2,) replaces shape (3,)
    return sum(np.sum(e) for e in xs)


def test_hessian_when_the_branch_defining_a_value_is_not_taken():
    x = np.array([[0.5]])
    assert_tree_close(srcad.grad(value_in_untaken_branch, argnums=1)(1, x), np.zeros((1, 1)))
    assert_tree_close(srcad.hessian(value_in_untaken_branch, argnums=1)(1, x), np.zeros((1, 1, 1, 1)))
    assert_tree_close(srcad.hessian(value_in_untaken_branch, argnums=1)(0, x), np.zeros((1, 1, 1, 1)))


def test_a_list_item_replaced_by_a_value_of_another_shape():
    A = np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -1.0]])
    y = np.array([-0.5, 0.5, 0.25])
    assert_tree_close(srcad.grad(list_slot_of_another_shape, argnums=1)(A, y), A.sum(axis=0))
    _check_all_modes(list_slot_of_another_shape, [A, y], 1)


def list_item_replaced(x):
    xs0 = [np.array([x, x]), np.array([x, x])]
    xs0[1] = 0.5 * xs0[0] - 1.0
    return sum(np.sum(e) for e in xs0)


def assigned_in_one_branch(x, z):
    if z > 0.5:
        a0 = np.sin(x)
    else:
        return x * x
    return a0 * 2.0


def dict_key_added_in_loop(x, y):
    d0 = {"b": x, "w": 0.5, "c": 0}
    for i0, e0 in y:  # noqa: B007 (srcad input, as the fuzzer wrote it)
        d0["z"] = 0.5
    a0 = np.full(3, d0["b"]).reshape(3)
    return np.mean(a0 * a0) + d0["b"] + d0["w"]


def test_list_item_replaced_after_np_array_of_floats():
    assert srcad.grad(list_item_replaced)(0.5) == 3.0  # sum = 2x + (x - 2)


def test_vjp_of_a_value_assigned_on_one_path_only():
    for z in (0.0, 1.0):
        out, vjp_fn = srcad.vjp(assigned_in_one_branch, 0.3, z)
        expected = 2 * 0.3 if z < 0.5 else 2.0 * np.cos(0.3)
        assert vjp_fn(1.0)[0] == pytest.approx(expected)


def test_second_order_through_a_dict_whose_keys_change_in_a_loop():
    y = np.array([[-0.5, -0.5]])
    assert srcad.hessian(dict_key_added_in_loop)(0.5, y) == pytest.approx(2.0)  # mean(x^2) + x + 0.5


# class attributes are data read when the code runs (were baked in as constants)


class Settings:
    scale = 2.0
    weights = np.array([1.0, 2.0])


def uses_class_attributes(x):
    return np.sum(x * Settings.weights) * Settings.scale


def test_class_attributes_that_change_are_seen():
    g = srcad.grad(uses_class_attributes)
    old = Settings.scale, Settings.weights
    try:
        assert_tree_close(g(np.ones(2)), np.array([2.0, 4.0]))
        Settings.scale, Settings.weights = 3.0, np.array([5.0, 6.0])
        assert_tree_close(g(np.ones(2)), np.array([15.0, 18.0]))
        Settings.scale = 1.0j
        with pytest.raises(srcad.TypeSupportError):
            g(np.ones(2))
    finally:
        Settings.scale, Settings.weights = old


def doubled_x(x):
    return x * 2.0


def test_a_signature_attribute_does_not_change_what_is_differentiated():
    import inspect

    f = types.FunctionType(doubled_x.__code__, globals(), "doubled_x")
    f.__signature__ = inspect.Signature([inspect.Parameter("y", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    assert srcad.grad(f)(1.0) == 2.0


# lists of numbers given to NumPy and SciPy functions are the arrays NumPy makes of them


def arcsin_total(x):
    return np.sum(np.arcsin(x))


D_ARCSIN = srcad.grad(arcsin_total)


def second_order_through_an_inner_gradient(x):
    return np.sum(np.asarray(D_ARCSIN(x)))


def split_first(x):
    return np.sum(np.split(x, [1, 3], -1)[0])


def test_lists_of_numbers_given_to_numpy_functions():
    for x in ([0.5, 0.2], (0.5, 0.2), [[0.5, 0.2], [0.1, 0.3]]):
        g = srcad.grad(arcsin_total)(x)
        assert type(g) is type(x)
        assert_tree_close(np.asarray(g), 1.0 / np.sqrt(1.0 - np.asarray(x) ** 2))
        _, t = srcad.jvp(arcsin_total, (x,),
                         (np.ones(np.shape(x)).tolist() if isinstance(x, list) else (1.0, 1.0),))
        assert t == pytest.approx(np.sum(1.0 / np.sqrt(1.0 - np.asarray(x) ** 2)))
    x = [0.5, 0.2]  # d/dx 1/sqrt(1 - x^2) = x / (1 - x^2)^1.5
    want = np.asarray(x) / (1.0 - np.asarray(x) ** 2) ** 1.5
    assert_tree_close(np.asarray(srcad.grad(second_order_through_an_inner_gradient)(x)), want)
    assert_tree_close(np.diag(srcad.hessian(arcsin_total)(x)), want)


def test_numpy_split_of_a_nested_list_is_refused():
    # NumPy splits a list along axis -1 by its length: the result is not the array's split
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(split_first)([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])


# a value the path taken never uses may be inf or NaN: its adjoint must not make 0 * inf


def discarded_sqrt(x):
    a = np.sqrt(x - 2.0)  # NaN for x < 2; used only when a > 0
    if a > 0:
        return a
    return 3.0 * x


def skipped_in_loop(x):
    total = 0.0
    for c in [2.0, 0.5]:
        a = np.sqrt(x - c)
        if a > 0:
            total = total + a
        else:
            continue
    return total


def discarded_array(x):
    a = np.log(x - 1.0)  # -inf and NaN entries for x <= 1
    if np.all(x > 1.0):
        return np.sum(a)
    return np.sum(x ** 2)


def test_values_the_taken_path_does_not_use_give_no_nan():
    with np.errstate(invalid="ignore", divide="ignore"):
        for mode in (srcad.grad, srcad.jacrev, srcad.jacfwd):
            assert mode(discarded_sqrt)(1.0) == pytest.approx(3.0)
            assert mode(skipped_in_loop)(1.0) == pytest.approx(0.5 / np.sqrt(0.5))
        assert srcad.hessian(discarded_sqrt)(1.0) == pytest.approx(0.0)
        assert srcad.vjp(discarded_sqrt, 1.0)[1](1.0) == (pytest.approx(3.0),)
        x = np.array([0.5, 2.0])
        assert_tree_close(srcad.grad(discarded_array)(x), 2 * x)
        assert_tree_close(srcad.hessian(discarded_array)(x), 2 * np.eye(2))
        assert_tree_close(srcad.grad(discarded_sqrt)(3.0), 0.5 / np.sqrt(1.0))  # the other path


# library code (the standard library, SciPy's Python code, site-packages) is not inlined


import statistics  # noqa: E402

from scipy.stats import skewnorm  # noqa: E402  (scipy.stats.norm has rules: scipy_stats.py)


def uses_norm(x):
    return np.sum(skewnorm.logpdf(x, 2.0, 0.0, 2.0))


def norm_as_constant(x):
    return np.sum(x * skewnorm.logpdf(0.3, 2.0, 0.0, 2.0))


def uses_statistics(x):
    return statistics.fmean([x[0], x[1]])


def nested_vjp(x):
    out, pullback = srcad.vjp(np.sin, x)  # (np.sin given straight: its wrapper, srcad/arity.py)
    return np.sum(pullback(np.ones_like(x))[0])


def test_library_code_is_a_constant_or_an_error_at_the_users_line():
    want = np.full(2, skewnorm.logpdf(0.3, 2.0, 0.0, 2.0))
    assert_tree_close(srcad.grad(norm_as_constant)(np.ones(2)), want)
    x = np.array([0.1, 0.2])
    assert_tree_close(srcad.grad(nested_vjp)(x), -np.sin(x))  # d/dx sum(cos x), by hand
    for f, line in ((uses_norm, 1), (uses_statistics, 1)):
        with pytest.raises(srcad.SrcadError) as err:
            srcad.grad(f)(np.array([0.1, 0.2]))
        assert err.value.filename == __file__ and err.value.lineno == f.__code__.co_firstlineno + line
