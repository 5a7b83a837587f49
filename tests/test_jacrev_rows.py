"""jacrev computes every row of the Jacobian from one pass of the vjp's backward function with
all output directions at once (its batched forward mode in the cotangent, kind "rows"), and
falls back to one backward sweep per row where the cotangent's value decides a branch (the
guards that skip adjoints whose partials are inf where the path did not use them).

Every Jacobian is checked against finite differences, column by column; the tests also check
which path ran (the generated source of the rows function), so that a silent fallback cannot
pass for the batched sweep, nor the batched sweep for the fallback."""

import numpy as np
import pytest
from oracle import fd_jvp

import srcad

RS = np.random.RandomState(7)
W = RS.randn(4, 5)


def elementwise_roll_cumsum(x):
    return np.tanh(x) * np.roll(x, 1) + 0.1 * np.sin(x).cumsum()


def flips(x):
    return np.flip(x) * x + np.flip(x, 0) ** 2


def matrix_axes(a):
    return np.cumsum(a, axis=1) * np.roll(a, -1, axis=0) + np.flip(a, axis=1).sum()


def differences(a):  # (the adjoint of np.diff has no batched form: rows one by one)
    return np.diff(np.flip(a, axis=1), axis=1).sum() * a


def rolled_flat(a):
    return np.roll(a, 2) * a


def products(x):
    return W @ np.tanh(x) + np.expand_dims(x, 0).squeeze() @ W.T


def scalar_loop(x):
    s = x
    for _ in range(3):
        s = np.sin(s) + 0.5 * s
    return s * s


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def normalised_log_pow(x):
    return np.log(x) * x / np.linalg.norm(x) + x ** 1.5 - np.abs(x) * x


def outer_matvec(x):
    return np.tanh(np.outer(x, x) @ x)


def two_arguments(x, a):
    return np.tanh(a @ x) * x[0]


def sqrt_after_mask(x):  # the adjoint of np.sqrt is guarded where x = 0 is not used
    return np.where(x > 0, np.sqrt(np.abs(x)), x)


def skipped_sqrt(x):
    total = 0.0
    for c in [2.0, 0.5]:
        a = np.sqrt(x - c)
        if a > 0:
            total = total + a
    return total


def _fd_jacobian(f, args, argnum):
    x = np.asarray(args[argnum], dtype=float)
    cols = []
    for k in range(x.size):
        t = [None] * len(args)
        e = np.zeros(x.size)
        e[k] = 1.0
        t[argnum] = e.reshape(x.shape) if x.ndim else 1.0
        cols.append(np.asarray(fd_jvp(f, args, t)))
    out_shape = np.shape(cols[0])
    return np.moveaxis(np.stack(cols), 0, -1).reshape(out_shape + x.shape)


BATCHED = [(elementwise_roll_cumsum, (RS.randn(6),)), (flips, (RS.randn(5),)),
           (matrix_axes, (RS.randn(3, 4),)), (rolled_flat, (RS.randn(2, 3),)),
           (products, (RS.randn(5),)), (scalar_loop, (0.3,)),
           (sqrt_after_mask, (np.array([1.5, -0.5, 2.0]),)), (softmax, (RS.randn(5),)),
           (normalised_log_pow, (RS.rand(5) + 0.5,)), (outer_matvec, (RS.randn(4),))]


@pytest.mark.parametrize("f, args", BATCHED, ids=lambda v: getattr(v, "__name__", ""))
def test_rows_by_one_batched_backward_sweep(f, args):
    jac = srcad.jacrev(f)
    with np.errstate(invalid="ignore", divide="ignore"):  # (sqrt_after_mask: 0.5 / 0 not used)
        got = jac(*args)
    assert np.all(np.isfinite(got))
    assert np.allclose(got, _fd_jacobian(f, args, 0), atol=1e-6)
    assert "def rows_vjp_bwd_" in srcad.source(jac, *args)


def test_an_inf_partial_where_the_path_does_not_use_it_stays_out_of_the_rows():
    x = np.array([1.5, -0.5, 0.0, 2.0])  # (at 0 the adjoint of sqrt is inf, masked out)
    jac = srcad.jacrev(sqrt_after_mask)
    with np.errstate(invalid="ignore", divide="ignore"):
        got = jac(x)
    assert np.allclose(got, np.diag([0.5 / np.sqrt(1.5), 1.0, 1.0, 0.5 / np.sqrt(2.0)]), rtol=1e-12, atol=0)
    assert "def rows_vjp_bwd_" in srcad.source(jac, x)


def test_tuple_argnums_rows():
    x, a = RS.randn(4), RS.randn(3, 4)
    jx, ja = srcad.jacrev(two_arguments, argnums=(0, 1))(x, a)
    assert np.allclose(jx, _fd_jacobian(two_arguments, (x, a), 0), atol=1e-6)
    assert np.allclose(ja, _fd_jacobian(two_arguments, (x, a), 1), atol=1e-6)


def test_a_cotangent_that_decides_a_branch_gives_one_sweep_per_row():
    jac = srcad.jacrev(skipped_sqrt)
    with np.errstate(invalid="ignore", divide="ignore"):
        got = jac(1.0)
        want = _fd_jacobian(skipped_sqrt, (1.0,), 0)
    assert got == pytest.approx(0.5 / np.sqrt(0.5)) and got == pytest.approx(want)
    assert "def rows_" not in srcad.source(jac, 1.0)


def test_no_batched_form_sweeps_per_row():
    a = RS.randn(3, 4)
    jac = srcad.jacrev(differences)
    assert np.allclose(jac(a), _fd_jacobian(differences, (a,), 0), atol=1e-6)
    assert "def rows_" not in srcad.source(jac, a)


def chunked(x):
    return np.flip(x) * x


def test_chunk_size_below_the_output_size_sweeps_per_row():
    x = RS.randn(5)
    jac = srcad.jacrev(chunked, chunk_size=1)
    assert np.allclose(jac(x), _fd_jacobian(chunked, (x,), 0), atol=1e-6)
    assert "def rows_" not in srcad.source(jac, x)


@pytest.mark.parametrize("f, x", [(flips, RS.randn(5)), (matrix_axes, RS.randn(3, 4)),
                                  (rolled_flat, RS.randn(2, 3)), (elementwise_roll_cumsum, RS.randn(6)),
                                  (differences, RS.randn(3, 4))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_jacfwd_batches_flip_roll_cumsum_diff_without_a_loop_per_direction(f, x):
    jac = srcad.jacfwd(f)
    assert np.allclose(jac(x), _fd_jacobian(f, (x,), 0), atol=1e-6)
    assert "_cols" not in srcad.source(jac, x)


def sums_a_number_over_axis_0(x):
    s = np.sum(x * x)
    return np.stack([np.sum(s, axis=0), np.sum(np.sin(s), axis=-1) * x[1], x[0]])


@pytest.mark.parametrize("jac", [srcad.jacfwd, srcad.jacrev])
def test_a_number_reduced_over_axis_0(jac):
    """np.sum(s, axis=0) of a 0-d value (np.sum allows axis 0 or -1) in batched forward mode
    (fuzz 16200:77: ZeroDivisionError while transforming)."""
    x = np.array([0.3, -1.2, 0.8])
    s = np.sum(x * x)
    expect = np.array([2 * x, np.cos(s) * 2 * x * x[1] + np.sin(s) * np.eye(3)[1], np.eye(3)[0]])
    assert np.allclose(jac(sums_a_number_over_axis_0)(x), expect)


def test_a_function_with_an_empty_output_has_an_empty_jacobian():
    """jacrev of f with a size-0 result (np.linspace(x, y, 0), np.diff of one value): shape
    out.shape + x.shape, no rows to stack (autograd's test_linspace with num=0 crashed)."""
    def empty(x, y):
        return np.linspace(x, y, 0)

    got = srcad.jacrev(empty)(1.2, 3.4)
    assert got.shape == (0,)
    got = srcad.jacrev(lambda v: np.diff(v[:1]))(np.array([0.5, 1.0]))
    assert got.shape == (0, 2)


def test_logsumexp_of_a_number_with_keepdims_is_not_taken_for_a_number():
    """scipy gives logsumexp(1.1, keepdims=True) the shape (1,): grad refuses it as it refuses
    any output of shape (1,) (it took the output for a number, and gave a float argument a
    gradient of shape (1,)); vjp, jvp and jacrev follow scipy's shape (d/dx x = 1)."""
    from scipy.special import logsumexp

    def f(x):
        return logsumexp(x, keepdims=True)

    assert np.shape(f(1.1)) == (1,)  # (what this test is about: scipy's own shape)
    with pytest.raises(srcad.NonScalarOutputError):
        srcad.grad(f)(1.1)
    out, back = srcad.vjp(f, 1.1)
    assert np.shape(out) == np.shape(f(1.1)) and back(np.ones(1)) == (1.0,)
    np.testing.assert_allclose(srcad.jvp(f, (1.1,), (2.0,))[1], [2.0], rtol=1e-15)
    np.testing.assert_allclose(srcad.jacrev(f)(1.1), [1.0], rtol=1e-15)
