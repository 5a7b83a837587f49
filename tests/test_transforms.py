"""vjp, jacobians, Hessians, hvp, nesting, pytrees and custom rules, each against an
independent oracle (finite differences or a hand-derived formula)."""

import math

import numpy as np
import pytest
from corpus import family as fam
from oracle import assert_tree_close, fd_grad, fd_jvp

import srcad

rng = np.random.default_rng(11)
X3 = rng.normal(size=3)


def fd_jacobian(f, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        e = e.reshape(x.shape)
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    out_shape = np.shape(f(x))
    return np.stack([np.asarray(c).reshape(out_shape) for c in cols], axis=-1).reshape(out_shape + x.shape)


@pytest.mark.parametrize("f", [fam.vector_map, fam.matrix_out])
def test_jacobians_match_fd_and_each_other(f):
    jf = srcad.jacfwd(f)(X3)
    jr = srcad.jacrev(f)(X3)
    ref = fd_jacobian(f, X3)
    assert jf.shape == ref.shape == jr.shape
    np.testing.assert_allclose(jf, ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(jr, jf, rtol=1e-10, atol=1e-12)


def test_jacobian_through_a_loop():
    f = lambda x: fam.loop_map(x, 4)  # noqa: E731
    np.testing.assert_allclose(srcad.jacrev(fam.loop_map)(X3, 4), fd_jacobian(f, X3), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(srcad.jacfwd(fam.loop_map)(X3, 4), fd_jacobian(f, X3), rtol=1e-5, atol=1e-7)


def test_vjp_any_output_and_repeated_calls():
    out, vjp_fn = srcad.vjp(fam.two_outputs, X3, 0.7)
    np.testing.assert_allclose(out[0], X3 * 0.7)
    u = (rng.normal(size=3), 1.3)
    cx, cy = vjp_fn(u)
    # hand-derived: d/dx <u, f> = u0 * y + u1 * 2x ; d/dy = <u0, x> + u1
    np.testing.assert_allclose(cx, u[0] * 0.7 + 1.3 * 2 * X3)
    assert cy == pytest.approx(float(np.dot(u[0], X3)) + 1.3)
    cx2, _ = vjp_fn(u)  # the backward can run again
    np.testing.assert_allclose(cx2, cx)


def test_vjp_with_loop_stacks_runs_twice():
    out, vjp_fn = srcad.vjp(fam.scalar_loop, 0.3, 5)
    first, none = vjp_fn(1.0)
    assert none is None
    assert first == pytest.approx(fd_grad(fam.scalar_loop, (0.3, 5)), rel=1e-6)
    assert vjp_fn(2.0)[0] == pytest.approx(2 * first)


def test_hessian_and_hvp():
    x = rng.uniform(0.5, 1.5, size=4)
    H = srcad.hessian(fam.rosenbrock)(x)
    g = srcad.grad(fam.rosenbrock)
    ref = fd_jacobian(g, x)
    np.testing.assert_allclose(H, ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(H, H.T, rtol=1e-10)
    v = rng.normal(size=4)
    np.testing.assert_allclose(srcad.hvp(fam.rosenbrock, (x,), (v,)), H @ v, rtol=1e-9)


def test_nesting_second_order_through_loops():
    # d^2/dx^2 of the scalar loop, three ways: grad(grad), jvp of grad, FD of grad
    g = srcad.grad(fam.scalar_loop)
    ref = fd_grad(g, (0.3, 6))
    assert srcad.grad(g)(0.3, 6) == pytest.approx(ref, rel=1e-6)
    assert srcad.jvp(g, (0.3, 6), (1.0, None))[1] == pytest.approx(ref, rel=1e-6)
    assert srcad.jacfwd(g)(0.3, 6) == pytest.approx(ref, rel=1e-6)


def test_third_order():
    f = lambda x: x ** 5  # noqa: E731
    assert srcad.grad(srcad.grad(srcad.grad(f)))(1.3) == pytest.approx(60 * 1.3 ** 2)


def test_pytrees_dict_list_tuple():
    params = {"W1": rng.normal(size=(3, 2)), "b1": rng.normal(size=3), "W2": rng.normal(size=(2, 3))}
    x = rng.normal(size=2)
    g = srcad.grad(fam.mlp_params)(params, x)
    assert isinstance(g, dict) and set(g) == set(params)
    assert_tree_close(g, fd_grad(fam.mlp_params, (params, x)))
    ws = [(rng.normal(size=(2, 2)), rng.normal(size=2)) for _ in range(3)]
    gw = srcad.grad(fam.layers)(ws, x)
    assert isinstance(gw, list) and isinstance(gw[0], tuple)
    assert_tree_close(gw, fd_grad(fam.layers, (ws, x)))
    p = (0.7, (1.1, -0.4))
    assert_tree_close(srcad.grad(fam.nested_tuple)(p), fd_grad(fam.nested_tuple, (p,)))


def test_pytree_tangents_in_jvp():
    params = {"W1": rng.normal(size=(3, 2)), "b1": rng.normal(size=3), "W2": rng.normal(size=(2, 3))}
    x = rng.normal(size=2)
    t = {k: rng.normal(size=v.shape) for k, v in params.items()}
    _, jv = srcad.jvp(fam.mlp_params, (params, x), (t, None))
    assert jv == pytest.approx(float(fd_jvp(fam.mlp_params, (params, x), (t, None))), rel=1e-6)


def test_custom_vjp_rule_is_used():
    g = srcad.grad(fam.uses_clipped_log)(0.7)
    assert g == pytest.approx(fd_grad(fam.uses_clipped_log, (0.7,)), rel=1e-6)
    assert "_clipped_log_bwd" in srcad.source(srcad.grad(fam.uses_clipped_log))


def test_custom_jvp_rule_is_used_and_reverse_needs_vjp():
    x = rng.normal(size=3)
    t = rng.normal(size=3)
    _, jv = srcad.jvp(fam.uses_softplus, (x,), (t,))
    assert jv == pytest.approx(float(fd_jvp(fam.uses_softplus, (x,), (t,))), rel=1e-6)
    with pytest.raises(srcad.NoRuleError, match="reverse-mode"):
        srcad.grad(fam.uses_softplus)(x)


def test_grad_through_a_transformed_helper():
    def h(x):
        return x * x * math.sin(x)

    dh = srcad.grad(h)

    def uses(x):
        return dh(x) * 2.0

    ref = fd_grad(uses, (0.4,))  # calls dh, which specialises it for floats first
    assert srcad.grad(uses)(0.4) == pytest.approx(ref, rel=1e-6)
    # hand-derived: d/dx 2 * (2x sin x + x^2 cos x) = 2 * (2 sin x + 4x cos x - x^2 sin x)
    x = 0.4
    assert srcad.grad(uses)(x) == pytest.approx(2 * (2 * math.sin(x) + 4 * x * math.cos(x)
                                                     - x * x * math.sin(x)), rel=1e-12)


def test_rule_let_used_inside_a_run_time_branch():
    # the shared sub-expression `c` is first needed inside a branch on a run-time value
    srcad.defrule(fam.scaled_sin, "x, flag", let={"c": "np.cos(x)"},
                  jvp={"x": "t * (2.0 * c if flag else c)"}, vjp={"x": "g * (2.0 * c if flag else c)"})
    x = rng.normal(size=3)
    for flag in (True, False):
        assert_tree_close(srcad.grad(fam.uses_scaled_sin)(x, flag), fd_grad(fam.uses_scaled_sin, (x, flag)))
        t = rng.normal(size=3)
        _, jv = srcad.jvp(fam.uses_scaled_sin, (x, flag), (t, None))
        assert jv == pytest.approx(float(fd_jvp(fam.uses_scaled_sin, (x, flag), (t, None))), rel=1e-6)


@pytest.mark.parametrize("f,args", [
    (fam.vector_map, (X3,)),
    (fam.matrix_out, (X3,)),
    (fam.jac_mix, (rng.normal(size=4), rng.normal(size=(4, 4)))),
    (fam.jac_loop, (rng.normal(size=3), 4)),
    (lambda x: x * x, (1.3,)),
])
def test_batched_jacfwd_matches_columns_and_fd(f, args):
    x = args[0]
    batched = srcad.jacfwd(f)(*args)
    columns = srcad.jacfwd(f, batched=False)(*args)
    reverse = srcad.jacrev(f)(*args)
    ref = fd_jacobian(lambda x: f(x, *args[1:]), np.asarray(x)) if isinstance(x, np.ndarray) else \
        (f(x + 1e-6, *args[1:]) - f(x - 1e-6, *args[1:])) / 2e-6
    np.testing.assert_allclose(batched, ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(batched, columns, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(reverse, columns, rtol=1e-10, atol=1e-12)


def test_batched_hessian_through_a_loop():
    x = rng.uniform(0.2, 0.8, size=3)
    H = srcad.hessian(fam.scalar_loop)(0.3, 4)
    assert H == pytest.approx(fd_grad(srcad.grad(fam.scalar_loop), (0.3, 4)), rel=1e-6)
    Hr = srcad.hessian(fam.rosenbrock)(x)
    np.testing.assert_allclose(Hr, fd_jacobian(srcad.grad(fam.rosenbrock), x), rtol=1e-5, atol=1e-4)


def _power_sum(p):
    return p["a"] ** 2 * np.sum(p["v"] ** 3)


def test_jacobians_of_pytrees_hand_derived():
    p = {"a": 0.5, "v": np.array([1.0, -2.0, 0.3])}
    for jac in (srcad.jacfwd, srcad.jacrev):
        J = jac(fam.scaled_vector)(p)
        assert set(J) == {"a", "v"}
        assert np.allclose(J["a"], np.sin(p["v"]))
        assert np.allclose(J["v"], p["a"] * np.diag(np.cos(p["v"])))
        x = np.array([0.2, -0.7])
        d_sin, d_norm = jac(fam.value_and_norm)(x)
        assert np.allclose(d_sin, np.diag(np.cos(x))) and np.allclose(d_norm, 2 * x)


def test_hessian_of_a_dict_argument_hand_derived():
    v = np.array([1.0, 2.0])
    H = srcad.hessian(_power_sum)({"a": 0.5, "v": v})
    assert np.allclose(H["a"]["a"], 2 * np.sum(v ** 3))
    assert np.allclose(H["a"]["v"], 2 * 0.5 * 3 * v ** 2) and np.allclose(H["v"]["a"], 3 * v ** 2)
    assert np.allclose(H["v"]["v"], np.diag(0.25 * 6 * v))


def _two_args(x, y):
    return np.sum(np.sin(x) * y) + np.sum(x * x) * y[0]


def test_hessian_with_tuple_argnums_nests_like_jax():
    x, y = np.array([0.3, 0.5]), np.array([0.2, 0.4])
    H = srcad.hessian(_two_args, argnums=(0, 1))(x, y)
    # hand-derived blocks: d2/dx2, d2/dxdy, d2/dy2
    hxx = np.diag(-np.sin(x) * y) + 2 * y[0] * np.eye(2)
    hxy = np.diag(np.cos(x)) + np.outer(2 * x, [1.0, 0.0])
    assert np.allclose(H[0][0], hxx) and np.allclose(H[0][1], hxy)
    assert np.allclose(H[1][0], hxy.T) and np.allclose(H[1][1], np.zeros((2, 2)))


@srcad.custom_vjp
def _square(x):
    return x * x


_square.defvjp(lambda x: (x * x, x), lambda x, g: (2.0 * x * g,))


def _uses_square(x):
    return _square(x) * x


def test_custom_vjp_rules_written_as_lambdas_differentiate_twice():
    # f = x^3 through the custom rule: f' = 3x^2, f'' = 6x
    assert srcad.grad(_uses_square)(0.7) == pytest.approx(3 * 0.49)
    assert srcad.grad(srcad.grad(_uses_square))(0.7) == pytest.approx(6 * 0.7)


def test_iterating_a_dict_of_parameters_both_modes():
    params = {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)}
    x = rng.normal(size=3)
    g = srcad.grad(fam.dict_iteration)(params, x)
    assert_tree_close(g, fd_grad(fam.dict_iteration, (params, x)))
    t = {k: rng.normal(size=v.shape) for k, v in params.items()}
    _, jv = srcad.jvp(fam.dict_iteration, (params, x), (t, None))
    assert jv == pytest.approx(float(fd_jvp(fam.dict_iteration, (params, x), (t, None))), rel=1e-6)
    # the dot-product test: <J t, 1> == <t, J^T 1>
    assert jv == pytest.approx(sum(float(np.sum(g[k] * t[k])) for k in params), rel=1e-9)


def _list_loop(x):
    ys = []
    for k in range(3):
        ys.append(x * (k + 1.0))
    s = 0.0
    for y in ys:
        s = s + y * y
    return s  # (1 + 4 + 9) x^2


def test_reverse_over_reverse_through_list_stacks():
    assert srcad.grad(srcad.grad(_list_loop))(0.7) == pytest.approx(28.0)


def _piecewise(x, unused):
    return np.floor(x) * 2.0


def test_vjp_and_jacrev_with_zero_cotangents_for_arrays():
    x = np.array([0.3, -1.2])
    _, vjp_fn = srcad.vjp(_piecewise, x, x)
    cx, cu = vjp_fn(np.ones(2))
    assert np.array_equal(cx, [0.0, 0.0]) and np.array_equal(cu, [0.0, 0.0])
    assert np.array_equal(srcad.jacrev(_piecewise)(x, x), np.zeros((2, 2)))


def _list_input(xs):
    return np.sum(np.concatenate([xs, xs]) ** 2) + np.sum([v * 3.0 for v in xs])


def test_list_argument_gets_a_list_gradient():
    xs = [1.0, 2.0, 3.0]
    g = srcad.grad(_list_input)(xs)
    assert isinstance(g, list) and np.allclose(g, [4 * v + 3.0 for v in xs])
