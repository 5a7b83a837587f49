"""Every script in examples/ runs as `python examples/NAME.py` (with the repository on
PYTHONPATH), exits 0, checks its numbers against an independent oracle ("check: OK") and
prints the values it promises. The selected scripts start together, in parallel, and each
test waits for its own."""

import glob
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(ROOT, "examples", "*.py")))

# lines (or parts of lines) each example must print, besides "check: OK"
EXPECTED = {
    "linear_regression": ["epoch 10  loss", "epoch 50  loss", "final w = ",
                          "def value_and_grad_mse(w, b, x, y):"],
    "forward_vs_reverse": ["f'(3):  forward 8.0   reverse 8.0", "dg/dx:  forward 8.0   reverse 8.0",
                           "dg/dy:  forward 3.0   reverse 3.0", "def jvp_f(x, x_dot):", "def grad_f(x):",
                           "def jvp_g(x, y, x_dot, y_dot):", "def grad_g(x, y):"],
    "rnn_vanishing_gradients": ["small random W: |W|_2", "orthogonal W: |W|_2 = 1.000"],
    "kinematic_constraint": ["before:", "after 300 steps of gradient descent:"],
    "newton_cg_hvp": ["Newton-CG: ", "iterations; gradient descent: ",
                      "scipy.optimize.minimize(method='Newton-CG', hessp=srcad.hvp): Optimization terminated",
                      "scipy Newton-CG: "],
    "layer_objects": ["step 200  loss", "def value_and_grad_lambda_(p, m, x, y):",
                      "gradient of the dataclass parameters: ['Layer', 'Layer', 'Layer'] "
                      "['tanh', 'tanh', 'linear']"],
    "refusals": ["TypeSupportError: grad of loss_of_object: argument p is an object of type",
                 "NonScalarOutputError: grad of a function whose output is an array of rank 1",
                 "at refusals.py:43:4", "ValueError: math domain error",
                 "TypeSupportError: np.cumsum cannot take complex values"],
    "mlp_closures": ["tanh: max relative |grad - finite differences|", "softplus lambda: max relative",
                     "step 300  loss", "def value_and_grad_objective(params):"],
    "gp_stats": ["max relative |grad - finite differences| at theta0", "L-BFGS-B: ",
                 "length scale", "predictive mean at +1.5"],
    "ode_fit": ["max relative |grad - finite differences| at the start", "BFGS: ", "rate a: fitted",
                "rate d: fitted"],
    "spectral_fit": ["filter: max relative |grad - finite differences| at h0", "filter: L-BFGS-B: loss",
                     "gain: largest real part of the eigenvalues"],
    "scaling_dask": ["gradient vs finite differences: OK", "a dask.array.core.Array with",
                     "computed: equals the gradient of the NumPy arrays: True", "2 worker processes: ",
                     "memory per worker: ", "one process vs 2 workers: equal True"],
    "kalman_objects": ["max relative |grad - finite differences| at the start", "L-BFGS-B: ",
                       "drift variance q: fitted", "noise variance r: fitted"],
    "offline_codegen": ["def grad_energy(x, k):", "springs_grad.py is up to date",
                        "in a fresh interpreter: srcad is not importable", "dE/dk = 0.1"],
}
TIMEOUT = 120
# the examples start together in one worker's `runs` (each worker would start them all)
pytestmark = pytest.mark.xdist_group("examples")


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """The selected examples, started at once; each in its own working directory."""
    selected = [item.callspec.params["name"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")]
    plots = tmp_path_factory.mktemp("plots")
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg", SRCAD_EXAMPLE_PLOTS=str(plots))
    started = {}
    for name in selected:
        cwd = tmp_path_factory.mktemp(name)
        script = os.path.join(ROOT, "examples", name + ".py")
        proc = subprocess.Popen([sys.executable, script], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        started[name] = (proc, cwd, plots / name)
    yield started
    for proc, _, _ in started.values():
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_every_example_has_expectations():
    assert sorted(EXPECTED) == EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_and_checks_itself(runs, name):
    proc, cwd, plots = runs[name]
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"examples/{name}.py did not finish in {TIMEOUT} s\n{out}\n{err}")
    report = f"examples/{name}.py exited with {proc.returncode}\n--- stdout\n{out}\n--- stderr\n{err}"
    assert proc.returncode == 0, report
    assert "check: OK" in out.splitlines(), report
    for expected in EXPECTED.get(name, []):
        assert expected in out, f"missing {expected!r}\n{report}"
    assert not list(cwd.iterdir()), f"examples/{name}.py wrote into the current directory\n{report}"
    if name == "rnn_vanishing_gradients" and importlib.util.find_spec("matplotlib") is not None:
        assert (plots / "rnn_gradient_norms.png").stat().st_size > 0, report
        assert f"saved {plots / 'rnn_gradient_norms.png'}" in out, report
