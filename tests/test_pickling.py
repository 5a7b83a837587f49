"""srcad's transformations pickle (as the call that made them: srcad/pickling.py) and run in
other processes: a fresh interpreter, multiprocessing.Pool and ProcessPoolExecutor with the
fork and spawn start methods, and dask.distributed workers. Gradients are checked against the
hand-derived gradient of a least-squares loss and against finite differences (tests/oracle.py).
The process pools are shared by the tests (module fixtures, one xdist group): spawn is slow."""

import concurrent.futures
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from tests.oracle import assert_tree_close, fd_grad

pytestmark = pytest.mark.xdist_group("pickling")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def loss(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2)


def hand_grad(w, X, y):
    return 2.0 / len(y) * X.T @ (X @ w - y)


def curve(x):
    return np.sin(x) * x ** 2


RNG = np.random.default_rng(0)
X, Y, W = RNG.normal(size=(40, 3)), RNG.normal(size=40), RNG.normal(size=3)
SHARDS = [(X[i:i + 10], Y[i:i + 10]) for i in range(0, 40, 10)]


def shard_gradient(g, w, shard):
    Xs, ys = shard
    return g(w, Xs, ys) * len(ys)


def call(fn_and_args):
    fn, args = fn_and_args
    return fn(*args)


TRANSFORMS = {  # name -> (transform, arguments, oracle)
    "grad": (srcad.grad(loss), (W, X, Y), lambda: hand_grad(W, X, Y)),
    "value_and_grad": (srcad.value_and_grad(loss), (W, X, Y), lambda: (loss(W, X, Y), hand_grad(W, X, Y))),
    "grad of grad": (srcad.grad(srcad.grad(lambda t: t ** 3)), (1.5,), lambda: 9.0),
    "jacfwd": (srcad.jacfwd(curve), (W,), lambda: np.diag(np.cos(W) * W ** 2 + 2 * W * np.sin(W))),
    "jacrev": (srcad.jacrev(curve), (W,), lambda: np.diag(np.cos(W) * W ** 2 + 2 * W * np.sin(W))),
    "hessian": (srcad.hessian(loss), (W, X, Y), lambda: 2.0 / len(Y) * X.T @ X),
    "jacfwd of grad": (srcad.jacfwd(srcad.grad(loss)), (W, X, Y), lambda: 2.0 / len(Y) * X.T @ X),
    "vmap of grad": (srcad.vmap(srcad.grad(loss), in_axes=(0, None, None)), (np.stack([W, 2 * W]), X, Y),
                     lambda: np.stack([hand_grad(W, X, Y), hand_grad(2 * W, X, Y)])),
    "vjp_fn": (srcad.vjp(curve, W)[1], (np.ones(3),),
               lambda: (np.cos(W) * W ** 2 + 2 * W * np.sin(W),)),
    "numba": (srcad.grad(loss, target="numba"), (W, X, Y), lambda: hand_grad(W, X, Y)),
}


def test_every_transform_round_trips_in_this_process():
    for name, (t, args, oracle) in TRANSFORMS.items():
        again = pickle.loads(pickle.dumps(t))
        assert_tree_close(again(*args), oracle(), what=name)
    assert_tree_close(srcad.grad(loss)(W, X, Y), fd_grad(loss, (W, X, Y)), rtol=1e-6)


def _run(code: str, cwd, env_extra=None, flags=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_every_transform_runs_in_a_fresh_process(tmp_path):
    path = tmp_path / "transforms.pkl"
    fresh = {k: v for k, v in TRANSFORMS.items() if k != "numba"}  # (numba's compile: round trip above)
    path.write_bytes(pickle.dumps({k: (t, a) for k, (t, a, _) in fresh.items()}))
    code = ("import pickle\n"
            f"got = {{k: t(*a) for k, (t, a) in pickle.loads(open({str(path)!r}, 'rb').read()).items()}}\n"
            f"open({str(path)!r}, 'wb').write(pickle.dumps(got))")
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    got = pickle.loads(path.read_bytes())
    for name, (_, _, oracle) in fresh.items():
        assert_tree_close(got[name], oracle(), what=name)


def test_functions_of_main_travel_with_their_source(tmp_path):
    """A script's function (by value, its file's text carried), and a function made by exec()
    with a linecache entry (as notebooks make them): the receiver has no file to read."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import linecache, pickle, sys
        import numpy as np
        import srcad

        def helper(x):
            return np.sin(x) * x

        def f(x):
            return np.sum(helper(x) ** 2)

        text = "def cell(x):\\n    return np.sum(np.exp(x) * 2.0)\\n"
        linecache.cache["<cell-1>"] = (len(text), None, text.splitlines(True), "<cell-1>")
        exec(compile(text, "<cell-1>", "exec"), globals())
        open(sys.argv[1], "wb").write(pickle.dumps((srcad.grad(f), srcad.jacrev(cell))))
    """))
    pkl = tmp_path / "g.pkl"
    made = subprocess.run([sys.executable, str(script), str(pkl)], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert made.returncode == 0, made.stderr
    script.unlink()
    code = (f"import pickle, numpy as np; g, j = pickle.loads(open({str(pkl)!r}, 'rb').read()); "
            "x = np.array([0.3, -1.2]); print(repr(g(x).tolist())); print(repr(j(x).tolist()))")
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    x = np.array([0.3, -1.2])

    def f(x):
        return np.sum((np.sin(x) * x) ** 2)

    lines = done.stdout.splitlines()
    assert_tree_close(np.array(eval(lines[0])), fd_grad(f, (x,)), rtol=1e-6)
    assert_tree_close(np.array(eval(lines[1])), 2.0 * np.exp(x))


def test_a_receiver_without_srcad_gets_a_clear_error(tmp_path):
    pkl = tmp_path / "g.pkl"
    pkl.write_bytes(pickle.dumps(srcad.grad(loss)))
    code = (f"import pickle, sys; g = pickle.loads(open({str(pkl)!r}, 'rb').read())\n"
            "assert 'numpy' not in sys.modules\n"
            "try:\n    g(1.0)\nexcept ModuleNotFoundError as e:\n    print(e)")
    done = _run(code, tmp_path, flags=("-S", "-I"))  # (no site-packages: neither srcad nor numpy)
    assert done.returncode == 0, done.stderr
    assert "srcad.grad of loss was pickled by srcad" in done.stdout
    assert "needs srcad where it is unpickled: install it there" in done.stdout


@pytest.fixture(scope="module", params=["fork", "spawn"])
def pools(request):
    context = multiprocessing.get_context(request.param)
    with context.Pool(1) as pool, concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as ex:
        yield pool, ex


def test_pool_and_executor_sum_shard_gradients(pools):
    pool, executor = pools
    g = srcad.grad(loss)
    jobs = [(shard_gradient, (g, W, shard)) for shard in SHARDS]
    expected = hand_grad(W, X, Y) * len(Y)
    assert_tree_close(sum(pool.map(call, jobs)), expected)
    assert_tree_close(sum(executor.map(call, jobs)), expected)
    h = srcad.hessian(loss)
    assert_tree_close(executor.submit(call, (h, (W, X, Y))).result(), 2.0 / len(Y) * X.T @ X)


def test_dask_distributed_workers_sum_shard_gradients():
    """Two worker processes (forked, to start in a second; the spawn test above covers a fresh
    interpreter) receive the gradient through dask's serialisation and sum shard gradients."""
    distributed = pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=50)
    with cluster, distributed.Client(cluster) as client:
        g = srcad.grad(loss)
        futures = client.map(shard_gradient, [g] * len(SHARDS), [W] * len(SHARDS), SHARDS)
        total = client.submit(sum, futures).result()
        assert_tree_close(total, hand_grad(W, X, Y) * len(Y))
        assert len(client.scheduler_info()["workers"]) == 2
