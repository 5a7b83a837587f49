"""A smoke simulation optimised for its final density, as in autograd's fluidsim example:
semi-Lagrangian advection with bilinear interpolation, a Jacobi pressure projection, and an
optional plotting argument that is None when optimising."""

import numpy as np

import srcad


def project(vx, vy):
    """Make the velocity field mass-conserving (divergence-free)."""
    p = np.zeros(vx.shape)
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                      + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
    for k in range(10):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
             + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0
    vx = vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy = vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """Move field f according to the velocities vx, vy (semi-Lagrangian, bilinear)."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix = np.mod(left_ix, rows)
    right_ix = np.mod(left_ix + 1, rows)
    top_ix = np.mod(top_ix, cols)
    bot_ix = np.mod(top_ix + 1, cols)
    flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) \
        + rw * ((1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix])
    return np.reshape(flat_f, (rows, cols))


def simulate(vx, vy, smoke, num_time_steps, ax=None, render=False):
    for t in range(num_time_steps):
        if ax:
            ax.imshow(smoke)
        vx_updated = advect(vx, vx, vy)
        vy_updated = advect(vy, vx, vy)
        vx, vy = project(vx_updated, vy_updated)
        smoke = advect(smoke, vx, vy)
    if render and ax:
        ax.set_title("final")
    return smoke


def make_problem(rows=12, cols=12):
    target = np.zeros((rows, cols))
    target[3:6, 4:8] = 1.0
    smoke = np.zeros((rows, cols))
    smoke[6:9, 4:8] = 1.0
    return smoke, target


def distance_from_target_image(smoke, target):
    return np.mean((target - smoke) ** 2)


def objective(params, smoke, target, steps=4):
    rows, cols = smoke.shape
    init_vx = params[: rows * cols].reshape((rows, cols))
    init_vy = params[rows * cols:].reshape((rows, cols))
    final_smoke = simulate(init_vx, init_vy, smoke, steps, None)
    return distance_from_target_image(final_smoke, target)


def main(iterations=5):
    smoke, target = make_problem()
    params = 0.01 * np.random.RandomState(0).randn(2 * smoke.size)
    grad = srcad.grad(objective)
    for _ in range(iterations):
        params = params - 20.0 * grad(params, smoke, target)
    return params, smoke, target


if __name__ == "__main__":
    params, smoke, target = main()
    print(f"distance after optimising: {objective(params, smoke, target):.5f}")
