"""scipy.integrate.odeint and solve_ivp inside differentiated functions (srcad/odes.py,
srcad/rules/integrate.py): derivatives in the initial state, the time points and `args`, in
both modes, against closed forms (exponential decay, linear systems through expm) and central
differences of tightly solved problems (Lotka-Volterra); and the refusals, at the user's line."""

import warnings

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad, fd_jvp

import srcad

integrate = pytest.importorskip("scipy.integrate")
from scipy.integrate import odeint, solve_ivp  # noqa: E402
from scipy.linalg import expm  # noqa: E402

TS = np.array([0.0, 0.4, 1.0])


def decay(y, t, k):
    return -k * y


def decay_loss(k, y0, ts):
    ys = odeint(decay, y0, ts, args=(k,), rtol=1e-11, atol=1e-11)
    return np.sum(ys[1:] ** 2)


def decay_exact(k, y0, ts):
    """The loss of decay_loss in closed form: y(t) = y0 exp(-k (t - t0))."""
    return np.sum([np.sum((y0 * np.exp(-k * (t - ts[0]))) ** 2) for t in ts[1:]])


def test_decay_gradient_in_every_argument_matches_the_closed_form():
    k, y0 = 0.7, np.array([1.0, -2.0])
    got = srcad.grad(decay_loss, argnums=(0, 1, 2))(k, y0, TS)
    want = [fd_grad(decay_exact, (k, y0, TS), i) for i in range(3)]
    for g, w in zip(got, want):
        assert_tree_close(g, w, rtol=1e-6, atol=1e-7)


def test_decay_tangent_matches_the_closed_form():
    k, y0 = 0.7, np.array([1.0, -2.0])
    tangents = (0.3, np.array([0.5, 1.0]), np.array([0.2, -0.1, 0.4]))
    out, t_out = srcad.jvp(decay_loss, (k, y0, TS), tangents)
    assert abs(out - decay_exact(k, y0, TS)) < 1e-8
    assert abs(t_out - fd_jvp(decay_exact, (k, y0, TS), tangents)) < 1e-6


def linear(y, t, a):
    return a @ y


def linear_final(a, y0):
    return odeint(linear, y0, np.array([0.0, 0.5, 1.5]), args=(a,), rtol=1e-11, atol=1e-11)[-1]


A = np.array([[-0.5, 1.0], [-1.0, -0.3]])
Y0 = np.array([1.0, 0.5])


def test_linear_system_against_expm():
    w = np.array([0.3, -1.2])
    got_a, got_y0 = srcad.grad(lambda a, y0: w @ linear_final(a, y0), argnums=(0, 1))(A, Y0)
    assert_tree_close(got_y0, expm(1.5 * A).T @ w, rtol=1e-7, atol=1e-8)
    assert_tree_close(got_a, fd_grad(lambda a: w @ expm(1.5 * a) @ Y0, (A,)), rtol=1e-6, atol=1e-7)
    jac = srcad.jacfwd(linear_final, argnums=1)(A, Y0)
    assert_tree_close(jac, expm(1.5 * A), rtol=1e-7, atol=1e-8)


def lotka_volterra(y, t, a, b, c, d):
    x, z = y[0], y[1]
    return [a * x - b * x * z, -c * z + d * x * z]  # (a list: its cotangent is one too)


def lv_loss(theta, y0):
    ts = np.linspace(0.0, 3.0, 7)
    ys = odeint(lotka_volterra, y0, ts, args=(theta[0], theta[1], theta[2], theta[3]), rtol=1e-11, atol=1e-11)
    return np.sum((ys - 1.0) ** 2)


def test_lotka_volterra_against_finite_differences_in_both_modes():
    theta, y0 = np.array([1.1, 0.4, 0.9, 0.3]), [1.0, 0.8]
    g_theta, g_y0 = srcad.grad(lv_loss, argnums=(0, 1))(theta, y0)
    assert_tree_close(g_theta, fd_grad(lv_loss, (theta, y0)), rtol=1e-5, atol=1e-6)
    assert_tree_close(np.asarray(g_y0), fd_grad(lambda y: lv_loss(theta, list(y)), (np.array(y0),)),
                      rtol=1e-5, atol=1e-6)
    u = np.array([0.3, -0.2, 0.5, 0.1])
    _, t_out = srcad.jvp(lv_loss, (theta, y0), (u, None))
    assert abs(t_out - fd_jvp(lambda th: lv_loss(th, y0), (theta,), (u,))) < 1e-5


def forced(t, y, w):
    return np.array([y[1], -w * w * y[0] + np.sin(t)])


def test_tfirst_and_jacrev_of_the_whole_trajectory():
    def traj(w, y0):
        return odeint(forced, y0, TS, args=(w,), tfirst=True, rtol=1e-11, atol=1e-11)
    y0 = np.array([0.2, 0.0])
    assert_tree_close(srcad.jacrev(traj)(1.3, y0), fd_jvp(traj, (1.3, y0), (1.0, None)), rtol=1e-5, atol=1e-6)


def test_a_nested_rhs_and_a_lambda_that_read_nothing_of_the_function_work():
    def loss(k):
        def f(y, t, k):
            return -k * y
        a = odeint(f, 1.0, TS, args=(k,), rtol=1e-11, atol=1e-11)[-1, 0]
        b = odeint(lambda y, t, k: -k * y, 2.0, TS, args=(k,), rtol=1e-11, atol=1e-11)[-1, 0]
        return a + b
    assert abs(srcad.grad(loss)(0.5) - (-3.0 * np.exp(-0.5))) < 1e-8


def test_a_right_hand_side_closing_over_differentiated_values_gets_them_through_args():
    def scaled(k, c):
        def f(y, t, c):
            return -k * y + c                 # k read from loss, c given in args
        return odeint(f, 1.0, TS, args=(c,), rtol=1e-11, atol=1e-11)[-1, 0]

    def exact(k, c):
        return c / k + (1.0 - c / k) * np.exp(-k)
    assert_tree_close(srcad.grad(scaled, argnums=(0, 1))(0.5, 0.3),
                      (fd_grad(exact, (0.5, 0.3), 0), fd_grad(exact, (0.5, 0.3), 1)), rtol=1e-7, atol=1e-9)


def test_a_lambda_reads_its_variables_when_the_solver_runs():
    def late(k, w):
        a = 1.0
        g = lambda t, y: -a * (w @ y) * y  # noqa: E731
        a = 2.0 * k                           # (Python's late binding: g sees this a)
        sol = solve_ivp(g, (0.0, 1.0), np.array([1.0, 0.5]), t_eval=np.array([0.5, 1.0]), rtol=1e-11,
                        atol=1e-11)
        return np.sum(sol.y ** 2)
    w = np.array([0.3, 0.7])
    got = srcad.grad(late, argnums=(0, 1))(0.5, w)
    assert_tree_close(got, (fd_grad(late, (0.5, w), 0), fd_grad(late, (0.5, w), 1)), rtol=1e-6, atol=1e-8)
    assert abs(srcad.jvp(late, (0.5, w), (1.0, None))[1] - fd_jvp(late, (0.5, w), (1.0, None))) < 1e-6


def closure_with_default(k):
    def f(y, t, c=1.0):
        return -k * c * y
    return odeint(f, 1.0, TS)[-1, 0]


def full_output(k):
    return odeint(decay, 1.0, TS, args=(k,), full_output=1)[0][-1, 0]


def rhs_without_rule(y, t, k):
    return -k * np.unwrap(y)


def no_rule(k):
    return odeint(rhs_without_rule, np.array([1.0, 2.0]), TS, args=(k,))[-1, 0]


@pytest.mark.parametrize("fn, error, where, says", [
    (closure_with_default, srcad.UnsupportedSyntaxError, "closure_with_default", "args="),
    (full_output, srcad.UnsupportedSyntaxError, "full_output", "full_output=1"),
    (no_rule, srcad.NoRuleError, "rhs_without_rule", "unwrap"),
])
def test_what_cannot_be_differentiated_is_an_error_at_the_users_line(fn, error, where, says):
    with pytest.raises(error) as e:
        srcad.grad(fn)(0.5)
    assert e.value.filename.endswith("test_odes.py") and says in str(e.value)


def test_second_order_is_a_clear_error():
    with pytest.raises(srcad.NoRuleError, match="second-order derivative through odeint"):
        srcad.hessian(lambda k: decay_loss(k, np.ones(2), TS))(0.5)


def test_int_arguments_are_not_differentiated():
    def powered(y, t, k, n):
        return -k * y ** n
    def loss(k):
        return odeint(powered, 1.0, TS, args=(k, 1), rtol=1e-11, atol=1e-11)[-1, 0]
    assert abs(srcad.grad(loss)(0.5) - (-np.exp(-0.5))) < 1e-8


# -- solve_ivp ----------------------------------------------------------------------------------

def ivp_decay(t, y, k):
    return -k * y


def ivp_loss(k, y0, span, t_eval):
    sol = solve_ivp(ivp_decay, span, y0, args=(k,), t_eval=t_eval, rtol=1e-11, atol=1e-11)
    return np.sum(sol.y ** 2) + 0.1 * np.sum(sol.t)


def ivp_exact(k, y0, span, t_eval):
    return np.sum([np.sum((y0 * np.exp(-k * (t - span[0]))) ** 2) for t in t_eval]) + 0.1 * np.sum(t_eval)


def test_solve_ivp_with_t_eval_in_both_modes():
    args = (0.7, np.array([1.0, 2.0]), np.array([0.1, 1.0]), np.array([0.3, 0.6, 1.0]))
    got = srcad.grad(ivp_loss, argnums=(0, 1, 2, 3))(*args)
    for i, g in enumerate(got):
        assert_tree_close(g, fd_grad(ivp_exact, args, i), rtol=1e-6, atol=1e-7)
    tangents = (0.2, np.array([0.1, -0.3]), np.array([0.5, -1.0]), np.array([0.1, 0.2, 0.3]))
    _, t_out = srcad.jvp(ivp_loss, args, tangents)
    assert abs(t_out - fd_jvp(ivp_exact, args, tangents)) < 1e-6


@pytest.mark.parametrize("method", ["RK45", "Radau", "LSODA"])
def test_solve_ivp_last_column_without_t_eval(method):
    def final(k, t1):
        sol = solve_ivp(ivp_decay, (0.0, t1), np.array([1.0]), method=method, args=(k,), rtol=1e-9,
                        atol=1e-9)
        return sol.y[0, -1] * sol.t[-1]
    def exact(k, t1):
        return np.exp(-k * t1) * t1
    got = srcad.grad(final, argnums=(0, 1))(0.6, 1.5)
    want = (fd_grad(exact, (0.6, 1.5), 0), fd_grad(exact, (0.6, 1.5), 1))
    assert_tree_close(got, want, rtol=1e-6, atol=1e-7)
    _, t_out = srcad.jvp(final, (0.6, 1.5), (1.0, 0.5))
    assert abs(t_out - fd_jvp(exact, (0.6, 1.5), (1.0, 0.5))) < 1e-6


def interior(k):
    sol = solve_ivp(ivp_decay, (0.0, 1.0), np.array([1.0]), args=(k,))
    return np.sum(sol.y)


def dense(k):
    return solve_ivp(ivp_decay, (0.0, 1.0), np.array([1.0]), args=(k,), dense_output=True).y[0, -1]


def events(k):
    return solve_ivp(ivp_decay, (0.0, 1.0), np.array([1.0]), args=(k,), events=ivp_decay).y[0, -1]


@pytest.mark.parametrize("fn, says", [(dense, "dense_output=True"), (events, "events=")])
def test_solve_ivp_options_without_derivatives_are_refused_at_the_users_line(fn, says):
    with pytest.raises(srcad.UnsupportedSyntaxError, match=says) as e:
        srcad.grad(fn)(0.5)
    assert e.value.filename.endswith("test_odes.py")


def test_the_solvers_own_times_have_no_derivative():
    with pytest.raises(srcad.SrcadError, match="t_eval"):
        srcad.grad(interior)(0.5)
    _, t_out = srcad.jvp(interior, (0.5,), (1.0,))
    assert np.isnan(t_out)  # (never a number that is not the derivative)


def test_the_value_is_scipys():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, _ = srcad.value_and_grad(lv_loss)(np.array([1.1, 0.4, 0.9, 0.3]), [1.0, 0.8])
    assert value == lv_loss(np.array([1.1, 0.4, 0.9, 0.3]), [1.0, 0.8])


def test_an_error_in_a_lifted_right_hand_side_names_where_it_was_defined():
    def loss(k):
        def f(y, t):
            return -k * np.unwrap(y)
        return odeint(f, np.array([1.0, 2.0]), TS)[-1, 0]
    with pytest.raises(srcad.NoRuleError, match="unwrap") as e:
        srcad.grad(loss)(0.5)
    assert "test_odes.py:" in e.value.filename and "lifted" in e.value.filename
