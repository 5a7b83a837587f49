"""NumPy functions whose results carry no derivative: shape queries, constructors, index
and search functions, tests, and random numbers. (full, full_like and linspace carry the
derivative of their values: numpy_arrays.)

Their results are constants for differentiation (derivative zero), never errors, except
where a differentiated value reaches a parameter that has a derivative srcad does not
compute (random samplers' distribution parameters, logspace's endpoints): an error. Random
number functions are impure: they are never merged, dropped or moved by the optimiser.
Rounding, comparisons and logical functions are in numpy_elementwise.
"""

import math

from ..ir import types as T
from . import shapes as sh
from . import typefns as ty
from . import vmaps as vm
from .registry import defrule, family, nondiff

family("numpy non-differentiable")

# shape queries
def _shape_type(sig) -> T.Type:
    """A tuple of ints, as many as a has dimensions (when its rank is known)."""
    nd = ty._ndim_of(sig.type("a"))
    return T.Tuple((T.INT,) * nd) if nd is not None else T.UNKNOWN


nondiff("numpy.shape", "a", out=_shape_type, of_shape=tuple, vmap=vm.first_example)
nondiff("numpy.ndim", "a", out=ty.scalar_int, of_shape=len, vmap=vm.first_example)
nondiff("numpy.size", "a, axis=None", out=ty.scalar_int, of_shape=math.prod, vmap=vm.first_example)
nondiff("numpy.isscalar", "element", out=ty.scalar_bool)
nondiff("numpy.iscomplexobj", "x", out=ty.scalar_bool)
nondiff("numpy.result_type", "*args", out=ty.opaque("dtype"))

# constructors
for _name in ("zeros", "ones", "empty"):
    nondiff(f"numpy.{_name}", "shape, dtype=None, order='C'", out=ty.from_shape(), shape=sh.literal,
            allocates=True, blank=True)
for _name in ("zeros_like", "ones_like", "empty_like"):
    nondiff(f"numpy.{_name}", "a, dtype=None", out=ty.array_like("a", kind=None), shape=sh.first,
            allocates=True, blank=True, vmap=vm.shape_of_operand("a"))
nondiff("numpy.logspace", "start, stop, num=50, endpoint=True, base=10.0", out=ty.array(1),
        refuses=("start", "stop", "base"))
nondiff("numpy.geomspace", "start, stop, num=50, endpoint=True", out=ty.array(1), refuses=("start", "stop"))
nondiff("numpy.eye", "N, M=None, k=0, dtype=None", out=ty.array(2))
nondiff("numpy.identity", "n, dtype=None", out=ty.array(2))
nondiff("numpy.tri", "N, M=None, k=0, dtype=None", out=ty.array(2))
nondiff("numpy.indices", "dimensions, dtype=None", out=ty.array(None, "i"))
for _name in ("triu_indices", "tril_indices"):
    nondiff(f"numpy.{_name}", "n, k=0, m=None", out=ty.unknown)
nondiff("numpy.diag_indices", "n, ndim=2", out=ty.unknown)

# indices of elements, searching, counting
def _arg_extremum(sig) -> T.Type:
    """np.argmax(a): an int with no axis; with a literal axis, ints of one rank less."""
    if sig.is_const("axis") and sig.const("axis") is None:
        return T.INT
    nd = ty.rank("a", kind="i")(sig).ndim
    return T.UNKNOWN if nd is None or not sig.is_const("axis") else T.INT if nd <= 1 else T.Array(nd - 1, "i")


def _argsort_type(sig) -> T.Type:
    """np.argsort(a): ints of a's rank (flattened with axis=None)."""
    if sig.is_const("axis") and sig.const("axis") is None:
        return T.Array(1, "i")
    return ty.rank("a", at_least=1, kind="i")(sig)


for _name in ("argmax", "argmin", "nanargmax", "nanargmin"):
    nondiff(f"numpy.{_name}", "a, axis=None", out=_arg_extremum)
nondiff("numpy.argsort", "a, axis=-1, kind=None", out=_argsort_type)
nondiff("numpy.lexsort", "keys, axis=-1", out=ty.array(None, "i"))
nondiff("numpy.nonzero", "a", out=ty.unknown)
nondiff("numpy.flatnonzero", "a", out=ty.array(1, "i"))
nondiff("numpy.argwhere", "a", out=ty.array(2, "i"))
nondiff("numpy.searchsorted", "a, v, side='left', sorter=None", out=ty.unknown)
nondiff("numpy.digitize", "x, bins, right=False", out=ty.unknown)
nondiff("numpy.linalg.matrix_rank", "A, tol=None, hermitian=False, rtol=None", out=ty.unknown,
        raises="always")
nondiff("numpy.isin", "element, test_elements", out=ty.array(None, "b"))
for _name in ("any", "all"):
    nondiff(f"numpy.{_name}", "a, axis=None", out=ty.unknown)
nondiff("numpy.count_nonzero", "a, axis=None", out=ty.unknown)
nondiff("numpy.allclose", "a, b, rtol=1e-05, atol=1e-08", out=ty.scalar_bool)
nondiff("numpy.array_equal", "a1, a2", out=ty.scalar_bool)

# bincount is linear in its weights: the weight of element i goes to bin x[i]
defrule("numpy.bincount", "x, weights=None, minlength=0", vjp={"weights": "g[x]"},
        out=lambda sig: T.Array(1, "f" if not isinstance(sig.type("weights"), T.NoneT) else "i"),
        linear=("weights",), raises="always")  # negative values

# random numbers (numpy.random module functions; Generator methods are opaque calls)
_RANDOM = {
    "random": "size=None", "rand": "*args", "randn": "*args", "random_sample": "size=None",
    "standard_normal": "size=None", "normal": "loc=0.0, scale=1.0, size=None",
    "uniform": "low=0.0, high=1.0, size=None", "exponential": "scale=1.0, size=None",
    "gamma": "shape, scale=1.0, size=None", "beta": "a, b, size=None",
}


# A differentiated value reaching a sampler's parameters (or the array that choice and
# permutation draw from) is an error, not a silent zero derivative.
def _refused(params: str) -> tuple[str, ...]:
    return tuple(p.split("=")[0] for p in params.split(", ") if not p.startswith(("*", "size", "dtype")))


for _name, _params in _RANDOM.items():
    nondiff(f"numpy.random.{_name}", _params, out=ty.num, impure=True, refuses=_refused(_params),
            vmap=vm.repeats)
for _name, _params in {"randint": "low, high=None, size=None, dtype=None",
                       "choice": "a, size=None, replace=True, p=None",
                       "permutation": "x", "poisson": "lam=1.0, size=None",
                       "binomial": "n, p, size=None"}.items():
    nondiff(f"numpy.random.{_name}", _params, out=ty.unknown, impure=True, refuses=_refused(_params),
            vmap=vm.repeats)
nondiff("numpy.random.seed", "seed=None", out=ty.none, impure=True, vmap=vm.repeats)
nondiff("numpy.random.default_rng", "seed=None", out=ty.opaque("Generator"), impure=True, vmap=vm.repeats)
