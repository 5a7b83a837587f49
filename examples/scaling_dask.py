"""Scaling out: one srcad gradient, on a lazy dask array and on NumPy shards spread over a
dask.distributed cluster of worker processes (docs/scaling.md).

1. The loss of a logistic regression on a dask array: srcad.grad gives a dask array (lazy: a
   graph, nothing computed) from the same generated code it runs on NumPy arrays.
2. Data-parallel gradient descent: the data is split into shards, each worker process holds
   some; every step sends the weights and the pickled gradient function (srcad.grad objects
   pickle as the call that made them) to the workers, which return their shards' gradients,
   summed here. The same steps in this one process give the same weights.

Checks itself against the hand-derived gradient X^T (sigmoid(X w) - y) / n and finite
differences. `python examples/scaling_dask.py` runs a small problem (seconds);
`--full` the size docs/scaling.md measures (2 workers, timings and memory per worker).
"""

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread here, as in each dask worker:
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one process against two, one core each

import numpy as np  # noqa: E402

import srcad  # noqa: E402


def loss(w, X, y):
    """Mean logistic loss of labels y in {0, 1}: log(1 + e^z) - y z, z = X w."""
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def hand_gradient(w, X, y):
    return X.T @ (1.0 / (1.0 + np.exp(-(X @ w))) - y) / len(y)


grad_loss = srcad.grad(loss)


def shard_gradient(g, w, shard):
    """The gradient of the shard's summed loss (its mean's gradient times its size)."""
    X, y = shard
    return g(w, X, y) * len(y)


def make_data(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    w_true = rng.normal(size=d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ w_true)))).astype(float)
    return X, y


def fd_check(w, X, y, eps=1e-6) -> float:
    """max |srcad's gradient - central finite differences| relative to the gradient's size."""
    g = grad_loss(w, X, y)
    fd = np.array([(loss(w + eps * e, X, y) - loss(w - eps * e, X, y)) / (2 * eps) for e in np.eye(len(w))])
    return float(np.max(np.abs(g - fd)) / np.max(np.abs(fd)))


def lazy_gradient(X, y, w, chunk: int) -> bool:
    import dask.array as da

    Xd, yd = da.from_array(X, chunks=(chunk, X.shape[1])), da.from_array(y, chunks=chunk)
    grad_loss(w, Xd, yd)  # (the first call: dask imports what its graphs need)
    t = time.perf_counter()
    g = grad_loss(w, Xd, yd)
    built = time.perf_counter() - t
    print(f"lazy gradient on a dask array of {X.shape[0]} x {X.shape[1]} in {Xd.numblocks[0]} chunks: "
          f"a {type(g).__module__}.{type(g).__name__} with {len(g.__dask_graph__())} tasks, "
          f"graph built in {built * 1e3:.1f} ms, nothing computed")
    computed = g.compute()
    same = np.allclose(computed, grad_loss(w, X, y), rtol=1e-12, atol=1e-15)
    print(f"computed: equals the gradient of the NumPy arrays: {same}")
    return same and np.allclose(computed, hand_gradient(w, X, y), rtol=1e-10)


def descend(gradient_of_shards, w, steps: int, n: int, rate: float):
    for _ in range(steps):
        w = w - rate * gradient_of_shards(w) / n
    return w


def main(argv) -> int:
    full = "--full" in argv
    n, d, n_shards, steps = (1_000_000, 40, 8, 10) if full else (20_000, 10, 4, 5)
    X, y = make_data(n, d)
    w0 = np.zeros(d)
    shards = [(X[i::n_shards].copy(), y[i::n_shards].copy()) for i in range(n_shards)]
    ok = fd_check(w0 + 0.1, X[:2000], y[:2000]) < 1e-6
    print(f"gradient vs finite differences: {'OK' if ok else 'MISMATCH'}")
    ok &= bool(np.allclose(grad_loss(w0, X, y), hand_gradient(w0, X, y), rtol=1e-10))
    ok &= lazy_gradient(X, y, w0 + 0.1, chunk=n // n_shards)

    t = time.perf_counter()
    w_one = descend(lambda w: sum(shard_gradient(grad_loss, w, s) for s in shards), w0, steps, n, 2.0)
    one = time.perf_counter() - t
    print(f"one process: {steps} steps over {n_shards} shards of {n // n_shards} x {d} in {one:.2f} s")

    import dask
    from dask.distributed import Client, LocalCluster

    # (the small run forks its workers, which start in a second; --full spawns them, dask's default)
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn" if full else "fork"}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=50)
    with cluster, Client(cluster) as client:
        remote = client.scatter(shards)  # (each shard lives on one worker)
        client.map(shard_gradient, [grad_loss] * n_shards, [w0] * n_shards, remote).pop().result()  # warm up
        t = time.perf_counter()

        def on_cluster(w):
            return client.submit(sum, client.map(shard_gradient, [grad_loss] * n_shards, [w] * n_shards,
                                                 remote, pure=False)).result()

        w_two = descend(on_cluster, w0, steps, n, 2.0)
        two = time.perf_counter() - t
        rss = client.run(lambda: __import__("psutil").Process().memory_info().rss)
    print(f"2 worker processes: {steps} steps in {two:.2f} s: {one / two:.2f} x one process")
    print("memory per worker: " + ", ".join(f"{r / 2 ** 20:.0f} MiB" for r in rss.values()))
    same = bool(np.allclose(w_one, w_two, rtol=1e-12, atol=1e-15))
    print(f"weights after {steps} steps, one process vs 2 workers: equal {same}; "
          f"loss {loss(w0, X, y):.4f} -> {loss(w_two, X, y):.4f}")
    ok &= same and loss(w_two, X, y) < loss(w0, X, y)
    print("check: OK" if ok else "check: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
