"""What a campaign generates and checks: the feature mix and the sampling of costly oracles.

Every construct the generator can write is a named feature with a weight (0 switches it
off; 2 makes it twice as likely). As srcad improves, features are switched on here; the
features behind srcad bugs that are known and being fixed are in KNOWN_BUGS, which
`--no-known-bugs` (and the CI test) switch off."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

FEATURES = {
    # expressions
    "math_calls": 1.0,      # math.sin, math.log(e*e + 1), ...
    "np_ufuncs": 1.0,       # np.sin, np.sqrt(e*e + 1), ...
    "broadcast": 1.0,       # (n,) with (m, n), length-1 axes, 0-d arrays, scalars
    "reductions": 1.0,      # np.sum/mean/prod/max/min of a whole array
    "reduce_axis": 1.0,     # ... along an axis
    "keepdims": 0.5,        # ... with keepdims=True
    "matmul": 1.0,          # @, np.dot, np.outer, np.vdot
    "einsum": 0.5,
    "index_int": 1.0,       # x[i], x[i, j], x[i % n]
    "index_neg": 0.7,       # x[-1], x[-i - 1]
    "index_slice": 1.0,     # x[a:b], x[::-1], x[:, j]
    "index_fancy": 0.5,     # x[[2, 0]], x[np.array([...])]
    "index_mask": 0.5,      # np.sum(x[x > c])
    "where": 0.7,           # np.where(cond, a, b)
    "stack": 0.7,           # np.stack, np.array([...]), np.concatenate
    "reshape": 0.5,         # .reshape, .T, .ravel()
    "nonsmooth": 0.7,       # abs, max, min, np.maximum, np.clip (kinks)
    "cond_expr": 0.5,       # a if c else b
    "cumsum": 0.3,
    "shift": 0.5,           # m + log(sum(exp(x - m))) with m = np.max(x), softmax... (fuzz/shifted.py)
    "chained_cmp": 0.3,     # -0.3 < e < 0.5
    # statements
    "aug_assign": 1.0,      # s += e, y *= e on owned arrays
    "item_write": 1.0,      # y = np.zeros(n); y[i] = e; y[i] += e
    "slice_write": 0.7,     # y[a:b] = e, y[:, j] += e
    "copy": 0.7,            # z = x.copy()
    "if_data": 1.0,         # if/elif/else on data
    "if_int": 0.7,          # ... on ints
    "for_range": 1.0,       # for i in range(...)
    "for_array": 0.7,       # for r in A (rows)
    "for_list": 0.7,        # for v in lst
    "enumerate": 0.5,
    "zip": 0.5,
    "reversed": 0.4,
    "enumerate_start": 0.3,  # enumerate(x, start=1)
    "while": 0.6,
    "break": 0.5,
    "continue": 0.5,
    "early_return": 0.5,
    "loop_fresh": 0.5,      # a loop-carried variable re-assigned from a fresh value each iteration
    "list_append": 1.0,
    "list_extend": 0.5,
    "list_pop": 0.4,
    "list_comp": 0.6,       # [g(v) for v in xs]
    "sum_gen": 0.6,         # sum(g(v) for v in xs)
    "reduce": 0.4,          # functools.reduce(lambda a, b: ..., xs, c), math.prod, sorted(key=itemgetter(0))
    "list_concat": 0.4,     # xs = xs + [e]
    "list_ops": 0.4,        # xs.insert(k, e), xs.pop(k), xs[a:], xs * 2
    "starred": 0.3,         # first, *rest = xs
    "tuple": 0.7,           # packing, unpacking, swap, t[k]
    "tuple_concat": 0.3,    # (a,) + (b,)
    "dict": 0.6,            # {"k": e}, d["k"] = e, d["k"]
    "dict_iter": 0.4,       # for k in d, d.items(), d.values()
    "dict_comp": 0.4,       # {k: e(d[k]) for k in d}, {k: e(v) for k, v in d.items() if k != 'a'}
    "double_buffer": 0.3,   # b[1:] = f(a); a, b = b, a in a loop (and three rotating, an alias)
    "helpers": 0.8,         # module-level helper functions, defaults, keywords
    "helper_write": 0.3,    # def w0(u, a): u[i] = e; u *= a -- called on an array f owns: w0(y, e)
    "closure": 0.4,         # def c0(a): return e  in f (also in loop bodies, reading the loop's variables)
    "lambda": 0.4,          # c1 = lambda a: e; a lambda given to a higher-order helper
    "func_arg": 0.4,        # apply0(fn, v, w) given a helper, a partial, a closure, a lambda, np.tanh
    "method": 0.3,          # class K0: self.w read by a method; K0(e) built in f, self.w updated
    "mixed_list": 0.4,      # [float, arr (n,), arr (2,)] built, indexed, written, looped over
    "assert": 0.3,
    "raise": 0.2,           # raise under a condition (f may raise at the point)
    "dead_raise": 0.1,      # a statement that always raises and whose value is unused
    "unbound_read": 0.2,    # a variable assigned in one branch or a loop only, then read
    # arguments and outputs
    "arg_int": 1.0,         # int arguments: loop counts and indices
    "arg_0d": 0.3,          # 0-d array arguments
    "arg_tuple": 0.4,       # pytree arguments
    "arg_list": 0.4,
    "arg_dict": 0.4,
    "pytree_obj": 0.3,      # dataclass, named tuple or registered class argument (w, b) differentiated
    "out_array": 0.3,       # array output (jacobians instead of grad)
    "out_pytree": 0.15,     # tuple/dict output
    "variadic_entry": 0.3,  # def f(x, *va_rest): the function transformed per call shape
    # transformations inside f
    "nested_transform": 0.3,  # srcad.grad(nt0)(x, y), jacfwd, jacrev, hessian, jvp, vjp of helpers: nested.py
}

# features behind srcad bugs known to the lead and being fixed (see docs/reliability.md)
KNOWN_BUGS: dict = {}


@dataclass
class Config:
    weights: dict = field(default_factory=lambda: dict(FEATURES))
    max_depth: int = 2            # nesting of if/for/while
    max_stmts: int = 7            # statements per block (top level)
    max_entries: int = 24         # scalar inputs per program (finite differences per entry)
    hessian: float = 0.3          # fraction of programs with hessian/hvp checks
    rank_only: float = 0.2        # ... with the rank-only (shape_variants = 0) comparison
    cache: float = 0.05           # ... with the persistent-cache round trip
    codegen: float = 0.05         # ... with the `srcad codegen` round trip
    dask: float = 0.1             # ... with the differentiated arrays as dask arrays
    timeout: float = 30.0         # seconds per program (a hang is a crash)

    def w(self, feature: str) -> float:
        return self.weights.get(feature, 0.0)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Config:
        return cls(**json.loads(text))

    def with_features(self, spec: str) -> Config:
        """Apply `-name` (off), `+name` or `name` (on, weight 1), `name=w`; `all` matches
        every feature."""
        weights = dict(self.weights)
        for item in filter(None, (s.strip() for s in spec.split(","))):
            name, value = item.lstrip("+-"), 0.0 if item.startswith("-") else 1.0
            if "=" in name:
                name, value = name.split("=", 1)[0], float(name.split("=", 1)[1])
            names = list(FEATURES) if name == "all" else [name]
            for n in names:
                if n not in FEATURES:
                    raise ValueError(f"unknown feature {n!r}; known: {', '.join(FEATURES)}")
                weights[n] = value
        return dataclasses.replace(self, weights=weights)

    def without_known_bugs(self) -> Config:
        return self.with_features(",".join("-" + k for k in KNOWN_BUGS))
