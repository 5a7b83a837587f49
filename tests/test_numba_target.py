"""The numba target (docs/numba_target.md): over the corpus, against the CPython target and finite
differences; the fallback warning, strict mode, the CLI module, and numba's disk cache.

numba compiles each function in 0.2-2 s, so the suite runs a sample of the corpus (loops,
branches, arrays, and cases known to fall back); SRCAD_NUMBA_CORPUS=all runs every case
(docs/numba_target.md records the counts)."""

import math
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from corpus import branches, calls, closures, generators, loops, objects, straight, unpacking
from oracle import assert_tree_close, fd_grad

import srcad

numba = pytest.importorskip("numba")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILIES = [straight, branches, calls, loops, closures, unpacking, generators, objects]
SAMPLE = {"ode_euler", "nested", "while_counter", "break_continue", "rnn_cell", "reversed_ranges",
          "overwritten_in_branches", "math_more", "carried_array", "stencil_in_place"}


@pytest.fixture(autouse=True)
def _numba_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SRCAD_NUMBA_DIR", str(tmp_path_factory.getbasetemp() / "numba_modules"))


def _cases():
    every = os.environ.get("SRCAD_NUMBA_CORPUS") == "all"
    seen = set()
    for mod in FAMILIES:
        for k, (fn, args) in enumerate(mod.CASES):
            if (every or fn.__name__ in SAMPLE) and (every or fn.__name__ not in seen):
                seen.add(fn.__name__)
                positions = [i for i, a in enumerate(args) if isinstance(a, float) or (
                    isinstance(a, np.ndarray) and a.dtype.kind == "f") or isinstance(a, (tuple, list, dict))]
                if positions:
                    name = f"{mod.__name__.split('.')[-1]}-{fn.__name__}-{k}"
                    yield pytest.param(fn, args, positions[0], id=name)


COUNTS = {"compiled": 0, "fell back": 0}


@pytest.mark.parametrize("fn,args,argnum", list(_cases()))
def test_corpus_numba_matches_cpython_and_finite_differences(fn, args, argnum):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = srcad.grad(fn, argnums=argnum, target="numba")
        got = g(*args)
    fallbacks = [w for w in caught if issubclass(w.category, srcad.TargetFallbackWarning)]
    assert len(fallbacks) <= 1, [str(w.message) for w in fallbacks]
    compiled = g.latest().function.compiled()
    assert not (compiled and fallbacks), "compiled code and a fallback warning exclude each other"
    assert compiled or g.latest().function.failed, "code that runs in CPython has a reason, warned once"
    COUNTS["compiled" if compiled else "fell back"] += 1
    expected = srcad.grad(fn, argnums=argnum)(*args)
    assert_tree_close(got, expected, rtol=1e-10, atol=1e-12, what=f"{fn.__name__}: numba vs CPython")
    assert_tree_close(got, fd_grad(fn, args, argnum), rtol=1e-5, atol=1e-6, what=f"{fn.__name__}: vs fd")
    if compiled:
        assert g(*args) is not None and g.latest().function.compiled()  # (a second call runs compiled code)


def test_corpus_report(capsys):
    """Prints the counts of the cases run in this process (pytest -s shows them)."""
    with capsys.disabled():
        print(f"\nnumba target over the corpus sample: {COUNTS}")


def ode(k, y0, n):
    dt = 1.0 / n
    y = y0
    for i in range(n):
        y = y + dt * (-k * y + math.sin(i * dt))
    return y * y


def test_scalar_loop_compiles_with_numba_constructs():
    g = srcad.grad(ode, argnums=(0, 1), target="numba")
    got = g(0.7, 1.5, 50)
    assert g.latest().function.compiled()
    text = srcad.source(g)
    assert "reversed(" not in text and "range(n - 1, -1, -1)" in text
    assert "_stack_y = np.empty(max(n, 0))" in text and ".pop()" not in text  # (the stack is an array)
    assert "== _stack_y.shape[0]" not in text  # (room for every trip was made before the loop)
    assert_tree_close(got, srcad.grad(ode, argnums=(0, 1))(0.7, 1.5, 50), rtol=1e-12, atol=0)
    assert_tree_close(got[0], fd_grad(ode, (0.7, 1.5, 50), 0), rtol=1e-6, atol=1e-8)
    with open(g.latest().function.path) as f:
        module = f.read()
    assert "@numba.njit(cache=True, boundscheck=True, nogil=True)\ndef grad_ode(" in module


def test_every_transformation_takes_the_target():
    def f(x, y):
        s = 0.0
        for i in range(x.shape[0]):
            s = s + np.sin(x[i]) * y
        return s * y

    x, y, t = np.linspace(0.1, 0.9, 4), 0.7, (np.ones(4), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcad.TargetFallbackWarning)
        for py, nb in [
            (srcad.grad(f, argnums=(0, 1))(x, y), srcad.grad(f, argnums=(0, 1), target="numba")(x, y)),
            (srcad.value_and_grad(f)(x, y), srcad.value_and_grad(f, target="numba")(x, y)),
            (srcad.jvp(f, (x, y), t), srcad.jvp(f, (x, y), t, target="numba")),
            (srcad.vjp(f, x, y)[1](1.0), srcad.vjp(f, x, y, target="numba")[1](1.0)),
            (srcad.jacfwd(np.tanh)(x), srcad.jacfwd(np.tanh, target="numba")(x)),
            (srcad.jacrev(np.tanh)(x), srcad.jacrev(np.tanh, target="numba")(x)),
            (srcad.hessian(f)(x, y), srcad.hessian(f, target="numba")(x, y)),
            (srcad.hvp(f, (x, y), t), srcad.hvp(f, (x, y), t, target="numba")),
        ]:
            assert_tree_close(nb, py, rtol=1e-12, atol=1e-14)
    assert_tree_close(srcad.grad(f)(x, y), fd_grad(f, (x, y), 0), rtol=1e-6, atol=1e-8)


def test_unknown_target_is_an_argument_error():
    with pytest.raises(srcad.ArgumentError, match="'python' or 'numba'"):
        srcad.grad(ode, target="cuda")


def log3(x):
    return math.log(x, 3.0) * x  # (numba has no two-argument math.log)


def test_fallback_warns_once_naming_the_construct_and_line():
    g = srcad.grad(log3, target="numba")
    with pytest.warns(srcad.TargetFallbackWarning) as caught:
        got = g(2.0)
    msg = str(caught[0].message)
    assert "math.log(" in msg and f"{__file__}:{log3.__code__.co_firstlineno + 1}" in msg
    assert got == srcad.grad(log3)(2.0)
    assert got == pytest.approx(math.log(2.0, 3.0) + 1.0 / math.log(3.0), rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g(3.0) == srcad.grad(log3)(3.0)  # (no second warning)


def test_strict_target_raises(monkeypatch):
    monkeypatch.setattr(srcad.config, "strict_target", True)
    with pytest.raises(srcad.TargetError, match="math.log"):
        srcad.grad(lambda x: log3(x) + 0.0, target="numba")(2.0)


def root(x):
    return x ** 0.5 + math.sqrt(x) * 0.0 + x


def _outcome(g, *args):
    try:
        with np.errstate(divide="ignore"):
            return g(*args)
    except Exception as e:  # noqa: BLE001 (the test compares what each target raises)
        return type(e)


@pytest.mark.parametrize("x", [0.0, -1.0, 4.0])
def test_errors_and_infinities_are_the_cpython_targets(x):
    """At x = 0 the derivative of sqrt is infinite (Python floats raise ZeroDivisionError,
    the CPython target answers NumPy's inf); at x < 0 the function raises, so its gradient
    does: compiled code defers to the CPython target's in both cases."""
    got, expected = _outcome(srcad.grad(root, target="numba"), x), _outcome(srcad.grad(root), x)
    assert got == expected or (isinstance(got, float) and got == pytest.approx(expected, rel=1e-14))
    if x == 4.0:
        assert got == pytest.approx(1.25, rel=1e-14)
    if x == -1.0:
        assert isinstance(got, type) and issubclass(got, Exception)


def test_globals_are_arguments_not_frozen_constants(tmp_path):
    mod = tmp_path / "numba_globals_mod.py"
    mod.write_text("K = 2.0\n\ndef f(x):\n    s = 0.0\n    for i in range(3):\n        s = s + K * x * i\n"
                   "    return s\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import numba_globals_mod as m
        g = srcad.grad(m.f, target="numba")
        assert g(1.0) == 6.0 and g.latest().function.compiled()
        m.K = 3.0
        assert g(1.0) == 9.0
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("numba_globals_mod", None)


def _run(code: str, cwd, env_extra: dict) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(cwd)]), **env_extra)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_second_process_loads_the_machine_code_from_the_cache(tmp_path):
    (tmp_path / "cached_mod.py").write_text(textwrap.dedent("""
        import math
        def f(k, n):
            y = 1.0
            for i in range(n):
                y = y + 0.01 * (-k * y + math.cos(i * 0.01))
            return y
    """))
    code = """
        import srcad, cached_mod
        g = srcad.grad(cached_mod.f, target="numba")
        print(repr(g(0.5, 20)), sum(g.latest().function.jitted.stats.cache_hits.values()))
    """
    env = {"SRCAD_NUMBA_DIR": str(tmp_path / "modules")}
    first = _run(code, tmp_path, env).split()
    second = _run(code, tmp_path, env).split()
    assert first[0] == second[0] and first[1] == "0" and int(second[1]) >= 1


def test_cli_writes_a_module_that_imports_numba_and_runs(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import math
        def ode(k, y0, n):
            dt = 1.0 / n
            y = y0
            for i in range(n):
                y = y + dt * (-k * y + math.sin(i * dt))
            return y * y
    """))
    out = tmp_path / "model_grad.py"
    _run(f"""
        import sys
        from srcad.cli import main
        sys.exit(main(["codegen", "model.py:ode", "--argnums", "0,1", "--types", "float,float,int",
                       "--target", "numba", "-o", {str(out)!r}]))
    """, tmp_path, {})
    text = out.read_text()
    assert "import numba" in text and "import srcad" not in text and "from srcad" not in text
    assert "@numba.njit(cache=True, boundscheck=True, nogil=True)\ndef grad_ode(" in text
    got = _run("""
        import model_grad, numba
        r = model_grad.grad_ode(0.7, 1.5, 50)
        assert isinstance(model_grad.grad_ode, numba.core.registry.CPUDispatcher)
        print(repr(r[0]), repr(r[1]))
    """, tmp_path, {}).split()
    expected = srcad.grad(ode, argnums=(0, 1))(0.7, 1.5, 50)
    assert [float(v) for v in got] == pytest.approx(list(expected), rel=1e-12)


def rnn_two_inputs(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def test_loop_accumulations_compile_for_numba(monkeypatch):
    """`W_bar += a @ h.T` is contracted after the loop (passes/contract.py) on both targets:
    numba cannot compile np.tensordot, so the numba target gathers the stored factors into
    matrices by loops and multiplies them (numba_products.py); compiled (strict: no fallback).
    Against a hand-derived backward sweep."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    rng = np.random.default_rng(5)
    W, U = rng.normal(0.0, 0.4, (4, 4)), rng.normal(0.0, 0.4, (4, 3))
    h0, xs = rng.normal(0.0, 0.5, (4, 1)), rng.normal(0.0, 1.0, (5, 3, 1))
    g = srcad.grad(rnn_two_inputs, argnums=(0, 1), target="numba")
    got = g(W, U, h0, xs)
    assert g.latest().function.compiled()
    text = srcad.source(g)  # (scalar loops: numba_loops.py; W.T copied by a loop, numba_products.py)
    assert "ascontiguousarray" not in text and "W[" in text and "h_bar[" in text and "@ h_1.T" not in text
    assert "tensordot" not in text and re.search(r"W_bar = _u\d+ @ _u\d+", text), text
    hs = [h0]
    for t in range(5):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    h_bar, W_bar, U_bar = 2.0 * hs[-1], np.zeros_like(W), np.zeros_like(U)
    for t in range(4, -1, -1):
        a = h_bar * (1.0 - hs[t + 1] ** 2)
        W_bar += a @ hs[t].T
        U_bar += a @ xs[t].T
        h_bar = W.T @ a
    assert_tree_close(got, (W_bar, U_bar), rtol=1e-10, atol=1e-12)


def contractions(a, b, c):
    return np.sum(np.sin(np.tensordot(a, b, axes=((2, 0), (0, 1))))) + np.sum(np.tensordot(a, c, axes=1) ** 2)


def test_tensordot_is_gathered_matrices_and_one_product(monkeypatch):
    """np.tensordot (any axes) in the numba target: both operands gathered into C-ordered
    matrices by loops, one `@`; its adjoint a tensordot and a transpose
    (passes/product_adjoints.py), no run-time helper. Compiled (strict: a fallback raises),
    equal to the CPython target and to finite differences, in both modes."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    rng = np.random.default_rng(12)
    args = (rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 2, 5)), rng.normal(size=(4, 3)))
    g = srcad.grad(contractions, argnums=(0, 1, 2), target="numba")
    got = g(*args)
    code = "\n".join(ln for ln in srcad.source(g).splitlines() if not ln.strip().startswith("#"))
    assert g.latest().function.compiled() and "tensordot" not in code, code
    assert_tree_close(got, srcad.grad(contractions, argnums=(0, 1, 2))(*args), rtol=1e-12, atol=1e-12)
    for k in range(3):
        assert_tree_close(got[k], fd_grad(contractions, args, k), rtol=1e-6, atol=1e-8)
    tangents = tuple(rng.normal(size=a.shape) for a in args)
    value, tangent = srcad.jvp(contractions, args, tangents, target="numba")
    code = "\n".join(ln for ln in srcad.source(srcad.jvp, contractions).splitlines()
                     if not ln.strip().startswith("#"))
    assert "tensordot" not in code, code
    assert tangent == pytest.approx(sum(np.sum(got[k] * tangents[k]) for k in range(3)), rel=1e-10)


def small_arrays(x, y, row):
    s = 0.0
    for i in range(3):
        z = np.tanh(x.T * y) - np.sum(x) * y  # (a transpose and a number inside one loop)
        w = z * row  # (broadcast: stays a NumPy expression)
        s = s + np.sum(w * w) / (i + 1.0)
    return s


def test_scalar_loops_against_cpython_and_finite_differences(monkeypatch):
    """Elementwise operations on small arrays become scalar loops (numba_loops.py): a transpose
    read through its indices, a number computed once before the loop, a broadcast left alone;
    compiled (strict), equal to the CPython target and to finite differences."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    rng = np.random.default_rng(7)
    args = (rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3))
    g = srcad.grad(small_arrays, argnums=(0, 1, 2), target="numba")
    got = g(*args)
    assert g.latest().function.compiled() and "for _u" in srcad.source(g)
    assert_tree_close(got, srcad.grad(small_arrays, argnums=(0, 1, 2))(*args), rtol=1e-10, atol=1e-12)
    for k in range(3):
        assert_tree_close(got[k], fd_grad(small_arrays, args, k), rtol=1e-5, atol=1e-6)
    x = np.linspace(0.5, 1.5, 5)  # (a corpus case whose adjoint subtracts from x_bar by element)
    g = srcad.grad(straight.numpy_elementwise, target="numba")
    got = g(x)
    assert "] -= " in srcad.source(g)
    assert_tree_close(got, srcad.grad(straight.numpy_elementwise)(x), rtol=1e-12, atol=1e-12)
    assert_tree_close(got, fd_grad(straight.numpy_elementwise, (x,), 0), rtol=1e-6, atol=1e-8)


def overlapping_updates(x):
    y = x * 1.0
    y += y.T
    z = x * 2.0
    z += z[::-1]
    return np.sum(y * y) + np.sum(z * x)


def test_in_place_updates_read_an_overlapping_operand_as_numpy_does(monkeypatch):
    """numba's `z += z[::-1]` reads z[::-1] as it writes z, where NumPy buffers it: the numba
    target copies an operand that may share memory with the array it updates."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    x = np.arange(9.0).reshape(3, 3) / 10.0
    g = srcad.grad(overlapping_updates, target="numba")
    got = g(x)
    assert g.latest().function.compiled() and "+= np.copy(z[::-1])" in srcad.source(g)
    assert_tree_close(got, srcad.grad(overlapping_updates)(x), rtol=1e-12, atol=1e-12)
    assert_tree_close(got, fd_grad(overlapping_updates, (x,), 0), rtol=1e-6, atol=1e-8)


def slice_writes(x, y):
    z = np.zeros((4, 3))
    z[1:] = x[:-1] * y  # (a store into a slice, broadcast: y is a row)
    z[:2, 1:] += x[2:, :2]
    z[1:] = z[:-1] * 2.0  # (overlapping: the right side is read before the write)
    return np.sum(z * z) + np.sum(z[0] * y)


def test_slice_stores_are_written_entry_by_entry(monkeypatch):
    """An array stored into a slice of an array is written by `_store_into` / `_add_into` (numba
    compiles its own slice assignment's shape check for seconds per rank), with NumPy's
    semantics: broadcasting, and an overlapping right side read before the write."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    rng = np.random.default_rng(8)
    args = (rng.normal(size=(4, 3)), rng.normal(size=3))
    g = srcad.grad(slice_writes, argnums=(0, 1), target="numba")
    got = g(*args)
    source = srcad.source(g)
    assert g.latest().function.compiled() and "_store_into(" in source and "_add_into(" in source
    assert_tree_close(got, srcad.grad(slice_writes, argnums=(0, 1))(*args), rtol=1e-12, atol=1e-12)
    for k in range(2):
        assert_tree_close(got[k], fd_grad(slice_writes, args, k), rtol=1e-6, atol=1e-8)


def half_power(x):
    y = x ** 0.5  # (a complex value where x < 0: its type is checked at run time, srcad.known)
    return 2.0 * x + 0.0 * y


def rnn_like(W, h, xs):
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        s = s + np.sum(h * h)
    return s


def test_run_time_type_checks_compile_and_defer_to_cpython(monkeypatch):
    """`x ** 0.5` of a float (a value checked at run time: complex where x < 0) compiles for
    numba; where numba computes NaN and CPython a complex number, the call runs in CPython and
    raises its error."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    g = srcad.grad(half_power, target="numba")
    assert g(4.0) == 2.0 and g.latest().function.compiled() and "_known(" in srcad.source(g)
    with pytest.raises(srcad.TypeSupportError, match="complex"):
        srcad.grad(half_power)(-1.0)
    with pytest.raises(srcad.TypeSupportError, match="complex"):
        g(-1.0)
    root_g = srcad.grad(lambda x: x ** 0.5 + x, target="numba")
    assert root_g(4.0) == pytest.approx(0.5 / 2.0 + 1.0, rel=1e-14)


def test_stacks_of_a_loop_are_allocated_for_its_trips_without_helpers(monkeypatch):
    """A loop's stacks, empty when it starts, are allocated for its trips, and an array is
    pushed entry by entry in the generated code itself: no helper functions for numba to
    compile (each one a tenth of a second or more of a first call)."""
    monkeypatch.setattr(srcad.config, "strict_target", True)
    rng = np.random.default_rng(9)
    args = (0.3 * rng.normal(size=(5, 5)), rng.normal(size=(5, 1)), rng.normal(size=(7, 5, 1)))
    g = srcad.grad(rnn_like, argnums=(0, 1), target="numba")
    got = g(*args)
    source = srcad.source(g)
    assert g.latest().function.compiled() and "_reserve(" not in source and "_store_row" not in source
    assert "np.empty((7, 5, 1), np.float64)" in source
    for k in range(2):
        assert_tree_close(got[k], fd_grad(rnn_like, args, k), rtol=1e-6, atol=1e-8)


def halving(x, tol):
    s = 0.0
    while x > tol:  # (a while loop: its stack grows by doubling)
        s = s + math.sin(x)
        x = 0.5 * x
    return s


def test_stacks_of_a_while_loop_grow(monkeypatch):
    monkeypatch.setattr(srcad.config, "strict_target", True)
    g = srcad.grad(halving, target="numba")
    got = g(3.0, 1e-3)
    source = srcad.source(g)
    assert g.latest().function.compiled() and "np.empty(0, np.float64)" in source and "_reserve(" in source
    assert got == pytest.approx(sum(math.cos(3.0 * 0.5 ** k) * 0.5 ** k for k in range(12)), rel=1e-12)


def summed_squares(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] ** 2
    return s


def logs_of_shifts(x, n):
    s = x
    for i in range(n):
        s = s + math.log(x - i)
    return s


def unused_log(x):
    unused = math.log(x - 10.0)  # noqa: F841 (kept: the derivative raises where f does)
    return x * x


def test_compiled_code_raises_where_the_function_does():
    """numba compiles without bounds checks, and its math.log of a negative number is NaN:
    an index past the end read memory and a math domain error was no error, so the numba
    target gave a derivative where the function raises (the adversarial pass). Now the code
    checks bounds and math results, and the call runs again in CPython, which raises."""
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        summed_squares(x, 4)
    with pytest.raises(IndexError):
        srcad.grad(summed_squares, target="numba")(x, 4)
    np.testing.assert_allclose(srcad.grad(summed_squares, target="numba")(x, 3), 2.0 * x, rtol=1e-15)
    for fn, args in ((logs_of_shifts, (2.5, 4)), (unused_log, (3.0,))):
        with pytest.raises(ValueError, match="math domain error"):
            fn(*args)
        with pytest.raises(ValueError, match="math domain error"):
            srcad.grad(fn, target="numba")(*args)
    assert srcad.grad(logs_of_shifts, target="numba")(4.5, 4) == pytest.approx(
        1.0 + sum(1.0 / (4.5 - i) for i in range(4)), rel=1e-14)
    assert srcad.grad(unused_log, target="numba")(11.0) == pytest.approx(22.0, rel=1e-15)


def test_a_numba_transform_is_not_transformed_again():
    """Transforming a numba-target transform, or calling one inside a differentiated
    function, crashed inside srcad (its machine code has no source): an error naming it."""
    g = srcad.grad(root, target="numba")
    with pytest.raises(srcad.ArgumentError, match="target='numba'"):
        srcad.grad(g)
    with pytest.raises(srcad.TypeSupportError, match="target='numba'"):
        srcad.grad(lambda x: g(x) * 2.0)(4.0)
    assert srcad.grad(srcad.grad(root), target="numba")(4.0) == pytest.approx(-0.25 * 4.0 ** -1.5, rel=1e-12)


def test_cli_refuses_a_global_array_for_the_numba_target(tmp_path):
    """The module read a global array whose type the numba target could not know when writing
    it: the first call failed inside numba (the adversarial pass). Refused when writing."""
    (tmp_path / "weights.py").write_text("import numpy as np\nW = np.array([1.0, 2.0, 3.0])\n\n\n"
                                         "def f(w):\n    return np.sum(w * W)\n")
    from srcad.cli import main
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        code = main(["codegen", "weights.py:f", "--types", "float[3]", "--target", "numba", "-o", "out.py"])
    finally:
        os.chdir(cwd)
    assert code != 0 and not (tmp_path / "out.py").exists()


def sqrt_sum(x):
    return np.sum(np.sqrt(x))


def test_the_compiled_code_checks_its_results_are_finite():
    """The numba code checks its float results before it returns (the caller's check cost a
    microsecond a call): a result that is not finite runs the call again in CPython, for an
    array result as for a float (here an infinite derivative of sqrt at 0: NumPy's inf)."""
    g = srcad.grad(sqrt_sum, target="numba")
    x = np.array([4.0, 1.0, 0.25])
    np.testing.assert_allclose(g(x), 0.5 / np.sqrt(x), rtol=1e-15)
    assert "_finite_array(" in srcad.source(g) and g._latest.function.checked
    with np.errstate(divide="ignore"):
        got, expected = g(np.array([4.0, 0.0])), srcad.grad(sqrt_sum)(np.array([4.0, 0.0]))
        assert got[0] == 0.25 and np.isinf(got[1]) and np.array_equal(got, expected)
        assert srcad.grad(root, target="numba")(0.0) == srcad.grad(root)(0.0)
