"""Long expressions and long chains of statements: srcad's recursive walkers (gast's parser,
expression lowering, folding temporaries back into expressions, astor, CPython's compiler
of the generated code) must not hit Python's recursion limit. Derivatives are checked
against hand-derived formulas."""

import importlib.util
import math

import numpy as np
import pytest

import srcad

A = 0.3  # the point


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text("import math\nimport numpy as np\n\n\n" + source + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n", [1000])  # (the recursion limit is what matters: the longest one)
def test_long_sum_both_modes_and_second_order(tmp_path, n):
    f = _module(tmp_path, f"long_sum_{n}", "def f(x):\n    return " + " + ".join(
        f"x * x * {k}.0" for k in range(n))).f
    # f = c x^2 with c = sum(k) = n (n - 1) / 2
    c = n * (n - 1) / 2
    assert srcad.grad(f)(A) == pytest.approx(2 * c * A, rel=1e-12)
    assert srcad.jvp(f, (A,), (1.0,))[1] == pytest.approx(2 * c * A, rel=1e-12)
    assert srcad.hessian(f)(A) == pytest.approx(2 * c, rel=1e-12)


def test_long_product_difference_and_array_sum(tmp_path):
    n = 300
    a = [1.0 / (k + 1) for k in range(n)]
    src = ("def prod(x):\n    return " + " * ".join(f"(1.0 + x * {v!r})" for v in a) + "\n\n\n"
           "def diff(x):\n    return " + " - ".join(f"x * {k}.0" for k in range(n)) + "\n\n\n"
           "def arr(x):\n    return np.sum(" + " + ".join(f"np.sin(x) * {k}.0" for k in range(n)) + ")\n")
    mod = _module(tmp_path, "long_products", src)
    # d/dx prod(1 + a x) = prod * s1, d2 = prod * (s1^2 - s2), s_p = sum (a / (1 + a x))^p
    p = math.prod(1.0 + A * v for v in a)
    s1 = sum(v / (1.0 + A * v) for v in a)
    s2 = sum((v / (1.0 + A * v)) ** 2 for v in a)
    assert srcad.grad(mod.prod)(A) == pytest.approx(p * s1, rel=1e-10)
    assert srcad.jvp(mod.prod, (A,), (1.0,))[1] == pytest.approx(p * s1, rel=1e-10)
    assert srcad.hessian(mod.prod)(A) == pytest.approx(p * (s1 * s1 - s2), rel=1e-9)
    # x * 0 - x * 1 - ... - x * (n - 1): slope -(n - 1) n / 2 + 0
    assert srcad.grad(mod.diff)(A) == pytest.approx(-(n - 1) * n / 2, rel=1e-12)
    x = np.array([0.2, -0.4])
    c = n * (n - 1) / 2
    np.testing.assert_allclose(srcad.grad(mod.arr)(x), c * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(srcad.hessian(mod.arr)(x), np.diag(-c * np.sin(x)), rtol=1e-12, atol=1e-9)


def test_deeply_nested_calls(tmp_path):
    depth = 180  # (CPython's parser allows at most 200 nested parentheses)
    f = _module(tmp_path, "nested_calls",
                "def f(x):\n    return " + "math.sin(" * depth + "x" + ")" * depth).f
    # chain rule: s_0 = x, s_k = sin(s_{k-1}); f' = prod cos(s_{k-1}),
    # f'' = f' * sum_k (-tan(s_{k-1}) * s_{k-1}')
    s, d, d2 = A, 1.0, 0.0
    for _ in range(depth):
        d2 = d2 * math.cos(s) - math.sin(s) * d * d  # (g(s))'' = g''(s) s'^2 + g'(s) s''
        d = d * math.cos(s)
        s = math.sin(s)
    assert srcad.grad(f)(A) == pytest.approx(d, rel=1e-10)
    assert srcad.jvp(f, (A,), (1.0,))[1] == pytest.approx(d, rel=1e-10)
    assert srcad.hessian(f)(A) == pytest.approx(d2, rel=1e-8)


def test_long_chain_of_statements(tmp_path):
    n = 500
    body = "".join(f"    y = y * 0.999 + {k}.0 * x * x\n" for k in range(n))
    f = _module(tmp_path, "long_chain", "def f(x):\n    y = x\n" + body + "    return y").f
    # y_n = c x + q x^2 with c = 0.999^n and q = sum_k k 0.999^(n - 1 - k)
    c = 0.999 ** n
    q = sum(k * 0.999 ** (n - 1 - k) for k in range(n))
    assert srcad.grad(f)(A) == pytest.approx(c + 2 * q * A, rel=1e-10)
    assert srcad.jvp(f, (A,), (1.0,))[1] == pytest.approx(c + 2 * q * A, rel=1e-10)
    assert srcad.hessian(f)(A) == pytest.approx(2 * q, rel=1e-10)


def dict_item_overwritten(x, y):
    # F1:1293: the cotangent of the first value written is the 0.0 that zeroes the item after
    # the second write; it met _unbroadcast with a tuple and with an array of shape (2,)
    d = {"w": 0}
    d["w"] = x
    d["w"] = np.stack([0.0, x[0]])
    d["w"] = 0.5 * y
    return d["w"]


def test_gradient_of_dict_items_written_over():
    x = (-0.5, np.array([0.5]))
    gx, gy = srcad.grad(dict_item_overwritten, argnums=(0, 1))(x, 0.3)
    assert gx[0] == 0.0 and np.array_equal(gx[1], [0.0]) and gy == 0.5  # (hand-derived)
