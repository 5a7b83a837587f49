"""What srcad tells the user: the `srcad` logger (one line per transformation built, the
switch to rank-only code, the IR after each pass with config.debug = "ir"), the warning
of a slow first call, tracebacks without srcad's frames (SRCAD_TRACEBACK=full keeps them)
and the notes naming the user's lines, also where add_note does not exist (Python 3.10)."""

import logging
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import srcad
from srcad import errors, tracebacks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.abspath(__file__)


def _loss(x, y):
    return np.sum(np.sin(x) * y)


def _unsupported(x):
    return {x}.pop()


def _fails_in_generated_code(x):
    y = np.log(x)
    z = np.zeros(2)
    return y * z[3]


class _Layer:
    def __init__(self, act):
        self.act = act


def _layer_loss(w, layer, x):
    return np.sum(layer.act(x * w) ** 2)  # (which function layer.act is, is known from the argument)


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "srcad"]


def test_each_transformation_is_logged_once(caplog, monkeypatch):
    monkeypatch.setattr(srcad.config, "shape_variants", 1)
    caplog.set_level(logging.INFO, logger="srcad")
    g = srcad.grad(lambda x, y: _loss(x, y))
    g(np.ones(3), 2.0)
    first = _messages(caplog)
    assert len(first) == 1 and first[0].startswith("grad of <lambda> (test_diagnostics.py:"), first
    assert "for x: float[3], y: float: built in " in first[0] and first[0].endswith(" ms"), first
    g(np.ones(3), 2.0)  # (its code found: nothing logged)
    assert len(_messages(caplog)) == 1
    g(np.ones(4), 2.0)  # a second shape of the same ranks: rank-only code
    rank_only = _messages(caplog)[1:]
    assert "2 shapes of the same ranks (srcad.config.shape_variants = 1): building rank-only code" \
        in rank_only[0], rank_only
    assert "for x: array1f, y: float: built in" in rank_only[1], rank_only
    # the gradient the logged code computes is right (oracle: the hand-derived cos(x) * y)
    assert np.allclose(g(np.linspace(0, 1, 5), 2.0), 2.0 * np.cos(np.linspace(0, 1, 5)))


def test_ir_after_each_pass_at_debug(caplog, monkeypatch):
    monkeypatch.setattr(srcad.config, "debug", "ir")
    caplog.set_level(logging.DEBUG, logger="srcad")
    g = srcad.grad(lambda x: np.sum(np.tanh(x) ** 2))
    x = np.linspace(-1, 1, 4)
    assert np.allclose(g(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
    dumps = [m for m in _messages(caplog) if m.startswith("IR of ")]
    assert any(m.startswith("IR of grad_") and " after verify(cse(licm(fn))) (pipeline.py:" in m
               for m in dumps), dumps[:3]
    assert all("\ndef " in m for m in dumps)
    monkeypatch.setattr(srcad.config, "debug", "")
    caplog.clear()
    srcad.grad(lambda x: np.sum(np.cosh(x)))(x)
    assert not [m for m in _messages(caplog) if m.startswith("IR of ")]


def test_slow_first_call_warns_at_the_users_line(monkeypatch):
    monkeypatch.setattr(srcad.config, "slow_call_seconds", 0.0)
    with pytest.warns(srcad.SlowFirstCallWarning, match=r"building grad of <lambda> .* took") as got:
        srcad.grad(lambda x: x * np.exp(x))(1.0)
    assert got[0].filename == HERE


def test_persistent_cache_hit_is_logged(tmp_path):
    script = tmp_path / "cached.py"
    script.write_text("import logging, numpy as np, srcad\n"
                      "logging.basicConfig(level=logging.WARNING, format='%(message)s')\n"
                      "logging.getLogger('srcad').setLevel(logging.INFO)\n"
                      "def f(x):\n    return np.sum(x ** 3)\n"
                      "assert np.allclose(srcad.grad(f)(np.arange(3.0)), 3 * np.arange(3.0) ** 2)\n")
    env = dict(os.environ, PYTHONPATH=ROOT, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True,
                           text=True, timeout=120) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs
    assert "built (persistent cache miss) in" in runs[0].stderr, runs[0].stderr
    assert "grad of f (cached.py:4) for x: float[3]: persistent cache hit in" in runs[1].stderr, \
        runs[1].stderr


def _frames(exc):
    return [frame.filename for frame in traceback.extract_tb(exc.__traceback__)]


@pytest.mark.parametrize("call", [
    lambda: srcad.grad(_unsupported)(1.0),
    lambda: srcad.value_and_grad(_unsupported)(1.0),
    lambda: srcad.jvp(_unsupported, (1.0,), (1.0,)),
    lambda: srcad.vjp(_unsupported, 1.0),
    lambda: srcad.jacfwd(_unsupported)(1.0),
    lambda: srcad.jacrev(_unsupported)(1.0),
    lambda: srcad.hessian(_unsupported)(1.0),
    lambda: srcad.hvp(_unsupported, (1.0,), (1.0,)),
    lambda: srcad.vmap(srcad.grad(_unsupported))(np.ones(2)),
], ids=["grad", "value_and_grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian", "hvp", "vmap"])
def test_srcad_errors_show_the_users_frames_only(call):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        call()
    frames = _frames(info.value)
    assert frames and all(not tracebacks.internal(f) for f in frames), frames
    assert frames[0] == HERE
    assert "SRCAD_TRACEBACK=full" in "\n".join(errors.notes_of(info.value))
    assert "sets are not supported" in str(info.value)


def test_full_tracebacks_on_request(monkeypatch):
    monkeypatch.setattr(srcad.config, "traceback", "full")
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(_unsupported)(1.0)
    assert sum(tracebacks.internal(f) for f in _frames(info.value)) >= 5
    assert not errors.notes_of(info.value)


def test_errors_in_generated_code_name_the_users_line():
    with pytest.raises(IndexError) as info:
        srcad.grad(_fails_in_generated_code)(2.0)
    frames = _frames(info.value)
    assert frames[0] == HERE and any(f.startswith("<srcad grad__fails_in_generated_code") for f in frames)
    assert not any(tracebacks.internal(f) for f in frames), frames
    assert "return y * z[3]" in "\n".join(info.value.__notes__)


def test_notes_without_add_note(monkeypatch):
    """Python 3.10 has no add_note: the notes go into the message, or a chained SourceNote."""
    monkeypatch.setattr(errors, "HAS_ADD_NOTE", False)
    with pytest.raises(IndexError) as info:
        srcad.grad(_fails_in_generated_code)(2.0)
    assert not getattr(info.value, "__notes__", None)
    message = str(info.value)
    assert message.startswith("index 3 is out of bounds") and "return y * z[3]" in message
    assert "SRCAD_TRACEBACK=full" in message
    assert any("return y * z[3]" in note for note in errors.notes_of(info.value))
    # an exception that prints something else than its argument: the note is chained to it
    key = KeyError("b")
    key.__context__ = context = ValueError("while handling this")
    errors.add_note(key, "srcad: comes from model.py:3")
    errors.add_note(key, "srcad: and model.py:4")
    text = "".join(traceback.format_exception(key))
    assert str(key) == "'b'" and isinstance(key.__cause__, errors.SourceNote)
    assert "model.py:3\nsrcad: and model.py:4" in text
    assert text.index("while handling") < text.index("model.py:3") < text.index("KeyError: 'b'")
    assert key.__cause__.__context__ is context


def test_describing_a_transformation_of_a_transformation_builds_nothing(caplog, monkeypatch):
    """The log line of hvp (a jvp of a grad) names its parameters without reading the inner
    grad's __wrapped__ (which builds code for unknown types: a NoRuleError for a function
    calling a function value, examples/layer_objects.py)."""
    monkeypatch.setattr(srcad.config, "slow_call_seconds", 0.0)
    caplog.set_level(logging.INFO, logger="srcad")

    w, x, v = np.array([0.5, -1.0]), np.array([1.0, 2.0]), np.array([1.0, 0.0])
    with pytest.warns(srcad.SlowFirstCallWarning):
        hv = srcad.hvp(_layer_loss, (w, _Layer(np.tanh), x), (v, None, None))
    t = np.tanh(w * x)  # hand-derived: d2/dw0^2 of tanh(w0 x0)^2 = 2 x0^2 (1 - t^2)(1 - 3 t^2)
    assert hv == pytest.approx([2 * x[0] ** 2 * (1 - t[0] ** 2) * (1 - 3 * t[0] ** 2), 0.0])
    logged = _messages(caplog)
    assert any(m.startswith("tangent of grad__layer_loss (test_diagnostics.py:") for m in logged), logged
