"""Constructs of real programs (issue 13 items 6 and 9): dict(...), calls that only log, plot
or time, branches under an argument that is a known None, and helpers that update a fresh
array in place. Every derivative against an independent oracle."""

import numpy as np
import pytest

import srcad
from tests.oracle import assert_tree_close, fd_grad, fd_jvp
from tests.sourcemod import import_source

SRC = '''
import logging
import os
import time
import warnings
import numpy as np

log = logging.getLogger("srcad-tests")


def with_dict_keywords(x):
    d = dict(a=x, b=2.0 * x)
    return np.sum(d["a"] * d["b"] + np.sin(d["a"]))


def with_dict_copy(x):
    p = {"w": x, "b": 1.0}
    q = dict(p)
    q["w"] = q["w"] * 2.0
    return np.sum(q["w"] * p["w"]) + q["b"]


def with_pairs(x):
    return np.sum(dict([("a", x), ("b", x * x)])["a"] * 3.0)


def with_built_pairs(x):
    pairs = [("a", x)]
    pairs.append(("b", x * x))
    return np.sum(dict(pairs)["a"])


def with_logging(x, ax=None):
    logging.debug("x is %s", x)
    log.info("step %d", 3)
    warnings.warn("just a warning")
    start = time.perf_counter()
    name = os.path.join("runs", "a")
    if ax:
        ax.plot(x)
    y = np.sum(x ** 3)
    logging.info("took %.3f s for %s", time.perf_counter() - start, name)
    return y


def with_callback(x, callback=None):
    y = np.tanh(x) * 2.0
    if callback:
        callback(y)
    return np.sum(y * y)


def step(v, g):
    v -= 0.1 * g
    return v


def with_fresh_update(x):
    v = x * 1.0
    v = step(v, x * x)
    return np.sum(v * v)
'''

X = np.array([0.3, -0.7, 1.1])


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("real"), "real_constructs", SRC)


@pytest.mark.parametrize("name", ["with_dict_keywords", "with_dict_copy", "with_pairs", "with_logging",
                                  "with_callback", "with_fresh_update"])
def test_reverse_forward_and_second_order(mod, name):
    f = getattr(mod, name)
    with pytest.warns(UserWarning) if name == "with_logging" else _nothing():
        g = srcad.grad(f)(X)
    assert_tree_close(g, fd_grad(f, (X,)), rtol=1e-6, atol=1e-8)
    v = np.array([0.5, -1.0, 2.0])
    with pytest.warns(UserWarning) if name == "with_logging" else _nothing():
        _, t = srcad.jvp(f, (X,), (v,))
        H = srcad.hessian(f)(X)
    assert t == pytest.approx(fd_jvp(f, (X,), (v,)), rel=1e-6, abs=1e-8)
    H_fd = np.array([fd_grad(lambda x, e=e: float(srcad.grad(f)(x) @ e), (X,)) for e in np.eye(3)])
    assert_tree_close(H, H_fd, rtol=1e-5, atol=1e-6)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_the_header_names_the_calls_kept_as_written(mod):
    g = srcad.grad(mod.with_logging)
    with pytest.warns(UserWarning):
        g(X)
    header = srcad.source(g).split("\n    debug(")[0]
    assert "calls run as written (no derivative flows through them):" in header
    for name in ("logging.debug (line 34)", ".info() (line 35)", "time.perf_counter (lines 37, 42)"):
        assert name in header, header


def test_dict_of_pairs_built_otherwise_is_a_clear_error(mod):
    with pytest.raises(srcad.TypeSupportError, match=r"dict\(\) of a list") as e:
        srcad.grad(mod.with_built_pairs)(X)
    assert "real_constructs.py" in str(e.value) and "dict(a=x, b=y)" in str(e.value)


def test_a_callback_that_is_given_is_inlined_or_refused(mod):
    """With a function given, the branch runs. A function srcad reads (yours, a lambda) is
    inlined like a helper (issue 13 item 1: functions as arguments), so what it does is
    seen, its writes into y too (the caller's y is the changed array: frontend/binding.py); a
    call srcad cannot see into, whose result is unused, can only matter by writing into y,
    which srcad cannot follow: refused."""
    def keep(y):
        return None

    def double_in_place(y):
        y *= 2.0

    assert_tree_close(srcad.grad(mod.with_callback)(X, keep),
                      fd_grad(lambda x: mod.with_callback(x, keep), (X,)), rtol=1e-5, atol=1e-6)
    assert_tree_close(srcad.grad(mod.with_callback)(X, double_in_place),  # (4 y^2)
                      fd_grad(lambda x: mod.with_callback(x, double_in_place), (X,)),
                      rtol=1e-5, atol=1e-6)
    assert srcad.value_and_grad(mod.with_callback)(X, double_in_place)[0] == pytest.approx(
        mod.with_callback(X, double_in_place))
    with pytest.raises(srcad.UnsafeMutationError, match="not used"):
        srcad.grad(mod.with_callback)(X, np.random.shuffle)


CHAIN = '''
import numpy as np
import scipy.stats


def logp(x):
    return scipy.stats.skewnorm.logpdf(x, 2.0)


def layer(x):
    return logp(x) * 2.0


def model(x):
    return np.sum(layer(x))
'''


def test_a_refusal_inside_your_helpers_names_the_calls_that_reached_it(tmp_path):
    """The library call's line (in logp) first, then the calls that led there, innermost
    first: layer's call of logp, then model's call of layer."""
    mod = import_source(tmp_path, "chain_mod", CHAIN)
    with pytest.raises(srcad.NoRuleError) as e:
        srcad.grad(mod.model)(X)
    text = str(e.value)
    where = [line.split("chain_mod.py:")[1].split(":")[0] for line in text.splitlines()
             if "chain_mod.py:" in line]
    assert where == ["7", "11", "15"], text
    assert "called from" in text and "layer(x)" in text


ZERO_D = '''
import numpy as np


def f(x, z):
    k = 0
    while k < 3:
        k += 1
        z = z / (1.5 + np.sum(x) * np.sum(x)) + (0.5 * z - z)
    return 0.5 * np.sum(z) + np.sum(np.sin(x))
'''


def test_hessian_through_a_loop_over_a_0d_array(tmp_path):
    """Fuzz H2:5740: the adjoint accumulated into a 0-d cotangent, which NumPy arithmetic had
    made a Python float, with `.copy()` (AttributeError in generated code)."""
    f = import_source(tmp_path, "zero_d", ZERO_D).f
    x, z = np.array([[-1.4, 0.25], [0.03, 1.36]]), np.array(0.7475)
    H = srcad.hessian(f, argnums=(0, 1))(x, z)

    def grad_z(x, z):
        return fd_grad(f, (x, z), 1)

    want = fd_grad(lambda z: float(grad_z(x, z)), (z,), eps=1e-4)
    assert float(np.asarray(H[1][1])) == pytest.approx(float(want), rel=1e-4, abs=1e-6)


GENERATORS = '''
def twice(x):
    g = (v * v for v in [x, 2 * x])
    return sum(g) + sum(g)


def once(x):
    return sum(v * v for v in [x, 2 * x])
'''


def test_a_generator_expression_in_a_variable_is_refused(tmp_path):
    """Python's generator is exhausted after sum(g): twice(1.0) is 5. srcad reads generator
    expressions as lists, so it would give 10: refused, at the line, with what to write."""
    mod = import_source(tmp_path, "gens", GENERATORS)
    assert mod.twice(1.0) == 5.0
    with pytest.raises(srcad.UnsupportedSyntaxError, match="generator expression may be consumed more"):
        srcad.grad(mod.twice)(1.0)
    assert srcad.grad(mod.once)(1.5) == pytest.approx(10 * 1.5)  # d/dx (x^2 + 4x^2) = 10x


MAX_ALIAS = '''
import math
import numpy as np


def f(x, z):
    v = max(z, z)  # z itself: a 0-d array
    v *= math.tanh(np.sum(x))  # writes into the caller's z
    return np.sum(x) * 2.0


def g(x, a, b):
    v = max(a, b)  # floats: a new number
    v *= 2.0
    return np.sum(x) * v
'''


def test_max_of_arrays_is_one_of_them(tmp_path):
    """Fuzz H3:13492: max(z, z) of a 0-d array is z itself, so `v *= t` changes the caller's z;
    srcad took max's result for a new object and dropped the write. z is an argument written
    into, so the code writes into a copy of it: f's gradient is 2 everywhere (by hand), the
    caller's z unchanged."""
    mod = import_source(tmp_path, "max_alias", MAX_ALIAS)
    x, z = np.array([[0.3, -0.4]]), np.array(0.25)
    np.testing.assert_array_equal(srcad.grad(mod.f)(x, z), [[2.0, 2.0]])
    assert z == 0.25
    got = srcad.grad(mod.g)(x, 0.5, 0.75)
    assert_tree_close(got, fd_grad(mod.g, (x, 0.5, 0.75)), rtol=1e-7, atol=1e-9)


PEEL = '''
import numpy as np


def conv_like(w, x):
    out = 0.0
    for i in range(3):
        out = out + np.einsum("nc,cf->nf", x[:, i:i + 2], w[i])
    blocks = out.reshape(out.shape[:1] + (2, 2))  # (out.shape's length: known when the loop keeps it)
    return np.sum(np.tanh(blocks[:, 0]) ** 2 * blocks[:, 1])


def widened_by_a_branch(w, x):
    out = 0.0
    for i in range(4):
        if i % 2 == 0:
            out = out + x[:, i] * w[i]
        else:
            out = out * w[i]
    return np.sum(out.reshape((out.shape[0], 1)) ** 2)
'''


@pytest.mark.parametrize("name", ["conv_like", "widened_by_a_branch"])
def test_a_loop_that_turns_a_number_into_an_array(tmp_path, name):
    """`out = 0.0; for ...: out = out + array`: the first iteration runs on its own, so the loop
    keeps out's shape (out.shape, reshape) instead of a value of unknown rank."""
    mod = import_source(tmp_path, f"peel_{name}", PEEL)
    f = getattr(mod, name)
    rng = np.random.default_rng(3)
    w = rng.normal(size=(3, 2, 4)) if name == "conv_like" else rng.normal(size=4)
    x = rng.normal(size=(5, 4))
    assert_tree_close(srcad.grad(f)(w, x), fd_grad(f, (w, x)), rtol=1e-6, atol=1e-8)
    v = rng.normal(size=w.shape)
    _, t = srcad.jvp(f, (w, x), (v, None))
    assert t == pytest.approx(float(np.sum(fd_grad(f, (w, x)) * v)), rel=1e-6)

CALL_IN_INDEX = '''
import numpy as np

G = np.zeros(3)


def upper(p):
    a = np.zeros((3, 3))
    a[np.triu_indices(3)] = p
    return np.linalg.slogdet(a @ a.T + np.eye(3))[1]


def at_len(p):
    a = np.zeros(4)
    a[len(p)] = p[0]
    a[np.arange(3)] += np.sin(p)
    ys = [1.0, 2.0]
    ys[min(len(ys) - 1, 5)] = p[1]
    return np.sum(np.sin(a)) * ys[1]


def into_global(x):
    G[0] = x
    return np.sum(G * x)
'''


def test_calls_in_the_index_of_an_assignment_target(tmp_path):
    """Gallery (issue 13): `a[np.triu_indices(3)] = p`, `a[len(p)] = ...`: the names read by
    the index (np, len, min) were taken for local variables, since every name in an assignment
    target counted as assigned; refused as an unsafe mutation, or UnboundLocalError in the
    generated code. Writing into a global array crashed the same way instead of the refusal."""
    mod = import_source(tmp_path, "call_in_index", CALL_IN_INDEX)
    p = np.array([1.0, 0.2, -0.3, 0.8, 0.1, 1.2])
    assert_tree_close(srcad.grad(mod.upper)(p), fd_grad(mod.upper, (p,)), rtol=1e-6, atol=1e-8)
    q = np.array([0.3, -0.7, 0.4])
    assert_tree_close(srcad.grad(mod.at_len)(q), fd_grad(mod.at_len, (q,)), rtol=1e-6, atol=1e-8)
    with pytest.raises(srcad.UnsafeMutationError, match="cannot write into global 'G'"):
        srcad.grad(mod.into_global)(2.0)


DICT_OVERRIDES = '''
import numpy as np


def spread(w, p):
    q = {**p, "b": w, "new": np.sin(w)}
    return np.sum(q["a"] * q["b"]) + np.sum(q["c"]) * q["new"] + p["b"]


def keywords(p, w):
    q = dict(p, a=w * p["a"], z=2.0 * w)
    return sum(np.sum(v) for v in q.values()) * q["z"], tuple(q)


def spread_later(w, p):
    q = {"x": w, **p}
    return q["x"]
'''


def test_dict_copied_with_some_keys_replaced(tmp_path):
    """Gallery (issue 13): `{**params, "predict": w}` and `dict(params, predict=w)`, the way a
    program replaces one entry of a parameter dict, were refused; they are a copy of the dict
    with the keys set in order (Python's key order and values)."""
    mod = import_source(tmp_path, "dict_overrides", DICT_OVERRIDES)
    p = {"a": np.array([1.0, -2.0]), "b": 0.5, "c": np.array([[0.3]])}
    for argnum in (0, 1):
        got = srcad.grad(mod.spread, argnums=argnum)(0.7, p)
        assert_tree_close(got, fd_grad(mod.spread, (0.7, p), argnum), rtol=1e-7, atol=1e-9)
    (value, keys), g = srcad.value_and_grad(mod.keywords, argnums=(0, 1), has_aux=True)(p, 0.7)
    assert keys == ("a", "b", "c", "z") and value == pytest.approx(mod.keywords(p, 0.7)[0], rel=1e-14)
    for argnum in (0, 1):
        want = fd_grad(lambda *a: mod.keywords(*a)[0], (p, 0.7), argnum)
        assert_tree_close(g[argnum], want, rtol=1e-7, atol=1e-9)
    with pytest.raises(srcad.UnsupportedSyntaxError, match=r"supported only first"):
        srcad.grad(mod.spread_later)(0.7, p)


def test_second_order_of_a_closure_reading_a_dict():
    """Gallery (issue 13): srcad.hessian(lambda w: loss({**params, "predict": w}, ...)) with
    params a dict the lambda closes over: the gradient's generated code reads the closure
    variable as `_cell_params.cell_contents`, which the second transformation took for an
    attribute of an unknown object (TypeSupportError "dict() of a ?" naming generated code)."""
    from tests.oracle import fd_second_directional

    def make(params):
        def f(w):
            q = {**params, "b": w}
            return np.sum(dict(params)["a"] * q["b"] ** 3) + np.sin(q["b"][0]) * params["c"]
        return f

    first = {"a": np.array([1.0, 2.0]), "c": 3.0}
    for params in (first, {"a": np.array([-0.5, 0.25]), "c": -1.5, "d": (1.0, 2.0)}):
        f = make(params)
        w = np.array([0.5, -1.0])
        E = np.eye(2)
        H_fd = np.array([[fd_second_directional(f, (w,), (a,), (b,)) for b in E] for a in E])
        assert_tree_close(srcad.hessian(f)(w), H_fd, rtol=1e-6, atol=1e-8)
        assert_tree_close(srcad.hvp(f, (w,), (E[1],)), H_fd[1], rtol=1e-6, atol=1e-8)


def _square(z):
    return z * z


ACTIVATIONS = [np.tanh, _square]


def through_a_global_list_of_functions(x):
    for act in ACTIVATIONS:
        x = act(x)
    return np.sum(x)


def through_default_functions(x, fs=(np.sin, np.cos)):
    return sum(np.sum(f(x)) for f in fs)


def through_functions_given(x, fs):
    for f in fs:
        x = f(x)
    return np.sum(x)


def test_loops_over_lists_and_tuples_of_functions():
    """A list of functions read as a value (a global, an argument) was typed as 'a function'
    and its calls refused, as was a generator over a default tuple of functions: each is
    unrolled with its items known (the list's items are in the type key, so changing one builds
    again). By hand: d sum tanh(x)^2 = 2 tanh (1 - tanh^2); d (sin + cos) = cos - sin;
    d sum exp(x)^2 = 2 exp(2x)."""
    x = np.array([0.1, 0.8])
    t = np.tanh(x)
    got = srcad.grad(through_a_global_list_of_functions)(x)
    np.testing.assert_allclose(got, 2 * t * (1 - t * t), rtol=1e-13)
    np.testing.assert_allclose(srcad.grad(through_default_functions)(x), np.cos(x) - np.sin(x), rtol=1e-13)
    np.testing.assert_allclose(srcad.grad(through_functions_given)(x, [np.exp, _square]), 2 * np.exp(2 * x),
                               rtol=1e-13)
    c = np.cos(np.sin(x))  # (three: their join was unknown, and refused) by hand, tanh(cos(sin x))
    np.testing.assert_allclose(srcad.grad(through_functions_given)(x, [np.sin, np.cos, np.tanh]),
                               (1 - np.tanh(c) ** 2) * -np.sin(np.sin(x)) * np.cos(x), rtol=1e-13)
    g = srcad.grad(through_a_global_list_of_functions)
    g(x)
    try:
        ACTIVATIONS[0] = np.sin  # (by hand: 2 sin cos)
        np.testing.assert_allclose(g(x), 2 * np.sin(x) * np.cos(x), rtol=1e-13)
    finally:
        ACTIVATIONS[0] = np.tanh


def _projected(out, weights):
    if isinstance(out, (list, tuple)):
        s = 0.0
        for o, w in zip(out, weights):
            s = s + np.sum(o * w)
        return s
    return np.sum(out * weights)


def split_and_project(x, weights):
    return _projected(np.split(x, 2), weights)


def test_isinstance_of_a_tuple_of_classes_decides_the_branch_while_transforming():
    """isinstance(out, (list, tuple)) was not decided from out's type (only a single class
    was), so the branch not taken, `out * weights` of two lists, was refused. By hand: the
    gradient is the weights, piece by piece."""
    x, weights = np.arange(4.0), [np.ones(2), 2.0 * np.ones(2)]
    np.testing.assert_array_equal(srcad.grad(split_and_project)(x, weights), [1.0, 1.0, 2.0, 2.0])
    assert srcad.grad(_projected)(x, np.full(4, 3.0)).tolist() == [3.0] * 4  # (the other branch)
