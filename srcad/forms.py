"""Jacobians, Hessians, vjp functions and vmapped functions as source srcad can read again.

`srcad.jacfwd(f)`, `jacrev(f)`, `hessian(f)`, `vmap(f)` and the `vjp_fn` of `srcad.vjp` run
through fast paths when called directly (compose.py, vmap.py). To transform them again
(`jacfwd(jacrev(f))`, `hessian(hessian(f))`, `grad(lambda x: jacfwd(f)(x) @ v)`,
`jvp(vjp_fn, ...)`, `grad(vmap(f))`), or to call them inside a function srcad differentiates,
srcad reads their *form*: a short Python function in the subset srcad transforms, generated
here and registered with linecache (so `inspect.getsource` shows it), built from calls that
srcad can inline: the user's function, `srcad.grad` of a helper, NumPy. For example
`jacrev(g)` with g(x, a) is

    def _entry(p0, p1, i):
        return np.ravel(_f(p0, p1))[i]

    def jacrev_g(p0, p1):
        out = _f(p0, p1)
        rows = [_entry_grad(p0, p1, i) for i in range(np.size(out))]
        return np.reshape(np.stack(rows), np.shape(out) + np.shape(p0))

with `_f = g` and `_entry_grad = srcad.grad(_entry, argnums=0)`: one gradient per output
entry, each exact, so the outer transformation differentiates exact derivative code (of
any order: hessian(hessian(f)) is a fourth derivative). A form exists for an int argnums
(jacfwd and jacrev: also a tuple of them, giving a tuple of Jacobians), functions with
positional parameters only, and array or float values; for the others the
transformed function is a fast path only and transforming it again is an ArgumentError.
"""

from __future__ import annotations

import inspect

import numpy as np

from .codegen.compile import generated_filename, register_source
from .errors import ArgumentError
from .identifiers import identifier
from .runtime.checks import check_leaf
from .runtime.typecheck import structure_of


def positional_arity(fun) -> int | None:
    """The number of fun's parameters when they are all plain positional ones (else None)."""
    transform = getattr(fun, "__srcad_transform__", None)
    try:
        sig = transform._signature if transform is not None else inspect.signature(fun)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty
           for p in params):
        return None
    return len(params)


def _compile(text: str, name: str, namespace: dict):
    filename = generated_filename(text, name)
    register_source(filename, text)
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def jacobian_form(fun, argnum, kind: str, grad):
    """The form of jacfwd/jacrev (`kind`) of fun in argument `argnum` (an int, or for
    jacfwd/jacrev a tuple of ints: a tuple of Jacobians), or of hessian (fun is then grad(f),
    whose result has the argument's shape); `grad` is srcad.grad."""
    n = positional_arity(fun)
    nums = argnum if isinstance(argnum, tuple) else (argnum,)
    if n is None or not nums or not all(type(a) is int and -n <= a < n for a in nums) or (
            kind == "hessian" and isinstance(argnum, tuple)):
        return None
    nums = tuple(a % n for a in nums)
    ps = ", ".join(f"p{i}" for i in range(n))
    out = f"p{nums[0]}" if kind == "hessian" else "out"
    name = identifier(f"{kind}_{getattr(fun, '__name__', 'f')}", f"{kind}_f")
    if isinstance(argnum, tuple):
        result = f"({', '.join(_jacobian(f'[r[{k}] for r in rows]', out, a) for k, a in enumerate(nums))},)"
    else:
        result = _jacobian("rows", out, nums[0])
    text = (_ROWS + f"def _entry({ps}, i):\n"
            f"    return np.ravel(_f({ps}))[i]\n\n\n"
            f"def {name}({ps}):\n"
            f"    out = _f({ps})\n"
            f"    rows = [_entry_grad({ps}, i) for i in range(np.size(out))]\n"
            f"    return {result}\n")
    namespace = {"np": np, "_f": fun, "_structure": structure_of, "__name__": "srcad_forms"}
    form = _compile(text, name, namespace)
    wrt = nums if isinstance(argnum, tuple) else nums[0]
    namespace["_entry_grad"] = grad(namespace["_entry"], argnums=wrt)
    return form


def _jacobian(rows: str, out: str, a: int) -> str:
    """The rows stacked into the Jacobian of `out` in p{a}, of shape shape(out) + shape(p{a})."""
    return f"np.reshape(_rows({rows}, p{a}), _jacobian_shape({out}, p{a}))"


#: the rows of a Jacobian stacked (none for an output of size 0: a Jacobian of size 0)
_ROWS = """def _jacobian_shape(out, p):
    if _structure(out) == "unknown" or _structure(p) == "unknown":  # (+ of shapes not known: refused)
        return np.shape(np.multiply.outer(out, p))
    return np.shape(out) + np.shape(p)


def _rows(rows, p):
    if len(rows) == 0:
        return np.zeros_like(p)[None][:0]
    return np.stack(rows)


"""


def vjp_form(fun, primals: tuple, wrt: tuple, grad, cache: dict):
    """The form of the vjp_fn of fun at `primals`: ct -> one cotangent per primal (None but
    for the positions in `wrt`), as the gradient of <fun(primals), ct>: a function of ct,
    a closure over the primals. Closures made by one factory (per fun and wrt, kept in
    `cache`) share their derivative code, as any closures made from the same code do."""
    factory = vjp_factory(fun, len(primals), wrt, grad, cache)
    return factory(*primals) if factory is not None else None


def vjp_factory(fun, n: int, wrt: tuple, grad, cache: dict):
    """`_make(p0, ...)`: the vjp_fn of fun at the primals it is given (see vjp_form), or None
    when fun does not take n plain positional parameters."""
    if positional_arity(fun) != n or not wrt:
        return None
    key = ("vjp_form", n, wrt)
    factory = cache.get(key)
    if factory is None:
        ps = ", ".join(f"p{i}" for i in range(n))
        name = identifier(f"vjp_fn_{getattr(fun, '__name__', 'f')}", "vjp_fn")
        parts = [f"g[{wrt.index(i)}]" if i in wrt else "None" for i in range(n)]
        text = (_PAIRED + f"def _pairing({ps}, ct):\n"
                f"    return _paired(_f({ps}), ct)\n\n\n"
                f"def _make({ps}):\n"
                f"    def {name}(ct):\n"
                f"        g = _pairing_grad({ps}, ct)\n"
                f"        return ({', '.join(parts)},)\n"
                f"    return {name}\n")
        namespace = {"np": np, "_f": fun, "_structure": structure_of, "_check_leaf": check_leaf,
                     "__name__": "srcad_forms"}
        factory = cache[key] = _compile(text, "_make", namespace)
        namespace["_pairing_grad"] = grad(namespace["_pairing"], argnums=tuple(wrt))
    return factory


#: <out, ct> for a vjp form: summed over the arrays of a tuple, list or dict result (the
#: cotangent has its structure); _structure is folded while transforming (vmap's _STACKED)
_PAIRED = """def _paired_dict(out, ct):
    return sum([np.sum(out[k] * ct[k]) for k in out])


def _paired(out, ct):
    kind = _structure(out)
    if kind == "tuple" or kind == "list":
        return sum([np.sum(out[k] * ct[k]) for k in range(len(out))])
    if kind == "dict":
        return _paired_dict(out, ct)
    if kind == "unknown":
        _check_leaf(out, "srcad.vjp called inside a differentiated function")
    return np.sum(out * ct)


"""


def vmap_form(fun, n: int, in_axes: tuple, name: str):
    """The form of vmap(fun) for n positional arguments mapped over `in_axes` (None: not
    mapped) with the result stacked along axis 0: a loop over the batch."""
    ps = [f"p{i}" for i in range(n)]
    mapped = [i for i, a in enumerate(in_axes) if a is not None]
    if not mapped:
        return None
    first = mapped[0]
    size = f"_batch_size(p{first}, {in_axes[first]})"
    item = [f"_batch_item(p{i}, b, {a})" if a is not None else f"p{i}" for i, a in enumerate(in_axes)]
    fname = identifier(f"vmap_{name}", "vmap_f")
    text = _STACKED + (f"def {fname}({', '.join(ps)}):\n"
                       f"    return _stacked([_f({', '.join(item)}) for b in range({size})])\n")
    namespace = {"np": np, "_f": fun, "ArgumentError": ArgumentError, "_structure": structure_of,
                 "_check_leaf": check_leaf, "__name__": "srcad_forms"}
    return _compile(text, fname, namespace)


#: the results of a vmap form's calls stacked as vmap stacks them: each array of a tuple, list
#: or dict result on its own. _structure (srcad.structure_of) is folded while transforming, so
#: one branch becomes code; a value of a type not known then is checked when the code runs.
_STACKED = """def _batch_size(p, axis):
    kind = _structure(p)
    if kind != "leaf" and kind != "unknown":
        raise ArgumentError("srcad.vmap called inside a differentiated function maps arrays: give the "
                            "others with in_axes=None")
    return np.shape(p)[axis]


def _batch_item(p, b, axis):
    _batch_size(p, axis)
    return np.take(p, b, axis=axis)


def _stacked_dict(rows, first):
    return {k: _stacked_leaves([r[k] for r in rows]) for k in first}


def _stacked(rows):
    if len(rows) == 0:
        raise ArgumentError("vmap over an axis of length 0")
    first = rows[0]
    kind = _structure(first)
    if kind == "tuple":
        return tuple([_stacked_leaves([r[k] for r in rows]) for k in range(len(first))])
    if kind == "list":
        return [_stacked_leaves([r[k] for r in rows]) for k in range(len(first))]
    if kind == "dict":
        return _stacked_dict(rows, first)
    return _stacked_leaves(rows)


def _stacked_leaves(rows):
    kind = _structure(rows[0])
    if kind == "unknown":
        _check_leaf(rows[0], "srcad.vmap called inside a differentiated function")  # (when it runs)
    elif kind != "leaf":
        raise ArgumentError("srcad.vmap called inside a differentiated function: results nested more "
                            "than one level (a tuple of tuples) are not supported there")
    return np.stack(rows)


"""


def linearized_form(fun, x, grad):
    """The form of linearize's f_jvp at x (fun of one argument): t -> J(x) t."""
    jac = jacobian_form(fun, 0, "jacrev", grad)
    if jac is None:
        return None
    name = identifier(f"jvp_{getattr(fun, '__name__', 'f')}", "f_jvp")
    text = f"def {name}(t):\n    return np.tensordot(_jac(_x), t, axes=np.ndim(_x))\n"
    return _compile(text, name, {"np": np, "_jac": jac, "_x": x, "__name__": "srcad_forms"})


def first_result(fun):
    """For has_aux: a function returning fun's output alone (fun returns (output, aux)), in
    source srcad reads; None when fun's parameters are not all positional."""
    n = positional_arity(fun)
    if n is None:
        return None
    ps = ", ".join(f"p{i}" for i in range(n))
    name = identifier(f"{getattr(fun, '__name__', 'f')}_output", "output")
    text = f"def {name}({ps}):\n    return _f({ps})[0]\n"
    return _compile(text, name, {"_f": fun, "__name__": "srcad_forms"})


def _primals_and_tangents(kind: str, fun, n: int, helper: str, result: str):
    """A form `kind_f(primals, tangents)` that unpacks n primals p0.. and tangents t0.. and
    returns `result`, after the `helper` definitions (None when fun does not take n plain
    positional parameters); returns (form, namespace) for the caller to fill in."""
    if positional_arity(fun) != n:
        return None, None
    ps, ts = ", ".join(f"p{i}" for i in range(n)), ", ".join(f"t{i}" for i in range(n))
    name = identifier(f"{kind}_{getattr(fun, '__name__', 'f')}", f"{kind}_f")
    text = (helper.format(ps=ps, ts=ts) + f"def {name}(primals, tangents):\n"
            f"    {ps}, = primals\n    {ts}, = tangents\n" + result.format(ps=ps, ts=ts))
    namespace = {"np": np, "_f": fun, "__name__": "srcad_forms"}
    return _compile(text, name, namespace), namespace


def jvp_value_form(fun, n: int | None, grad):
    """srcad.jvp(fun, primals, tangents) called inside a differentiated function (n: the
    number of primals): `(fun(*primals), J tangents)`, the tangent as the derivative of
    fun(p + eps t) in eps at 0 (a jacrev form: one gradient per output entry, exact)."""
    if n is None:  # (fun's parameters are not plain positional ones: refused)
        return None
    moved = ", ".join(f"p{i} + eps * t{i}" for i in range(n))
    form, namespace = _primals_and_tangents(
        "jvp", fun, n, "def _directional(eps, {ps}, {ts}):\n    return _f(" + moved + ")\n\n\n",
        "    return _f({ps}), _jac(0.0, {ps}, {ts})\n")
    if form is not None:
        namespace["_jac"] = jacobian_form(namespace["_directional"], 0, "jacrev", grad)
    return form


def hvp_value_form(fun, n: int | None, grad):
    """srcad.hvp(fun, primals, tangents) inside a differentiated function: H t as the
    gradient of <grad fun(p), t> (reverse over reverse)."""
    if n is None:  # (fun's parameters are not plain positional ones: refused)
        return None
    pairs = " + ".join(f"np.sum(g[{i}] * t{i})" for i in range(n))
    form, namespace = _primals_and_tangents(
        "hvp", fun, n, "def _pairing({ps}, {ts}):\n    g = _grad({ps})\n    return " + pairs + "\n\n\n",
        "    h = _pairing_grad({ps}, {ts})\n    return " + ("h[0]" if n == 1 else "h") + "\n")
    if form is not None:
        namespace["_grad"] = grad(fun, argnums=tuple(range(n)))
        namespace["_pairing_grad"] = grad(namespace["_pairing"], argnums=tuple(range(n)))
    return form


def vjp_value_form(fun, n: int, grad, cache: dict):
    """srcad.vjp(fun, *primals) inside a differentiated function: `(fun(*primals), vjp_fn)`
    with vjp_fn the one vjp_form makes (the gradient of <fun(primals), ct>)."""
    factory = vjp_factory(fun, n, tuple(range(n)), grad, cache)
    if factory is None:
        return None
    ps = ", ".join(f"p{i}" for i in range(n))
    name = identifier(f"vjp_{getattr(fun, '__name__', 'f')}", "vjp_f")
    text = f"def {name}({ps}):\n    return _f({ps}), _make({ps})\n"
    return _compile(text, name, {"_f": fun, "_make": factory, "__name__": "srcad_forms"})
