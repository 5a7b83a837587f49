"""Transformations composed with each other (issue 15, first part): jacfwd, jacrev, hessian,
the vjp_fn of vjp, vmap and linearize transformed again, and called inside a differentiated
function. Every result is checked against closed-form derivatives of the test functions
differentiated once more by central finite differences with Richardson extrapolation
(tests/oracle.py), never against srcad."""

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad_richardson, richardson

import srcad


def f(x):  # scalar, separable: its derivatives are diagonal
    return np.sum(np.sin(x) * x ** 2)


def grad_f(x):
    return np.cos(x) * x ** 2 + 2.0 * x * np.sin(x)


def hess_f(x):
    return np.diag(-np.sin(x) * x ** 2 + 4.0 * x * np.cos(x) + 2.0 * np.sin(x))


def g(x):  # vector valued, not separable
    return np.tanh(x) * x[0]


def jac_g(x):
    j = np.diag((1.0 - np.tanh(x) ** 2) * x[0])
    j[:, 0] += np.tanh(x)
    return j


def looped(x):  # a loop, for the matrix's loop row
    s = 0.0
    for i in range(3):
        s = s * 0.5 + np.sum(np.exp(-x * (i + 1)))
    return s


def grad_looped(x):
    # s = sum_i 0.5 ** (2 - i) * sum(exp(-(i + 1) x))
    return sum(-(0.5 ** (2 - i)) * (i + 1) * np.exp(-(i + 1) * x) for i in range(3))


def fd_jacobian(fn, x, h=1e-3):
    """d fn / d x by central differences with Richardson extrapolation: shape out + x.shape."""
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1.0
        e = e.reshape(x.shape)
        cols.append(richardson(
            lambda s, e=e: (np.asarray(fn(x + s * e)) - np.asarray(fn(x - s * e))) / (2 * s), h))
    return np.moveaxis(np.array(cols), 0, -1)


X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, 2.0, -0.5])


@pytest.mark.parametrize("name, got, want", [
    ("jacfwd(jacrev(g))", lambda: srcad.jacfwd(srcad.jacrev(g))(X), lambda: fd_jacobian(jac_g, X)),
    ("jacrev(jacfwd(g))", lambda: srcad.jacrev(srcad.jacfwd(g))(X), lambda: fd_jacobian(jac_g, X)),
    ("jacrev(jacrev(g))", lambda: srcad.jacrev(srcad.jacrev(g))(X), lambda: fd_jacobian(jac_g, X)),
    ("hessian(g) of a vector", lambda: srcad.hessian(g)(X), lambda: fd_jacobian(jac_g, X)),
    ("grad(jacfwd(g) @ v)", lambda: srcad.grad(lambda x: np.sum(srcad.jacfwd(g)(x) @ V))(X),
     lambda: fd_jacobian(lambda x: np.sum(jac_g(x) @ V), X)),
    ("jacfwd(hessian(f))", lambda: srcad.jacfwd(srcad.hessian(f))(X), lambda: fd_jacobian(hess_f, X)),
    ("hessian(hessian(f))", lambda: srcad.hessian(srcad.hessian(f))(X),
     lambda: fd_jacobian(lambda x: fd_jacobian(hess_f, x), X)),
    ("grad(sum(hessian(f)))", lambda: srcad.grad(lambda x: np.sum(srcad.hessian(f)(x)))(X),
     lambda: fd_jacobian(lambda x: np.sum(hess_f(x)), X)),
    ("jacrev(grad(looped))", lambda: srcad.jacrev(srcad.grad(looped))(X),
     lambda: fd_jacobian(grad_looped, X)),
    ("jacfwd(jacrev(looped))", lambda: srcad.jacfwd(srcad.jacrev(looped))(X),
     lambda: fd_jacobian(grad_looped, X)),
    ("hessian(looped)", lambda: srcad.hessian(looped)(X), lambda: fd_jacobian(grad_looped, X)),
])
def test_composed_jacobians_against_finite_differences_of_closed_forms(name, got, want):
    assert_tree_close(got(), want(), rtol=1e-6, atol=1e-8, what=name)


def uses_a_jacobian_inside(x):
    return np.sum(srcad.jacrev(g)(x) ** 2) + np.sum(srcad.hessian(f)(x))


def test_transformations_called_inside_a_differentiated_function():
    def plain(x):
        return np.sum(jac_g(x) ** 2) + np.sum(hess_f(x))
    assert_tree_close(srcad.grad(uses_a_jacobian_inside)(X), fd_jacobian(plain, X), rtol=1e-6)
    _, tangent = srcad.jvp(uses_a_jacobian_inside, (X,), (V,))
    assert tangent == pytest.approx(fd_jacobian(plain, X) @ V, rel=1e-6)


def test_vjp_fn_is_linear_and_transformable():
    _, vjp_fn = srcad.vjp(g, X)
    ct, dct = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, -3.0])
    (value,), (tangent,) = srcad.jvp(vjp_fn, (ct,), (dct,))
    assert_tree_close(value, jac_g(X).T @ ct)
    assert_tree_close(tangent, jac_g(X).T @ dct)  # (linear in ct)
    assert_tree_close(srcad.jacfwd(lambda c: vjp_fn(c)[0])(ct), jac_g(X).T)


def loss(w, x, y):
    return (np.tanh(x @ w) - y) ** 2


def grad_loss(w, x, y):
    t = np.tanh(x @ w)
    return 2.0 * (t - y) * (1.0 - t ** 2) * x


W = np.array([0.3, -0.2, 0.5])
XS = np.arange(12.0).reshape(4, 3) / 10.0 - 0.4
YS = np.array([0.1, 0.2, -0.3, 0.4])


def test_vmap_per_example_gradients():
    got = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))(W, XS, YS)
    want = np.stack([grad_loss(W, XS[b], YS[b]) for b in range(4)])
    assert_tree_close(got, want)
    # the batch along axis 1 of xs, results along axis 1
    got_t = srcad.vmap(srcad.grad(loss), in_axes=(None, 1, 0), out_axes=1)(W, XS.T, YS)
    assert_tree_close(got_t, want.T)


def mean_loss(w):
    return np.mean(srcad.vmap(loss, in_axes=(None, 0, 0))(w, XS, YS))


def test_grad_of_vmap_and_vmap_inside():
    want = np.mean([grad_loss(W, XS[b], YS[b]) for b in range(4)], axis=0)
    assert_tree_close(srcad.grad(mean_loss)(W), want)
    per_example = srcad.vmap(srcad.grad(loss), in_axes=(None, 0, 0))

    def squared_norms(w):
        return np.sum(per_example(w, XS, YS) ** 2)

    def plain(w):
        return np.sum(np.stack([grad_loss(w, XS[b], YS[b]) for b in range(4)]) ** 2)
    assert_tree_close(srcad.grad(squared_norms)(W), fd_jacobian(plain, W), rtol=1e-6)


def test_vmap_checks_its_arguments():
    with pytest.raises(srcad.ArgumentError, match="different sizes"):
        srcad.vmap(loss, in_axes=(None, 0, 0))(W, XS, YS[:3])
    with pytest.raises(srcad.ArgumentError, match="in_axes"):
        srcad.vmap(loss, in_axes=(None, 0))(W, XS, YS)
    with pytest.raises(srcad.ArgumentError, match="maps no argument"):
        srcad.vmap(loss, in_axes=None)(W, XS, YS)
    with pytest.raises(srcad.ArgumentError, match="is a dict, and vmap maps arrays"):  # (not "shape ()")
        srcad.vmap(lambda p: p["a"] * 2.0)({"a": np.ones(3)})


def test_linearize():
    out, f_jvp = srcad.linearize(g, X)
    assert_tree_close(out, g(X))
    assert_tree_close(f_jvp(V), jac_g(X) @ V)
    assert_tree_close(srcad.jacfwd(f_jvp)(V), jac_g(X))  # (linear: its Jacobian is J)
    with pytest.raises(srcad.ArgumentError, match="one per primal"):
        f_jvp(V, V)


SCALES = np.array([1.0, 2.0])


def scaled_square(x):
    return SCALES * x ** 2


def test_f_jvp_of_linearize_refuses_a_global_rebound_since():
    """f_jvp ran the jvp again with the global as it was then, the derivative at another
    function than the one linearized (vjp_fn keeps the values of the point): an error now.
    By hand: J = diag(2 C x)."""
    global SCALES
    x = np.array([1.0, 1.0])
    out, f_jvp = srcad.linearize(scaled_square, x)
    np.testing.assert_array_equal(f_jvp(np.ones(2)), [2.0, 4.0])
    try:
        SCALES = np.array([10.0, 10.0])
        with pytest.raises(srcad.ArgumentError, match="rebound since srcad.linearize"):
            f_jvp(np.ones(2))
    finally:
        SCALES = np.array([1.0, 2.0])


def test_source_of_every_transformation():
    assert "def jacfwd_g" in srcad.source(srcad.jacfwd(g), X)
    assert "def vjp_bwd_g" in srcad.source(srcad.jacrev(g), X)
    assert "x_dot" in srcad.source(srcad.hessian(f), X)
    assert "_entry_grad" in srcad.source(srcad.jacrev(g))  # (no arguments: the form)
    assert "def vjp_bwd_g" in srcad.source(srcad.vjp(g, X)[1], V)
    assert "_stacked(" in srcad.source(srcad.vmap(loss, in_axes=(None, 0, 0)))


def with_aux(x):
    return np.tanh(x) * x[0], {"norm": np.sum(x ** 2), "tag": 3}


@pytest.mark.parametrize("kind", ["jacfwd", "jacrev"])
def test_has_aux_on_jacobians(kind):
    jac, aux = getattr(srcad, kind)(with_aux, has_aux=True)(X)
    assert_tree_close(jac, jac_g(X))
    assert aux["tag"] == 3 and aux["norm"] == pytest.approx(np.sum(X ** 2))


def test_has_aux_on_hessian_and_jvp():
    def scalar_with_aux(x):
        return f(x), np.cos(x)
    h, aux = srcad.hessian(scalar_with_aux, has_aux=True)(X)
    assert_tree_close(h, hess_f(X))
    assert_tree_close(aux, np.cos(X))
    out, tangent, aux = srcad.jvp(scalar_with_aux, (X,), (V,), has_aux=True)
    assert out == pytest.approx(f(X)) and tangent == pytest.approx(grad_f(X) @ V)
    assert_tree_close(aux, np.cos(X))
    with pytest.raises(srcad.ArgumentError, match="must return a pair"):
        srcad.jvp(f, (X,), (V,), has_aux=True)


def test_options_and_argument_checks():
    assert_tree_close(srcad.grad(f, allow_int=True)(X), grad_f(X))
    assert_tree_close(srcad.jacfwd(g, chunk_size=1)(X), jac_g(X))  # (one column at a time)
    assert_tree_close(srcad.jacrev(g, chunk_size=2)(X), jac_g(X))
    with pytest.raises(srcad.ArgumentError, match="holomorphic"):
        srcad.grad(f, holomorphic=True)
    with pytest.raises(srcad.ArgumentError, match="chunk_size"):
        srcad.jacfwd(g, chunk_size=0)
    with pytest.raises(srcad.ArgumentError, match="primals must be a tuple"):
        srcad.jvp(f, X, V)
    with pytest.raises(srcad.ArgumentError, match=r"shape \(2,\).*shape \(3,\)"):
        srcad.jvp(f, (X,), (np.ones(2),))


def aliased_write(x):  # unsafe: `a` sees the write, which srcad's SSA would not
    y = x * 1.0
    a = y
    y[0] = x[0] * 3.0
    return a * x + a[0]


def copied_write(x):  # the same computation written safely
    y = x * 1.0
    y[0] = x[0] * 3.0
    return y * x + y[0]


NESTED = {
    "jacfwd": lambda h: lambda x: np.sum(srcad.jacfwd(h)(x)),
    "jacrev": lambda h: lambda x: np.sum(srcad.jacrev(h)(x)),
    "hessian": lambda h: lambda x: np.sum(srcad.hessian(lambda z: np.sum(h(z)))(x)),
    "vjp": lambda h: lambda x: np.sum(srcad.vjp(h, x)[1](np.ones(2))[0]),
    "vmap": lambda h: lambda x: np.sum(srcad.vmap(h)(np.stack([x, 2.0 * x]))),
}


@pytest.mark.parametrize("kind", sorted(NESTED))
def test_a_function_inlined_into_a_nested_form_keeps_the_mutation_check(kind):
    """A nested transformation called inside a differentiated function is read as its form,
    srcad's generated code, whose own writes are trusted; the user's function inlined into it
    was trusted too, so an unsafe write through an alias was differentiated wrongly
    (jacfwd: [2, 2] where the answer is [6, 2]). It is checked as the user's code now."""
    x = np.array([1.0, 2.0])
    with pytest.raises(srcad.UnsafeMutationError, match="changes 'y' in place"):
        srcad.grad(NESTED[kind](aliased_write))(x)
    outer = NESTED[kind](copied_write)
    assert_tree_close(srcad.grad(outer)(x), fd_grad_richardson(outer, (x,)), rtol=1e-5)


def test_vjp_fn_and_f_jvp_keep_the_point_when_the_caller_writes_into_its_array():
    """vjp_fn and f_jvp compute from the primals later; NumPy arrays can be written (JAX's
    cannot), so a write into the caller's array after the call changed later derivatives.
    Checked against the closed-form Jacobian of g at the original point."""
    ct, point = np.array([1.0, 2.0, 3.0]), X.copy()
    z = X.copy()
    _, vjp_fn = srcad.vjp(g, z)
    z[0] = 2.0
    assert_tree_close(vjp_fn(ct)[0], jac_g(point).T @ ct)
    assert_tree_close(srcad.jvp(vjp_fn, (ct,), (ct,))[1][0], jac_g(point).T @ ct)
    z = {"a": X.copy()}
    _, f_jvp = srcad.linearize(lambda p: g(p["a"]), z)
    z["a"][1] = 5.0
    assert_tree_close(f_jvp({"a": ct}), jac_g(point) @ ct)


def pair(y):
    return np.sin(y), y[0] * y[1]  # (results of two shapes)


def keyed(y):
    return {"s": np.sin(y), "q": y ** 2, "p": y[0] * y[2]}


def nested_pairs(y):
    return (np.sin(y), (y, y[0])), y


VMAP_INSIDE = {  # vmap called inside, its results by hand: (value, gradient) of the outer function
    "tuple": (lambda xs: np.sum(srcad.vmap(pair)(xs)[1] ** 2) + np.sum(srcad.vmap(pair)(xs)[0]),
              lambda xs: (np.sum((xs[:, 0] * xs[:, 1]) ** 2) + np.sum(np.sin(xs)))),
    "dict": (lambda xs: np.sum(srcad.vmap(keyed)(xs)["p"] * srcad.vmap(keyed)(xs)["s"][:, 1]),
             lambda xs: np.sum(xs[:, 0] * xs[:, 2] * np.sin(xs[:, 1]))),
}


@pytest.mark.parametrize("kind", sorted(VMAP_INSIDE))
def test_vmap_inside_stacks_tuple_and_dict_results_as_vmap_does(kind):
    """The vmap form stacked a tuple result with np.stack: indexed along the batch instead of
    the tuple, a wrong value and gradient. Against finite differences of the same function
    written without vmap."""
    outer, by_hand = VMAP_INSIDE[kind]
    xs = np.array([[0.5, 1.0, 1.5], [0.7, 0.2, 1.1]])
    value, grad = srcad.value_and_grad(outer)(xs)
    assert value == pytest.approx(by_hand(xs), rel=1e-12)
    assert_tree_close(grad, fd_grad_richardson(by_hand, (xs,)), rtol=1e-6)


def test_what_the_vmap_and_jacobian_forms_cannot_do_is_an_argument_error():
    xs = np.array([[0.5, 1.0, 1.5], [0.7, 0.2, 1.1]])
    with pytest.raises(srcad.ArgumentError, match="where srcad needs an array"):  # (a tuple of tuples)
        srcad.grad(lambda v: np.sum(srcad.vmap(nested_pairs)(v)[1]))(xs)
    with pytest.raises(srcad.ArgumentError, match="maps arrays"):
        srcad.grad(lambda v: np.sum(srcad.vmap(lambda p: p["a"] * 2.0)({"a": v})))(xs)
    with pytest.raises(srcad.ArgumentError, match="length 0") as e:
        srcad.grad(lambda v: np.sum(srcad.vmap(pair)(v[:0])[0]) + np.sum(v))(xs)
    notes = "\n".join(getattr(e.value, "__notes__", [])) + str(e.value)
    assert "test_composition.py:" in notes  # (the user's call, not the line of srcad's form)
    # a Jacobian of size 0 inside: zeros, as at the top level (was np.stack of no rows)
    x = np.array([0.7, 1.3, 0.9])
    got = srcad.grad(lambda v: np.sum(srcad.jacfwd(lambda y: y[3:] * 2.0)(v)) + np.sum(v ** 2))(x)
    assert_tree_close(got, 2.0 * x)


def early_return(a):  # (a return inside a loop: its result is a float on every path)
    for _ in range(2):
        if a > 5.0:
            return a * 2.0
    return np.sin(a)


def mixed_items(a, b):  # (an item of a list of a float and an array: a value of unknown rank)
    xs = [b, np.ones((3, 1))]
    return xs[0] * np.sum(np.sin(a))


INNER_OF_UNKNOWN_SHAPE = {
    "jacfwd": (lambda x: srcad.jacfwd(early_return)(x) * x, lambda x: np.cos(x) * x),
    "jacrev": (lambda x: srcad.jacrev(early_return)(x) * x, lambda x: np.cos(x) * x),
    "jvp": (lambda x: srcad.jvp(early_return, (x,), (1.0,))[1] * x, lambda x: np.cos(x) * x),
    "jacfwd_items": (lambda x: np.sum(srcad.jacfwd(mixed_items)(np.array([x, 0.2]), 2.0)),
                     lambda x: 2.0 * (np.cos(x) + np.cos(0.2))),
    "jacrev_gathered": (lambda x: np.sum(srcad.jacrev(np.sin)(np.array([x, 0.2])[np.array([0, 1])])),
                        lambda x: np.cos(x) + np.cos(0.2)),  # (an argument of a rank not known)
}


@pytest.mark.parametrize("kind", sorted(INNER_OF_UNKNOWN_SHAPE))
def test_jacobians_inside_of_a_result_whose_shape_is_not_known(kind):
    """jacfwd, jacrev and jvp inside were refused ("+ of ? and ()", at srcad's own line) when
    the inner result's shape was not known while transforming (a return inside a loop typed
    its result as unknown; an item of a mixed list). Against finite differences of the same
    function with the inner derivative by hand."""
    outer, by_hand = INNER_OF_UNKNOWN_SHAPE[kind]
    x = 0.3
    assert srcad.grad(outer)(x) == pytest.approx(fd_grad_richardson(by_hand, (x,)), rel=1e-7)


def halved(a, b):
    a *= 0.5  # (a float: a new value, not a write into the caller's)
    return a * b


def cubed_first(y):
    z = y.copy()
    z[0] = z[0] ** 3
    return np.sum(z * y)


def counted(y, n):
    n += 1  # (an int: a new value)
    return y ** 2 * n


INSIDE_FOR_THE_CALLERS_TYPES = {  # (outer function, the same with the inner derivative by hand)
    "int_param_updated": (lambda x: srcad.grad(counted)(x, 3) * x, lambda x: 8.0 * x * x),
    "float_param_updated": (lambda x: srcad.grad(halved)(x, 2.0) * x, lambda x: 1.0 * x),
    "argnums_1": (lambda x: srcad.grad(halved, argnums=1)(x - 1.0, 2.0) * x,
                  lambda x: 0.5 * (x - 1.0) * x),
    "copy_then_write": (lambda x: srcad.grad(cubed_first)(np.array([x, 1.3, 0.9]))[0] * x,
                        lambda x: (4.0 * x ** 3) * x),
}


@pytest.mark.parametrize("kind", sorted(INSIDE_FOR_THE_CALLERS_TYPES))
def test_a_transform_called_inside_is_built_for_the_callers_types(kind):
    """srcad.grad(h)(x) inside f was built for arguments of any type, where `a *= 0.5` or
    `z = y.copy(); z[0] = ...` may write into the caller's array, and was refused; it is built
    for the types the call has while f is specialised."""
    outer, by_hand = INSIDE_FOR_THE_CALLERS_TYPES[kind]
    x = 0.3
    assert srcad.grad(outer)(x) == pytest.approx(fd_grad_richardson(by_hand, (x,)), rel=1e-7)


def sliced_list(a, b):
    xs = [b, np.sum(a)]
    ys = xs[0:]
    return sum(ys) + sum(xs)  # (= 2 b + 2 sum(a))


def test_a_list_slice_differentiated_twice_in_reverse():
    """The adjoint of a list slice's cotangent accumulation (`xs_bar[0:] = ...` in generated
    code) zeroed the slice with 0.0, which a list cannot take: grad of a function calling
    srcad.grad or srcad.vjp of one crashed in generated code. Against finite differences of
    the same function with the inner derivative by hand (2 for every entry of a)."""
    x = np.array([0.5, 0.2])
    outer = lambda v: np.sum(srcad.vjp(sliced_list, v, 0.5)[1](np.sum(v))[0])  # noqa: E731
    by_hand = lambda v: np.sum(2.0 * np.sum(v) * np.ones(2))  # noqa: E731
    assert_tree_close(srcad.grad(outer)(x), fd_grad_richardson(by_hand, (x,)), rtol=1e-7)
    twice = lambda v: np.sum(srcad.grad(sliced_list)(v, 0.5) * v)  # noqa: E731
    assert_tree_close(srcad.grad(twice)(x), fd_grad_richardson(lambda v: 2.0 * np.sum(v), (x,)), rtol=1e-7)


def test_vjp_inside_of_a_tuple_result():
    """The vjp form paired a result with its cotangent by np.sum(out * ct), refused for a
    tuple result (at srcad's own line). By hand: vjp of (sin(y), y0 y1) at x with cotangent
    (x, 1) is cos(x) x + (x1, x0, 0); its sum's gradient against finite differences."""
    x = np.array([0.7, 1.3, 0.9])
    outer = lambda v: np.sum(srcad.vjp(pair, v)[1]((v, 1.0))[0])  # noqa: E731
    by_hand = lambda v: np.sum(np.cos(v) * v) + v[1] + v[0]  # noqa: E731
    assert outer(x) == pytest.approx(by_hand(x), rel=1e-12)
    assert_tree_close(srcad.grad(outer)(x), fd_grad_richardson(by_hand, (x,)), rtol=1e-7)




def ragged_pieces(b):
    return np.concatenate([np.full((1, 1), np.sum(b)), np.full((2, 1), b[0][0]) * b[0]])


def quarter(a):
    return 0.25 * a


def through_ragged_pieces(y, z, n):
    z = z - 0.25 * srcad.vjp(quarter, y[[0]] if n > 0 else z)[1](z.copy())[0]
    return np.sum(z - 0.1 * srcad.vjp(ragged_pieces, np.square(z))[1](np.full((1, 3), y[0, 0]).T)[0])


def test_vjp_inside_of_a_concatenation_of_pieces_of_different_shapes():
    """The cotangent of np.concatenate's list of pieces (split_like: a list already) went
    through the list-splitting helper, whose adjoint stacked the cotangents back with np.array,
    which ragged pieces cannot be: reverse over a vjp of it crashed in generated code (fuzz
    14400:960). By hand: b = z^2 is 1x1, the pieces are (b00) and (b00^2, b00^2), so the vjp
    with cotangent c is c0 + 2 b00 (c1 + c2); the vjp of quarter is a quarter of its cotangent."""
    y, z = np.array([[1.115], [0.6431], [-0.523]]), np.array([[0.9638]])

    def by_hand(y, z, n):
        z = z - 0.0625 * z
        b, c = np.square(z), y[0, 0]
        return np.sum(z - 0.1 * (c + 4.0 * b * c))

    assert through_ragged_pieces(y, z, 0) == pytest.approx(by_hand(y, z, 0), rel=1e-12)
    assert_tree_close(srcad.grad(through_ragged_pieces)(y, z, 0), fd_grad_richardson(by_hand, (y, z, 0)),
                      rtol=1e-7)


def grown(a, b):
    for _ in range(2):
        b = 0.5 * b + (a + b)
    return 0.5 * a * a + 0.5 * b


def through_an_array_of_a_cotangent(x, y):
    xs = [np.array(0.3), srcad.vjp(grown, np.sum(x), np.sum(y))[1](np.sum(x))[1]]
    return np.sum(np.array(xs[1]))


def test_the_cotangent_of_a_number_made_an_array_is_a_number():
    """np.array of a number: the adjoint handed the number a 0-d read-only broadcast as its
    cotangent, which the adjoint of `b_bar += 0.5 * b_bar` then updated in place: reverse over
    the vjp crashed in generated code (fuzz 20400:221). By hand: d grown / db = 0.5 * 1.5^2, so
    f = 1.125 sum(x), whose gradient is 1.125 for every x and 0 for y."""
    x, y = np.array([[-1.3125, -0.687, -0.3055]]), np.array([[-1.26], [-1.4887], [-1.426]])
    assert through_an_array_of_a_cotangent(x, y) == pytest.approx(1.125 * np.sum(x), rel=1e-12)
    for got in (srcad.grad(through_an_array_of_a_cotangent, argnums=(0, 1))(x, y),
                srcad.vjp(through_an_array_of_a_cotangent, x, y)[1](1.0)):
        np.testing.assert_allclose(got[0], np.full((1, 3), 1.125), rtol=1e-12)
        np.testing.assert_array_equal(got[1], np.zeros((3, 1)))


def power(p):
    a, k = p
    return a ** k


def power_slope(x):
    return srcad.grad(power)((x, 3.0))[0]


def test_an_unused_inner_derivative_that_is_nan_stays_out():
    """d(a^k)/dk = a^k log a is NaN at a < 0; the outer derivative uses only d/da, but its
    adjoint multiplied the zero cotangent of the unused entry by log a: 0 * NaN = NaN. A
    cotangent entry nothing was added to is a known zero now, and its adjoint is not computed
    (JAX's symbolic zeros give the same). By hand: d/dx (3 x^2) = 6 x."""
    for x in (-0.5, 0.7):
        assert srcad.grad(power_slope)(x) == pytest.approx(6.0 * x, rel=1e-12)
        assert srcad.jacfwd(power_slope)(x) == pytest.approx(6.0 * x, rel=1e-12)


def halved_thrice(a, b):
    for _ in range(3):
        b = 0.5 * b - a
    return b + a


def tangent_of_an_item(x, z):
    return srcad.jvp(halved_thrice, (0.3, 0.4), (0.0, z[1][0, 0]))[1]


def test_a_cotangent_typed_as_a_number_is_not_a_shared_array():
    """_unbroadcast of a 0-d array to a number's shape returned the array itself, typed as a
    float: the adjoint's `_t += ...` then changed the other cotangent in place, and the value
    and gradient came back 0 (fuzz 14500:973). By hand: the tangent is 0.125 z[1][0, 0]."""
    z = [np.array(-1.3951), np.array([[-0.3744, -1.2805]]), 0.0739]
    value, grads = srcad.value_and_grad(tangent_of_an_item, argnums=(0, 1))(0.5, z)
    assert value == pytest.approx(0.125 * -0.3744, rel=1e-12)
    np.testing.assert_allclose(grads[1][1], [[0.125, 0.0]], rtol=1e-12)
    assert grads[0] == 0.0 and grads[1][0] == 0.0 and grads[1][2] == 0.0


def power_of_items(p):
    return p[0] ** p[1] + p[2] * p[0]


def power_of_entries(d):
    return d["a"] ** d["k"]


def test_an_unused_nan_derivative_of_a_list_or_dict_item_stays_out_in_forward_mode():
    """The tangent of a list's or dict's constant item is a known zero too (jacfwd gave NaN
    through d a^k/dk at a < 0; the adversarial pass). By hand: d/dx (3 x^2 - 2) = 6x, d/dx 2x = 2."""
    x = -1.5
    assert srcad.jacfwd(lambda v: srcad.grad(power_of_items)([v, 3.0, -2.0])[0])(x) == pytest.approx(6 * x)
    slope = srcad.jacfwd(lambda v: srcad.grad(power_of_entries)({"a": v, "k": 2.0})["a"])(x)
    assert slope == pytest.approx(2.0)


def array_power_of_items(p):
    return np.sum(p[0] ** p[1])


def array_power_of_entries(d):
    return np.sum(d["a"] ** d["k"])


@pytest.mark.parametrize("mode", [srcad.grad, srcad.jacfwd], ids=["reverse", "forward"])
def test_an_unused_nan_derivative_beside_an_array_stays_out(mode):
    """A tuple or dict holding an array and a number: its zero cotangent's number entry is a
    known zero in reverse mode too (grad gave NaN where x < 0 through d sum(a^k)/dk = sum(a^k
    log a), which the outer function does not use). By hand: d/dx sum(3 x^2) = 6 x."""
    x = np.array([-1.5, 2.0, -0.5])
    through_tuple = mode(lambda v: np.sum(srcad.grad(array_power_of_items)((v, 3.0))[0]))(x)
    through_dict = mode(lambda v: np.sum(srcad.grad(array_power_of_entries)({"a": v, "k": 3.0})["a"]))(x)
    np.testing.assert_allclose(through_tuple, 6.0 * x, rtol=1e-12)
    np.testing.assert_allclose(through_dict, 6.0 * x, rtol=1e-12)
