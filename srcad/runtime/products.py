"""The adjoints of products: tensordot, kron, einsum (any ranks, broadcasting, the
sublist form) and 2-vector cross products.

srcad/rules/numpy_products.py and numpy_arrays.py call them (their rules: helpers.py).
"""

import numpy as np

from .contractions import einsum

__all__ = ["tensordot_adjoint", "kron_adjoint", "einsum_call", "einsum_spec", "einsum_vjp",
           "cross2_adjoint", "axis_sum"]


def axis_sum(c, axis):
    """np.sum(c, axis) of a float array, as its product with a vector of ones
    (passes/axis_sums.py): NumPy reduces over a short axis one short row at a time, which
    BLAS's matrix-vector product does 2-14x faster (a (10^4, 10) matrix: 300 µs against 40 µs;
    the last axis of a (10^4, 25, 10) array: 8 ms against 1.4 ms). An array of rank 3 or more
    is viewed as the matrix (or the stack of matrices, for a middle axis) its axis splits it
    into. Only the order of the additions differs. Arrays of other libraries, integer ones and
    strided views take np.sum."""
    if type(c) is not np.ndarray or c.ndim < 2 or c.dtype.kind != "f" or \
            (c.ndim > 2 and not c.flags.c_contiguous):
        return np.sum(c, axis=axis)
    axis %= c.ndim
    n, shape = c.shape[axis], c.shape[:axis] + c.shape[axis + 1:]
    ones = np.ones(n, c.dtype)
    if axis == 0:
        return (ones @ c.reshape(n, -1)).reshape(shape)
    if axis == c.ndim - 1:
        return (c.reshape(-1, n) @ ones).reshape(shape)
    return np.matmul(ones, c.reshape(-1, n, int(np.prod(c.shape[axis + 1:])))).reshape(shape)


def tensordot_adjoint(c, x, shape, axes, which):
    """The adjoint of np.tensordot(a, b, axes) with respect to a (which=0; x is b) or to b
    (which=1; x is a), for the cotangent c of the result; `shape` is the shape of the
    operand whose adjoint this is."""
    nds = (len(shape), np.ndim(x)) if which == 0 else (np.ndim(x), len(shape))
    if np.ndim(axes) == 0:
        ax_a, ax_b = list(range(nds[0] - axes, nds[0])), list(range(axes))
    else:
        ax_a, ax_b = ([int(v)] if np.ndim(v) == 0 else [int(u) for u in v] for v in axes)
        ax_a, ax_b = [v % nds[0] for v in ax_a], [v % nds[1] for v in ax_b]
    free_a = [d for d in range(nds[0]) if d not in ax_a]
    free_b = [d for d in range(nds[1]) if d not in ax_b]
    if which == 0:
        r = np.tensordot(c, x, axes=(list(range(len(free_a), len(free_a) + len(free_b))), free_b))
        order = free_a + [ax_a[ax_b.index(d)] for d in sorted(ax_b)]
    else:
        r = np.tensordot(x, c, axes=(free_a, list(range(len(free_a)))))
        order = [ax_b[ax_a.index(d)] for d in sorted(ax_a)] + free_b
    return np.transpose(r, np.argsort(order)) if order else r


def kron_adjoint(c, x, shape, which):
    """The adjoint of np.kron(a, b) with respect to a (which=0; x is b) or to b (which=1; x
    is a), for the cotangent c of the result; `shape` is the shape of the operand whose
    adjoint this is. Both are padded to the same rank with leading 1s, as np.kron does; c
    viewed with axes (a0, b0, a1, b1, ...) is contracted with x over x's axes."""
    sa, sb = (tuple(shape), np.shape(x)) if which == 0 else (np.shape(x), tuple(shape))
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    g = np.reshape(c, [d for pair in zip(pa, pb) for d in pair])
    axes = list(range(1, 2 * n, 2)) if which == 0 else list(range(0, 2 * n, 2))
    r = np.tensordot(g, np.reshape(x, pb if which == 0 else pa), axes=(axes, list(range(n))))
    return np.reshape(r, shape)


def einsum_call(subscripts, a, b=None, c=None, d=None, e=None, f=None):
    """np.einsum with one to six operands (None means absent)."""
    return einsum(subscripts, *[x for x in (a, b, c, d, e, f) if x is not None])


def einsum_spec(subscripts, a=None, b=None, c=None, d=None, e=None, f=None):
    """The subscripts of a call to np.einsum as a string: itself in the string form
    (np.einsum('ij,jk->ik', x, y)); built from the sublists in the sublist form
    (np.einsum(x, [0, 1], y, [1, 2], [0, 2]), operands at even positions)."""
    if isinstance(subscripts, str):
        return subscripts
    args = [x for x in (subscripts, a, b, c, d, e, f) if x is not None]
    def letters(sub):
        return "".join("..." if i is Ellipsis else _einsum_letters()[i] for i in sub)
    ins = ",".join(letters(args[i]) for i in range(1, len(args), 2))
    return ins + ("->" + letters(args[-1]) if len(args) % 2 else "")


def _einsum_letters():
    """The 52 subscript letters NumPy's einsum takes (sublist index i is letter i)."""
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_parse(subscripts, shapes):
    """Explicit subscripts: one string of letters per operand and for the output, '...'
    replaced by letters of their own for the broadcast dimensions (aligned on the right)."""
    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    ins = ins.split(",")
    named = [t.replace("...", "") for t in ins]
    spare = [ch for ch in _einsum_letters() if ch not in spec]
    nell = max([len(s) - len(n) for t, n, s in zip(ins, named, shapes) if "..." in t] or [0])
    ell = "".join(spare[:nell])
    if not arrow:  # implicit output: the broadcast dimensions, then letters used once, sorted
        joined = "".join(named)
        once = sorted(ch for ch in set(joined) if joined.count(ch) == 1)
        out = "..." * ("..." in spec) + "".join(once)
    ins = [t.replace("...", ell[nell - (len(s) - len(n)):]) for t, n, s in zip(ins, named, shapes)]
    return ins, out.replace("...", ell)


def einsum_vjp(subscripts, k, h, a, b=None, c=None, d=None, e=None, f=None):
    """The adjoint of np.einsum(subscripts, a, b, ...) with respect to operand k, for the
    cotangent h of the result. Operand k is passed as its shape (a tuple). An index NumPy
    broadcast (length 1 in operand k, longer elsewhere) is summed over."""
    ops = [x for x in (a, b, c, d, e, f) if x is not None]
    shapes = [tuple(x) if i == k else np.shape(x) for i, x in enumerate(ops)]
    ins, out = _einsum_parse(subscripts, shapes)
    target = ins[k]
    unique = "".join(dict.fromkeys(target))
    others = [t for i, t in enumerate(ins) if i != k]
    present = set(out).union(*others)
    kept = "".join(ch for ch in unique if ch in present)
    rest = [x for i, x in enumerate(ops) if i != k]
    r = einsum(",".join([out] + others) + "->" + kept, h, *rest)
    dims = dict(zip(target, shapes[k]))
    wide = tuple(i for i, ch in enumerate(kept) if dims[ch] == 1 and np.shape(r)[i] != 1)
    if wide:  # broadcast by einsum: every position used the one element
        r = np.sum(r, axis=wide, keepdims=True)
    r = np.reshape(r, [np.shape(r)[kept.index(ch)] if ch in kept else 1 for ch in unique])
    r = np.broadcast_to(r, [dims[ch] for ch in unique])
    if len(unique) == len(target):
        if unique == target:
            return np.array(r)
        return np.transpose(r, [unique.index(ch) for ch in target])
    result = np.zeros(shapes[k])
    grid = np.indices([dims[ch] for ch in unique], sparse=True)
    result[tuple(grid[unique.index(ch)] for ch in target)] = r
    return result


def cross2_adjoint(c, o, which):
    """The adjoint of np.cross for 2-vectors (result a0 b1 - a1 b0) in operand `which` (0 for
    a, 1 for b), with o the other operand and c the cotangent of the result."""
    c = np.asarray(c, dtype=float)[..., None]
    o = np.asarray(o, dtype=float)
    return (1 - 2 * which) * np.concatenate([c * o[..., 1:2], -c * o[..., 0:1]], axis=-1)
