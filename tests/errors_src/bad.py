"""Functions srcad must refuse, each with the line of the problem marked."""

import numpy as np


def many_problems(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    with open("f") as fh:
        pass
    global G
    G = x
    return y


def lambda_inside(x):
    f = lambda t: t * 2  # noqa: E731
    return f(x)


def yields(x):
    yield x * 2


def opaque(x):
    return CustomThing()(x)


class CustomThing(dict):  # (a dict's subclass: made when the code runs, a call without a rule)
    def __call__(self, x):
        return x


def mutates_arg(x):
    x[0] = 1.0
    return np.sum(x)


def alias_after_write(x):
    y = np.zeros(3)
    z = y  # an alias
    y[0] = x
    return np.sum(z) * x


def appends_to_arg(xs, x):
    xs.append(x)
    return x


def recursive(x, n):
    if n == 0:
        return x
    return recursive(x * 2.0, n - 1)


def view_then_write(x):
    y = x * 1.0
    v = y[0:2]
    y[0] = 5.0
    return np.sum(v) * np.sum(y)


def write_through_list(x):
    a = x * 2.0
    items = [a]
    e = items.pop()  # the very object a
    e[0] = 7.0
    return np.sum(a * e)


def unknown_kwarg(x):
    return np.std(x, where=x > 0)


def nested_def(x):
    def inner(t):
        return t * 2
    return inner(x)


def random_in_loss(x):
    return x * np.random.rand()  # inactive call: fine, no error


def hidden_add_at(x):
    np.add.at(x, [0, 0], 1.0)  # writes into the caller's array
    return np.sum(x * x)


def hidden_put(x):
    y = np.zeros(3)
    np.put(y, [0, 1, 2], x)
    return np.sum(y * x)


def complex_literal(x):
    return x * 2j


def samples_with_active_mean(mu):
    noise = np.random.normal(mu, 1.0)  # no derivative through a sampler's parameters
    return np.sum(noise ** 2)


def write_after_store(x):
    rows = []
    for i in range(2):
        row = np.zeros(2)
        rows.append(row)
        row[0] = x * i  # visible through rows: it holds this very row
    return np.sum(np.stack(rows))


def indexes_an_object(x):
    return np.sum(np.r_[x, 0:2] ** 2)


def dict_with_runtime_keys(x):
    out, names = {}, ["a", "b"]  # (a list with a name: its items may change before the loop)
    for k in names:
        out[k] = x * 2.0
    return out["a"] * out["b"]


def step_in_place(state, x):
    state.append(x)  # into the caller's list
    return state


def appends_into_initial_state(x):
    first = [1.0]
    state = first
    for i in range(3):
        state = step_in_place(state, x * i)
    return sum(state) + first[0] * len(first)


def fresh_list_written_after_store(x):
    history = []
    state = [x]
    for i in range(3):
        out = [state[0] * x]
        history.append(out)
        out.append(x * i)  # history holds this very list
        state = out
    return sum(history[0]) + state[0]
