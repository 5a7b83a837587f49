"""The public API: decorator forms, argnums, value_and_grad, has_aux, caching, inspection."""

import functools
import inspect
import math
import os

import numpy as np
import pytest
from oracle import fd_grad, fd_grad_richardson

import srcad


def f2(x, y):
    return x * x * y + math.sin(y)


def test_grad_as_bare_decorator():
    @srcad.grad
    def g(x):
        return x ** 3

    assert g(2.0) == pytest.approx(12.0)


def test_grad_with_argnums_decorator_and_call_forms():
    dy = srcad.grad(argnums=1)(f2)
    assert dy(1.5, 0.3) == pytest.approx(1.5 * 1.5 + math.cos(0.3))
    both = srcad.grad(f2, argnums=(0, 1))(1.5, 0.3)
    assert isinstance(both, tuple) and len(both) == 2
    assert both[0] == pytest.approx(2 * 1.5 * 0.3)
    assert both[1] == pytest.approx(1.5 * 1.5 + math.cos(0.3))
    assert srcad.grad(f2, argnums=-1)(1.5, 0.3) == pytest.approx(both[1])


def test_keyword_arguments_and_defaults_at_call():
    def h(x, scale=2.0):
        return scale * x * x

    g = srcad.grad(h)
    assert g(3.0) == pytest.approx(12.0)
    assert g(3.0, scale=1.0) == pytest.approx(6.0)
    assert g(x=3.0, scale=0.5) == pytest.approx(3.0)


def test_value_and_grad_and_has_aux():
    def h(x):
        return x * x, {"twice": 2.0 * x}

    value, grad = srcad.value_and_grad(f2)(1.5, 0.3)
    assert value == pytest.approx(f2(1.5, 0.3))
    assert grad == pytest.approx(2 * 1.5 * 0.3)
    g, aux = srcad.grad(h, has_aux=True)(3.0)
    assert g == pytest.approx(6.0) and aux["twice"] == pytest.approx(6.0)
    (v, aux), g = srcad.value_and_grad(h, has_aux=True)(3.0)
    assert v == pytest.approx(9.0) and g == pytest.approx(6.0) and aux["twice"] == 6.0


def test_float_gets_float_and_array_gets_same_shape():
    def h(x, w):
        return np.sum(np.tanh(w @ x)) * 1.0

    x, w = np.ones(3), np.ones((2, 3)) * 0.1
    gx, gw = srcad.grad(h, argnums=(0, 1))(x, w)
    assert gx.shape == (3,) and gw.shape == (2, 3)
    g = srcad.grad(lambda x: x * 2.0)(1.0)
    assert type(g) is float


def test_int_argument_is_differentiated_as_float():
    assert srcad.grad(lambda x: x ** 3)(2) == pytest.approx(12.0)


def test_stop_gradient_hand_derived():
    def h(x):
        return x * srcad.stop_gradient(x * x) + x

    # d/dx [x * c + x] with c = x*x held constant = c + 1
    assert srcad.grad(h)(1.7) == pytest.approx(1.7 * 1.7 + 1.0)


def test_nonscalar_output_is_an_error():
    def h(x):
        return x * 2.0

    with pytest.raises(srcad.NonScalarOutputError, match="scalar"):
        srcad.grad(h)(np.ones(3))


def test_source_and_inspect_show_generated_code():
    g = srcad.grad(f2)
    g(1.0, 2.0)
    text = srcad.source(g)
    assert text.startswith("def grad_f2(x, y):")
    assert inspect.getsource(g) == text
    assert "# adjoint of line" in text


def test_generated_code_is_deterministic():
    a = srcad.grad(f2)
    b = srcad.grad(f2)
    a(1.0, 2.0)
    b(1.0, 2.0)
    assert srcad.source(a) == srcad.source(b)


def test_same_function_reuses_code_and_redefinition_retransforms(tmp_path, monkeypatch):
    from srcad import pipeline

    calls = []
    original = pipeline.lower_function

    def counting(fn):
        calls.append(fn)
        return original(fn)

    monkeypatch.setattr(pipeline, "lower_function", counting)
    mod = tmp_path / "redef_mod.py"
    mod.write_text("def f(x):\n    return x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    m = importlib.import_module("redef_mod")
    g = srcad.grad(m.f)
    assert g(3.0) == pytest.approx(6.0)
    assert g(4.0) == pytest.approx(8.0)
    assert len(calls) == 1
    mod.write_text("def f(x):\n    return x * x * x\n")
    import linecache
    linecache.checkcache(str(mod))
    m = importlib.reload(m)
    assert srcad.grad(m.f)(2.0) == pytest.approx(12.0)
    assert len(calls) == 2


def test_specialises_per_argument_kind():
    def h(x):
        return np.sum(x * x) * 1.0

    g = srcad.grad(h)
    assert g(3.0) == pytest.approx(6.0)
    np.testing.assert_allclose(g(np.array([1.0, 2.0])), [2.0, 4.0])
    assert "x: float[2]" in srcad.source(g)


def test_globals_are_read_at_call_time():
    import corpus.straight as s

    g = srcad.grad(s.global_data)
    before = g(0.4)
    old = s.SCALE
    try:
        s.SCALE = 10.0
        assert g(0.4) == pytest.approx(before + 7.5)
    finally:
        s.SCALE = old


def test_closures_are_read_at_call_time():
    def make(scale):
        def h(x):
            return scale * x * x
        return h

    h2, h3 = make(2.0), make(3.0)
    assert srcad.grad(h2)(1.0) == pytest.approx(4.0)
    assert srcad.grad(h3)(1.0) == pytest.approx(6.0)


def test_tracebacks_show_generated_lines():
    def h(x):
        return math.sqrt(x)  # the derivative 0.5 / sqrt(x) needs sqrt(x)

    g = srcad.grad(h)
    with pytest.raises(ValueError) as info:
        g(-1.0)
    text = "".join(__import__("traceback").format_exception(info.value))
    assert "<srcad grad_h" in text
    # the exception also names the user's line the failing generated line came from
    assert "test_api.py" in text and "return math.sqrt(x)" in text


def test_bad_argnums():
    with pytest.raises(srcad.ArgumentError):
        srcad.grad(f2, argnums=5)


def _scaled(a, b, scale=10.0):
    return scale * a * b ** 2


def test_argnums_as_numpy_ints_and_negative_ones_mean_the_same_everywhere():
    """A negative position counted from the signature's end in grad (the default `scale`) and
    from the call's in jacfwd (b), so hessian(argnums=-1) gave d2f/db dscale = 6, silently: with
    defaults, which argument -1 is depends on the call, and it is refused; np.int64 positions
    were refused. By hand: df/db = 2 scale a b = 60, d2f/db2 = 2 scale a = 20."""
    for kind in (srcad.grad, srcad.value_and_grad, srcad.hessian):
        with pytest.raises(srcad.ArgumentError, match="negative argnums"):
            kind(_scaled, argnums=(0, -1))(1.0, 3.0)
    assert srcad.grad(_scaled, argnums=np.int64(1))(1.0, 3.0) == pytest.approx(60.0)
    assert srcad.jacrev(_scaled, argnums=np.int64(1))(1.0, 3.0) == pytest.approx(60.0)
    no_defaults = lambda a, b: 10.0 * a * b ** 2  # noqa: E731
    assert srcad.grad(no_defaults, argnums=-1)(1.0, 3.0) == pytest.approx(60.0)
    assert srcad.hessian(no_defaults, argnums=-1)(1.0, 3.0) == pytest.approx(20.0)
    assert srcad.jacfwd(_scaled, argnums=-1)(1.0, 3.0) == pytest.approx(60.0)  # (the last passed)


def test_grad_of_grad_and_fd():
    def h(x):
        return x ** 4 + math.sin(x)

    g2 = srcad.grad(srcad.grad(h))
    assert g2(0.7) == pytest.approx(12 * 0.7 ** 2 - math.sin(0.7))
    assert g2(0.7) == pytest.approx(fd_grad(srcad.grad(h), (0.7,)), rel=1e-6)



def test_scipy_rules_load_when_scipy_is_used(tmp_path):
    import subprocess
    import sys as _sys

    script = tmp_path / "lazy_scipy.py"
    script.write_text(
        "import srcad\n"
        "from srcad.rules import RULES\n"
        "assert 'scipy.special.expit' not in RULES  # importing srcad does not import scipy\n"
        "import numpy as np, scipy.special\n"
        "def f(x):\n"
        "    return np.sum(scipy.special.expit(x))\n"
        "x = np.array([0.3, -1.2])\n"
        "s = 1 / (1 + np.exp(-x))\n"
        "assert np.allclose(srcad.grad(f)(x), s * (1 - s))  # hand-derived\n"
        "print('ok')\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([_sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_astype_int_result_is_not_differentiated():
    def h(x):
        k = (x * 3.0).astype(int)  # piecewise constant: zero derivative through k
        return np.sum(x * x * k)

    x = np.array([0.4, 1.2, 2.5])
    assert srcad.grad(h)(x) == pytest.approx(2 * x * (x * 3.0).astype(int))


def test_jvp_and_vjp_with_defaulted_parameters():
    def h(x, scale=3.0):
        return scale * x * x

    out, tan = srcad.jvp(h, (2.0,), (1.0,))
    assert out == pytest.approx(12.0) and tan == pytest.approx(12.0)
    out, vjp_fn = srcad.vjp(h, 2.0)
    cot = vjp_fn(1.0)
    assert len(cot) == 1 and cot[0] == pytest.approx(12.0)


def _energy(x):
    return x ** 4


def _work(w, x):
    return srcad.grad(_energy)(w * x) * w  # a gradient taken inside the differentiated function


def test_grad_called_inside_a_differentiated_function():
    w, x = 0.6, 1.3
    # d/dw [4 (w x)^3 w] = 16 w^3 x^3
    assert srcad.grad(_work)(w, x) == pytest.approx(16 * w ** 3 * x ** 3)
    assert srcad.jvp(_work, (w, x), (0.0, 1.0))[1] == pytest.approx(12 * w ** 4 * x ** 2)


def _loss(w, scale, shift=0.0):
    return scale * np.sum((w - shift) ** 2)


def test_functools_partial():
    import functools

    w = np.array([1.0, -2.0])
    g = srcad.grad(functools.partial(_loss, scale=3.0, shift=0.5))(w)
    assert np.allclose(g, 6.0 * (w - 0.5))
    g = srcad.grad(functools.partial(_loss, w))(2.0)  # positional binding: d/d scale
    assert g == pytest.approx(np.sum(w ** 2))


def _kwonly(x, *, scale=3.0):
    return scale * x ** 2


def test_numpy_integer_and_keyword_only_arguments():
    assert srcad.grad(_kwonly)(np.int64(2)) == pytest.approx(12.0)
    assert srcad.grad(_kwonly)(2.0, scale=5.0) == pytest.approx(20.0)


def _helper_square(x):
    return x * x


def _uses_helper(x):
    return _helper_square(x) * 2.0


def test_rebinding_an_inlined_helper_retransforms():
    global _helper_square
    g = srcad.grad(_uses_helper)
    assert g(3.0) == pytest.approx(12.0)  # d/dx 2 x^2
    original = _helper_square
    try:
        _helper_square = lambda x: x ** 3  # noqa: E731  (as a notebook cell redefining the helper)
        assert g(3.0) == pytest.approx(54.0)  # d/dx 2 x^3
    finally:
        _helper_square = original
    assert g(3.0) == pytest.approx(12.0)


STEPS = 2


def _inner_helper(y):
    return np.sin(y)


def _inner(y):  # STEPS * sum(_inner_helper(y))
    s = 0.0
    for _ in range(STEPS):
        s = s + np.sum(_inner_helper(y))
    return s


_INNER_CALLS = {
    "grad": lambda x: np.sum(srcad.grad(_inner)(x) * x),
    "jacfwd": lambda x: np.sum(srcad.jacfwd(_inner)(x) * x),
    "vjp": lambda x: np.sum(srcad.vjp(_inner, x)[1](1.0)[0] * x),
    "hessian": lambda x: np.sum(srcad.hessian(_inner)(x)),
}


@pytest.mark.parametrize("kind", sorted(_INNER_CALLS))
def test_a_transform_called_inside_follows_what_its_function_reads(kind):
    """The code of srcad.grad(h) called inside f is inlined into f's: a global h reads (a loop
    count) or a helper it calls, changed or rebound, builds f again (it kept the old code).
    Checked against finite differences of f with the inner derivatives by hand."""
    global STEPS, _inner_helper
    outer, x = _INNER_CALLS[kind], np.array([0.7, 1.3, 0.9])
    g = srcad.grad(outer)
    original = _inner_helper
    try:
        for steps, cubic in [(2, False), (4, False), (4, True), (3, False)]:
            STEPS, _inner_helper = steps, (lambda y: y ** 3) if cubic else original
            ref = fd_grad_richardson(lambda v, c=cubic: _by_hand(kind, v, c), (x,))
            np.testing.assert_allclose(g(x), ref, rtol=1e-6, atol=1e-8)
    finally:
        STEPS, _inner_helper = 2, original


def _by_hand(kind, x, cubic):
    """The outer functions of _INNER_CALLS, the inner derivatives of STEPS * sum(helper(y))
    written out (helper sin or cube)."""
    if kind == "hessian":
        return np.sum(STEPS * (6.0 * x if cubic else -np.sin(x)))
    return np.sum(STEPS * (3.0 * x ** 2 if cubic else np.cos(x)) * x)


def _with_default(y, k=2.0):
    return np.sum(y ** 2) * k


ACTIVATION = np.exp


def _activated(v):
    return np.sum(ACTIVATION(v))


def test_defaults_and_library_functions_rebound_build_the_code_again():
    """Code is built with a function's defaults and the library functions its globals name
    resolved: changing `__defaults__`, or rebinding a global from np.exp to np.tanh, kept the
    old code (also through srcad.grad called inside). By hand: d/dy k sum(y^2) = 2 k y."""
    global ACTIVATION
    x = np.array([0.3, -0.5, 0.8])
    direct, inside = srcad.grad(_with_default), srcad.grad(lambda v: np.sum(srcad.grad(_with_default)(v) * v))
    assert np.allclose(direct(x), 4.0 * x) and np.allclose(inside(x), 8.0 * x)
    try:
        _with_default.__defaults__ = (7.0,)
        assert np.allclose(direct(x), 14.0 * x) and np.allclose(inside(x), 28.0 * x)
    finally:
        _with_default.__defaults__ = (2.0,)
    g = srcad.grad(_activated)
    assert np.allclose(g(x), np.exp(x))
    try:
        ACTIVATION = np.tanh
        assert np.allclose(g(x), 1.0 - np.tanh(x) ** 2)
    finally:
        ACTIVATION = np.exp
    assert np.allclose(g(x), np.exp(x))


BACKEND = np


class _SquaringBackend:
    """A stand-in array module whose sin is x^2 (as `be = jax.numpy` or a user's backend)."""

    @staticmethod
    def sin(x):
        return x * x


def _through_backend(x):
    return BACKEND.sin(x) * 2.0


def test_rebinding_a_global_module_builds_the_code_again():
    """`be = np` then `be = other`: the code was built with np.sin resolved, and a module is not
    callable, so the watch on globals passed it over and the old derivative came back. By hand:
    d/dx 2 sin x = 2 cos x; d/dx 2 x^2 = 4 x; math.sin as np.sin."""
    global BACKEND
    g = srcad.grad(_through_backend)
    assert g(0.3) == pytest.approx(2.0 * np.cos(0.3))
    try:
        BACKEND = _SquaringBackend
        assert g(0.3) == pytest.approx(1.2)
        BACKEND = math
        assert g(0.3) == pytest.approx(2.0 * math.cos(0.3))
    finally:
        BACKEND = np
    assert g(0.3) == pytest.approx(2.0 * np.cos(0.3))


def _keyword_power(z, *, p=2):
    return np.sum(z ** p)


def _through_keyword_power(x):
    return _keyword_power(x)


def test_closure_functions_and_keyword_defaults_changed_build_the_code_again():
    """A closure variable naming a function, rebound after the first call (a sweep over
    activations with one transform), and an item of __kwdefaults__ changed in place kept the
    old code, silently. By hand: d sum tanh = 1 - tanh^2, d sum sin = cos; d sum z^p = p z^(p-1)."""
    x = np.array([0.1, 0.8, 1.4])
    got = {}

    def sweep():
        def loss(v):
            return np.sum(act(v))

        g = srcad.grad(loss)
        for act in (np.tanh, np.sin, functools.partial(np.multiply, 3.0)):
            got[act] = g(x)
        return g

    sweep()
    want = [1.0 - np.tanh(x) ** 2, np.cos(x), np.full(3, 3.0)]
    for (act, value), expect in zip(got.items(), want):
        np.testing.assert_allclose(value, expect, rtol=1e-12, err_msg=str(act))
    g = srcad.grad(_through_keyword_power)
    np.testing.assert_allclose(g(x), 2.0 * x, rtol=1e-12)
    try:
        _keyword_power.__kwdefaults__["p"] = 3
        np.testing.assert_allclose(g(x), 3.0 * x ** 2, rtol=1e-12)
    finally:
        _keyword_power.__kwdefaults__["p"] = 2
    np.testing.assert_allclose(g(x), 2.0 * x, rtol=1e-12)


LIB = None


def _through_a_module(x):
    return np.sum(LIB.act(x))


def test_a_function_of_a_users_module_replaced_builds_the_code_again(tmp_path):
    """`mylib.act = np.exp` (or a reload of the edited module) after the first call kept the
    code of the old act, silently (the adversarial pass): the attributes of the user's
    modules the code calls are watched (not numpy's). By hand: d sum sin = cos, d sum exp = exp."""
    global LIB
    from sourcemod import import_source
    LIB = import_source(tmp_path, "srcad_test_user_lib", "import numpy as np\n\n\ndef act(v):\n"
                        "    return np.sin(v)\n")
    x = np.array([0.3, -0.7])
    g = srcad.grad(_through_a_module)
    np.testing.assert_allclose(g(x), np.cos(x), rtol=1e-15)
    LIB.act = np.exp
    np.testing.assert_allclose(g(x), np.exp(x), rtol=1e-15)


def _keyword_only_scale(a, b, *, s=2.0):
    return a * b * b * s


def test_forward_mode_of_a_function_with_keyword_only_defaults():
    """jvp, jacfwd and linearize of a function with a keyword-only default passed the
    tangents after it by position to code that took it by keyword: TypeError (the adversarial
    pass). By hand: d/db = 2 a b s."""
    assert srcad.jacfwd(_keyword_only_scale, argnums=1)(0.7, 1.3) == pytest.approx(2 * 0.7 * 1.3 * 2.0)
    assert srcad.jvp(_keyword_only_scale, (0.7, 1.3), (0.0, 1.0))[1] == pytest.approx(2 * 0.7 * 1.3 * 2.0)
    assert srcad.linearize(_keyword_only_scale, 0.7, 1.3)[1](0.0, 1.0) == pytest.approx(2 * 0.7 * 1.3 * 2.0)
    assert srcad.grad(_keyword_only_scale, argnums=1)(0.7, 1.3, s=3.0) == pytest.approx(2 * 0.7 * 1.3 * 3.0)


def test_writing_into_the_output_of_vjp_leaves_vjp_fn_alone():
    """np.exp's rule reads its result in the backward sweep: the output vjp returned was that
    array, so writing into it changed vjp_fn's cotangents. d exp(a) = exp(a)."""
    a = np.array([0.3, -0.5, 0.8])
    out, vjp_fn = srcad.vjp(np.exp, a)
    out[0] = 100.0
    assert np.allclose(vjp_fn(np.ones(3))[0], np.exp(a))


def _fused_failure(x):
    y = np.log(x)
    z = np.zeros(2)
    return y * z[3]  # fails; the generated statement also holds the adjoint of np.log


def test_traceback_names_every_user_line_a_failing_statement_evaluates():
    with pytest.raises(IndexError) as info:
        srcad.grad(_fused_failure)(2.0)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "return y * z[3]" in notes


def _inner_product(x, w):
    return np.sum(x * w)


def test_a_gradient_is_never_the_callers_argument_itself():
    x, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    g = srcad.grad(_inner_product)(x, w)  # d/dx = w: a copy of it
    g *= 10.0
    assert np.array_equal(w, [3.0, 4.0]) and np.array_equal(g, [30.0, 40.0])


def _int_weighted(A):
    return np.sum(A * np.arange(A.size).reshape(A.shape))


def test_gradient_of_a_float_array_is_float_even_with_int_weights():
    g = srcad.grad(_int_weighted)(np.ones((2, 3)))
    assert g.dtype == np.float64 and np.array_equal(g, np.arange(6.0).reshape(2, 3))
