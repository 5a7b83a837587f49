"""Keep a robot arm's end effector on a plane, with srcad gradients.

A planar arm of three links (joint angles theta) is mounted on a base whose orientation is a
quaternion q. The end effector is the chain of sin/cos of the forward kinematics, rotated by
q into the world. The loss asks for

    the end effector on the plane z = 0.5:   (n . p - d)^2
    q a unit quaternion:                      (|q|^2 - 1)^2
    joints near their rest pose:              0.01 |theta - rest|^2

and gradient descent on (theta, q) with srcad.grad brings both constraint violations to ~0.
The gradient is checked against central finite differences.

    python examples/kinematic_constraint.py
"""

import math

import numpy as np

import srcad

LENGTHS = np.array([1.0, 0.8, 0.5])
NORMAL, OFFSET = np.array([0.0, 0.0, 1.0]), 0.5
REST = np.array([0.3, 0.5, -0.2])


def end_effector(theta, q, lengths):
    """World position of the tip: planar forward kinematics, then the base rotation R(q)."""
    x, y, phi = 0.0, 0.0, 0.0
    for i in range(len(theta)):
        phi = phi + theta[i]
        x = x + lengths[i] * math.cos(phi)
        y = y + lengths[i] * math.sin(phi)
    w, a, b, c = q[0], q[1], q[2], q[3]
    px = (1.0 - 2.0 * (b * b + c * c)) * x + 2.0 * (a * b - w * c) * y
    py = 2.0 * (a * b + w * c) * x + (1.0 - 2.0 * (a * a + c * c)) * y
    pz = 2.0 * (a * c - w * b) * x + 2.0 * (b * c + w * a) * y
    return px, py, pz


def plane_violation(theta, q):
    px, py, pz = end_effector(theta, q, LENGTHS)
    return NORMAL[0] * px + NORMAL[1] * py + NORMAL[2] * pz - OFFSET


def quaternion_violation(q):
    return np.dot(q, q) - 1.0


def loss(theta, q):
    return (plane_violation(theta, q) ** 2 + quaternion_violation(q) ** 2
            + 0.01 * np.sum((theta - REST) ** 2))


def central_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def gradient_error(dloss, theta, q):
    """max |srcad - finite differences| of both gradients at (theta, q)."""
    g_theta, g_q = dloss(theta, q)
    fd_theta = central_difference(lambda t: loss(t, q), theta)
    fd_q = central_difference(lambda u: loss(theta, u), q)
    return max(np.max(np.abs(g_theta - fd_theta)), np.max(np.abs(g_q - fd_q)))


def report(label, theta, q):
    print(f"{label}: theta = {np.round(theta, 4)}, q = {np.round(q, 4)}")
    print(f"    plane violation n.p - d = {plane_violation(theta, q):+.2e}, "
          f"|q|^2 - 1 = {quaternion_violation(q):+.2e}, loss = {loss(theta, q):.3e}")


def main():
    dloss = srcad.grad(loss, argnums=(0, 1))
    theta, q = REST.copy(), np.array([0.9, 0.2, 0.1, 0.3])
    report("before", theta, q)
    fd_before = gradient_error(dloss, theta, q)
    before = abs(plane_violation(theta, q)), abs(quaternion_violation(q))

    lr = 0.01  # larger steps oscillate: the loss is stiff in q
    for _ in range(300):
        g_theta, g_q = dloss(theta, q)
        theta, q = theta - lr * g_theta, q - lr * g_q
    report("after 300 steps of gradient descent", theta, q)
    fd_after = gradient_error(dloss, theta, q)
    after = abs(plane_violation(theta, q)), abs(quaternion_violation(q))

    print(f"max |srcad - finite differences|: {fd_before:.1e} before, {fd_after:.1e} after")
    ok = max(fd_before, fd_after) < 1e-7 and before[0] > 0.1 and max(after) < 1e-3
    print("check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
