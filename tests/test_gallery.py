"""The gallery (examples/gallery/): programs written the way their authors write them, run
unmodified under srcad; every gradient against finite differences."""

import importlib.util
import os

import numpy as np
import pytest

import srcad
from tests.oracle import assert_tree_close, fd_grad

GALLERY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "gallery")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"gallery_{name}", os.path.join(GALLERY, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gaussian_process_closure_factory():
    gp = _load("gaussian_process")
    num_params, predict, log_marginal_likelihood = gp.make_gp_funs(gp.rbf_covariance, num_cov_params=2)
    X, y = gp.build_toy_dataset()
    objective = lambda params: -log_marginal_likelihood(params, X, y)  # noqa: E731
    params = np.array([0.1, -1.0, 0.3, -0.2])
    want = fd_grad(objective, (params,))
    assert_tree_close(srcad.grad(objective)(params), want, rtol=1e-6, atol=1e-7)
    H = srcad.hessian(objective)(params)
    def directional(p, e):
        return float(fd_grad(objective, (p,), eps=1e-4) @ e)

    H_fd = np.array([fd_grad(directional, (params, e), eps=1e-4) for e in np.eye(4)])
    assert_tree_close(H, H_fd, rtol=1e-3, atol=1e-4)
    objective_fn, trained = gp.main(steps=5)
    assert objective_fn(trained) < objective_fn(0.1 * np.random.RandomState(1).randn(num_params))


def test_fluid_with_an_optional_plotting_argument():
    fl = _load("fluid")
    smoke, target = fl.make_problem(rows=8, cols=8)
    params = 0.01 * np.random.RandomState(0).randn(2 * smoke.size)
    f = lambda p: fl.objective(p, smoke, target, steps=2)  # noqa: E731
    g = srcad.grad(fl.objective)(params, smoke, target, 2)
    assert_tree_close(g, fd_grad(f, (params,), eps=1e-7), rtol=1e-4, atol=1e-7)
    v = np.random.RandomState(3).randn(params.size)
    _, t = srcad.jvp(f, (params,), (v,))
    assert t == pytest.approx(float(g @ v), rel=1e-6, abs=1e-9)


def test_hmm_forward_algorithm_over_a_list_of_sequences():
    hmm = _load("hmm")
    params, seqs = hmm.make_data()
    g = srcad.grad(hmm.hmm_log_likelihood)(params, seqs)
    for i in range(3):
        def f(p, i=i):
            full = list(params)
            full[i] = p
            return hmm.hmm_log_likelihood(tuple(full), seqs)
        assert_tree_close(g[i], fd_grad(f, (params[i],)), rtol=1e-6, atol=1e-8)


def test_layer_objects_in_a_sequential_model():
    ly = _load("layers")
    X, T = ly.make_problem()
    model = ly.build_model()
    W = model.init_weights(0.3)
    g = srcad.grad(ly.loss)(W, model, X, T)
    assert_tree_close(g, fd_grad(ly.loss, (W, model, X, T)), rtol=1e-6, atol=1e-8)
    v = np.random.RandomState(4).randn(W.size)
    _, t = srcad.jvp(ly.loss, (W, model, X, T), (v, None, None, None))
    assert t == pytest.approx(float(g @ v), rel=1e-8)
    W_trained, model, X, T = ly.main(steps=10)
    assert ly.loss(W_trained, model, X, T) < ly.loss(W, model, X, T)
