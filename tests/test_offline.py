"""Offline code generation: standalone modules that import numpy but not srcad, checked in a
fresh interpreter against finite differences; staleness; CLI errors."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from srcad import cli

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# (file in tests/corpus, functions, extra codegen arguments, mode)
CASES = [
    ("straight.py", "poly,math_chain,mixed_ops", ["--types", "float"], "reverse"),
    ("straight.py", "numpy_elementwise", ["--types", "array1"], "reverse"),
    ("straight.py", "shapes", ["--types", "array1", "--sample", "np.linspace(0.2, 0.9, 6)"], "reverse"),
    ("straight.py", "matrix_products", ["--types", "array2,array1", "--argnums", "0,1"], "reverse"),
    ("branches.py", "elif_chain,early_return,return_in_both", ["--types", "float"], "reverse"),
    ("loops.py", "newton_sqrt,while_counter", ["--types", "float"], "reverse"),
    ("loops.py", "fill_loop,slice_updates", ["--types", "array1"], "reverse"),
    ("loops.py", "ode_euler", ["--types", "float,float", "--argnums", "0,1"], "reverse"),
    ("loops.py", "newton_sqrt", ["--types", "float"], "forward"),
    ("straight.py", "numpy_binary", ["--types", "array1,array1"], "forward"),
    # exact shapes: loop bounds and shapes become constants
    ("loops.py", "rnn_cell", ["--types", "float[3,3], float[3,2], float[4,3,2]", "--argnums", "0,1",
                              "--sample", "np.eye(3) * 0.5", "--sample", "np.ones((3, 2))",
                              "--sample", "np.linspace(-1, 1, 24).reshape(4, 3, 2)"], "reverse"),
    # no types: generic code with run-time checks
    ("loops.py", "fill_loop", ["--sample", "np.linspace(0.2, 0.9, 5)"], "reverse"),
]


def _run_generated(tmp_path, corpus_file, funcs, extra, mode):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(os.path.join(CORPUS, corpus_file), work / corpus_file)
    shutil.copy(os.path.join(CORPUS, "helpers.py"), work / "helpers.py")
    out = work / f"gen_{os.path.splitext(corpus_file)[0]}.py"
    code = cli.main(["codegen", f"{work / corpus_file}:{funcs}", "--mode", mode, "-o", str(out),
                     "--with-test"] + extra)
    assert code == 0
    return work, out


@pytest.mark.parametrize("corpus_file,funcs,extra,mode", CASES, ids=[f"{c[1]}-{c[3]}" for c in CASES])
def test_round_trip_in_a_fresh_interpreter_without_srcad(tmp_path, corpus_file, funcs, extra, mode):
    work, out = _run_generated(tmp_path, corpus_file, funcs, extra, mode)
    text = out.read_text()
    assert "srcad" not in [line.split()[1] for line in text.splitlines()
                           if line.startswith(("import ", "from "))], "must not import srcad"
    assert all(len(line) < 100 for line in text.splitlines()), "lines must be under 100 characters"
    flakes = subprocess.run([sys.executable, "-m", "pyflakes", str(out)], capture_output=True, text=True)
    assert flakes.stdout == "", flakes.stdout
    # the generated test runs in a fresh interpreter where srcad cannot be imported
    test_file = work / ("test_" + out.name)
    block = ("import runpy, sys; sys.modules['srcad'] = None; "
             f"runpy.run_path({str(test_file)!r}, run_name='__main__')")
    env = dict(os.environ, PYTHONPATH=str(work))
    run = subprocess.run([sys.executable, "-c", block], cwd=work, capture_output=True, text=True, env=env)
    assert run.returncode == 0 and "ok" in run.stdout, run.stdout + run.stderr


def test_check_reports_staleness(tmp_path, capsys):
    work, out = _run_generated(tmp_path, "straight.py", "poly", ["--types", "float"], "reverse")
    assert cli.main(["check", str(out)]) == 0
    assert "up to date" in capsys.readouterr().out
    with open(work / "straight.py", "a") as f:
        f.write("\n# edited\n")
    assert cli.main(["check", str(out)]) == 1
    assert "stale" in capsys.readouterr().out


def test_cli_errors_are_clear_and_leave_no_file(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(textwrap.dedent("""
        def ok(x):
            return x * x

        def bad(x):
            try:
                return x
            except ValueError:
                return x
    """))
    out = tmp_path / "out.py"
    assert cli.main(["codegen", f"{src}", "-o", str(out)]) == 2  # no :FUNC
    assert "FILE.py:FUNC" in capsys.readouterr().err
    assert cli.main(["codegen", f"{src}:missing", "-o", str(out)]) == 2
    assert "no function 'missing'" in capsys.readouterr().err
    assert cli.main(["codegen", f"{tmp_path / 'nope.py'}:f", "-o", str(out)]) == 2
    assert cli.main(["codegen", f"{src}:bad", "-o", str(out)]) == 1
    assert "UnsupportedSyntaxError" in capsys.readouterr().err
    assert cli.main(["codegen", f"{src}:ok", "--argnums", "3", "-o", str(out)]) == 2
    assert "out of range" in capsys.readouterr().err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".srcad-")] == []


def test_unwritable_output_path_is_an_error(tmp_path, capsys):
    src = tmp_path / "m2.py"
    src.write_text("def ok(x):\n    return x * x\n")
    target = tmp_path / "missing_dir" / "out.py"
    assert cli.main(["codegen", f"{src}:ok", "-o", str(target)]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert not target.exists()


@pytest.mark.parametrize("stage", ["parsed", "ssa", "typed", "transformed", "optimized", "source"])
def test_show_every_stage(stage, capsys):
    assert cli.main(["show", f"{os.path.join(CORPUS, 'loops.py')}:ode_euler", "--stage", stage,
                     "--types", "float,float"]) == 0
    text = capsys.readouterr().out
    assert ("def " in text) or ("for " in text)


def test_module_inside_a_package_and_a_test_file_elsewhere(tmp_path):
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("def sq(v):\n    return v * v\n")
    (pkg / "mod.py").write_text("from .util import sq\n\n\ndef f(x):\n    return sq(x) * x\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "pkg_grad.py"
    assert cli.main(["codegen", f"{pkg / 'mod.py'}:f", "--types", "float", "-o", str(out),
                     "--with-test"]) == 0
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", "import pkg_grad; print(pkg_grad.grad_f(2.0))"],
                         cwd=out_dir, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) == pytest.approx(3 * 2.0 ** 2)  # d/dx x^3
    test = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out_dir)],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert test.returncode == 0, test.stdout + test.stderr


def test_demo_command_checks_its_gradient(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "def grad_" in out and "check: OK" in out


def test_srcads_errors_raised_by_generated_code_need_no_srcad(tmp_path):
    """Code that raises one of srcad's errors (vmap over an empty axis, a transform called
    inside) imported it from srcad.errors: the standalone module failed to import without
    srcad (the adversarial pass). It falls back to the builtin error now. By hand: the
    gradient of sum(sin(z0) z1) over the rows (x0, x1), (x2, x3)."""
    (tmp_path / "inner_map.py").write_text(textwrap.dedent("""
        import numpy as np
        import srcad


        def e(z):
            return np.sin(z[0]) * z[1]


        def f(x):
            return np.sum(srcad.vmap(e)(np.stack([x[:2], x[2:4]])))
    """))
    out = tmp_path / "gen_inner_map.py"
    assert cli.main(["codegen", f"{tmp_path / 'inner_map.py'}:f", "--sample", "np.arange(1.0, 5.0)",
                     "-o", str(out)]) == 0
    block = ("import sys; sys.modules['srcad'] = None; import numpy as np, gen_inner_map as g; "
             "print(list(g.grad_f(np.arange(1.0, 5.0))))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    x = np.arange(1.0, 5.0)
    want = [np.cos(x[0]) * x[1], np.sin(x[0]), np.cos(x[2]) * x[3], np.sin(x[2])]
    np.testing.assert_allclose(eval(run.stdout.replace("np.float64", "float")), want, rtol=1e-12)
