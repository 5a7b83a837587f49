"""The record of one primitive (Rule), the templates it holds, and what its type and shape
functions see of a call (Sig). srcad/rules/registry.py registers rules; every stage reads them.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field

import gast

from ..errors import RuleError
from ..ir import types as T

TEMPLATE_GLOBALS = ("np", "math", "srcad")  # the modules every template may read


class Template:
    """A template expression with the free names it reads. Parsed on first use: srcad's own
    rules are checked by the test suite rather than at import (parsing ~1,000 templates was half
    of `import srcad`); `check()` parses and checks now (user rules, tests)."""

    __slots__ = ("source", "namespace", "derived", "_allowed", "_where", "_node", "_names")

    def __init__(self, source: str, namespace: dict, allowed: frozenset[str], where: str,
                 derived: bool = False):
        self.source = source
        self.namespace = namespace  # extra names the template may use
        self.derived = derived  # made by srcad from the rule (a linear parameter's tangent), not written
        self._allowed, self._where = allowed, where
        self._node = self._names = None

    @property
    def node(self) -> gast.expr:
        if self._node is None:
            self.check()
        return self._node

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:
            self.check()
        return self._names

    def check(self) -> Template:
        """Parse; a RuleError when it is not an expression or reads a name it may not."""
        if self._node is None:
            self._node, self._names = _parsed(self.source, self._allowed, self._where, self.namespace)
        return self

    def __repr__(self) -> str:
        return f"Template({self.source!r})"


def _parsed(src: str, allowed: frozenset[str], where: str, namespace: dict):
    try:
        node = gast.parse(src, mode="eval").body
    except SyntaxError as e:
        raise RuleError(f"{where}: template {src!r} is not a Python expression: {e}") from None
    names = frozenset(n.id for n in gast.walk(node) if isinstance(n, gast.Name))
    known = allowed | set(TEMPLATE_GLOBALS) | set(namespace)
    unknown = sorted(n for n in names - known if not hasattr(builtins, n))
    if unknown:
        raise RuleError(f"{where}: template {src!r} uses unknown names {unknown}")
    return node, names


@dataclass
class Rule:
    """Everything srcad knows about one primitive."""

    name: str  # qualified name: 'numpy.sin', 'operator.add', 'numpy.ndarray.sum'
    params: tuple[str, ...]
    defaults: dict[str, object]
    fn: object | None = None  # the Python callable, when there is one
    jvp: dict[str, Template] = field(default_factory=dict)
    vjp: dict[str, Template] = field(default_factory=dict)
    let: dict[str, Template] = field(default_factory=dict)
    jvp_all: Template | None = None  # joint tangent rule in t_<param> names (optional)
    vjp_all: Template | None = None  # joint adjoint rule: a tuple, one entry per vjp param
    out: Callable | None = None  # type function: (Sig) -> Type or tuple of Types
    nouts: int = 1  # (the most results, when nouts_of decides)
    # the number of results of a call from its literal arguments (name -> value) and the names
    # of all its arguments, or None when it depends on arguments that are not literals
    nouts_of: Callable | None = None
    differentiable: bool = True
    broadcasts: tuple[str, ...] = ()  # parameters that may be broadcast against the others
    fresh: bool = True  # the result never aliases an input buffer
    # when the result may alias an input depending on the call (np.einsum of one operand is a
    # view of it): (bound arguments) -> the argument it may be a view of, a tuple of those it
    # may be (max(x, y)), or None (fresh)
    view_of: Callable | None = None
    updates: int | None = None  # index of the argument this op updates (x[i] = v style)
    scatter: tuple[str, str] | None = None  # vjp of arg 0 is scatter-add of (index, g)
    # linear: jointly linear in these parameters, the others fixed (x + y in (x, y); np.sum in a);
    # multilinear: linear in each of these separately (np.dot in a, and in b). The tangent rule of
    # a parameter that is linear alone follows: the primitive applied to t in its place (see
    # `derived_jvp`), so such rules state only their transpose (vjp).
    linear: tuple[str, ...] = ()
    multilinear: tuple[str, ...] = ()
    impure: bool = False  # has effects beyond its result (print...)
    # for which arguments it may raise (so it is kept even when its result is unused, since a
    # derivative raises where the function does): see RAISES
    raises: str = "never"
    diff: tuple[str, ...] = ()  # differentiable parameters of jvp_all/vjp_all rules
    structural: bool = False  # containers: the transforms handle them element by element
    opaque: bool = False  # stands for a call srcad could not resolve (no derivative)
    attr: bool = False  # a method or attribute of its first argument (x.sum(), x.T)
    custom: bool = False  # a user function with srcad.custom_vjp / custom_jvp rules
    # a source implementation: a plain Python function in srcad/rules/ inlined in place of the
    # call, so its derivatives (both modes, any order) come from the rules of what it calls
    source: Callable | None = None
    # complex intermediate values (transforms/policy.py): "" the rule's templates hold for real
    # values only (a complex operand is a TypeSupportError); otherwise they hold for complex
    # operands too, and the result is "keeps": complex when an operand is (its type promoted
    # by transforms/result_types.py), "real": real, "typed": what its type function says.
    # cjvp/cvjp: templates used instead of jvp/vjp when an operand or result is complex
    complex: str = ""
    cjvp: dict[str, Template] = field(default_factory=dict)
    cvjp: dict[str, Template] = field(default_factory=dict)
    refuses: tuple[str, ...] = ()  # non-differentiable parameters a derivative may not reach
    foreign: tuple[str, ...] = ()  # parameters that may be objects srcad does not know (scipy.sparse)
    positional: int | None = None  # at most this many positional arguments (NumPy's *args/keywords)
    # arguments whose derivative is exact only for some values (scipy's overwrite_a=False): the
    # literal values accepted; any other value, or one that is not a literal, is a NoRuleError
    accepts: dict[str, tuple] = field(default_factory=dict)
    family: str = ""  # display only (listings, docs/primitives.md): no stage reads it
    # -- what the other stages know about the primitive (defaults: the family, then the kind) --
    kind: str = "other"  # see KINDS
    shape: Callable | None = None  # exact result shape: (rule, Sig) -> tuple or None (rules/shapes.py)
    # the parameter (a list or tuple of arrays) whose items' shapes `shape` reads: a list built in
    # the function is given to it as the tuple of its items' types (transforms/specialize.py)
    item_shapes: str = ""
    # its result is a list whose type holds its items' exact shapes (T.List.shapes): "*" the
    # operands' (a list display), the name of the list parameter whose shapes it takes, or
    # "xs+v": list xs's followed by item v's (an append)
    list_shapes: str = ""
    keeps_kind: bool | str = False  # an int or bool first argument gives a result of its dtype kind
    # ("int": a bool one gives ints, as np.sum does)
    batch: Callable | None = None  # batched tangent (rules/batching.py); None: one pass per direction
    vmap: Callable | None = None  # on operands with a batch axis (srcad.vmap, rules/vmaps.py); None: a loop
    of_shape: Callable | None = None  # the result from the first argument's known shape (np.ndim)
    stores: int | None = None  # an update that puts this argument into the container it updates
    copies: tuple[int, ...] = ()  # a new container holding the items of these arguments (list(xs))
    readonly: bool = False  # a read-only broadcast: never written in place
    inplace: bool = False  # `x op= y`: updates x when x is (or may be) an array
    user_write: bool = False  # the user's own in-place syntax (x[i] = v, xs.append(v)): checked
    scatters: bool = False  # adds values into its first argument at indices (np.add.at)
    allocates: bool = False  # makes a new mutable object: two calls are two objects
    blank: bool = False  # a new object made from shapes only (np.zeros, []): codegen keeps it a statement
    commutative: bool = False  # f(x, y) == f(y, x) bit for bit
    cheap: str = ""  # recompute rather than store (remat): "scalar" results only, or "always" (index keys)
    ring: bool = False  # + - * or negation: cheap array arithmetic, and accumulations `a += b`
    ufunc: str = ""  # an operator: the NumPy ufunc that computes it on arrays, into a given buffer
    foldable: bool = False  # folded by calling it when all its arguments are constants
    type_errors: str = ""  # which operands raise TypeError: "numbers" (any but numbers), "ordering", "never"
    int_operands: str = ""  # its operands must be ints (a float there raises): what to call them
    splits_lists: bool = False  # reads a nested list by its length, not as the array NumPy makes of it
    method: str = ""  # codegen may write the call as this method of its first argument
    # the function CPython code calls in its place: the same values (to rounding), faster
    # (np.einsum of two arrays as one batched np.matmul: runtime/contractions.py)
    runs: object | None = None
    user: bool = False  # registered by the user (srcad.defrule): its text is part of cache keys
    # differentiated objects (nodes standing for dataclasses..., srcad/pytrees.py) it may take:
    # "any": any argument may be or hold one (it builds containers, asks isinstance or is);
    # "items": arguments may hold them (it moves items of containers around); "store": and the
    # argument it `stores` may be one. Anything else would see a tuple where Python sees an object
    # what it does to a value shifted by a max subtracted for stability (passes/shifts.py): "add",
    # "sub", "mul", "div", "neg", "exp", "log" (elementwise), "sum", "mean" (reductions),
    # "extremum" (max/min: a candidate, and a reduction), "same" (the value itself), "check" (no result),
    # "index" (x[key]: whole slices and new axes move axes; any other key is not followed)
    shift: str = ""
    # how the CPython printer writes it when its first argument is an array of known rank:
    # "T" (x.T; the other arguments at their defaults), "newaxis" (x[:, None] for a literal axis):
    # the same view, without a NumPy function's Python layer (~1-2 µs a call); "negative"
    # (x < 0, for an integer array: srcad.not_a_count's whole work there)
    python: str = ""
    numba: str = ""  # how the numba target prints it: "push"/"pop" (a stack of the backward sweep,
    # an array with a fill count), "contiguous" (a transpose, copied to C order so that the products
    # numba compiles take one layout), "matmul" (`@`: an outer product is a scalar loop), or the name
    # of a helper numba_emit.py writes in NumPy calls
    objects: str = ""
    holds: str = ""  # what it does with values it does not examine (a nested function, srcad's
    # own while transforming): "all" its result holds its operands (a container made, extended),
    # "first" its result is or holds part of its first operand (indexed, iterated, copied),
    # "length" it reads only its first operand's length

    @property
    def modes(self) -> str:
        if not self.differentiable:
            return "non-differentiable"
        if self.source is not None:
            return "forward reverse"
        modes = []
        if self.jvp or self.jvp_all or self.scatter or not self.diff_params:
            modes.append("forward")
        if self.vjp or self.vjp_all or self.scatter or not self.diff_params:
            modes.append("reverse")
        return " ".join(modes)

    @property
    def diff_params(self) -> tuple[str, ...]:
        """The parameters derivatives flow through, in signature order."""
        keys = set(self.jvp) | set(self.vjp) | set(self.diff)
        if self.scatter:
            keys.add(self.params[0])
        return tuple(p for p in self.params if p in keys)


class Sig:
    """What a type function sees: the types (and literal values) of a call's arguments."""

    def __init__(self, rule: Rule, types: dict[str, T.Type], consts: dict[str, object]):
        self.rule, self.types, self.consts = rule, types, consts

    def type(self, name: str) -> T.Type:
        return self.types.get(name, T.NONE)

    def const(self, name: str, default=None):
        """The literal value of an argument, `default` when it is not a literal."""
        if name in self.consts:
            return self.consts[name]
        if name not in self.types and name in self.rule.defaults:
            return self.rule.defaults[name]
        return default

    def is_const(self, name: str) -> bool:
        return name in self.consts or (name not in self.types and name in self.rule.defaults)


#: Rule.complex: what a complex-correct rule gives for complex operands
COMPLEX = ("", "keeps", "real", "typed")


#: Rule.kind: what a primitive does to shapes, which decides its default shape and batching
#: rules (the family helpers set it: `elementwise(...)` registers an elementwise primitive)
KINDS = {
    "elementwise": "operands broadcast against each other; the result has their broadcast shape",
    "reduction": "reduces its first argument over `axis` (all axes when None), `keepdims` keeps them",
    "view": "a view or reshaping of its first argument",
    "container": "builds or updates a list, tuple or dict",
    "other": "anything else: its shape rule, if any, is its own",
}


#: When a primitive may raise an exception for finite arguments (Rule.raises), so that an
#: unused call still runs (srcad/analysis/effects.py). Errors that only non-finite arguments
#: or an overflow cause (math.sin(inf), math.exp(1000.0), 10.0 ** 400) are not counted: NumPy
#: only warns where Python numbers raise, and neither keeps unused work alive.
RAISES = {
    "never": "for no finite argument of the types it accepts",
    "always": "for some argument values (domain errors, LinAlgError, an unknown callee...)",
    "scalars": "when no operand is an array (Python numbers raise where NumPy warns)",
    "divide": "as 'scalars', except when the divisor is a nonzero number literal",
    "power": "as 'scalars', except when the exponent is a nonnegative number literal",
    "index": "unless the key is a literal within the known length, shape or keys of the container",
}


def check_templates(rule: Rule) -> None:
    """Parse a rule's templates; a RuleError for a template that is not an expression, reads a
    name it may not, or a tangent template that reads the cotangent g (an adjoint one the
    tangent t)."""
    for templates in (rule.let, rule.jvp, rule.vjp, rule.cjvp, rule.cvjp):
        for template in templates.values():
            template.check()
    for template in (rule.jvp_all, rule.vjp_all):
        if template is not None:
            template.check()
    for kind, templates in (("jvp", rule.jvp), ("vjp", rule.vjp), ("jvp", rule.cjvp), ("vjp", rule.cvjp)):
        for p, tpl in templates.items():
            bad = {"g"} if kind == "jvp" else {"t"}
            if tpl.names & bad:
                raise RuleError(f"rule {rule.name}: {kind} template for {p} uses {sorted(tpl.names & bad)}")
