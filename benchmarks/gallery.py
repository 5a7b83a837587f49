"""The "gallery" group (issue 13): the programs of examples/gallery/, written the way their
authors write them, gradient time against the forward pass (best of 5 repeats), and against
autograd's gradient of the same program when autograd is installed."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os

import numpy as np

import srcad

from . import peers
from .report import Table
from .timing import best_times

GALLERY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "gallery")


def _load(name, peer=None):
    """The program as a module; with peer="autograd", a second copy whose `np` (and
    `logsumexp`) are autograd's, the one change its authors make to run it under autograd."""
    path = os.path.join(GALLERY, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"bench_gallery_{name}_{peer}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if peer == "autograd":
        mod.np = importlib.import_module("autograd.numpy")
        if hasattr(mod, "logsumexp"):
            mod.logsumexp = importlib.import_module("autograd.scipy.special").logsumexp
    return mod


def _programs(peer=None):
    """(name, size, function, arguments) of each program, its functions from _load(name, peer)."""
    gp = _load("gaussian_process", peer)
    _, _, lml = gp.make_gp_funs(gp.rbf_covariance, num_cov_params=2)
    X, y = gp.build_toy_dataset()
    gp_obj = lambda params: -lml(params, X, y)  # noqa: E731
    fl = _load("fluid", peer)
    smoke, target = fl.make_problem()
    fl_params = 0.01 * np.random.RandomState(0).randn(2 * smoke.size)
    hmm = _load("hmm", peer)
    hmm_params, seqs = hmm.make_data()
    ly = _load("layers", peer)
    ly_X, ly_T = ly.make_problem()
    ly_model = ly.build_model()
    rnn = _load("char_rnn", peer)
    rnn_params, rnn_in, rnn_out = rnn.make_problem()
    lstm = _load("lstm", peer)
    lstm_params, lstm_in, lstm_out = lstm.make_problem()
    bbvi = _load("bbvi", peer)
    elbo, _, _ = bbvi.black_box_variational_inference(bbvi.log_density, 2, num_samples=200)
    nn = _load("neural_net", peer)
    nn_inputs, nn_targets = nn.make_spirals()
    nn_params = nn.init_random_params(0.3, [2, 16, 16, 3])
    return [
        ("gaussian_process", "n=20", gp_obj, (np.array([0.1, -1.0, 0.3, -0.2]),)),
        ("layers", "6 layer objects", ly.loss, (ly_model.init_weights(0.3), ly_model, ly_X, ly_T)),
        ("fluid", "12x12, 4 steps", fl.objective, (fl_params, smoke, target)),
        ("hmm", "3 states, 3 seqs", hmm.hmm_log_likelihood, (hmm_params, seqs)),
        ("char_rnn", "8 steps x 6 seqs, 12 hidden", rnn.rnn_log_likelihood, (rnn_params, rnn_in, rnn_out)),
        ("lstm", "8 steps x 5 seqs, 10 hidden", lstm.lstm_log_likelihood, (lstm_params, lstm_in, lstm_out)),
        ("bbvi", "funnel, 200 samples", elbo, (np.array([-1.0, -1.0, -5.0, -5.0]), 0)),
        ("neural_net", "2-16-16-3, 90 points", nn.log_posterior, (nn_params, nn_inputs, nn_targets, 0.01)),
    ]


def _autograd_gradients() -> dict:
    """name -> autograd's gradient as a zero-argument callable, or {} when not installed."""
    autograd = peers.module("autograd")
    if autograd is None:
        return {}
    return {name: functools.partial(autograd.grad(f), *args) for name, _, f, args in _programs("autograd")}


def _leaves(tree) -> list:
    if isinstance(tree, dict):
        return [x for k in tree for x in _leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for e in tree for x in _leaves(e)]
    return [np.asarray(tree, dtype=float)]


def _same(a, b) -> bool:
    la, lb = _leaves(a), _leaves(b)
    return len(la) == len(lb) and all(x.shape == y.shape and np.allclose(x, y, rtol=1e-8, atol=1e-12)
                                      for x, y in zip(la, lb))


def gallery_rows() -> list:
    rows = []
    theirs = _autograd_gradients()
    for name, size, f, args in _programs():
        g = srcad.grad(f)
        runs = {"forward": lambda f=f, args=args: f(*args), "gradient": lambda g=g, args=args: g(*args)}
        agrees = None
        if name in theirs:
            runs["autograd"] = theirs[name]
            agrees = _same(g(*args), theirs[name]())
        best = best_times(runs)
        rows.append((name, size, best["forward"], best["gradient"], best.get("autograd"), agrees))
    return rows


def gallery_table(rows) -> Table:
    table = Table(["program", "size", "forward µs", "gradient µs", "gradient / forward",
                   "autograd gradient µs", "autograd / srcad"])
    for name, size, fwd, grad, theirs, agrees in rows:
        peer = [f"{theirs * 1e6:,.0f}", f"{theirs / grad:.1f}"] if theirs is not None else ["-", "-"]
        table.rows.append([name, size, f"{fwd * 1e6:,.0f}", f"{grad * 1e6:,.0f}", f"{grad / fwd:.1f}", *peer])
        if agrees is False:
            table.notes.append(f"{name}: srcad's gradient differs from autograd's")
            table.problems += 1
    return table
