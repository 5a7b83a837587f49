"""The type gate (srcad/gate.py) and the type policy inside functions
(srcad/transforms/policy.py): one policy for every transformation. Values srcad cannot
differentiate are errors naming the argument path or the user's line — never a silent
constant. Derivatives that are computed are checked against hand-derived formulas or
finite differences."""

import collections
import math
import types

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad

import srcad

# -- helpers: every transformation, called the way a user calls it ------------------------


def _all_transforms(f, x):
    """(name, thunk) differentiating f with respect to its first argument x."""
    return [
        ("grad", lambda: srcad.grad(f)(x)),
        ("value_and_grad", lambda: srcad.value_and_grad(f)(x)),
        ("jvp", lambda: srcad.jvp(f, (x,), (x,))),
        ("vjp", lambda: srcad.vjp(f, x)),
        ("jacfwd", lambda: srcad.jacfwd(f)(x)),
        ("jacrev", lambda: srcad.jacrev(f)(x)),
        ("hessian", lambda: srcad.hessian(f)(x)),
        ("hvp", lambda: srcad.hvp(f, (x,), (x,))),
    ]


def weight(p):
    return p.w * p.w


def weight_in_dict(d):
    return d["layers"][1].w * 3.0


class Plain:
    def __init__(self, w):
        self.w = w


# (dataclasses and classes registered with srcad.register_pytree are containers: test_pytrees.py)
OBJECTS = [types.SimpleNamespace(w=3.0), Plain(3.0)]


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: type(o).__name__)
def test_objects_as_differentiated_arguments_are_refused_by_every_transformation(obj):
    for name, thunk in _all_transforms(weight, obj):
        with pytest.raises(srcad.TypeSupportError) as err:
            thunk()
        assert "argument p" in str(err.value), name
        assert "srcad.register_pytree" in str(err.value), name  # (what to do instead)
        assert err.value.filename == __file__, name  # the user's function is named


def test_the_path_of_an_object_inside_a_pytree_is_named():
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(weight_in_dict)({"layers": [1.0, Plain(2.0)]})
    assert "argument d['layers'][1] is a" in str(err.value)
    assert "an object of type test_gate.Plain" in str(err.value)


def total(x):
    return (x * x).sum()


def test_foreign_arrays_as_differentiated_arguments_are_refused():
    """ndarray subclasses everywhere; dask and array-API-only arrays wherever they are not
    supported (grad, value_and_grad, jvp, vjp and hvp take them: tests/test_arrays.py,
    tests/test_array_api.py)."""
    import array_api_strict as xp  # (both in the test extras)
    import dask.array as dask_array

    for x in (dask_array.ones(3), xp.ones(3), np.matrix([[1.0, 2.0]]), np.ma.ones(3)):
        for name, thunk in _all_transforms(total, x):
            if isinstance(x, (dask_array.Array, type(xp.ones(1)))) and name in TAKE_ARRAYS:
                continue
            with pytest.raises(srcad.TypeSupportError):
                thunk()


TAKE_ARRAYS = ("grad", "value_and_grad", "jvp", "vjp", "hvp")  # (dask and array-API arrays: namespaces.py)


def scaled_by(x, c):
    return np.sum(x * c)


def test_foreign_arrays_as_constants_keep_working():
    import dask.array as dask_array

    c = dask_array.arange(3.0)
    g = srcad.grad(scaled_by)(np.ones(3), c)
    np.testing.assert_allclose(np.asarray(g), [0.0, 1.0, 2.0])  # d/dx sum(x * c) = c


def test_an_ndarray_subclass_meeting_a_differentiated_value_is_refused_at_its_line():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])  # x * m is a matrix product for np.matrix
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(scaled_by)(np.eye(2), m)
    assert err.value.lineno == scaled_by.__code__.co_firstlineno + 1


# -- complex values --------------------------------------------------------------------------


def real_part(x, z):
    return np.real(x * z)


def plus_complex(x, z):
    return np.sum(np.real(x + z))


def dot_complex(x, z):
    return np.real(np.dot(x, z))


def running_complex(x, z):
    return np.sum(np.real(np.cumsum(x * z)))  # np.cumsum is not complex-correct


@pytest.mark.parametrize("f,x,z,exact", [
    (real_part, 2.0, 1.0 + 1.0j, 1.0),  # d/dx Re(x z) = Re z
    (plus_complex, np.ones(2), np.ones(2) * (1 + 2j), np.ones(2)),
    (dot_complex, np.ones(2), np.array([1.0 + 2.0j, -3.0 + 1.0j]), np.array([1.0, -3.0])),
])
def test_complex_values_meeting_differentiated_ones_in_complex_correct_rules(f, x, z, exact):
    """(docs/subset.md, "Complex intermediate values"): derivatives, by hand."""
    np.testing.assert_allclose(srcad.grad(f)(x, z), exact)
    np.testing.assert_allclose(srcad.jvp(f, (x, z), (np.ones_like(x), None))[1], np.sum(exact))
    with pytest.raises(srcad.TypeSupportError, match="argument z"):  # vjp differentiates z too
        srcad.vjp(f, x, z)


def test_complex_values_meeting_differentiated_ones_elsewhere_are_refused():
    f, x, z = running_complex, np.ones(2), np.ones(2) * 1j
    for thunk in (lambda: srcad.grad(f)(x, z), lambda: srcad.jvp(f, (x, z), (x, None)),
                  lambda: srcad.jacfwd(f)(x, z), lambda: srcad.hessian(f)(x, z)):
        with pytest.raises(srcad.TypeSupportError) as err:
            thunk()
        assert err.value.lineno == f.__code__.co_firstlineno + 1  # the line where they meet


def test_complex_arguments_tangents_and_cotangents_are_refused():
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(total)(np.ones(2) * 1j)
    with pytest.raises(srcad.TypeSupportError):
        srcad.vjp(total, 1j)
    with pytest.raises(srcad.TypeSupportError):
        srcad.jvp(total, (np.ones(2),), (np.ones(2) * 1j,))
    out, vjp_fn = srcad.vjp(lambda x: x * x, np.ones(3))
    with pytest.raises(srcad.TypeSupportError):
        vjp_fn(np.ones(3) * 1j)


# -- ints and bools: promoted when named, constants otherwise -------------------------------


def square(t):
    return t * t


def sum_of_squares(xs):
    return sum(v * v for v in xs)


def mixed(p):
    return p["a"] * p["b"][0] + np.sum(p["c"] ** 2)


def test_named_ints_are_promoted_to_float_in_every_transformation():
    assert srcad.grad(square)(3) == 6.0
    assert srcad.value_and_grad(square)(3) == (9, 6.0)
    assert srcad.jacfwd(square)(3) == 6.0
    assert srcad.jacrev(square)(3) == 6.0
    assert srcad.hessian(square)(3) == 2.0
    assert srcad.hvp(square, (3,), (1.0,)) == 2.0
    assert srcad.jvp(square, (3,), (1.0,)) == (9.0, 6.0)
    assert srcad.grad(sum_of_squares)([1, 2]) == [2.0, 4.0]


def test_ints_are_promoted_at_any_depth_of_a_pytree():
    p = {"a": 2, "b": (3,), "c": np.array([1, 2])}
    fp = {"a": 2.0, "b": (3.0,), "c": np.array([1.0, 2.0])}
    g = srcad.grad(mixed)(p)
    assert_tree_close(g, fd_grad(mixed, [fp]))
    assert isinstance(g["a"], float) and g["c"].dtype == np.float64


def scale_loop(x, n):
    s = x
    for _ in range(n):
        s = s * 1.5
    return s


def test_ints_that_are_not_named_stay_ints():
    # vjp names no argument: its int primals are constants, with None cotangents
    out, vjp_fn = srcad.vjp(scale_loop, 2.0, 3)
    assert vjp_fn(1.0) == (1.5 ** 3, None)
    # a jvp tangent of None or an int zero leaves an int primal alone (a loop count here)
    for t in (None, 0):
        assert srcad.jvp(scale_loop, (2.0, 3), (1.0, t)) == (2.0 * 1.5 ** 3, 1.5 ** 3)


def test_bools_that_are_named_are_refused():
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(square)(True)
    with pytest.raises(srcad.TypeSupportError):
        srcad.jacfwd(square)(np.array([True, False]))
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(mixed)({"a": 1.0, "b": (True,), "c": np.ones(2)})


def test_strings_and_functions_are_constants_for_vjp_and_errors_when_named():
    def pick(x, mode):
        return x * 2.0 if mode == "double" else x

    out, vjp_fn = srcad.vjp(pick, 1.5, "double")
    assert vjp_fn(1.0) == (2.0, None)
    with pytest.raises(srcad.TypeSupportError):
        srcad.grad(pick, argnums=1)(1.5, "double")


def test_named_tuples_are_containers():
    point = collections.namedtuple("point", "a b")
    g = srcad.grad(lambda p: p[0] * p[1] * p[1])(point(2.0, 3.0))
    assert g == point(9.0, 12.0) and type(g) is point


# -- tangents and cotangents must match the values they belong to --------------------------


def test_tangents_must_have_the_shape_and_structure_of_their_primal():
    with pytest.raises(srcad.ArgumentError, match="shape"):
        srcad.jvp(total, (np.ones(3),), (np.ones(1),))
    with pytest.raises(srcad.ArgumentError, match="shape"):
        srcad.jvp(total, (np.ones(3),), (2.0,))
    with pytest.raises(srcad.ArgumentError, match="structure"):
        srcad.jvp(mixed, ({"a": 1.0, "b": (1.0,), "c": np.ones(2)},), ({"a": 1.0},))


def test_none_leaves_of_a_tangent_are_zeros():
    p = {"a": 2.0, "b": (3.0,), "c": np.ones(2)}
    _, t = srcad.jvp(mixed, (p,), ({"a": None, "b": (1.0,), "c": None},))
    assert t == 2.0  # d/db0 (a * b0) = a
    _, t = srcad.jvp(mixed, (p,), ({"a": 1.0, "b": None, "c": np.ones(2)},))
    assert t == 3.0 + 4.0  # b0 + 2 * sum(c)


def test_cotangents_must_have_the_shape_and_structure_of_the_output():
    _, vjp_fn = srcad.vjp(lambda x: x * x, np.ones(3))
    for bad in (np.ones(1), 1.0):
        with pytest.raises(srcad.ArgumentError, match="shape"):
            vjp_fn(bad)
    _, vjp_fn = srcad.vjp(lambda x: (x, x), np.ones(3))
    with pytest.raises(srcad.ArgumentError, match="structure"):
        vjp_fn(np.ones(3))
    _, vjp_fn = srcad.vjp(lambda x: x * x, np.ones(3))
    np.testing.assert_allclose(vjp_fn(np.array([1, 2, 3]))[0], [2.0, 4.0, 6.0])  # int cotangent


# -- outputs ----------------------------------------------------------------------------------


def returns_none(x):
    y = x * 2.0  # noqa: F841 (srcad input: computes, then returns None)
    return None


def returns_text(x):
    return "loss"


def returns_first(x):
    return x[:1] * 2.0


def returns_object(x):
    return object()


def returns_either(x, k):
    return np.sum(x) if k else x


@pytest.mark.parametrize("f,x", [(returns_none, 2.0), (returns_text, 2.0), (returns_first, np.ones(3)),
                                 (returns_object, 2.0)])
def test_outputs_that_are_not_real_scalars_are_refused_at_the_return_line(f, x):
    with pytest.raises(srcad.NonScalarOutputError) as err:
        srcad.grad(f)(x)
    line = f.__code__.co_firstlineno + (2 if f is returns_none else 1)
    assert f"{__file__}:{line}" in str(err.value)


def test_outputs_of_unknown_rank_are_checked_when_the_code_runs():
    old = srcad.config.shape_variants
    srcad.config.shape_variants = 0  # rank-only code: the output's rank depends on k
    try:
        g = srcad.grad(returns_either)
        np.testing.assert_allclose(g(np.ones(3), 1), np.ones(3))
        with pytest.raises(srcad.NonScalarOutputError) as err:
            g(np.ones(3), 0)
        assert f"{__file__}:{returns_either.__code__.co_firstlineno + 1}" in str(err.value)
    finally:
        srcad.config.shape_variants = old


def test_int_outputs_have_zero_derivative():
    assert srcad.grad(lambda x: int(math.floor(x)))(2.5) == 0.0


# -- argnums ----------------------------------------------------------------------------------


def two(x, y):
    return x * y


@pytest.mark.parametrize("argnums", [-3, 2, (0, 2), (), 1.0, True])
def test_argnums_out_of_range_are_refused(argnums):
    for transform in (srcad.grad, srcad.value_and_grad):
        with pytest.raises(srcad.ArgumentError):
            transform(two, argnums=argnums)(2.0, 3.0)
    for transform in (srcad.jacfwd, srcad.jacrev, srcad.hessian):
        with pytest.raises(srcad.ArgumentError):
            transform(two, argnums=argnums)(2.0, 3.0)


def test_negative_argnums_count_from_the_end():
    assert srcad.grad(two, argnums=-1)(2.0, 3.0) == 2.0
    assert srcad.grad(two, argnums=-2)(2.0, 3.0) == 3.0


# -- what custom_vjp backward rules return -------------------------------------------------


@srcad.custom_vjp
def doubled(x):
    return np.sum(x * 2.0)


def _doubled_fwd(x):
    return doubled(x), x


doubled.defvjp(_doubled_fwd, lambda x, g: (g * 2.0 * np.ones_like(x),))


@srcad.custom_vjp
def complex_rule(x):
    return np.sum(x * 2.0)


complex_rule.defvjp(_doubled_fwd, lambda x, g: (g * 2.0j * np.ones_like(x),))


@srcad.custom_vjp
def misshapen_rule(x):
    return np.sum(x * 2.0)


misshapen_rule.defvjp(_doubled_fwd, lambda x, g: (np.ones(2),))


def test_custom_rule_cotangents_are_checked():
    np.testing.assert_allclose(srcad.grad(lambda x: doubled(x) * 3.0)(np.ones(3)), 6.0 * np.ones(3))
    with pytest.raises(srcad.TypeSupportError, match="complex"):
        srcad.grad(lambda x: complex_rule(x) * 3.0)(np.ones(3))
    with pytest.raises(srcad.TypeSupportError, match="shape"):
        srcad.grad(lambda x: misshapen_rule(x) * 3.0)(np.ones(3))


# -- values whose type srcad cannot know while transforming: checked when the code runs ----


class Maker:
    """A callable object: srcad cannot see into the call, so its result's type is unknown."""

    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


def times_made(x, maker):
    c = maker()
    return np.sum(x * c)


def test_results_of_opaque_calls_are_checked_where_they_meet_differentiated_values():
    x = np.ones(2)
    np.testing.assert_allclose(srcad.grad(times_made)(x, Maker(np.array([1.0, 2.0]))), [1.0, 2.0])
    for bad in (1.0 + 2.0j, np.matrix([[1.0, 2.0]])):  # (x * c complex: so is grad's output)
        with pytest.raises(srcad.TypeSupportError) as err:
            srcad.grad(times_made)(x, Maker(bad))
        assert f"{__file__}:{times_made.__code__.co_firstlineno + 2}" in str(err.value)


def pair_with_text(x):
    return "label", x


def nothing(x):
    y = x * 2.0  # noqa: F841 (srcad input: computes, then returns None)
    return None


def test_outputs_of_jacobians_and_vjp_must_be_numbers():
    line = pair_with_text.__code__.co_firstlineno + 1
    for thunk in (lambda: srcad.vjp(pair_with_text, 1.0), lambda: srcad.jvp(pair_with_text, (1.0,), (1.0,)),
                  lambda: srcad.jacfwd(pair_with_text)(1.0), lambda: srcad.jacrev(pair_with_text)(1.0)):
        with pytest.raises(srcad.NonScalarOutputError) as err:
            thunk()
        assert err.value.lineno == line
    for thunk in (lambda: srcad.jacfwd(nothing)(1.0), lambda: srcad.jacrev(nothing)(1.0)):
        with pytest.raises(srcad.NonScalarOutputError):
            thunk()


def weighted_count(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
    return s


def pick(x, i):
    return x[i] * 2.0


def test_promoted_ints_used_as_ints_are_refused_at_their_line():
    for thunk in (lambda: srcad.grad(weighted_count, argnums=(0, 1))(2.0, 3),
                  lambda: srcad.jvp(weighted_count, (2.0, 3), (1.0, 1.0)),
                  lambda: srcad.jacfwd(weighted_count, argnums=1)(2.0, 3)):
        with pytest.raises(srcad.TypeSupportError) as err:
            thunk()
        assert err.value.lineno == weighted_count.__code__.co_firstlineno + 2  # the for line
    with pytest.raises(srcad.TypeSupportError) as err:
        srcad.grad(pick, argnums=(0, 1))(np.ones(3), 1)
    assert err.value.lineno == pick.__code__.co_firstlineno + 1
    assert srcad.jvp(weighted_count, (2.0, 3), (1.0, None)) == (6.0, 3.0)  # n not differentiated


class Spec(collections.namedtuple("Spec", "Q r")):
    """A named tuple of parameters (read by field name)."""


def quadratic_form(spec, x):
    return spec.r * x @ spec.Q @ x


def test_named_tuple_fields_are_read_by_name():
    x = np.array([1.0, 2.0])
    g = srcad.grad(quadratic_form)(Spec(np.eye(2), 2.0), x)
    assert type(g) is Spec
    assert_tree_close(g.Q, 2.0 * np.outer(x, x))  # d/dQ r x^T Q x = r x x^T
    assert g.r == pytest.approx(x @ x)
    assert_tree_close(srcad.hessian(quadratic_form, argnums=1)(Spec(np.eye(2), 2.0), x), 4.0 * np.eye(2))
