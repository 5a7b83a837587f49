"""Loops, indexing, mutation of local arrays, and local lists."""

import math

import numpy as np


def range_args(x, n, k):
    s = 0.0
    for i in range(k, n + k, 2):
        s = s + math.sin(x * i)
    for j in range(n - 1, -1, -1):
        s = s * 0.9 + x / (j + 1)
    return s


def rows(X, w):
    total = 0.0
    for row in X:
        total = total + np.tanh(np.dot(row, w))
    return total


def over_list_and_tuple(x):
    s = 0.0
    for c in [1.0, 2.0, 3.0]:
        s = s + c * x
    for a, b in ((1.0, 2.0), (3.0, 4.0)):
        s = s * a + b * math.cos(x)
    return s


def enumerate_zip(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + (i + 1) * a * b
    for k, v in enumerate(x, 1):
        s = s + k * v ** 2
    return s


def newton_sqrt(a):
    # x converges to sqrt(a): a while loop whose condition reads differentiated values
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def break_continue(x):
    s = 0.0
    for i in range(20):
        if i % 3 == 0:
            continue
        s = s + math.sin(x * i)
        if s > 1.5:
            break
    return s


def return_in_loop(x):
    s = x
    for i in range(10):
        s = s * 1.2 + 0.1
        if s > 3.0:
            return s * x
    return -s


def nested(x, n):
    s = 0.0
    for i in range(n):
        t = x * i
        for j in range(i):
            t = t * 0.5 + math.cos(x + j)
        s = s + t
    return s


def carried_array(x):
    h = np.zeros(3)
    for k in range(4):
        h = np.tanh(h * 0.5 + x * (k + 1))
    return np.sum(h)


def carried_tuple(x):
    state = (x, 0.0)
    for _ in range(5):
        p, v = state
        state = (p + 0.1 * v, v - 0.1 * math.sin(p))
    return state[0] * state[1]


def swap_loop(a, b):
    for _ in range(3):
        a, b = b, a * b + 1.0
    return a + 2.0 * b


def indexing(x, M):
    return (x[0] * x[-1] + np.sum(x[::2]) + np.sum(x[1:-1] ** 2) + M[1, 2] * M[0, 0]
            + np.sum(M[:, 0]) + np.sum(M[1]) + np.sum(x[np.array([0, 0, 2])]) + np.sum(x[x > 0.0]))


def fill_loop(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] ** 2 + x[i - 1]
    return np.sum(y * x)


def slice_updates(x):
    z = x.copy()
    z[0] = z[1] * 3.0
    z[1:3] += x[2:4] * 2.0
    z[-1] *= z[0]
    return np.sum(z * z)


def row_writes(x):
    out = np.zeros((3, len(x)))
    for k in range(3):
        out[k] = x * (k + 1.0) + out[k - 1]
        out[k, 0] = out[k, 0] * 2.0
    return np.sum(out ** 2)


def local_lists(x):
    xs = []
    for i in range(4):
        xs.append(x * i + math.sin(x))
    total = sum(xs) + xs[2] * len(xs) + xs[-1]
    ys = [v * v for v in xs if v > 0.0]
    return total + sum(ys)


def list_of_arrays(x):
    rows = []
    for k in range(3):
        rows.append(np.sin(x * (k + 1)))
    m = np.stack(rows)
    c = np.concatenate([x, rows[1]])
    a = np.array(rows)
    return np.sum(m * m) + np.sum(c) + np.sum(a[2])


def pair(a, b):
    return a * b, a + b


def tuple_helper_in_loop(x):
    s, t = x, 1.0
    for _ in range(3):
        s, t = pair(s, t)
    return s + t


def recursion_by_depth(x, depth):
    s = x
    for _ in range(depth):
        s = math.tanh(s) + x
    return s


def while_counter(x):
    i = 0
    s = x
    while i < 5:
        s = s * s * 0.5 + 0.1
        i += 1
    return s


def ode_euler(k, y0):
    y = y0
    t = 0.0
    dt = 0.01
    for _ in range(200):
        y = y + dt * (-k * y + math.sin(t) * math.exp(-0.1 * t))
        t += dt
    return y


def rnn_cell(W, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])  # the adjoint reads h before and after the step
    return np.sum(h * h)


def chained_while(x):
    y = x
    k = 0
    while k < 4:
        y = math.exp(-y * y) + 0.5 * y
        k += 1
    return y


def view_of_carried(X):
    s = 0.0
    for i in range(X.shape[0]):
        X = X * 0.9
        s = s + np.sum(np.sin(X[i]) * X[0])
    return s


def fresh_buffer_each_step(u0):
    u = u0
    for _ in range(3):
        v = np.zeros(3)  # a new array every iteration, written, then carried
        v[0] = 2.0 * u[0] + u[2]
        v[1:] = u[:2] * u[1:]
        u = v
    return np.sum(u * u)


def rebuilt_from_entries(z):
    for _ in range(2):
        z = z + np.array([z[0] * z[1], z[1] * z[1]])
    return np.sum(z * z)


def stencil_in_place(u0, k):
    u = u0.copy()
    for _ in range(3):
        u[1:] = u[1:] + k * u[:-1] * u[1:]
    return np.sum(u * u)


def rows_and_builtin_sum(X):
    s = 0.0
    for row in X:
        s = s + np.sum(row * row)
    return s + sum(X)[0] * 2.0  # sum's adjoint is a read-only broadcast, then rows add to it


def rows_built_then_stored(x):
    rows = []
    for i in range(3):
        row = np.zeros(2)  # a new row each iteration, filled, then stored
        row[0] = x[0] * i
        row[1] = x[1] + i * x[0]
        rows.append(row)
    table = []
    for i in range(2):
        cells = []
        for j in range(2):
            cells.append(x[i] * x[j])
        table.append(cells)
    return np.sum(np.stack(rows) ** 2) + table[0][1] * table[1][1]


def enumerate_from_one(x):
    s = 0.0
    for k, v in enumerate(x, start=1):
        s = s + k * v * v
    return s


def assemble_with_add_at(x):
    K = np.zeros(4)
    for e in range(3):  # element e touches nodes e and e + 1 (node 1 and 2 twice)
        np.add.at(K, [e, e + 1], x[e] * np.array([1.0, -1.0]))
    np.add.at(K, [0, 0, 3], x)  # a repeated index adds twice, as in NumPy
    return np.sum(K * K * np.arange(1.0, 5.0))


def list_slices_and_starred(x):
    xs = [x[0], x[1] * 2.0, x[2], x[0] * x[1]]
    first, *mid, last = xs
    a, *rest = x
    tail = xs[1:3]
    return first * last + sum(mid) + sum(tail) * a + np.sum(np.array(rest) ** 2)


def reversed_ranges(x):
    s, w = 0.0, 1.0
    for i in reversed(range(len(x))):
        s = s + w * x[i] * x[i]
        w = w * 1.5
    for i in reversed(range(1, len(x), 2)):
        s = s * x[i] + 1.0
    for i in reversed(range(len(x))):
        if x[i] > 0.9:  # leaves after a data-dependent number of steps
            break
        s = s + np.sin(x[i]) * (i + 1)
    return s


def extended_list(x):
    ys = [x[0] * 2.0]
    ys.extend([x[1], x[2] * x[0]])
    ys.extend((x[1] * 3.0,))
    ys.insert(1, x[0] * x[2])
    first = ys.pop(0)
    s = first * ys.pop(2)
    for y in ys:
        s = s + y * y
    return s + ys[2] * ys[1]


# a carried variable overwritten on every iteration by a value not computed from it: its
# tangent after the loop is the last iteration's, not the (zero) tangent it started with
def overwritten_each_step(x, n):
    s = 0.0
    for i in range(n):
        s = x
        s = s * s
    return s


def overwritten_in_while(x):
    s = 0.0
    k = 0
    while k < 3:
        s = x * 2.0
        s = s * s
        k += 1
    return s


def overwritten_in_nested_loops(x, n):
    s = 0.0
    for i in range(n):
        for j in range(n):
            s = math.sin(x) * j
    return s


def overwritten_in_branches(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s = x * 3.0
        else:
            s = x * x
    return s


def overwritten_array(x, n):
    s = np.zeros(3)
    for i in range(n):
        s = x * x
    return np.sum(s * x)


# a variable first assigned inside a loop and read after it (unbound before the loop):
# layers of different shapes, so its zero cotangent takes the shape of its stored value
def mlp_last_preactivation(params, inputs):
    for W, b in params:
        outputs = inputs @ W + b
        inputs = np.tanh(outputs)
    return np.sum(outputs)


def mlp_dict_layers(inputs, layers):
    for layer in layers:
        pre = inputs @ layer["W"]
        inputs = np.tanh(pre) * layer["s"]
    return np.sum(pre * pre) + np.sum(inputs)


def last_in_while(x, m):
    k = 0
    h = x
    while k < m:
        last = np.ones(3 - k) * np.sum(h)
        h = np.sin(last)
        k += 1
    return np.sum(last) + np.sum(h)


def last_in_nested_loops(x, m):
    h = x
    for n in range(m, 0, -2):
        for j in range(2):
            z = np.ones(n) * np.sum(h) * (j + 1)
            h = np.tanh(z)
    return np.sum(z * z)


def last_before_break(x, m):
    h = x
    for n in range(2, m):
        z = np.ones(n) * np.sum(h)
        h = np.cos(z)
        if n > 2:
            break
    return np.sum(z) * np.sum(h)


def comprehension_each_step(x):
    s = 0.0
    for i in range(3):
        ys = [x * j for j in range(i + 1)]  # a new list per step, filled in place, then stored
        s = s + sum(ys) * x
    return s


rng = np.random.default_rng(2)
V = rng.normal(size=4)

CASES = [
    (range_args, (0.3, 4, 1)),
    (rows, (rng.normal(size=(3, 2)), rng.normal(size=2))),
    (over_list_and_tuple, (0.4,)),
    (enumerate_zip, (V, rng.normal(size=4))),
    (newton_sqrt, (2.0,)),
    (break_continue, (0.4,)),
    (break_continue, (0.05,)),
    (return_in_loop, (0.5,)),
    (return_in_loop, (-0.5,)),
    (nested, (0.3, 4)),
    (carried_array, (rng.normal(size=3),)),
    (carried_tuple, (0.7,)),
    (swap_loop, (0.5, 0.3)),
    (indexing, (V, rng.normal(size=(2, 3)))),
    (fill_loop, (V,)),
    (slice_updates, (V,)),
    (row_writes, (rng.normal(size=3),)),
    (local_lists, (0.6,)),
    (list_of_arrays, (rng.normal(size=3),)),
    (tuple_helper_in_loop, (0.4,)),
    (recursion_by_depth, (0.3, 3)),
    (while_counter, (0.9,)),
    (ode_euler, (0.7, 1.3)),
    (rnn_cell, (rng.normal(size=(3, 3)) * 0.6, rng.normal(size=(3, 2)), rng.normal(size=(4, 3, 2)))),
    (chained_while, (0.8,)),
    (view_of_carried, (rng.normal(size=(3, 2)),)),
    (fresh_buffer_each_step, (rng.normal(size=3),)),
    (rebuilt_from_entries, (rng.uniform(0.2, 0.6, size=2),)),
    (stencil_in_place, (rng.normal(size=4), 0.3)),
    (rows_and_builtin_sum, (rng.normal(size=(2, 3)),)),
    (rows_built_then_stored, (rng.normal(size=2),)),
    (enumerate_from_one, (rng.normal(size=3),)),
    (assemble_with_add_at, (rng.normal(size=3),)),
    (list_slices_and_starred, (rng.normal(size=3),)),
    (reversed_ranges, (np.array([0.3, 1.2, 0.5, -0.4, 0.7]),)),
    (extended_list, (rng.normal(size=3),)),
    (overwritten_each_step, (1.5, 3)),
    (overwritten_in_while, (0.7,)),
    (overwritten_in_nested_loops, (0.4, 3)),
    (overwritten_in_branches, (0.6, 3)),
    (overwritten_in_branches, (0.6, 4)),
    (overwritten_array, (rng.normal(size=3), 2)),
    (mlp_last_preactivation, ([(rng.normal(size=(3, 4)), rng.normal(size=4)),
                               (rng.normal(size=(4, 2)), rng.normal(size=2))], rng.normal(size=(5, 3)))),
    (mlp_dict_layers, (rng.normal(size=(2, 3)), [{"W": rng.normal(size=(3, 4)), "s": 0.5},
                                                 {"W": rng.normal(size=(4, 2)), "s": 1.5}])),
    (last_in_while, (rng.normal(size=2) * 0.3, 3)),
    (last_in_nested_loops, (rng.normal(size=2) * 0.3, 3)),
    (last_before_break, (rng.normal(size=2) * 0.3, 5)),
    (comprehension_each_step, (0.7,)),
]
