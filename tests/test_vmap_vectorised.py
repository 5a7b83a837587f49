"""srcad.vmap called directly runs code vectorised over the batch (issue 15, item 2).

Every result is compared with the function called once per example by plain NumPy (a loop
over np.take slices, stacked with np.stack: `per_example` below, no srcad), and derivatives
with central finite differences (tests/oracle.py). Each test also reads the generated source
(srcad.source(mapped, *args)) to check which path ran: vectorised with no per-example loop,
vectorised with a named per-example loop for one operation, or the whole function called
once per example, with the reason in the source.
"""

import math

import numpy as np
import pytest
from oracle import assert_tree_close, fd_grad

import srcad

RS = np.random.RandomState(0)
B = 5


def per_example(f, args, in_axes, out_axes=0):
    """f called once per example, stacked along out_axes: the oracle for every test."""
    n = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    results = [f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, in_axes)])
               for b in range(n)]
    return _stacked(results, out_axes)


def _stacked(results, out_axes):
    first = results[0]
    if isinstance(first, dict):
        return {k: _stacked([r[k] for r in results], out_axes) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(_stacked([r[i] for r in results], out_axes) for i in range(len(first)))
    return np.moveaxis(np.stack([np.asarray(r) for r in results]), 0, out_axes)


def run(f, args, in_axes, out_axes=0, path="vectorised"):
    """vmap(f)(*args) checked against per_example, and the path it took: "vectorised" (no
    loop over the examples), "per-op" (a loop for some operation, named in the header) or
    "loop" (f called once per example); returns the generated source."""
    mapped = srcad.vmap(f, in_axes=in_axes, out_axes=out_axes)
    got = mapped(*args)
    assert_tree_close(got, per_example(f, args, in_axes, out_axes), rtol=1e-10, atol=1e-12)
    source = srcad.source(mapped, *args)
    looped = "not vectorised" in source
    per_op = "_per_example" in source
    assert (path == "loop") == looped, source
    assert (path == "per-op") == per_op, source
    assert per_op == ("run once per example (no vectorised form)" in source), source
    return source


# -- elementwise, with ranks mixed ------------------------------------------------------------

def scale_mix(x, c):
    return c * x + np.sin(x) * c ** 2 - np.exp(-x) / (1.0 + c * c)


def row_times_matrix(m, r):
    return m * r + np.tanh(r) - m.sum()


@pytest.mark.parametrize("xs,cs,axes", [
    (RS.randn(B, 3), RS.randn(B), (0, 0)),  # a scalar times a vector per example
    (RS.randn(B, 3), 0.5, (0, None)),
    (RS.randn(3), RS.randn(B), (None, 0)),
    (RS.randn(B, 2, 3), RS.randn(B, 3), (0, 0)),  # (2, 3) * (3,) per example
    (RS.randn(1, 3), RS.randn(1), (0, 0)),  # a batch of one
])
def test_elementwise_with_ranks_aligned(xs, cs, axes):
    source = run(scale_mix, (xs, cs), axes)
    assert "for " not in source.split("\n", 3)[3]  # (straight-line code)


def test_elementwise_broadcasting_of_an_example_against_a_row():
    run(row_times_matrix, (RS.randn(B, 4, 3), RS.randn(B, 3)), (0, 0))
    run(row_times_matrix, (RS.randn(4, 3), RS.randn(B, 3)), (None, 0))


def math_scalars(x, y):
    return math.sin(x) * math.exp(y) + math.sqrt(abs(x)) + max(x, y) - min(x, 0.5) + math.atan2(y, x)


def test_math_functions_run_as_numpy_functions():
    source = run(math_scalars, (RS.randn(B), RS.randn(B)), (0, 0))
    assert "np.sin" in source and "math.sin" not in source


def square_root(x):
    return math.sqrt(x) + 1.0


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # (NumPy's, before the check raises)
def test_math_domain_errors_raise_as_the_per_example_calls_do():
    mapped = srcad.vmap(square_root)
    assert_tree_close(mapped(np.array([1.0, 4.0])), np.array([2.0, 3.0]))
    with pytest.raises(ValueError, match="math domain error"):
        mapped(np.array([1.0, -4.0]))


# -- reductions -------------------------------------------------------------------------------

def reductions(m):
    return (np.sum(m), np.sum(m, axis=1, keepdims=True), np.mean(m, axis=0), np.max(m, axis=-1),
            m.min(axis=0).sum(), np.std(m, axis=(0, 1), keepdims=True), np.prod(m, axis=1),
            np.linalg.norm(m[0]), np.linalg.norm(m, ord=2), np.linalg.norm(m, axis=1))


def test_reductions_with_and_without_axes_and_keepdims():
    out = run(reductions, (RS.randn(B, 3, 4),), (0,))
    assert "axis=(1, 2)" in out  # (axis=None of an example: all its axes)


# -- products ---------------------------------------------------------------------------------

def matmul(a, b):
    return a @ b


def dot(a, b):
    return np.dot(a, b)


def outer(a, b):
    return np.outer(a, b)


PRODUCTS = [  # (per-example shapes of a and b, which are batched)
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
    ((3,), (2, 3, 4)), ((2, 3), (2, 3, 4)),
]


@pytest.mark.parametrize("sa,sb", PRODUCTS, ids=str)
@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)], ids=str)
def test_matmul_with_either_operand_batched(sa, sb, batched):
    args = tuple(RS.randn(B, *s) if on else RS.randn(*s) for s, on in zip((sa, sb), batched))
    source = run(matmul, args, tuple(0 if on else None for on in batched))
    assert source.count("@") == 1


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                   ((), (3,)), ((3,), ())], ids=str)
@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)], ids=str)
def test_dot_and_outer(sa, sb, batched):
    args = tuple(RS.randn(B, *s) if on else (RS.randn(*s) if s else 0.7) for s, on in zip((sa, sb), batched))
    axes = tuple(0 if on else None for on in batched)
    run(dot, args, axes)
    if len(sa) == len(sb) == 1:
        run(outer, args, axes)


# -- indexing, shapes, containers ----------------------------------------------------------

def shapes(m):
    v = m[0] * m[1:, 1] + m[-1, 2]
    return (np.expand_dims(v, 0) * np.expand_dims(v, -1), np.transpose(m) @ m, m.T.ravel(),
            np.reshape(m, (2, 6)), np.squeeze(m[None, :, :1]), np.moveaxis(m[None], 0, -1))


def test_indexing_and_shape_functions():
    run(shapes, (RS.randn(B, 4, 3),), (0,))


def pick(x, i):
    return x[i] * 2.0


def test_an_index_that_differs_between_examples_gathers():
    xs, table = RS.randn(B, 4), RS.randn(6)
    run(pick, (xs, 2), (0, None))
    run(pick, (table, np.array([0, 5, 2, 2, 1])), (None, 0))
    run(pick, (xs, np.array([0, 3, 2, 2, 1])), (0, 0))


def write(x, v):
    y = x.copy()
    y[0] = 5.0 * v
    y[1:] += x[0]
    return y


def test_item_writes():
    run(write, (RS.randn(B, 3), RS.randn(B)), (0, 0))
    run(write, (RS.randn(3), RS.randn(B)), (None, 0))  # (a batched value into an unbatched array)


def structures(x, c):
    return {"scaled": (x * c, c), "norm": np.sum(x ** 2), "list": [x[0], 1.0]}


def test_tuple_dict_and_list_results():
    got = run(structures, (RS.randn(B, 3), RS.randn(B)), (0, 0))
    assert "def vmap_structures" in got


def total(x):
    return float(np.sum(x))


def test_a_function_returning_a_float():
    run(total, (RS.randn(B, 3),), (0,))


@pytest.mark.parametrize("axes,out_axes,shape", [((1, None), 0, (3, B)), ((-1, None), 1, (3, B)),
                                                 ((0, None), -1, (B, 3)), ((None, 0), 1, (B, 3))])
def test_in_axes_and_out_axes(axes, out_axes, shape):
    w = RS.randn(3, 3)
    x = RS.randn(*shape)
    args = (x, w) if axes[0] is not None else (w, x)
    source = run(matmul, args, axes, out_axes)
    moved = axes[0] not in (0, None) or axes[1] not in (0, None) or out_axes != 0
    assert ("np.moveaxis" in source) == moved


# -- control flow -----------------------------------------------------------------------------

def horner(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.5 + x[i]  # (s starts the same for every example, then differs)
    return s


def halve_until(x, steps):
    k = 0
    while k < steps:
        x = x / 2.0
        k += 1
    return x


def appended(x):
    ys = []
    for i in range(3):
        ys.append(x[i] * i)
    return np.array(ys)


def test_loops_with_batched_carries():
    run(horner, (RS.randn(B, 4), 3), (0, None))
    run(halve_until, (RS.randn(B, 2), 3), (0, None))
    run(appended, (RS.randn(B, 3),), (0,))


def branch(x, c):
    if c > 0:
        y = x * 2.0
    else:
        y = x ** 2
    return y + c


def test_an_if_on_a_condition_shared_by_every_example_stays_an_if():
    xs = RS.randn(B, 3)
    for c in (1.0, -1.0):
        assert "if c > 0" in run(branch, (xs, c), (0, None))


def test_an_if_on_a_condition_that_differs_falls_back_to_one_call_per_example():
    source = run(branch, (RS.randn(B, 3), np.array([1.0, -1.0, 2.0, -2.0, 0.0])), (0, 0), path="loop")
    assert "an `if` on a value that differs between examples" in source


def error_function(x, s):
    return math.erf(s) * x + np.sum(x)


def test_a_primitive_without_a_vectorised_form_runs_in_a_loop_over_the_examples():
    source = run(error_function, (RS.randn(B, 3), RS.randn(B)), (0, 0), path="per-op")
    assert "math.erf (line" in source and f"range({B})" in source


def determinant(a, s):
    return np.linalg.det(a) * s + np.sum(np.linalg.inv(a) @ a)


def test_linear_algebra_on_stacks_of_matrices():
    run(determinant, (RS.randn(B, 3, 3), RS.randn(B)), (0, 0))


def noisy(x):
    print("example")
    return x * 2.0


def test_effects_each_example_repeats_run_once_per_example(capsys):
    source = run(noisy, (RS.randn(3, 2),), (0,), path="loop")
    assert "builtins.print has effects each example repeats" in source
    assert capsys.readouterr().out.count("example") == 3 * 3  # (vmap's call, the oracle's, srcad.source's)


# -- transformations --------------------------------------------------------------------------

def mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = np.tanh(x @ w1 + b1)
    return (h @ w2 - y) ** 2


def batch_loss(params, xs, ys):
    w1, b1, w2 = params
    return np.sum((np.tanh(xs @ w1 + b1) @ w2 - ys) ** 2)


def test_per_example_gradients_of_an_mlp():
    params = (0.3 * RS.randn(4, 6), 0.1 * RS.randn(6), 0.3 * RS.randn(6))
    xs, ys = RS.randn(B, 4), RS.randn(B)
    source = run(srcad.grad(mlp_loss), (params, xs, ys), (None, 0, 0))
    got = srcad.vmap(srcad.grad(mlp_loss), in_axes=(None, 0, 0))(params, xs, ys)
    for b in range(B):
        assert_tree_close(tuple(g[b] for g in got), fd_grad(mlp_loss, (params, xs[b], ys[b])), rtol=1e-6)
    assert_tree_close(tuple(g.sum(axis=0) for g in got), fd_grad(batch_loss, (params, xs, ys)), rtol=1e-6)
    assert "x @ w1" in source and "for " not in source.split("\n", 3)[3]


def field(x):
    return np.tanh(x) * x[0] + np.sum(x ** 2)


def jac_field(x):
    j = np.diag((1.0 - np.tanh(x) ** 2) * x[0]) + 2.0 * x
    j[:, 0] += np.tanh(x)
    return j


@pytest.mark.parametrize("kind", ["jacfwd", "jacrev"])
def test_per_example_jacobians(kind):
    xs = RS.randn(B, 3)
    run(getattr(srcad, kind)(field), (xs,), (0,))
    got = srcad.vmap(getattr(srcad, kind)(field))(xs)
    assert_tree_close(got, np.stack([jac_field(x) for x in xs]), rtol=1e-9)


def cube(c):
    return c ** 3 * np.sin(c)


def test_second_derivatives_per_example():
    cs = RS.randn(B)
    got = srcad.vmap(srcad.grad(srcad.grad(cube)))(cs)
    want = 6 * cs * np.sin(cs) + 6 * cs ** 2 * np.cos(cs) - cs ** 3 * np.sin(cs)
    assert_tree_close(got, want, rtol=1e-10)
    run(srcad.grad(srcad.grad(cube)), (cs,), (0,))


def test_value_and_grad_and_has_aux():
    xs = RS.randn(B, 3)
    run(srcad.value_and_grad(cube), (RS.randn(B),), (0,))
    run(srcad.grad(lambda x: (np.sum(x ** 2), x * 2.0), has_aux=True), (xs,), (0,))


def test_arguments_that_are_not_arrays_are_mapped_by_calling_per_example():
    source = run(scale_mix, ([[1.0, 2.0], [3.0, 4.0]], np.array([0.5, 0.25])), (0, 0), path="loop")
    assert "argument 0 is a list, not a NumPy array" in source


def test_the_checks_of_the_arguments_stay():
    with pytest.raises(srcad.ArgumentError, match="different sizes"):
        srcad.vmap(scale_mix)(RS.randn(3, 2), RS.randn(4))
    with pytest.raises(srcad.ArgumentError, match="out of range"):
        srcad.vmap(scale_mix, in_axes=(2, None))(RS.randn(3, 2), 1.0)
    with pytest.raises(srcad.ArgumentError, match="length 0"):
        srcad.vmap(scale_mix)(np.zeros((0, 2)), np.zeros(0))


def test_code_is_built_once_per_argument_kinds():
    mapped = srcad.vmap(scale_mix)
    mapped(RS.randn(B, 3), RS.randn(B))
    first = srcad.source(mapped, RS.randn(B, 3), RS.randn(B))
    assert f"over {B} examples" in first
    assert "over 7 examples" in srcad.source(mapped, RS.randn(7, 3), RS.randn(7))


# -- the corpus -------------------------------------------------------------------------------

def _corpus_cases():
    from corpus import branches, calls, closures, generators, loops, straight, unpacking
    rs = np.random.RandomState(1)
    for mod in (straight, branches, calls, loops, closures, unpacking, generators):
        for k, (fn, args) in enumerate(mod.CASES):
            floats = [i for i, a in enumerate(args) if isinstance(a, float) or (
                isinstance(a, np.ndarray) and a.dtype.kind == "f")]
            if not floats:
                continue
            batched = tuple(a + 0.1 * rs.rand(3, *np.shape(a)) if i in floats else a
                            for i, a in enumerate(args))
            axes = tuple(0 if i in floats else None for i in range(len(args)))
            yield pytest.param(fn, batched, axes, floats[0], id=f"{mod.__name__}-{fn.__name__}-{k}")


CORPUS = list(_corpus_cases())


@pytest.mark.parametrize("fn,args,axes,argnum", CORPUS)
def test_the_corpus_per_example_and_per_example_gradients(fn, args, axes, argnum):
    for f in (fn, srcad.grad(fn, argnums=argnum)):
        try:
            want = per_example(f, args, axes)
        except Exception as e:  # the function raises for some example: vmap raises the same
            with pytest.raises(type(e)):
                srcad.vmap(f, in_axes=axes)(*args)
            continue
        assert_tree_close(srcad.vmap(f, in_axes=axes)(*args), want, rtol=1e-9, atol=1e-12)


def test_most_of_the_corpus_vectorises():
    """At least 60% of the corpus's functions and their gradients run vectorised (the others
    branch on values that differ between examples, mostly)."""
    paths = []
    for fn, args, axes, argnum in (p.values for p in CORPUS):
        for f in (fn, srcad.grad(fn, argnums=argnum)):
            try:
                source = srcad.source(srcad.vmap(f, in_axes=axes), *args)
            except Exception:  # noqa: BLE001 (it raises for some example: the test above)
                continue
            paths.append("not vectorised" not in source)
    assert sum(paths) >= 0.6 * len(paths)


def unused_log(x):
    _unused = math.log(-1.0 - x ** 2)  # (raises for every x, and its value is never read)
    return x * 2.0


def unused_item(x, i):
    _unused = x[i]
    return x * 2.0


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_an_unused_operation_that_raises_raises_in_the_vectorised_code_too():
    with pytest.raises(ValueError):
        per_example(unused_log, (np.array([0.5, 1.0]),), (0,))
    with pytest.raises(ValueError, match="math domain error"):
        srcad.vmap(unused_log)(np.array([0.5, 1.0]))
    with pytest.raises(IndexError):
        srcad.vmap(unused_item, in_axes=(0, None))(np.ones((2, 3)), 5)
    mapped = srcad.vmap(unused_item, in_axes=(0, None))
    assert "not vectorised" not in srcad.source(mapped, np.ones((2, 3)), 1)


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * np.sin(x)


def test_callable_objects_partials_and_numpy_functions():
    import functools
    xs = RS.randn(B, 2)
    run(Scaled(2.0), (xs,), (0,))
    run(functools.partial(scale_mix, c=0.5), (xs,), (0,))
    run(np.tanh, (xs,), (0,))


def tuple_mix(t, s):
    return t[0] * s + t[1]


def test_a_tuple_or_list_of_arrays_is_refused():
    """vmap took a mapped tuple of arrays as np.array of it, mapping the items' index where
    JAX maps each array's axis 0 (a value of shape (2,) for (3,); a named tuple crashed: the
    adversarial pass of stop 38). Refused; a tuple given with in_axes None is fine."""
    a, b = np.arange(3.0), np.ones(3)
    with pytest.raises(srcad.ArgumentError, match="arguments of their own"):
        srcad.vmap(tuple_mix, in_axes=(0, None))((a, b), 2.0)
    with pytest.raises(srcad.ArgumentError, match="arguments of their own"):
        srcad.vmap(tuple_mix, in_axes=(0, None))([a, b], 2.0)
    got = srcad.vmap(tuple_mix, in_axes=(None, 0))((a, b), np.array([1.0, 2.0]))
    np.testing.assert_array_equal(got, np.stack([a * 1.0 + b, a * 2.0 + b]))
