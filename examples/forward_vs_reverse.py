"""Forward mode (jvp) and reverse mode (grad) on two small functions, with the code srcad
generates for each, one after the other.

    f(x)    = x^2 + 2x + 1      f'(3) = 8
    g(x, y) = x*x + y*x + 1     dg/dx = 2x + y = 8, dg/dy = x = 3 at (3, 2)

Forward mode pushes a tangent (a direction in input space) through the function: one pass
per input direction. Reverse mode pulls the output's sensitivity back to every input at
once: one pass per output. The forward-mode code is shown with the CLI command
`srcad show FILE.py:FUNC --mode forward`, which runs the same pipeline as srcad.jvp.

    python examples/forward_vs_reverse.py
"""

import contextlib
import io

import srcad
import srcad.cli


def f(x):
    return x ** 2 + 2 * x + 1


def g(x, y):
    return x * x + y * x + 1


def cli_source(func, mode, argnums):
    """What `python -m srcad show THIS_FILE:func --mode ... --types float` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = srcad.cli.main(["show", f"{__file__}:{func.__name__}", "--mode", mode,
                               "--types", "float", "--argnums", argnums])
    if code != 0:
        raise RuntimeError(f"srcad show {func.__name__} failed with exit code {code}")
    return out.getvalue()


def section(title, text):
    print(f"--- {title} ---")
    print(text.rstrip())
    print()


def central_difference(fn, args, i, eps=1e-6):
    up, down = list(args), list(args)
    up[i] += eps
    down[i] -= eps
    return (fn(*up) - fn(*down)) / (2 * eps)


def main():
    # f at x = 3: one tangent direction, one output, so one pass of either mode
    _, df_forward = srcad.jvp(f, (3.0,), (1.0,))
    df_reverse = srcad.grad(f)(3.0)
    print(f"f'(3):  forward {df_forward}   reverse {df_reverse}")
    section("forward mode: srcad.jvp(f, (x,), (x_dot,))", cli_source(f, "forward", "0"))
    section("reverse mode: srcad.grad(f)", srcad.source(srcad.grad(f)))

    # g at (3, 2): forward mode needs one pass per input, reverse mode one pass in all
    _, dx_forward = srcad.jvp(g, (3.0, 2.0), (1.0, 0.0))
    _, dy_forward = srcad.jvp(g, (3.0, 2.0), (0.0, 1.0))
    dx_reverse, dy_reverse = srcad.grad(g, argnums=(0, 1))(3.0, 2.0)
    print(f"dg/dx:  forward {dx_forward}   reverse {dx_reverse}")
    print(f"dg/dy:  forward {dy_forward}   reverse {dy_reverse}")
    section("forward mode: srcad.jvp(g, (x, y), (x_dot, y_dot)), two calls",
            cli_source(g, "forward", "0,1"))
    section("reverse mode: srcad.grad(g, argnums=(0, 1)), one call",
            srcad.source(srcad.grad(g, argnums=(0, 1))))

    # oracles: the closed forms 2x + 2, 2x + y, x, and central differences
    expected = {"f'": 8.0, "dg/dx": 8.0, "dg/dy": 3.0}
    fd = {"f'": central_difference(f, (3.0,), 0), "dg/dx": central_difference(g, (3.0, 2.0), 0),
          "dg/dy": central_difference(g, (3.0, 2.0), 1)}
    got = {"f'": (df_forward, df_reverse), "dg/dx": (dx_forward, dx_reverse),
           "dg/dy": (dy_forward, dy_reverse)}
    ok = all(v == expected[k] and abs(v - fd[k]) < 1e-6 for k, pair in got.items() for v in pair)
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
