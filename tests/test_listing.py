"""The rule listing (`python -m srcad rules`), docs/primitives.md, and NumPy coverage."""

import importlib.util
import pathlib

import pytest

from srcad.cli import main  # importing srcad registers the rules
from srcad.rules import listing
from srcad.rules.registry import RULES

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "primitives.md"

# the functions the NumPy coverage issue asks for by name: each needs both modes
REQUIRED = """
sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 expm1 log log2
log10 log1p power sqrt cbrt square reciprocal logaddexp logaddexp2 hypot arctan2 maximum minimum
fmax fmin abs sign:nondiff clip where sum mean prod max min amax amin std var cumsum cumprod nansum
nanmean average linalg.norm reshape ravel transpose moveaxis swapaxes expand_dims squeeze
broadcast_to concatenate stack hstack vstack split tile repeat flip roll pad take diag diagonal
tril triu trace sort atleast_1d atleast_2d atleast_3d dot vdot inner outer matmul tensordot einsum
kron cross linalg.inv linalg.solve linalg.det linalg.slogdet linalg.cholesky linalg.eigh linalg.qr
linalg.svd linalg.pinv linalg.lstsq
ndarray.T ndarray.sum ndarray.mean ndarray.max ndarray.min ndarray.prod ndarray.std ndarray.var
ndarray.dot ndarray.reshape ndarray.ravel ndarray.flatten ndarray.transpose ndarray.squeeze
ndarray.copy ndarray.clip ndarray.cumsum ndarray.astype
ndarray.shape:nondiff ndarray.ndim:nondiff ndarray.size:nondiff argmax:nondiff argmin:nondiff
argsort:nondiff floor:nondiff ceil:nondiff round:nondiff trunc:nondiff less:nondiff equal:nondiff
logical_and:nondiff zeros:nondiff ones:nondiff full arange linspace
eye:nondiff zeros_like:nondiff ones_like:nondiff isnan:nondiff isfinite:nondiff
random.normal:nondiff random.random:nondiff random.uniform:nondiff
""".split()

SCIPY = "logsumexp expit logit erf erfc gammaln digamma xlogy xlog1py softmax log_softmax".split()


def test_lines_are_sorted_names_with_modes():
    lines = listing.lines()
    assert len(lines) == len(RULES)
    names = [line.split(" ", 1)[0] for line in lines]
    assert names == sorted(names)
    assert "numpy.sin forward reverse" in lines
    assert "numpy.argmax non-differentiable" in lines
    for line in lines:
        assert line.split(" ", 1)[1] in ("forward reverse", "non-differentiable", "forward", "reverse", "")


def test_cli_prints_the_listing(capsys):
    assert main(["rules"]) == 0
    assert capsys.readouterr().out.splitlines() == listing.lines()


@pytest.mark.parametrize("name", REQUIRED)
def test_required_numpy_function_has_its_modes(name):
    name, _, kind = name.partition(":")
    rule = RULES.get(f"numpy.{name}")
    assert rule is not None, f"numpy.{name} has no rule"
    assert rule.modes == ("non-differentiable" if kind == "nondiff" else "forward reverse")


@pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="scipy is not installed")
@pytest.mark.parametrize("name", SCIPY)
def test_scipy_special_function_has_both_modes(name):
    assert RULES[f"scipy.special.{name}"].modes == "forward reverse"


def test_random_functions_are_impure():
    for name, rule in RULES.items():
        if name.startswith("numpy.random."):
            assert rule.impure and not rule.differentiable, name


def test_at_least_150_numpy_functions_have_both_modes():
    both = listing.numpy_both_modes()
    distinct = {id(fn) for fn in both.values()}
    assert len(distinct) >= 150, f"only {len(distinct)} distinct numpy functions have both modes"


@pytest.mark.skipif(importlib.util.find_spec("scipy") is None,
                    reason="docs/primitives.md lists scipy.special, which is not installed here")
def test_docs_primitives_md_is_current():
    expected = listing.markdown() + "\n"
    actual = DOC.read_text() if DOC.exists() else ""
    assert actual == expected, (
        f"docs/primitives.md is out of date with the rule registry; regenerate it with\n"
        f"    {listing.REGENERATE}")
