"""Second order of functions that used to crash: np.where with a scalar branch (its result
is an array because of the condition), and a `return` inside a loop that builds a list
comprehension (the generated gradient carries the list and the return value through the
loop). Every way of nesting is checked against second-order finite differences."""

import collections
import math

import numpy as np
import pytest
from oracle import fd_grad, second_difference

import srcad

S_GLOBAL = 0.5


def where_scalar_argument(x, s):
    return np.sum(np.where(x > 0, x, s))


def where_literal(x):
    return np.sum(np.where(x > 0, x, 0.3))


def where_int_literal(x):
    return np.sum(np.where(x > 0, x * x, 0))


def where_global(x):
    return np.sum(np.where(x > 0, x, S_GLOBAL))


def where_mask_argument(x, mask, s):
    return np.sum(np.where(mask, x * x, s))


def where_scalar_squared(s, x):
    return np.sum(np.where(x > 0, s * s, x) ** 2)


def where_both_scalar(x):
    return np.sum(np.where(x > 0, 1.0, 2.0) * x * x)


def return_sum_of_comprehension(x):
    for i in range(3):
        ys = [x * x * j for j in range(i + 1)]
        if i == 1:
            return sum(ys)
    return x


def return_comprehension_directly(x):
    for i in range(3):
        if i == 1:
            return sum([x * x * j for j in range(i + 1)])
    return x


def return_after_data_dependent_test(x):
    for i in range(3):
        ys = [math.sin(x * j) for j in range(i + 1)]
        if sum(ys) > 0.5:
            return sum(ys) * x
    return x


def return_from_while(x):
    k = 0
    while True:
        ys = [x * x * j for j in range(k + 1)]
        if k == 2:
            return sum(ys)
        k += 1


def return_from_nested_loops(x):
    for i in range(3):
        for k in range(2):
            ys = [x * x * j * k for j in range(i + 1)]
            if i == 1 and k == 1:
                return sum(ys) + x
    return x


def return_array_comprehension(x):
    for i in range(3):
        ys = [np.sin(x) * j for j in range(i + 1)]
        if i == 1:
            return np.sum(np.stack(ys) ** 2)
    return np.sum(x)


X = np.array([0.5, -1.0, 2.0, 1.5])
CASES = [
    (where_scalar_argument, (X, 0.7), 0), (where_scalar_argument, (X, 0.7), 1),
    (where_literal, (X,), 0), (where_int_literal, (X,), 0), (where_global, (X,), 0),
    (where_mask_argument, (X, X > 0, 0.7), 0), (where_mask_argument, (X, X > 0, 0.7), 2),
    (where_scalar_squared, (0.7, X), 0), (where_both_scalar, (X,), 0),
    (return_sum_of_comprehension, (0.7,), 0), (return_comprehension_directly, (0.7,), 0),
    (return_after_data_dependent_test, (0.7,), 0), (return_after_data_dependent_test, (0.05,), 0),
    (return_from_while, (0.7,), 0), (return_from_nested_loops, (0.7,), 0),
    (return_array_comprehension, (np.array([0.3, -0.8]),), 0),
]



def _close(got, want):
    assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (got, want)


def _ids(cases):
    return [f"{fn.__name__}-arg{i}" for fn, _, i in cases]


@pytest.mark.parametrize("fn,args,i", CASES, ids=_ids(CASES))
def test_first_and_second_order_match_finite_differences(fn, args, i):
    rng = np.random.default_rng(3)
    x = args[i]
    u, v = (rng.normal(size=np.shape(x)), rng.normal(size=np.shape(x))) if np.ndim(x) else (0.6, -0.9)
    tangents = [None] * len(args)
    tangents[i] = v
    g = srcad.grad(fn, argnums=i)
    np.testing.assert_allclose(g(*args), fd_grad(fn, args, i), rtol=1e-5, atol=1e-6)
    want = second_difference(fn, args, i, u, v)
    n = int(np.size(x))
    for H_matrix in (srcad.hessian(fn, argnums=i)(*args), srcad.jacfwd(g, argnums=i)(*args),
                     srcad.jacrev(g, argnums=i)(*args)):
        _close(float(np.ravel(u) @ np.reshape(H_matrix, (n, n)) @ np.ravel(v)), want)
    for Hv in (srcad.hvp(fn, args, tangents), srcad.jvp(g, args, tangents)[1]):
        _close(float(np.sum(np.asarray(u) * Hv)), want)
    _close(float(np.sum(np.asarray(srcad.vjp(g, *args)[1](u)[i]) * v)), want)
    if n == 1 and np.ndim(x) == 0:
        _close(srcad.grad(g, argnums=i)(*args) * u * v, want)


def test_grad_of_a_vector_valued_gradient_is_refused():
    # the gradient of np.sum(np.where(x > 0, x, 0.3)) is an array: grad of it needs jacrev
    with pytest.raises(srcad.NonScalarOutputError):
        srcad.grad(srcad.grad(where_literal))(X)


def constant_output(x, y, z):
    return 0.5


def constant_pair(x):
    return 0.5, 1.0


def test_hessian_of_a_constant_function_of_several_arguments():
    # M1:2140: the gradient returns the literal tuple (0.0, 0.0, 0.0), whose tangent was one 0.0
    H = srcad.hessian(constant_output, argnums=(0, 1, 2))(0.5, -0.5, -0.5)
    assert np.array(H, dtype=float).shape == (3, 3) and not np.any(np.array(H, dtype=float))
    assert srcad.jvp(constant_pair, (0.3,), (1.0,)) == ((0.5, 1.0), (0.0, 0.0))
    assert [float(j) for j in srcad.jacfwd(constant_pair)(0.3)] == [0.0, 0.0]


def reduction_then_item_write(x):
    xs = [0, x[0], 0]
    if 0.5 < x:
        x = 0.5
    v = np.sin(np.sum(x))
    return np.sum(x) + v + sum(xs)


@pytest.mark.parametrize("x0", [-0.5, 0.7])
def test_second_order_writes_into_a_tangent_that_was_a_broadcast(x0):
    # M1:2318: the tangent of the cotangent np.sum broadcasts back was the read-only
    # broadcast itself, and the adjoint of x[0] wrote into it. Hand-derived: for x0 < 0.5,
    # f = 2 x0 + sin(x0), f'' = -sin(x0); otherwise f = 0.5 + sin(0.5) + x0, f'' = 0.
    x = np.array([x0])
    want = -np.sin(x0) if x0 < 0.5 else 0.0
    np.testing.assert_allclose(srcad.hessian(reduction_then_item_write)(x), [[want]], atol=1e-12)
    np.testing.assert_allclose(srcad.hvp(reduction_then_item_write, (x,), (np.ones(1),)), [want], atol=1e-12)
    np.testing.assert_allclose(srcad.grad(reduction_then_item_write)(x),
                               fd_grad(reduction_then_item_write, (x,)), rtol=1e-6)


# grad of a function calling srcad.grad of a product over a list slice. The gradient's code
# writes the cotangent of the list slice (a list of arrays) back into a list; that cotangent
# was typed as an array, so a loop copied it with np.copy (stacking it into one array), then
# read a row of it (a view) and zeroed the row before using the view: silently zero.
U_PRODUCT = np.array([[1.0, 2.0], [3.0, 4.0]])
Z_PRODUCT = np.array([0.5, -1.0])


def chain_product(y, z):
    arrays = [y, z]
    result = arrays[0]
    for a in arrays[1:]:
        result = np.dot(result, a)
    return np.sum(result)


def through_grad_of_chain_product(y, z):
    g = srcad.grad(chain_product, argnums=(0, 1))(y, z)
    return np.sum(g[0] * U_PRODUCT) + np.sum(g[1] * z * Z_PRODUCT)


@pytest.mark.parametrize("argnum", [0, 1])
def test_grad_of_grad_through_a_list_slice_cotangent(argnum):
    y, z = np.array([[1.0, 0.3], [-0.2, 0.7]]), np.array([0.5, -1.0])
    got = srcad.grad(through_grad_of_chain_product, argnums=argnum)(y, z)
    assert np.allclose(got, fd_grad(through_grad_of_chain_product, (y, z), argnum), atol=1e-6)
    assert np.any(got != 0)


Pair = collections.namedtuple("Pair", ["w", "b"])


class Made:
    """A class with its own __new__: its objects are made when the code runs (a call srcad
    does not see into). (Fuzz 10100:365 made a named tuple, which srcad now follows.)"""

    def __new__(cls, *args):
        return object.__new__(cls)

    def __init__(self, w, b):
        self.w, self.b = w, b


def unused_pair(x):
    v = np.sum(np.sin(x.w))
    if not (v < 10.0):
        return v + x.b
    p = Made(x.w, np.sum(x.w))  # noqa: F841 (unused: a call srcad does not see into, given differentiated values)
    return v + x.b


def unused_named_tuple(x):
    v = np.sum(np.sin(x.w))
    p = Pair(x.w, np.sum(x.w))  # (a named tuple made in the function: followed, unused)
    return v + x.b + 0.0 * p.b


def test_a_refusal_in_generated_code_names_the_users_line():
    """Fuzz 10100:365: the gradient runs the unused call as written; transforming that gradient
    again (a Hessian) refused it at a line of srcad's generated code. The error is at the user's
    line, naming the generated line too."""
    x = Pair(np.array([[0.3, -0.2], [0.1, 0.4]]), 0.5)
    g = srcad.grad(unused_pair)(x)  # (hand-derived: cos(w), 1)
    assert np.allclose(g.w, np.cos(x.w), rtol=1e-14) and g.b == 1.0
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.hessian(unused_pair)(x)
    text = str(caught.value)
    line = unused_pair.__code__.co_firstlineno + 4
    assert f"{__file__}:{line}:4:" in text and "generated code" in text, text


def test_an_unused_named_tuple_made_in_the_function_to_second_order():
    """The same with a named tuple, which srcad follows: hand-derived, the Hessian in w is
    diag(-sin(w)), and zero for b."""
    x = Pair(np.array([[0.3, -0.2], [0.1, 0.4]]), 0.5)
    h = srcad.hessian(unused_named_tuple)(x)
    assert np.allclose(h.w.w, np.diag(-np.sin(x.w).ravel()).reshape(2, 2, 2, 2), rtol=1e-14)
    assert np.all(h.w.b == 0.0) and np.all(h.b.w == 0.0) and h.b.b == 0.0
