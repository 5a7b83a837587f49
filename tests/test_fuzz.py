"""The differential fuzzer (tests/fuzz/) on a fixed budget of programs, and its own parts:
the generator is deterministic, finite differences flag wrong numbers and kinks, the shrinker
shrinks. The campaign part asserts that no program crashes srcad or gets a wrong derivative.

Seeds listed in FAILING_TODAY reproduce srcad bugs the fuzzer found and that are not fixed
yet (see docs/reliability.md); each is a bug, not flakiness: once its bug is fixed, delete
it from the list (the test below then checks it again). `python -m tests.fuzz --replay SEED`
shows the program and the failure."""

import math
import os

import numpy as np
import pytest
from fuzz import fd
from fuzz.config import Config
from fuzz.program import generate
from fuzz.run import run_seed
from fuzz.shrink import shrink

CI_CONFIG = Config(hessian=0.3, rank_only=0.2, cache=0.1, codegen=0.1, timeout=30.0).without_known_bugs()
BUDGET = 50  # programs ci:0 .. ci:49 (about 15 s of CPU; long campaigns run outside CI)
FAILING_TODAY: dict = {}  # seed: finding in /work/fuzz-findings/ (see docs/reliability.md)


def _passes(seed: str, config, tmp_path) -> None:
    """Run one generated program; fail with its source and findings if srcad was wrong or crashed."""
    result = run_seed(seed, config, str(tmp_path))
    if result["outcome"] in ("crash", "wrong"):
        details = "\n".join(f"{f['kind']}:{f['check']}:{f['detail']}\n{f['message']}"
                            for f in result["findings"])
        pytest.fail(f"program {seed}: {result['signature']}\n{result.get('source', '')}\n{details}")


@pytest.mark.parametrize("index", [i for i in range(BUDGET) if f"ci:{i}" not in FAILING_TODAY])
def test_fuzz_program(index, tmp_path):
    _passes(f"ci:{index}", CI_CONFIG, tmp_path)


NEW_FEATURES = ("closure", "lambda", "func_arg", "method", "pytree_obj", "mixed_list", "dict", "dict_comp",
                "helper_write")
NEW_CONFIG = CI_CONFIG.with_features(",".join(f"{f}=3" for f in NEW_FEATURES))
NEW_BUDGET = 12  # programs new:0 .. new:11, the constructs of real programs weighted up
NEW_FAILING_TODAY: dict = {}


@pytest.mark.parametrize("index", [i for i in range(NEW_BUDGET) if f"new:{i}" not in NEW_FAILING_TODAY])
def test_fuzz_program_with_closures_objects_and_mixed_lists(index, tmp_path):
    _passes(f"new:{index}", NEW_CONFIG, tmp_path)


def test_the_constructs_of_real_programs_are_generated(tmp_path):
    used, text = set(), ""
    for i in range(40):
        prog = generate(f"new:{i}", NEW_CONFIG, str(tmp_path))
        used |= set(prog.features)
        text += prog.source
    assert set(NEW_FEATURES) <= used
    for construct in ("    def c", " = lambda a: ", "(lambda a: ", "def apply0(fn, v, w):",
                      "functools.partial(", "self.w = self.w * 0.5 + a", "srcad.register_pytree(",
                      "@dataclasses.dataclass", "collections.namedtuple(", ".upd(",
                      ".w * 0.5 + ",  # (an object a loop replaces: frontend/carried.py)
                      "{k: ", "def w0(u, a):"):
        assert construct in text, construct


def test_trees_flatten_object_arguments():
    """Dataclasses (a static field kept), named tuples and classes listing their children in
    `__fz_fields__` flatten by their fields and are rebuilt as their class."""
    import collections
    import dataclasses

    from fuzz import trees

    @dataclasses.dataclass
    class D:
        w: np.ndarray
        b: float
        tag: str = dataclasses.field(default="s", metadata={"static": True})

    class R:
        __fz_fields__ = ("w", "b")

        def __init__(self, w, b):
            self.w, self.b = w, b

    N = collections.namedtuple("N", ["w", "b"])
    w = np.array([1.0, 2.0])
    for obj in (D(w, 3.0, "t"), R(w, 3.0), N(w, 3.0)):
        tree = [0.5, obj]
        np.testing.assert_array_equal(trees.flatten(tree), [0.5, 1.0, 2.0, 3.0])
        back = trees.unflatten(tree, np.array([4.0, 5.0, 6.0, 7.0]))
        assert type(back[1]) is type(obj) and back[1].b == 7.0 and trees.same_structure(back, tree) is None
        np.testing.assert_array_equal(trees.get(back, trees.paths(back)[1]), [5.0, 6.0])
        assert trees.same_structure([0.5, (1.0, 2.0)], tree) is not None
    assert back[1] is not obj and trees.unflatten([D(np.ones(1), 1.0, "t")], np.zeros(2))[0].tag == "t"


def test_generator_is_deterministic(tmp_path):
    a = generate("det:3", CI_CONFIG, str(tmp_path)).source
    b = generate("det:3", CI_CONFIG, str(tmp_path)).source
    assert a == b and "def f(" in a and "def make_args" in a


def test_feature_switches(tmp_path):
    cfg = Config().with_features("-all,for_range,aug_assign")
    for i in range(10):
        prog = generate(f"feat:{i}", cfg, str(tmp_path))
        assert set(prog.features) <= {"for_range", "aug_assign"}, prog.features


def test_finite_differences_exact_on_smooth_function():
    est = fd.jacobian(lambda x: np.array([np.sin(x[0]) * x[1], np.exp(x[1])]), np.array([0.3, -0.4]))
    want = np.array([[math.cos(0.3) * -0.4, math.sin(0.3)], [0.0, math.exp(-0.4)]])
    assert not est.any_unreliable
    np.testing.assert_allclose(est.value, want, atol=1e-9)
    wrong, _ = fd.fd_mismatch(want * 1.001, est)
    assert wrong.all() or wrong[[0, 0, 1], [0, 1, 1]].all()  # 0.1% off is caught (the zero entry is exact)


def test_finite_differences_unreliable_at_kink_and_raise():
    kink = fd.jacobian(lambda x: np.array([abs(x[0] - 0.001)]), np.array([0.0]))
    assert kink.any_unreliable
    jump = fd.jacobian(lambda x: np.array([1.0 if x[0] > 0.002 else 0.0]), np.array([0.0]))
    assert jump.any_unreliable
    raising = fd.jacobian(lambda x: np.array([math.log(x[0])]), np.array([0.001]))
    assert raising.any_unreliable
    wrong, bad = fd.fd_mismatch(np.array([[5.0]]), kink)
    assert not wrong.any() and bad.all()  # inconclusive, never wrong


def test_finite_differences_unreliable_where_larger_steps_cross_a_clip():
    """Fuzz H1:5228: a clip whose kink the steps h and h/2 cross but h/4 does not fooled one
    Richardson extrapolation into 0.01205 +- 1.5e-5 for a derivative of 0.0080693 (central
    differences at h = 1e-5 and 1e-7 agree on 0.0080693; so do srcad's four modes)."""
    def F(v):
        x0, x1 = v[0], v[1:]
        xs0 = x1 * np.sum(x1)
        a0 = np.clip(np.where(x1 > -1.0, x1, xs0[0]), -0.9, 0.9)
        return np.array([0.5 * x0 + np.sum(x1) + 0.5 * np.sum(xs0) + 0.5 * np.sum(np.sin(a0))])

    v = np.array([0.0966, -0.6849, -1.1868, 0.5532])
    slope = [(F(v + h * e) - F(v - h * e))[0] / (2 * h) for h in (1e-6,) for e in np.eye(4)]
    est = fd.jacobian(F, v)
    wrong, bad = fd.fd_mismatch(np.array([slope]), est)
    assert not wrong.any()


def _cancelling(v):
    """Fuzz H5:7116 as generated: terms of size 1e28 that cancel, plus O(1) terms."""
    x = v[0]
    y0 = np.array([(2.0 ** math.tanh(x)), (x + x), (np.full((3, 1), x))[2][0]])
    k0 = 0
    while k0 < 4:
        k0 += 1
        y0[0:3] *= np.dot(y0[1:3], np.linspace(-0.8, 0.9, 6).reshape((2, 3)))
        y0 -= np.einsum("ij,j->i", (y0 * np.ones((1, 3))), y0[[1, 1, 2]])
    perm = np.array([1, 2, 0])
    xs0 = [np.sqrt(y0[perm] * y0[perm] + 1.0), np.min(np.full((3, 2), x), axis=-1)]
    return np.array([x + np.sum(y0) + sum(np.sum(e) for e in xs0)])


def test_a_value_that_is_rounding_noise_is_told_apart():
    """Fuzz H5:7116: f sums terms of 1e28 that cancel to 0, so its modes' derivatives (0, 4,
    0.04) are rounding noise too, and their disagreement is no evidence against srcad; the
    harness calls it inconclusive. Smooth functions, with kinks or not, are not noise."""
    x = np.array([-1.4911])
    assert fd.rounding_noise(_cancelling, x, fd.jacobian(_cancelling, x))
    for F, v in ((lambda v: np.array([np.sum(np.sin(v) * 1e6)]), np.array([0.3, -2.0])),
                 (lambda v: np.array([abs(v[0]) + v[1] ** 3]), np.array([0.1, 40.0])),
                 (lambda v: np.exp(v), np.array([30.0]))):
        assert not fd.rounding_noise(F, v, fd.jacobian(F, v))


def test_shrinker_keeps_the_failure():
    source = ("import numpy as np\n\n\ndef f(x, n):\n    s = 0.0\n    for i in range(n):\n"
              "        s = s + np.tanh(x * 2.0) + np.sin(x)\n    t = s * 3.0\n    return t + 1.0\n\n\n"
              "def make_args():\n    return (0.5, 3)\n\n\nDIFF = 0\n")
    small, tried = shrink(source, lambda text: "np.tanh" in text and "def f" in text, budget=20)
    assert "np.tanh" in small and len(small) < len(source) and "np.sin" not in small and tried > 0


def test_cli_check_of_a_program_file(tmp_path, capsys):
    from fuzz.cli import main

    path = os.path.join(tmp_path, "prog.py")
    with open(path, "w") as fh:
        fh.write("import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.sin(x) * y)\n\n\n"
                 "def make_args():\n    return (np.array([0.1, 0.2]), 0.7)\n\n\nDIFF = (0, 1)\n")
    assert main(["--check", path]) == 0
    assert '"outcome": "pass"' in capsys.readouterr().out


def test_nested_transforms_are_generated_and_checked_by_an_independent_oracle(tmp_path):
    """"nested_transform" programs call srcad inside f; finite differences differentiate a copy
    whose `srcad` is finite differences (fuzz/inner.py), not srcad's inner derivative."""
    from fuzz import inner

    cfg = CI_CONFIG.with_features("nested_transform=20")
    text = "".join(generate(f"nested:{i}", cfg, str(tmp_path)).source for i in range(30))
    for construct in ("srcad.grad(nt", "srcad.jacrev(nt", "srcad.vjp(nt", "srcad.jvp(nt", "srcad.hessian(nt",
                      "def nt0(a"):
        assert construct in text, construct
    assert inner.oracle_source("import srcad\n\nsrcad.register_pytree(K)\n") is None
    assert f"import {inner.__name__} as srcad" in inner.oracle_source("import srcad\ny = srcad.grad(h)(x)\n")

    def h(a, b):
        return np.sum(np.sin(a) * a * b)
    x = np.array([0.3, -0.7])
    np.testing.assert_allclose(inner.grad(h)(x, 0.4), (np.cos(x) * x + np.sin(x)) * 0.4, rtol=1e-8)
    np.testing.assert_allclose(inner.hessian(h)(x, 0.4), np.diag((2 * np.cos(x) - x * np.sin(x)) * 0.4),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(inner.jvp(lambda a: np.sin(a), (x,), (x,))[1], np.cos(x) * x, rtol=1e-8)
    ct = inner.vjp(lambda a, b: np.sin(a) * b, x, 2.0)[1](x)
    np.testing.assert_allclose(ct[1], np.sin(x) @ x, rtol=1e-8)
    with pytest.raises(inner.Unreliable):
        inner.grad(lambda a: abs(a - 0.003))(0.0)  # (a kink within the steps)


@pytest.mark.parametrize("seed, features", [("20700:130", "nested_transform=20"), ("14700:1051", "")])
def test_fuzzed_programs_once_failing(seed, features, tmp_path):
    """Programs of long campaigns that found a bug since fixed, checked as that campaign did:
    20700:130, a dask refusal inside the code of a transform called inside (the Hessian of a
    helper), named generated code, not the user's line (codegen/compile.user_location follows
    the maps of generated code through to the user's file). 14700:1051, a wrong gradient through
    np.stack of rows out of order (the adjoint's views of the cotangent, read after it was
    updated in place: analysis/aliases.py)."""
    _passes(seed, Config().with_features(features) if features else Config(), tmp_path)
