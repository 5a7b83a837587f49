"""The gallery (examples/gallery/): programs written the way their authors write them, run
unmodified under srcad; every gradient against finite differences."""

import importlib.util
import os

import numpy as np
import pytest

import srcad
from tests.oracle import (
    assert_tree_close,
    fd_directional,
    fd_grad,
    fd_grad_richardson,
    fd_second_directional,
    tree_random_like,
    tree_vdot,
)

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


def test_char_rnn_nested_step_functions_and_star_args():
    rnn = _load("char_rnn")
    params, inputs, targets = rnn.make_problem(seq_length=5, num_seqs=3, state_size=6)
    f = lambda p: rnn.rnn_log_likelihood(p, inputs, targets)  # noqa: E731
    g = srcad.grad(f)(params)
    assert_tree_close(g, fd_grad(f, (params,)), rtol=1e-6, atol=1e-9)
    v = tree_random_like(params, np.random.RandomState(4))
    _, t = srcad.jvp(f, (params,), (v,))
    assert t == pytest.approx(fd_directional(f, (params,), (v,)), rel=1e-8, abs=1e-10)
    assert t == pytest.approx(tree_vdot(g, v), rel=1e-10, abs=1e-12)
    objective, trained = rnn.main(steps=5)
    assert objective(trained) < objective(rnn.make_problem()[0])


def test_lstm_gates_and_cell_state():
    lstm = _load("lstm")
    params, inputs, targets = lstm.make_problem(seq_length=4, num_seqs=3, state_size=4)
    f = lambda p: lstm.lstm_log_likelihood(p, inputs, targets)  # noqa: E731
    assert_tree_close(srcad.grad(f)(params), fd_grad(f, (params,)), rtol=1e-6, atol=1e-9)
    rs = np.random.RandomState(5)
    u, v = tree_random_like(params, rs), tree_random_like(params, rs)
    hv = srcad.hvp(f, (params,), (v,))
    want = fd_second_directional(f, (params,), (u,), (v,))
    assert tree_vdot(u, hv) == pytest.approx(want, rel=1e-6, abs=1e-8)
    loss, trained = lstm.main(steps=5)
    assert loss(trained) < loss(lstm.make_problem()[0])


def _check_bbvi(bbvi, logprob, params):
    objective, gradient, unpack_params = bbvi.black_box_variational_inference(logprob, 2, num_samples=40)
    for t, seed in ((0, 0), (3, 7)):
        f = lambda p, t=t, seed=seed: objective(p, t, seed)  # noqa: E731
        want = fd_grad_richardson(f, (params,))
        assert_tree_close(gradient(params, t, seed), want, rtol=1e-8, atol=1e-10)
    f = lambda p: objective(p, 2)  # noqa: E731
    E = np.eye(len(params))
    H_fd = np.array([[fd_second_directional(f, (params,), (a,), (b,)) for b in E] for a in E])
    assert_tree_close(srcad.hessian(f)(params), H_fd, rtol=1e-5, atol=1e-6)


def test_bbvi_objective_from_a_factory_with_a_seed():
    bbvi = _load("bbvi")
    params = np.array([0.3, -0.2, -0.5, 0.1])
    for logprob in (bbvi.log_density, bbvi.banana_density):
        _check_bbvi(bbvi, logprob, params)
    objective, init_params, trained, unpack_params = bbvi.main(steps=30)
    assert objective(trained, 0) < objective(init_params, 0)


def test_neural_net_list_of_weight_tuples(capsys):
    nn = _load("neural_net")
    inputs, targets = nn.make_spirals(num_per_class=8)
    params = nn.init_random_params(0.5, [2, 5, 4, 3], seed=3)
    g = srcad.grad(nn.log_posterior)(params, inputs, targets, 0.1)
    f = lambda p: nn.log_posterior(p, inputs, targets, 0.1)  # noqa: E731
    assert_tree_close(g, fd_grad(f, (params,)), rtol=1e-6, atol=1e-8)
    assert isinstance(g, list) and all(isinstance(layer, tuple) for layer in g)
    v = tree_random_like(params, np.random.RandomState(6))
    _, t = srcad.jvp(f, (params,), (v,))
    assert t == pytest.approx(tree_vdot(g, v), rel=1e-9, abs=1e-10)
    gx = srcad.grad(nn.log_posterior, argnums=1)(params, inputs, targets, 0.1)
    assert_tree_close(gx, fd_grad(lambda x: nn.log_posterior(params, x, targets, 0.1), (inputs,)),
                      rtol=1e-6, atol=1e-8)
    for act in (np.sin, lambda z: np.logaddexp(0.0, z)):  # (the nonlinearity= parameter)
        h = lambda p, act=act: np.sum(nn.neural_net_predict(p, inputs, nonlinearity=act) * targets)  # noqa: E731
        assert_tree_close(srcad.grad(h)(params), fd_grad(h, (params,)), rtol=1e-6, atol=1e-8)
    init_params, trained, (x, y) = nn.main(steps=60)
    assert nn.accuracy(trained, x, y) > nn.accuracy(init_params, x, y)
