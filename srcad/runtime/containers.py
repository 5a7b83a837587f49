"""Lists, tuples and dicts as values: the list methods in functional form (each returns
the list) with their adjoints, dict iteration, and the adjoints of list(x), tuple(x) and
np.array(x) of a list.

Their rules: srcad/rules/internal.py and helpers.py.
"""

import numpy as np

from .cotangents import add, zeros_like
from .shaping import items_like

__all__ = ["list_append", "list_pop", "list_insert", "list_pop_at", "list_extend", "list_unextend",
           "list_repeat", "list_unrepeat",
           "iter_items", "iter_adjoint", "dict_values", "dict_items", "dict_like",
           "items_cotangent", "sequence_adjoint", "array_adjoint", "sort_order",
           "list_permute", "list_unpermute", "named_tuple",
           "sparse_dot", "sparse_dot_t"]


def list_append(xs, v):
    """Append v to xs and return xs."""
    xs.append(v)
    return xs


def list_pop(xs):
    """Remove and return the last element of xs: (xs, element)."""
    v = xs.pop()
    return xs, v


def list_insert(xs, i, v):
    """Insert v at position i of xs and return xs."""
    xs.insert(i, v)
    return xs


def list_pop_at(xs, i):
    """Remove item i of xs: (xs, the item)."""
    v = xs.pop(i)
    return xs, v


def list_extend(xs, ys):
    """Extend xs by the items of ys and return xs."""
    xs.extend(ys)
    return xs


def list_unextend(c, ys):
    """The adjoint of xs.extend(ys): (the cotangents of xs's items, those of ys's items)."""
    k = len(c) - len(ys)
    part = c[k:]
    return list(c[:k]), (tuple(part) if isinstance(ys, tuple) else np.array(part) if isinstance(
        ys, np.ndarray) else list(part))


def list_repeat(x, n):
    """xs * n for a list xs (generated code writes it so; templates name it)."""
    return x * n


def list_unrepeat(c, x):
    """The adjoint of xs * n (a list repeated): the cotangents of the copies of each item, added."""
    k = len(x)
    out = list(c[:k])
    for i in range(k, len(c)):
        out[i % k] = add(out[i % k], c[i])
    return out


def iter_items(x):
    """What `for v in x` goes through, indexed by position: an array, list, tuple, range or
    string itself; anything else the tuple iterating it gives (a dict's keys, a pandas Series'
    values, whatever an object's __iter__ yields, a set's or an iterator's items)."""
    return x if type(x) in (list, tuple, range, str) or isinstance(x, np.ndarray) else tuple(x)


def iter_adjoint(c, x):
    """The adjoint of iter_items: a dict's keys carry no derivative (zeros for its values)."""
    return zeros_like(x) if isinstance(x, dict) else c


def named_tuple(cls, *items):
    """An object of the named tuple class cls, of these items (its fields in order)."""
    return cls(*items)


def sparse_dot(a, x):
    """a @ x of a scipy.sparse matrix (or array) a and an array x, as an ndarray."""
    return np.asarray(a @ x)


def sparse_dot_t(a, g):
    """a.T @ g: the adjoint of sparse_dot in x."""
    return np.asarray(a.T @ g)


def dict_values(d):
    return tuple(d.values())


def dict_items(d):
    return tuple(d.items())


def dict_like(d, values):
    """A dict with d's keys and these values: the cotangent of d.values()."""
    return dict(zip(d, values))


def items_cotangent(d, pairs):
    """The cotangent of d.items(): the value half of each (key, value) pair."""
    return dict(zip(d, (p[1] for p in pairs)))


def sequence_adjoint(c, x):
    """The adjoint of list(x) and tuple(x): the cotangents c of the items, in x's container
    (a list, a tuple, or an array of them for an array x: its rows)."""
    return tuple(c) if isinstance(x, tuple) else items_like(list(c), x)


def array_adjoint(g, x):
    """The adjoint of np.array(x) for x a (nested) list or tuple: g split the same way."""
    if isinstance(x, (list, tuple)):
        if isinstance(g, (float, int, np.number)) or type(g) is np.ndarray and g.ndim == 0:
            # a scalar cotangent (a zero) stands for the whole array
            return [array_adjoint(g, xi) for xi in x]
        return [array_adjoint(gi, xi) for gi, xi in zip(g, x)]
    if type(g) is np.ndarray and g.ndim == 0 and not isinstance(x, np.ndarray):
        return g[()]  # (a number's cotangent is a number: a 0-d array may be read-only: fuzz 20400:221)
    return g


def sort_order(keys, reverse=False):
    """The positions of keys in the order Python's stable sort puts them (sorted(xs, key=k)
    is [xs[i] for i in sort_order([k(x) for x in xs])], also with reverse=True)."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def list_permute(xs, order):
    """Put the items of xs in the given order (positions), in place (xs.sort()); returns xs."""
    xs[:] = [xs[i] for i in order]
    return xs


def list_unpermute(xs, order):
    """The inverse of list_permute, in place: item k goes back to position order[k]."""
    items = list(xs)
    for k, i in enumerate(order):
        xs[i] = items[k]
    return xs
