"""Transforms of functions whose parameters each call decides (srcad/arity.py): user
functions with *args and **kwargs, and library callables with optional parameters
(`scipy.stats.norm.pdf(x, *args, **kwds)`, `np.linalg.norm(x, ord=None)`) given straight to a
transformation. Gradients are checked against Richardson-extrapolated finite differences,
tangents against finite-difference directional derivatives, cotangents against the
dot-product test with finite-difference tangents."""

import pickle

import numpy as np
import pytest
from oracle import fd_directional, fd_grad_richardson
from scipy import special, stats

import srcad
from srcad.errors import ArgumentError, SrcadError


def weighted_sines(*args):
    s = 0.0
    for i, a in enumerate(args):
        s = s + (i + 1) * np.sin(a) * a
    return s


def quadratic_with_options(x, *shifts, scale=1.0, **weights):
    out = scale * np.sum(x ** 2)
    for r in shifts:
        out = out + np.sum(np.tanh(r) * x)
    for k in sorted(weights):
        out = out + weights[k] * np.sum(np.exp(x / len(k)))
    return out


def stacked(*rows):
    return np.stack(rows) * np.sin(rows[0])


def lam_of_pairs(x, **kw):
    return kw["a"] * np.sum(x ** 3) + kw.get("b", 2.0) * np.sum(x)


X = np.array([0.3, -1.2, 0.5])


def _fd(f, args, i):
    return fd_grad_richardson(f, args, i)


@pytest.mark.parametrize("args", [(0.4,), (0.4, -0.7), (0.4, -0.7, 1.3, 0.2)])
def test_star_args_every_arity(args):
    g = srcad.grad(weighted_sines, argnums=tuple(range(len(args))))
    got = g(*args)
    for i in range(len(args)):
        np.testing.assert_allclose(got[i], _fd(weighted_sines, args, i), rtol=1e-8)


def test_one_transform_serves_several_call_shapes():
    g = srcad.grad(weighted_sines)
    for args in [(0.4, -0.7), (0.4,), (0.4, -0.7, 1.1), (0.4, -0.7)]:
        np.testing.assert_allclose(g(*args), _fd(weighted_sines, args, 0), rtol=1e-8)


def test_keywords_bind_by_name_and_count_after_positionals():
    args = (X, X + 1.0, 2.0, 0.5)  # x, shifts[0], scale, weights["alpha"]

    def call(x, s0, scale, alpha):
        return quadratic_with_options(x, s0, scale=scale, alpha=alpha)

    got = srcad.grad(quadratic_with_options, argnums=(0, 1, 2, 3))(X, X + 1.0, scale=2.0, alpha=0.5)
    for i in range(4):
        np.testing.assert_allclose(got[i], _fd(call, args, i), rtol=1e-7, atol=1e-10)


def test_keyword_order_does_not_change_argnums():
    g = srcad.grad(quadratic_with_options, argnums=(1, 2))
    a = g(X, beta=0.3, alpha=0.5)
    b = g(X, alpha=0.5, beta=0.3)

    def call(x, alpha, beta):
        return quadratic_with_options(x, alpha=alpha, beta=beta)

    for got in (a, b):
        np.testing.assert_allclose(got[0], _fd(call, (X, 0.5, 0.3), 1), rtol=1e-8)
        np.testing.assert_allclose(got[1], _fd(call, (X, 0.5, 0.3), 2), rtol=1e-8)


def test_kwargs_get_with_and_without_default():
    g = srcad.grad(lam_of_pairs, argnums=(0, 1))
    got = g(X, a=0.7)
    np.testing.assert_allclose(got[0], _fd(lambda x, a: lam_of_pairs(x, a=a), (X, 0.7), 0), rtol=1e-8)
    got = g(X, a=0.7, b=-1.5)
    np.testing.assert_allclose(got[1], _fd(lambda x, a, b: lam_of_pairs(x, a=a, b=b), (X, 0.7, -1.5), 1),
                               rtol=1e-8)


def test_variadic_lambda():
    f = lambda *a: np.sum(np.stack(a) ** 2 * a[0])  # noqa: E731
    got = srcad.grad(f, argnums=(0, 1))(X, 2 * X)
    for i in range(2):
        np.testing.assert_allclose(got[i], _fd(f, (X, 2 * X), i), rtol=1e-8)


def _dot_product_test(f, args, argnum):
    """<vjp(ct), t> against <ct, jvp(t)> with the jvp from finite differences."""
    rng = np.random.default_rng(0)
    out, vjp_fn = srcad.vjp(f, *args)
    ct = rng.normal(size=np.shape(out))
    t = rng.normal(size=np.shape(args[argnum]))
    tangents = [None] * len(args)
    tangents[argnum] = t
    fd = fd_directional(lambda *a: np.sum(np.asarray(f(*a)) * ct), list(args), tangents)
    np.testing.assert_allclose(np.sum(vjp_fn(ct)[argnum] * t), fd, rtol=1e-8)


def test_jacobians_hessian_and_maps():
    args = (X, np.cos(X))
    for argnum in (0, 1):
        jf = srcad.jacfwd(stacked, argnums=argnum)(*args)
        jr = srcad.jacrev(stacked, argnums=argnum)(*args)
        for j in range(3):
            e = np.zeros(3)
            e[j] = 1.0
            tangents = [None, None]
            tangents[argnum] = e
            for o in np.ndindex(2, 3):
                fd = fd_directional(lambda *a, o=o: stacked(*a)[o], list(args), tangents)
                np.testing.assert_allclose(jf[o + (j,)], fd, rtol=1e-7, atol=1e-10)
                np.testing.assert_allclose(jr[o + (j,)], fd, rtol=1e-7, atol=1e-10)
        _dot_product_test(stacked, args, argnum)
    h = srcad.hessian(weighted_sines, argnums=1)(0.4, -0.7)
    fd = fd_grad_richardson(lambda b: srcad.grad(weighted_sines, argnums=1)(0.4, b), (-0.7,), 0)
    np.testing.assert_allclose(h, fd, rtol=1e-7)
    mapped = srcad.vmap(lambda *a: sum(a) ** 2)(X, 2 * X)
    np.testing.assert_allclose(mapped, (3 * X) ** 2)


def test_value_transforms():
    primals, tangents = (0.4, -0.7), (0.3, -1.1)
    out, tangent = srcad.jvp(weighted_sines, primals, tangents)
    assert out == pytest.approx(weighted_sines(*primals))
    np.testing.assert_allclose(tangent, fd_directional(weighted_sines, list(primals), list(tangents)),
                               rtol=1e-8)
    _dot_product_test(weighted_sines, primals, 1)
    hv = srcad.hvp(weighted_sines, primals, tangents)
    fd = fd_directional(lambda a, b: np.dot(srcad.grad(weighted_sines, argnums=(0, 1))(a, b), [0.3, -1.1]),
                        list(primals), list(tangents))
    np.testing.assert_allclose(np.dot(hv, tangents), fd, rtol=1e-7)
    out, f_jvp = srcad.linearize(weighted_sines, *primals)
    np.testing.assert_allclose(f_jvp(*tangents), tangent, rtol=1e-12)


def nested_user(a, b):
    g = srcad.grad(weighted_sines, argnums=1)(a, b)
    _, vjp_fn = srcad.vjp(weighted_sines, a, b)
    return g * a + vjp_fn(1.0)[0] * b + srcad.hessian(weighted_sines, argnums=0)(a, b)


def test_inside_a_differentiated_function_and_nested():
    got = srcad.grad(nested_user, argnums=(0, 1))(0.4, -0.7)
    for i in range(2):
        np.testing.assert_allclose(got[i], _fd(nested_user, (0.4, -0.7), i), rtol=1e-7)
    gg = srcad.grad(srcad.grad(weighted_sines, argnums=1), argnums=1)(0.4, -0.7)
    np.testing.assert_allclose(gg, _fd(lambda a, b: srcad.grad(weighted_sines, argnums=1)(a, b),
                                        (0.4, -0.7), 1), rtol=1e-7)


def jvp_inside(a, b):
    return srcad.jvp(weighted_sines, (a, b), (1.0, 0.0))[1]


def test_jvp_of_a_variadic_function_inside_is_refused_clearly():
    with pytest.raises(SrcadError, match="positional parameters only"):
        srcad.grad(jvp_inside)(0.4, -0.7)


@pytest.mark.parametrize("fn, args, nums", [
    (stats.norm.logpdf, (0.3, 0.5, 2.0), (0, 1, 2)),
    (stats.norm.pdf, (X, 0.5, 2.0), (0, 1, 2)),
    (stats.gamma.logpdf, (1.7, 2.5), (0, 1)),
    (np.linalg.norm, (X,), (0,)),
    (special.logsumexp, (X,), (0,)),
])
def test_library_callables_given_straight(fn, args, nums):
    def total(*a):
        return np.sum(fn(*a))

    out, vjp_fn = srcad.vjp(fn, *args)
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12)
    cts = vjp_fn(np.ones_like(np.asarray(out)))
    for i in nums:
        np.testing.assert_allclose(cts[i], _fd(total, args, i), rtol=1e-7, atol=1e-10)
    if np.ndim(out) == 0:
        got = srcad.grad(fn, argnums=nums)(*args)
        for k, i in enumerate(nums):
            np.testing.assert_allclose(got[k], _fd(total, args, i), rtol=1e-7, atol=1e-10)


def test_library_keywords_and_optional_positionals():
    got = srcad.grad(stats.norm.logpdf, argnums=(0, 1, 2))(0.3, loc=0.5, scale=2.0)
    want = [_fd(lambda x, m, s: stats.norm.logpdf(x, m, s), (0.3, 0.5, 2.0), i) for i in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-8)
    np.testing.assert_allclose(srcad.grad(np.linalg.norm)(X, 1), np.sign(X))
    b = np.array([1.0, 2.0, 3.0])
    got = srcad.grad(special.logsumexp, argnums=(0, 1))(X, b=b)
    for i in range(2):
        np.testing.assert_allclose(got[i], _fd(lambda x, w: special.logsumexp(x, b=w), (X, b), i), rtol=1e-8)
    jac = srcad.jacrev(stats.beta.pdf, argnums=1)(np.array([0.3, 0.6]), 2.0, 3.0)
    for k in range(2):
        fd = _fd(lambda a, k=k: stats.beta.pdf(np.array([0.3, 0.6]), a, 3.0)[k], (2.0,), 0)
        np.testing.assert_allclose(jac[k], fd, rtol=1e-7)


def test_argnums_checked_against_the_call():
    with pytest.raises(ArgumentError, match="out of range"):
        srcad.grad(weighted_sines, argnums=2)(0.4, -0.7)
    with pytest.raises(ArgumentError, match="out of range"):
        srcad.grad(weighted_sines)()


def test_source_and_saved_values_need_the_call():
    g = srcad.grad(weighted_sines)
    text = srcad.source(g, 0.4, -0.7)
    assert "def grad_weighted_sines(args0, args1)" in text
    with pytest.raises(ArgumentError, match="made per call"):
        srcad.source(g)
    saved = srcad.saved_values(weighted_sines, 0.4, -0.7)
    assert [s.line for s in saved]  # the loop stores what the backward sweep reads
    srcad.jvp(weighted_sines, (0.4, -0.7), (1.0, 0.0))
    assert "jvp of weighted_sines" in srcad.source(srcad.jvp, weighted_sines)


def test_pickles_as_the_call():
    g = pickle.loads(pickle.dumps(srcad.grad(weighted_sines, argnums=1)))
    np.testing.assert_allclose(g(0.4, -0.7), _fd(weighted_sines, (0.4, -0.7), 1), rtol=1e-8)
    j = pickle.loads(pickle.dumps(srcad.jacfwd(stacked)))
    np.testing.assert_allclose(j(X, X), srcad.jacfwd(stacked)(X, X))


def test_lambdas_told_apart_by_their_star_parameters():
    """Two lambdas on one line, one without parameters and one with *a: srcad reads the one
    that compiled to the function (frontend/source.py)."""
    outer = lambda: srcad.grad(lambda *a: a[0] * np.sin(a[0]))(0.4)  # noqa: E731
    np.testing.assert_allclose(outer(), np.sin(0.4) + 0.4 * np.cos(0.4), rtol=1e-12)


MODEL = '''import numpy as np


def energy(x, *springs, k=1.0):
    return k * np.sum(x ** 2) + sum(np.sum(np.sin(s) * x) for s in springs)
'''


def test_codegen_of_a_variadic_function_takes_the_call_from_types(tmp_path, monkeypatch):
    import importlib.util

    from srcad import offline
    from srcad.errors import CodegenError

    (tmp_path / "model.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    out = str(tmp_path / "energy_grad.py")
    offline.codegen("model.py:energy", argnums=(0, 1), types="array,array", out=out)
    spec = importlib.util.spec_from_file_location("energy_grad", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def energy(x, s):
        return np.sum(x ** 2) + np.sum(np.sin(s) * x)

    got = mod.grad_energy(X, 2 * X)
    for i in range(2):
        np.testing.assert_allclose(got[i], _fd(energy, (X, 2 * X), i), rtol=1e-8)
    with pytest.raises(CodegenError, match="give --types"):
        offline.codegen("model.py:energy")


def stacked_in_call_order(x, **params):
    theta = np.stack(list(params.values()))  # (**kwargs keeps the call's order)
    return float(np.sum(theta @ x * np.array([1.0, 10.0])))


def test_kwargs_keep_the_calls_order():
    w, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    x = np.array([1.0, 2.0])
    g = srcad.value_and_grad(stacked_in_call_order)
    for kw in (dict(w=w, b=b), dict(b=b, w=w)):
        value, grad = g(x, **kw)
        assert value == pytest.approx(stacked_in_call_order(x, **kw))
        np.testing.assert_allclose(grad, _fd(lambda v, kw=kw: stacked_in_call_order(v, **kw), (x,), 0),
                                   rtol=1e-8)


def test_jacobians_take_keyword_arguments():
    M = np.array([[0.1, 0.4], [1.0, -0.2]])
    for jac in (srcad.jacrev, srcad.jacfwd):
        got = jac(special.logsumexp)(M, axis=0)
        for o in range(2):
            fd = _fd(lambda m, o=o: special.logsumexp(m, axis=0)[o], (M,), 0)
            np.testing.assert_allclose(got[o], fd, rtol=1e-7, atol=1e-10)
    with pytest.raises(ArgumentError, match="not mapped"):
        srcad.vmap(special.logsumexp)(M, axis=0)


def keywords_named_like_wrapper_parameters(*a, **k):
    return a[0] * a[1] * k["a0"] + k.get("_target", 0.0)


def test_keywords_named_like_the_wrappers_parameters():
    g = srcad.grad(keywords_named_like_wrapper_parameters, argnums=(0, 1, 2, 3))
    got = g(3.0, 1.0, a0=2.0, _target=0.5)
    # by hand, with the keywords of **k counted in sorted order (_target, then a0)
    np.testing.assert_allclose(got, (2.0, 6.0, 1.0, 3.0))


def test_partials_of_library_callables_and_variadic_functions():
    import functools

    cases = [(functools.partial(stats.norm.logpdf, loc=0.5, scale=2.0), (0.3,),
              lambda x: stats.norm.logpdf(x, 0.5, 2.0)),
             (functools.partial(np.linalg.norm, ord=1), (X,), lambda x: np.linalg.norm(x, 1)),
             (functools.partial(special.logsumexp, b=np.ones(3) * 2.0), (X,),
              lambda x: special.logsumexp(x, b=np.ones(3) * 2.0)),
             (functools.partial(weighted_sines, 0.7), (0.4, -0.2), lambda a, b: weighted_sines(0.7, a, b))]
    for p, args, plain in cases:
        got = srcad.grad(p, argnums=tuple(range(len(args))))(*args)
        for i in range(len(args)):
            np.testing.assert_allclose(got[i], _fd(plain, args, i), rtol=1e-7, atol=1e-10)


def test_pickled_transforms_of_scipy_stats_methods_keep_their_rules():
    g = pickle.loads(pickle.dumps(srcad.grad(stats.norm.logpdf, argnums=(0, 1, 2))))
    want = [_fd(stats.norm.logpdf, (0.3, 0.5, 2.0), i) for i in range(3)]
    np.testing.assert_allclose(g(0.3, 0.5, 2.0), want, rtol=1e-8)
    _, vjp_fn = srcad.vjp(stats.norm.logpdf, 0.3, 0.5, 2.0)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(vjp_fn))(1.0), want, rtol=1e-8)


def test_custom_rules_of_variadic_functions_are_refused_where_made():
    with pytest.raises(ArgumentError, match=r"\*args and \*\*kwargs"):
        srcad.custom_vjp(weighted_sines)


INT_MODEL = '''import numpy as np


def scaled(x, n):
    return np.sum(x * n * n)
'''


def test_codegen_refuses_an_int_named_in_argnums(tmp_path, monkeypatch):
    """srcad codegen gave 0.0 for an int parameter named in --argnums; promoting it to a float
    in the types is not enough (a standalone module would still compute with the int given):
    it is an error naming what to write instead."""
    from srcad import offline
    from srcad.errors import CodegenError

    (tmp_path / "intmodel.py").write_text(INT_MODEL)
    monkeypatch.chdir(tmp_path)
    for types in ("float,int", "float,int[3]", "float,bool"):
        with pytest.raises(CodegenError, match="give it a float type"):
            offline.codegen("intmodel.py:scaled", argnums=(1,), types=types)


def test_a_misspelt_keyword_of_a_library_function_is_named_as_such():
    with pytest.raises(SrcadError, match="has no parameter 'order'"):
        srcad.grad(np.linalg.norm)(X, order=2)


def test_library_defaults_given_explicitly_as_none():
    for call, plain in ((lambda f: f(X, None, None, None, 1), lambda x: np.var(x, None, None, None, 1)),
                        (lambda f: f(X, out=None), lambda x: np.var(x))):
        got = call(srcad.grad(np.var))
        np.testing.assert_allclose(got, _fd(plain, (X,), 0), rtol=1e-7, atol=1e-10)


def test_a_pickled_partial_of_a_scipy_stats_method_keeps_its_rule():
    import functools

    g = pickle.loads(pickle.dumps(srcad.grad(functools.partial(stats.norm.logpdf, loc=0.5, scale=2.0))))
    assert g(1.3) == pytest.approx(-(1.3 - 0.5) / 4.0)  # by hand: -(x - loc) / scale^2


def written_through_an_alias(x, *rest):
    y = x.copy()
    a = y
    y[0] = rest[0] * 2.0  # (a sees it)
    return np.sum(a * x)


def written_through_an_alias_fixed(x, s):
    y = x.copy()
    a = y
    y[0] = s * 2.0
    return np.sum(a * x)


def test_a_function_inlined_into_a_wrapper_keeps_the_mutation_check():
    """The one-line wrappers (call shapes, partials, library callables) were named like srcad's
    generated derivative code, whose in-place writes are not checked: a user function inlined
    into one had its unsafe writes accepted and differentiated wrongly (fuzz 13600:21)."""
    import functools

    x = np.array([0.3, 0.7])
    with pytest.raises(srcad.UnsafeMutationError):
        srcad.grad(written_through_an_alias)(x, 1.5)
    with pytest.raises(srcad.UnsafeMutationError):
        srcad.grad(functools.partial(written_through_an_alias_fixed, s=1.5))(x)


def euler_step(z, dt, *args):
    return z + dt * args[0] * z - dt * args[1] * z ** 2


def integrate(z, n, *args):
    for _ in range(n):
        z = euler_step(z, 0.1, *args)  # (the tuple read in a loop: its items still known)
    return z


def test_star_args_forwarded_inside_a_loop():
    """`step(z, *args)` in a loop was refused ("a value whose length is not known"): args,
    carried around the loop unchanged, had lost its known items. Against finite differences."""
    def loss(theta, kappa):
        return integrate(1.0, 4, theta, kappa)

    for argnum in (0, 1):
        got = srcad.grad(loss, argnums=argnum)(0.5, 0.2)
        assert got == pytest.approx(fd_grad_richardson(loss, (0.5, 0.2), argnum), rel=1e-8)
