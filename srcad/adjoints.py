"""Run-time helpers of particular rules: derivatives that are exact where the textbook
formula divides by zero (prod and cumprod at zeros, to second order; x ** y at x = 0), the
adjoints of 2-vector cross products, of repeated fancy-index writes, of kron and einsum
(any ranks, broadcasting, the sublist form) and of list(x) / tuple(x), the triangle that
eigh and cholesky read, dict iteration, and the weights of trapezoid quadrature,
polynomial evaluation and linear interpolation.

Part of srcad.runtime (which re-exports every name here): generated code calls them, and
`srcad codegen` copies them into standalone modules.
"""

import numpy as np


def log_or_zero(x):
    """log(x), and 0 where x is 0: the factor in d(x ** y)/dy = x ** y * log(x), whose
    limit at x = 0 (for y > 0) is 0, not 0 * -inf."""
    if isinstance(x, np.ndarray):
        return np.log(np.where(x == 0.0, 1.0, x))
    return float(np.log(x)) if x != 0.0 else 0.0


def cross2_adjoint(c, o, which):
    """The adjoint of np.cross for 2-vectors (result a0 b1 - a1 b0) in operand `which` (0 for
    a, 1 for b), with o the other operand and c the cotangent of the result."""
    c = np.asarray(c, dtype=float)[..., None]
    o = np.asarray(o, dtype=float)
    return (1 - 2 * which) * np.concatenate([c * o[..., 1:2], -c * o[..., 0:1]], axis=-1)


def write_winners(x, idx):
    """For `x[idx] = v`: which selected positions keep their value. An index that repeats
    (x[[0, 0]] = v) keeps only its last write, so only that entry of v has a derivative."""
    keys = idx if isinstance(idx, tuple) else (idx,)
    if not isinstance(x, np.ndarray) or all(
            isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in keys):
        return True  # (a dict key or list index names one item)
    shape = np.shape(np.asarray(x)[idx])
    ids = np.arange(int(np.prod(shape))).reshape(shape)
    last = np.zeros(np.shape(x), dtype=np.intp)
    last[idx] = ids
    return last[idx] == ids


def _cumprod_parts(a, axis):
    """a with its reduced axis last (flattened for axis=None), and per position: before the
    first 0 of its row, at that first 0, and the products with that 0 taken as 1."""
    a2 = _cumulative(a, axis)
    zero = a2 == 0.0
    seen = np.cumsum(zero, axis=-1)
    before, first = seen == 0, zero & (seen == 1)
    return np.where(first, 1.0, a2), before, first


def _cumprod_back(out, a, axis):
    if axis is None or np.ndim(a) == 0:
        return np.reshape(out, np.shape(a))
    return np.moveaxis(out, -1, axis)


def cumprod_adjoint(c, a, axis=None):
    """The adjoint of np.cumprod(a, axis) for the cotangent c, exact where elements are 0:
    an element before the first 0 of its row gets sum_i c_i ans_i / a_k over the products
    before that 0, the first 0 gets the products with it taken as 1, later ones get 0."""
    a1, before, first = _cumprod_parts(a, axis)
    c2 = _cumulative(c, axis if np.ndim(a) else None)
    cp = c2 * np.cumprod(a1, axis=-1)
    tail = np.flip(np.cumsum(np.flip(np.where(before, cp, 0.0), -1), axis=-1), -1)
    out = np.where(before, tail / np.where(before, a1, 1.0), 0.0)
    out = np.where(first, np.sum(np.where(before, 0.0, cp), axis=-1, keepdims=True), out)
    return _cumprod_back(out, a, axis)


def cumprod_tangent(v, a, axis=None):
    """The tangent of np.cumprod(a, axis) along v, exact where elements are 0."""
    a1, before, first = _cumprod_parts(a, axis)
    v2 = _cumulative(np.broadcast_to(v, np.shape(a)), axis if np.ndim(a) else None)
    p = np.cumprod(a1, axis=-1)
    inside = p * np.cumsum(np.where(before, v2 / np.where(before, a1, 1.0), 0.0), axis=-1)
    out = np.where(before, inside, np.sum(np.where(first, v2, 0.0), axis=-1, keepdims=True) * p)
    return out if axis is None or np.ndim(a) == 0 else np.moveaxis(out, -1, axis)


def from_triangle(x, upper=False):
    """The symmetric matrices np.linalg.eigh, eigvalsh and cholesky read from x: its lower
    (upper) triangle, mirrored. (The other triangle of x is never read.)"""
    x = np.asarray(x, dtype=float)
    if upper:
        return np.triu(x) + np.swapaxes(np.triu(x, 1), -1, -2)
    return np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)


def to_triangle(c, upper=False):
    """The adjoint of from_triangle: in the triangle read, c plus its transpose off the
    diagonal (an element there stands for two), c on the diagonal; zeros elsewhere."""
    c = np.asarray(c, dtype=float)
    if upper:
        return np.triu(c) + np.triu(np.swapaxes(c, -1, -2), 1)
    return np.tril(c) + np.tril(np.swapaxes(c, -1, -2), -1)


def sequence_adjoint(c, x):
    """The adjoint of list(x) and tuple(x): the cotangents c of the items, in x's container
    (a list, a tuple, or an array of them for an array x: its rows)."""
    if isinstance(x, np.ndarray):
        return np.reshape(np.array(c, dtype=float), np.shape(x))
    return tuple(c) if isinstance(x, tuple) else list(c)


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


def einsum_call(subscripts, a, b=None, c=None):
    """np.einsum with one, two or three operands (None means absent)."""
    return np.einsum(subscripts, *[x for x in (a, b, c) if x is not None])


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


def einsum_vjp(subscripts, k, h, a, b=None, c=None):
    """The adjoint of np.einsum(subscripts, a, b, c) with respect to operand k, for the
    cotangent h of the result. Operand k is passed as its shape (a tuple). An index NumPy
    broadcast (length 1 in operand k, longer elsewhere) is summed over."""
    ops = [x for x in (a, b, c) if x is not None]
    shapes = [tuple(x) if i == k else np.shape(x) for i, x in enumerate(ops)]
    ins, out = _einsum_parse(subscripts, shapes)
    target = ins[k]
    unique = "".join(dict.fromkeys(target))
    others = [t for i, t in enumerate(ins) if i != k]
    present = set(out).union(*others)
    kept = "".join(ch for ch in unique if ch in present)
    rest = [x for i, x in enumerate(ops) if i != k]
    r = np.einsum(",".join([out] + others) + "->" + kept, h, *rest)
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


def _grouped(a, axis):
    """a as an array (..., n) whose last axis runs over each group that np.prod(a, axis)
    multiplies, and a function that puts an array of that form back into the shape of a."""
    a = np.asarray(a, dtype=float)
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        ax % a.ndim for ax in (axis if isinstance(axis, tuple) else (axis,)))
    last = tuple(range(a.ndim - len(axes), a.ndim))
    moved = np.moveaxis(a, axes, last)
    flat = moved.reshape(moved.shape[:a.ndim - len(axes)] + (-1,))
    return flat, lambda r: np.moveaxis(np.reshape(r, moved.shape), last, axes)


def prod_partials(a, axis=None):
    """d prod(a, axis) / d a: per element, the product of the other elements of its group.
    Exclusive cumulative products from both ends, so exact where elements are 0 (ans / a
    would divide 0 by 0)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.ones_like(a)
    flat, back = _grouped(a, axis)
    one = np.ones_like(flat[..., :1])
    left = np.cumprod(np.concatenate([one, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([one, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return back(left * right)


def prod_hvp(v, a, axis=None):
    """The Hessian of np.prod(a, axis) times v: per element i, the sum over the other
    elements k of its group of v_k times the product of the elements other than i and k.
    Exact where elements are 0: with b = a with its zeros taken as 1 and q the product of b,
    that product is q / (b_i b_k) where the zeros of the group are among i and k, else 0."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0 or a.size == 0:
        return np.zeros(np.shape(a))
    flat, back = _grouped(a, axis)
    vf = _grouped(np.broadcast_to(v, a.shape), axis)[0]
    zero = flat == 0.0
    b = np.where(zero, 1.0, flat)
    w = np.where(zero, 0.0, vf / b)
    nz = np.sum(zero, axis=-1, keepdims=True)
    q = np.prod(b, axis=-1, keepdims=True)
    s = np.sum(w, axis=-1, keepdims=True)  # sum of v_k / a_k over the nonzero elements
    vz = np.sum(np.where(zero, vf, 0.0), axis=-1, keepdims=True)  # sum of v at the zeros
    none = q / b * (s - w)  # no zero in the group
    one = np.where(zero, q * s, q * vz / b)  # one zero: at it, all the others; elsewhere just it
    two = np.where(zero, q * (vz - vf), 0.0)  # two zeros: only the pair of them
    return back(np.where(nz == 0, none, np.where(nz == 1, one, np.where(nz == 2, two, 0.0))))


def _cumulative(x, axis):
    """x with its cumulative axis last (flattened for axis=None, and for a 0-d x as NumPy does)."""
    if axis is None or np.ndim(x) == 0:
        return np.ravel(x).astype(float)
    return np.moveaxis(np.asarray(x, dtype=float), axis, -1)


def _rcs_last(x):
    """Sums from the end along the last axis (the adjoint of a cumulative sum)."""
    return np.flip(np.cumsum(np.flip(x, -1), axis=-1), -1)


def _cumprod_zeros(a, axis):
    """For the second derivatives of np.cumprod(a, axis), along its axis (last): a with its
    zeros taken as 1, the zero mask, how many zeros up to each position (inclusive) and the
    cumulative products of the first."""
    a2 = _cumulative(a, axis)
    zero = a2 == 0.0
    b = np.where(zero, 1.0, a2)
    return b, zero, np.cumsum(zero, axis=-1), np.cumprod(b, axis=-1)


def cumprod_hvp(v, u, a, axis=None):
    """The second derivative of np.cumprod(a, axis) along v and u: per position i, the sum
    over k != l up to i of v_k u_l times the product of the elements up to i other than k and
    l (exact where elements are 0: among the zeros up to i, each must be k or l)."""
    b, zero, count, q = _cumprod_zeros(a, axis)
    vf = _cumulative(np.broadcast_to(v, np.shape(a)), axis)
    uf = _cumulative(np.broadcast_to(u, np.shape(a)), axis)
    w, x = np.where(zero, 0.0, vf / b), np.where(zero, 0.0, uf / b)
    cw, cx = np.cumsum(w, axis=-1), np.cumsum(x, axis=-1)
    v1, u1 = (np.cumsum(np.where(zero & (count == 1), f, 0.0), axis=-1) for f in (vf, uf))
    v2, u2 = (np.cumsum(np.where(zero & (count == 2), f, 0.0), axis=-1) for f in (vf, uf))
    two = np.where(count == 2, v1 * u2 + v2 * u1, 0.0)
    out = q * np.where(count == 0, cw * cx - np.cumsum(w * x, axis=-1),
                       np.where(count == 1, v1 * cx + u1 * cw, two))
    return out if axis is None or np.ndim(a) == 0 else np.moveaxis(out, -1, axis)


def cumprod_hvp_adjoint(c, v, a, axis=None):
    """The adjoint of u -> cumprod_hvp(v, u, a, axis) for the cotangent c: per position l,
    the sum over i >= l of c_i times the sum over k != l up to i of v_k times the product of
    the elements up to i other than k and l (exact where elements are 0)."""
    b, zero, count, q = _cumprod_zeros(a, axis)
    vf = _cumulative(np.broadcast_to(v, np.shape(a)), axis)
    cq = _cumulative(c, axis if np.ndim(a) else None) * q
    w = np.where(zero, 0.0, vf / b)
    cw = np.cumsum(w, axis=-1)
    tail = [_rcs_last(np.where(count == r, cq, 0.0)) for r in (0, 1, 2)]  # by number of zeros
    tail_w = [_rcs_last(np.where(count == r, cq * cw, 0.0)) for r in (0, 1)]
    v1 = np.sum(np.where(zero & (count == 1), vf, 0.0), axis=-1, keepdims=True)
    v2 = np.sum(np.where(zero & (count == 2), vf, 0.0), axis=-1, keepdims=True)
    second = np.where(count == 2, v1 * tail[2], 0.0)  # at the second zero
    at_zero = np.where(count == 1, tail_w[1] + v2 * tail[2], second)
    out = np.where(~zero, (tail_w[0] - w * tail[0] + v1 * tail[1]) / b, at_zero)
    return _cumprod_back(out, a, axis)


def trapezoid_weights(y, x=None, dx=1.0, axis=-1):
    """d np.trapezoid(y, x, dx, axis) / d y: the quadrature weight of each sample (half of
    each neighbouring interval), shaped to broadcast against y along `axis`."""
    n = np.shape(y)[axis]
    if x is None:
        h = np.full(n - 1, float(dx))
    elif np.ndim(x) == 1:
        h = np.diff(np.asarray(x, dtype=float))
    else:
        raise ValueError("srcad: the derivative of np.trapezoid takes 1-d sample points x")
    w = np.zeros(n)
    w[:-1] += h / 2.0
    w[1:] += h / 2.0
    return _along(w, np.ndim(y), axis)


def _along(w, ndim, axis):
    """A 1-d array shaped to lie along `axis` of an ndim-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(w, shape)


def polyval_adjoint(c, p, x):
    """The adjoint of np.polyval(p, x) in the coefficients p: sum of c * x ** power."""
    x = np.asarray(x, dtype=float)
    powers = np.arange(np.size(p) - 1, -1, -1)
    return np.sum(np.asarray(c, dtype=float)[..., None] * x[..., None] ** powers,
                  axis=tuple(range(x.ndim)))


def interp_weights(x, xp):
    """For np.interp(x, xp, fp): the index of each x's interval and its weight on the right
    end (x outside xp takes the end value: weight 0 or 1 on that end)."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    w = np.clip((x - xp[i]) / (xp[i + 1] - xp[i]), 0.0, 1.0)
    return i, w


def interp_fp_adjoint(c, x, xp):
    """The adjoint of np.interp(x, xp, fp) in fp."""
    i, w = interp_weights(x, xp)
    c = np.broadcast_to(np.asarray(c, dtype=float), np.shape(w))
    out = np.zeros(len(xp))
    np.add.at(out, i, np.where(w == 1.0, 0.0, c * (1.0 - w)))  # (never 0 * inf)
    np.add.at(out, i + 1, np.where(w == 0.0, 0.0, c * w))
    return out


def interp_slope(x, xp, fp):
    """d np.interp(x, xp, fp) / d x: the slope of x's interval (0 outside xp's range)."""
    x = np.asarray(x, dtype=float)
    xp, fp = np.asarray(xp, dtype=float), np.asarray(fp, dtype=float)
    i, _ = interp_weights(x, xp)
    slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
    return np.where((x < xp[0]) | (x > xp[-1]), 0.0, slope)


def interp_slope_adjoint(c, x, xp):
    """The adjoint of interp_slope(x, xp, fp) in fp: each slope is (fp[i+1] - fp[i]) / h_i."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    i, _ = interp_weights(x, xp)
    inside = ~((x < xp[0]) | (x > xp[-1]))
    c = np.where(inside, np.broadcast_to(np.asarray(c, dtype=float), np.shape(x)), 0.0) / (xp[i + 1] - xp[i])
    out = np.zeros(len(xp))
    np.add.at(out, i + 1, c)
    np.add.at(out, i, -c)
    return out


def tie_div(num, d, tol):
    """num / d, where d is a difference (or sum) of eigenvalues or singular values; where
    |d| <= tol (values equal up to rounding) the quotient is 0 where num is 0 and NaN
    elsewhere: a derivative that needs the vectors of a repeated value is not defined."""
    tie = np.abs(d) <= tol
    return np.where(tie, np.where(num == 0.0, 0.0, np.nan), num / np.where(tie, 1.0, d))


def _svd_sign(a):
    """a = U diag(s) Vh, and det(U) det(Vh) (+-1), shaped to scale matrices (NaN for a
    matrix with non-finite entries, where np.linalg.det gives NaN rather than raising)."""
    if not np.all(np.isfinite(a)):
        nan = np.full(np.shape(a), np.nan)
        return nan, nan[..., 0], nan, nan[..., :1, :1]
    u, s, vh = np.linalg.svd(a)
    sign = np.sign(np.linalg.det(u) * np.linalg.det(vh))
    return u, s, vh, sign[..., None, None]


def adjugate(a):
    """adj(a) = det(a) inv(a), also for singular a. Where a is well conditioned (the
    1-norm condition number below 1 / sqrt(eps)) it is det(a) inv(a); otherwise, with
    a = U diag(s) Vh, det(U) det(Vh) Vh^T diag(p) U^T where p_i is the product of the s_j
    other than s_i (no division, exact at singular matrices)."""
    a = np.asarray(a, dtype=float)
    try:
        inv = np.linalg.inv(a)
        norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1) * np.max(np.sum(np.abs(inv), axis=-2), axis=-1)
        if np.all(norm < 6.7e7) or not np.all(np.isfinite(norm)):
            return np.linalg.det(a)[..., None, None] * inv
    except np.linalg.LinAlgError:
        pass
    u, s, vh, sign = _svd_sign(a)
    return sign * (np.swapaxes(vh, -1, -2) * prod_partials(s, -1)[..., None, :]) @ np.swapaxes(u, -1, -2)


def _pair_products(s):
    """q[..., i, j]: the product of the s_k other than s_i and s_j (0 for i == j)."""
    eye = np.eye(np.shape(s)[-1], dtype=bool)
    return np.where(eye, 0.0, prod_partials(np.where(eye, 1.0, s[..., None, :]), -1))


def _adjugate_step(q, p):
    """The derivative of adj(diag(s)) along p (q from _pair_products(s)): q @ diag(p) on the
    diagonal, -q * p off it. It is its own transpose."""
    return np.einsum("...ij,...jj->...i", q, p)[..., None] * np.eye(np.shape(p)[-1]) - q * p


def adjugate_jvp(a, v):
    """The derivative of adj(a) along v: adj(a + v) = sign Vh^T adj(diag(s) + U^T v Vh^T) U^T."""
    u, s, vh, sign = _svd_sign(np.asarray(a, dtype=float))
    p = np.swapaxes(u, -1, -2) @ v @ np.swapaxes(vh, -1, -2)
    return sign * np.swapaxes(vh, -1, -2) @ _adjugate_step(_pair_products(s), p) @ np.swapaxes(u, -1, -2)


def adjugate_vjp(a, c):
    """The adjoint of v -> adjugate_jvp(a, v) for the cotangent c."""
    u, s, vh, sign = _svd_sign(np.asarray(a, dtype=float))
    h = vh @ c @ u
    return sign * u @ _adjugate_step(_pair_products(s), h) @ vh


def inverse_or_inf(a):
    """inv(a), the derivative of log|det(a)| (transposed). Where a is singular, log|det(a)|
    is -inf (np.linalg.slogdet) and this is adj(a) / 0: inf, or NaN where adj(a) is 0."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return adjugate(a) / np.linalg.det(a)[..., None, None]


def _unique_groups(ar, axis, equal_nan):
    """For np.unique(ar, axis=axis): the unique value (slice along axis) each element
    (slice) of ar is, flattened, and how many elements each unique value has."""
    _, inv, counts = np.unique(ar, return_inverse=True, return_counts=True, axis=axis, equal_nan=equal_nan)
    return np.ravel(inv), counts


def unique_tangent(t, ar, axis=None, equal_nan=True):
    """The tangent of np.unique(ar, axis=axis) from the tangent t of ar: each unique value
    moves with the mean of the tangents of the equal elements it stands for."""
    inv, counts = _unique_groups(ar, axis, equal_nan)
    t = np.broadcast_to(np.asarray(t, dtype=float), np.shape(ar))
    if axis is None:
        return np.bincount(inv, weights=np.ravel(t), minlength=len(counts)) / counts
    tm = np.moveaxis(t, axis, 0)
    out = np.zeros((len(counts),) + tm.shape[1:])
    np.add.at(out, inv, tm)
    return np.moveaxis(out / np.reshape(counts, (-1,) + (1,) * (tm.ndim - 1)), 0, axis)


def unique_adjoint(c, ar, axis=None, equal_nan=True):
    """The adjoint of unique_tangent (and so of np.unique(ar, axis=axis)) for the cotangent c
    of the unique values: each element of ar gets its unique value's share."""
    inv, counts = _unique_groups(ar, axis, equal_nan)
    c = np.asarray(c, dtype=float)
    if axis is None:
        return np.reshape((c / counts)[inv], np.shape(ar))
    cm = np.moveaxis(c, axis, 0) / np.reshape(counts, (-1,) + (1,) * (c.ndim - 1))
    return np.moveaxis(cm[inv], 0, axis)
