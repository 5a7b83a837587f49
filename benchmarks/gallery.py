"""The "gallery" group (issue 13): the programs of examples/gallery/, written the way their
authors write them, gradient time against the forward pass (best of 5 repeats)."""

from __future__ import annotations

import importlib.util
import os

import numpy as np

import srcad

from .report import Table
from .timing import best_times

GALLERY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "gallery")


def _load(name):
    path = os.path.join(GALLERY, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"bench_gallery_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _programs():
    gp = _load("gaussian_process")
    _, _, lml = gp.make_gp_funs(gp.rbf_covariance, num_cov_params=2)
    X, y = gp.build_toy_dataset()
    gp_obj = lambda params: -lml(params, X, y)  # noqa: E731
    fl = _load("fluid")
    smoke, target = fl.make_problem()
    fl_params = 0.01 * np.random.RandomState(0).randn(2 * smoke.size)
    hmm = _load("hmm")
    hmm_params, seqs = hmm.make_data()
    ly = _load("layers")
    ly_X, ly_T = ly.make_problem()
    ly_model = ly.build_model()
    return [
        ("gaussian_process", "n=20", gp_obj, (np.array([0.1, -1.0, 0.3, -0.2]),)),
        ("layers", "6 layer objects", ly.loss, (ly_model.init_weights(0.3), ly_model, ly_X, ly_T)),
        ("fluid", "12x12, 4 steps", fl.objective, (fl_params, smoke, target)),
        ("hmm", "3 states, 3 seqs", hmm.hmm_log_likelihood, (hmm_params, seqs)),
    ]


def gallery_rows() -> list:
    rows = []
    for name, size, f, args in _programs():
        g = srcad.grad(f)
        best = best_times({"forward": lambda f=f, args=args: f(*args),
                           "gradient": lambda g=g, args=args: g(*args)})
        rows.append((name, size, best["forward"], best["gradient"]))
    return rows


def gallery_table(rows) -> Table:
    table = Table(["program", "size", "forward µs", "gradient µs", "gradient / forward"])
    for name, size, fwd, grad in rows:
        table.rows.append([name, size, f"{fwd * 1e6:,.0f}", f"{grad * 1e6:,.0f}", f"{grad / fwd:.1f}"])
    return table
