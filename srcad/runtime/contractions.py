"""np.einsum of two NumPy arrays as one batched matrix product (np.matmul), as JAX lowers
einsum to dot_general: the letters both operands and the result share are the batch, those
both operands share and the result drops are contracted, the rest are free rows and columns.

NumPy's einsum without `optimize` runs its own loop over the whole index space, which for a
batch index is 5-10x slower than BLAS (the GMM's 'ijk,mik->mij' of (25, 10, 10) and
(10^4, 25, 10) arrays: 52 ms against 6 ms); with `optimize=True` it finds the product too,
but spends ~15-30 µs choosing a path on every call. Only the order of the additions differs
from np.einsum's. Anything else (one or three operands, '...', a letter repeated within an
operand, sizes that broadcast, other array types, small index spaces, a batch of dot products
('ij,ij->i') is np.einsum itself.
"""

import numpy as np

__all__ = ["einsum"]


def einsum(*operands, **kw):
    """np.einsum(*operands, **kw); two NumPy arrays in the string form go through np.matmul."""
    if kw or len(operands) != 3 or not isinstance(operands[0], str) \
            or not all(type(x) is np.ndarray and x.dtype.kind in "fc" for x in operands[1:]):
        return np.einsum(*operands, **kw)
    plan = _plan(operands[0], operands[1].shape, operands[2].shape)
    if plan is None:
        return np.einsum(*operands)
    return _product(plan, operands[1], operands[2])


def _split(spec: str):
    """(the first operand's letters, the second's, the result's) or None."""
    spec = spec.replace(" ", "")
    if "." in spec:
        return None
    ins, arrow, out = spec.partition("->")
    parts = ins.split(",")
    if len(parts) != 2:
        return None
    a, b = parts
    if not arrow:
        letters = a + b
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return a, b, out


def _plan(spec: str, sa: tuple, sb: tuple, small: int = 256, known={}):  # noqa: B006 (a cache)
    """How to compute spec on operands of shapes sa and sb by np.matmul, or None (below
    `small` points of the index space, np.einsum's own loop is as fast as the transposes and
    the product: a few µs either way). Remembered in `known` (a default: the helpers are
    copied into standalone modules function by function)."""
    key = (spec, sa, sb, small)
    if key not in known:
        if len(known) > 512:
            known.clear()
        known[key] = _new_plan(spec, sa, sb, small)
    return known[key]


def _new_plan(spec: str, sa: tuple, sb: tuple, small: int):
    split = _split(spec)
    if split is None:
        return None
    a, b, out = split
    if len(set(a)) != len(a) or len(set(b)) != len(b) or len(set(out)) != len(out) \
            or len(a) != len(sa) or len(b) != len(sb) or not out or not set(out) <= set(a + b):
        return None
    dims = dict(zip(a, sa))
    for ch, n in zip(b, sb):
        if dims.setdefault(ch, n) != n:
            return None  # (a length-1 axis NumPy broadcasts: its own rules)
    if int(np.prod(list(dims.values()))) < small:
        return None
    batch = [c for c in out if c in a and c in b]
    rows = [c for c in out if c in a and c not in b]
    cols = [c for c in out if c in b and c not in a]
    inner = [c for c in a if c in b and c not in out]
    if not (rows or cols):
        return None  # (products summed along rows: np.einsum's own loop is faster than a batch of dots)
    only_a = tuple(i for i, c in enumerate(a) if c not in b and c not in out)
    only_b = tuple(i for i, c in enumerate(b) if c not in a and c not in out)
    ka = [c for c in a if c in b or c in out]  # (the letters left after those sums)
    kb = [c for c in b if c in a or c in out]
    size = [int(np.prod([dims[c] for c in g])) for g in (batch, rows, inner, cols)]
    order = batch + rows + cols
    return (only_a, only_b, tuple(ka.index(c) for c in batch + rows + inner),
            tuple(kb.index(c) for c in batch + inner + cols), tuple(size),
            tuple(dims[c] for c in order), tuple(order.index(c) for c in out))


def _product(plan, x, y):
    only_a, only_b, perm_a, perm_b, (nb, nr, ni, nc), shape, perm_out = plan
    if only_a:  # (a letter of one operand alone: summed before the product)
        x = np.sum(x, axis=only_a)
    if only_b:
        y = np.sum(y, axis=only_b)
    lhs = x.transpose(perm_a).reshape((nb, nr, ni))
    rhs = y.transpose(perm_b).reshape((nb, ni, nc))
    return np.matmul(lhs, rhs).reshape(shape).transpose(perm_out)
