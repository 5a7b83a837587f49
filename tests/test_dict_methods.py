"""`d.update(...)` and `d.setdefault(...)` on a local dict whose keys srcad knows are the writes
`d[k] = v` they are (transforms/sequences.py dict_method); they were an UnsafeMutationError.
Oracle: central differences with Richardson extrapolation, and the function's own value."""

import numpy as np
import pytest
from oracle import fd_grad_richardson

import srcad


def updated(x):
    p = {"a": x}
    p.update({"b": 2.0 * x})
    return p["a"] * p["b"]


def updated_by_keywords(x):
    p = {"a": x, "b": 1.0}
    p.update(b=x ** 2, c=3.0)
    return p["a"] * p["b"] + p["c"]


def set_by_default(x):
    p = {"a": x}
    v = p.setdefault("a", 5.0)  # (present: its value, p unchanged)
    w = p.setdefault("b", x * 3.0)  # (absent: set)
    return v * w + p["b"]


def updated_in_a_loop(x):
    cfg = {"lr": 0.1}
    for _ in range(3):
        cfg.update({"lr": cfg["lr"] * x})
    return cfg["lr"]


def updated_with_arrays(x):
    d = {"w": x}
    d.update({"w": d["w"] * 2.0, "b": np.sum(x)})
    return np.sum(d["w"] ** 2) + d["b"]


def aliased(x):
    d = {"w": x}
    e = d
    d.update({"w": 2.0 * x})
    return e["w"]  # (e is d, changed: refused)


@pytest.mark.parametrize("f, x", [(updated, 0.7), (updated_by_keywords, 0.7), (set_by_default, 0.7),
                                  (updated_in_a_loop, 0.7), (updated_with_arrays, np.array([0.3, 0.7]))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_and_value(f, x):
    value, g = srcad.value_and_grad(f)(x)
    assert np.isclose(value, f(x))
    np.testing.assert_allclose(g, fd_grad_richardson(f, (x,)), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(srcad.jacfwd(f)(x), g, rtol=1e-12)


def test_another_name_of_the_dict_is_refused():
    with pytest.raises(srcad.UnsafeMutationError, match="test_dict_methods.py:47"):
        srcad.grad(aliased)(0.7)


def merged(x):
    d = {"a": x}
    d |= {"b": x ** 2}
    return d["a"] * d["b"]


def test_a_merge_with_the_or_operator_is_refused():
    """`d | e` and `d |= e` went through the bitwise or's rule, which has no derivative: the
    right value with a zero gradient (the adversarial pass). Refused at the line."""
    with pytest.raises(srcad.TypeSupportError, match="test_dict_methods.py"):
        srcad.grad(merged)(0.7)


def keys_kept(x):
    d = {"a": x[0], "b": x[1]}
    ks = d.keys()
    s = 0.0
    for k in ks:
        s = s + d[k] ** 2
    return s


def keys_iterated_then_changed(x):
    d = {"a": x[0], "b": x[1]}
    s = 0.0
    for k in d.keys():
        s = s + d[k] ** 2
    d["c"] = x[2]
    return s + d["c"]


def keys_kept_then_changed(x):
    d = {"a": x[0], "b": x[1]}
    ks = d.keys()
    d.update(c=x[2] * 2.0)  # (Python: ks shows "c" too)
    s = 0.0
    for k in ks:
        s = s + d[k] ** 2
    return s


@pytest.mark.parametrize("f", [keys_kept, keys_iterated_then_changed], ids=lambda f: f.__name__)
def test_keys_views_that_stay_exact(f):
    x = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(f)(x), fd_grad_richardson(f, (x,)), rtol=1e-8)


def test_a_keys_view_kept_while_the_dict_changes_is_refused():
    """srcad's keys are those of the call, Python's view is live: 1.25 where Python gives
    17.25 (the stop-37 note). Refused, naming the call."""
    with pytest.raises(srcad.UnsupportedSyntaxError, match="d.keys"):
        srcad.grad(keys_kept_then_changed)(np.array([0.5, 1.0, 2.0]))
