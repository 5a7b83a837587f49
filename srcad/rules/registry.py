"""The rule registry: one entry per primitive, with its tangent and adjoint rules side by side.

A rule states math only. For a primitive `ans = f(x, y)` it gives, per differentiable
parameter, a Python expression template:

    jvp  the tangent contribution of that parameter, in terms of `t` (its tangent),
         the parameters and `ans`;
    vjp  the cotangent contribution to that parameter, in terms of `g` (the cotangent of
         `ans`), the parameters and `ans`.

    defrule("numpy.sin", "x", jvp="t * np.cos(x)", vjp="g * np.cos(x)")

Templates are parsed and checked when registered, then lowered into IR by the transforms,
which also do all the bookkeeping: summing contributions, symbolic zeros, reducing a
cotangent to the shape of a broadcast input, loop stacks. Templates use only primitives
that have rules themselves, so derivative code can be differentiated again.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import re
import sys
import types
from collections.abc import Callable

from ..custom import CustomRule
from ..errors import RuleError
from ..ir.nodes import Const, Ext, Var
from . import batching, shapes, vmaps
from .record import COMPLEX, KINDS, RAISES, Rule, Sig, Template, check_templates

#: True while srcad's own rules register (lazy_templates): their templates are parsed on first use.
_DEFER_PARSE = [False]
_SPECIAL_NAMES = ("ans", "g", "t")
_NO_DEFAULT = object()


# -- the registry ------------------------------------------------------------------------------

RULES: dict[str, Rule] = {}
_BY_ID: dict[int, str] = {}
# bound methods of library instances (scipy.stats.norm.logpdf is a new object at every access):
# (id of the instance, method name) -> rule name
_BY_METHOD: dict[tuple[int, str], str] = {}
_SOURCE_MODULES: set[str] = set()  # modules of source implementations (their helpers are inlined too)
_KEEP: list[object] = []
_FAMILY = ["", "never"]



_FAMILY_DEFAULTS: dict = {}


def family(name: str, raises: str = "never", **defaults) -> None:
    """Set the family recorded on the rules registered next (the module that defines them),
    what `raises` they get, and other Rule fields they share (`kind="elementwise"`), unless
    a rule says otherwise."""
    assert raises in RAISES, raises
    unknown = set(defaults) - set(Rule.__dataclass_fields__)
    assert not unknown, unknown
    _FAMILY[0], _FAMILY[1] = name, raises
    _FAMILY_DEFAULTS.clear()
    _FAMILY_DEFAULTS.update(defaults)


#: what a kind implies, unless the rule (or its family) says otherwise
_KIND_DEFAULTS = {"elementwise": {"shape": shapes.elementwise, "batch": batching.elementwise,
                                  "vmap": vmaps.elementwise},
                  "reduction": {"shape": shapes.reduction, "vmap": vmaps.reduction}}


def _defaults(flags: dict) -> dict:
    """A rule's flags with the family's defaults, then its kind's, filled in."""
    for k, v in _FAMILY_DEFAULTS.items():
        flags.setdefault(k, v)
    flags.setdefault("raises", _FAMILY[1])
    if flags.get("kind", "other") not in KINDS:
        raise RuleError(f"kind={flags['kind']!r} is not one of {sorted(KINDS)}")
    for k, v in _KIND_DEFAULTS.get(flags.get("kind"), {}).items():
        flags.setdefault(k, v)
    return flags


def resolve_path(path: str) -> object | None:
    """Import `a.b.c` -> the object, or None when its module is not installed."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for p in parts[cut:]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj
    return None


_LAZY: dict[str, str] = {}  # top-level module -> the srcad family module with its rules


def lazy_family(module: str, family_module: str) -> None:
    """Load `family_module` (registering its rules) once `module` has been imported."""
    _LAZY[module] = family_module


def _load_pending(force: bool = False) -> bool:
    loaded = False
    for module, family_module in list(_LAZY.items()):
        if force or module in sys.modules:
            del _LAZY[module]
            try:
                with lazy_templates():
                    importlib.import_module(family_module)
            except ImportError:
                continue
            loaded = True
    return loaded


def load_all() -> None:
    """Register every family, also the lazy ones (for listings and checks)."""
    _load_pending(force=True)


def lookup(name: str) -> Rule | None:
    rule = RULES.get(name)
    if rule is None and _LAZY and name.split(".")[0] in _LAZY and _load_pending():
        rule = RULES.get(name)
    return rule


def rule_for_object(obj: object) -> Rule | None:
    name = _name_of(obj)
    if name is None and _LAZY and _load_pending():
        name = _name_of(obj)
    if name is None:
        name = ufunc_method_name(obj)
    return RULES.get(name) if name else None


def _method_key(obj: object) -> tuple[int, str] | None:
    """(id of the instance, method name) for a method bound to a library instance."""
    if not isinstance(obj, types.MethodType) or isinstance(obj.__self__, (type, types.ModuleType)):
        return None
    return id(obj.__self__), getattr(obj.__func__, "__name__", "")


def _name_of(obj: object) -> str | None:
    name = _BY_ID.get(id(obj))
    if name is None and isinstance(obj, types.MethodType):
        name = _BY_METHOD.get(_method_key(obj))
    return name


def source_helper(fn: object) -> bool:
    """Is fn a function of a module of source implementations (inlined like a user's)?"""
    return isinstance(fn, types.FunctionType) and fn.__module__ in _SOURCE_MODULES


def ufunc_method_name(obj: object) -> str | None:
    """'numpy.maximum.accumulate' for the bound method np.maximum.accumulate (a new object at
    each attribute read, so not found by identity), when a rule is registered under it."""
    owner = getattr(obj, "__self__", None)
    if type(owner).__name__ != "ufunc" or not isinstance(getattr(obj, "__name__", None), str):
        return None
    name = f"numpy.{owner.__name__}.{obj.__name__}"
    rule = RULES.get(name)
    return name if rule is not None and rule.fn == obj else None


def _parse_params(params: str) -> tuple[tuple[str, ...], dict[str, object]]:
    fn = ast.parse(f"def _({params}): pass").body[0]
    names = tuple(a.arg for a in fn.args.args)
    defaults = {}
    for name, node in zip(names[len(names) - len(fn.args.defaults) :], fn.args.defaults):
        defaults[name] = ast.literal_eval(node)
    return names, defaults


def parse_template(src: str, allowed: set[str], where: str, namespace: dict | None = None) -> Template:
    """One template expression, parsed and checked now, or on first use while srcad's own rules
    register (`lazy_templates`)."""
    template = Template(src.strip(), dict(namespace or {}), frozenset(allowed), where)
    return template if _DEFER_PARSE[0] else template.check()


@contextlib.contextmanager
def lazy_templates():
    """Templates registered inside are parsed on first use (srcad's own rules at import: the test
    suite checks them all)."""
    outer, _DEFER_PARSE[0] = _DEFER_PARSE[0], True
    try:
        yield
    finally:
        _DEFER_PARSE[0] = outer


def _by_param(spec, params: tuple[str, ...], where: str) -> dict[str, str]:
    if spec is None:
        return {}
    if isinstance(spec, str):
        spec = (spec,)
    if isinstance(spec, (tuple, list)):
        if len(spec) > len(params):
            raise RuleError(f"{where}: {len(spec)} templates for {len(params)} parameters")
        return {p: s for p, s in zip(params, spec) if s is not None}
    unknown = set(spec) - set(params)
    if unknown:
        raise RuleError(f"{where}: templates for unknown parameters {sorted(unknown)}")
    return {p: s for p, s in spec.items() if s is not None}


def defrule(
    path: str,
    params: str = "x",
    *,
    jvp=None,
    vjp=None,
    let: dict[str, str] | None = None,
    out: Callable | None = None,
    fn: object | None = None,
    jvp_all: str | None = None,
    vjp_all: str | None = None,
    namespace: dict | None = None,
    complex_jvp=None, complex_vjp=None,
    **flags,
) -> Rule | None:
    """Register a primitive. Returns None (and registers nothing) if its module is missing.

    `jvp` and `vjp` are a template, a tuple of templates for the first parameters, or a
    dict by parameter name (`complex_jvp`, `complex_vjp`: those used instead for complex
    operands); `let` names shared sub-expressions the templates may use.
    """
    if fn is None and not path.startswith(("operator.", "srcad.")):
        fn = resolve_path(path)
        if fn is None:
            return None
    if fn is None and path.startswith("operator.") and flags.get("updates") is None:
        fn = resolve_path(path)  # operator.mul(a, b) written as a call is the same primitive
    names, defaults = _parse_params(params)
    where = f"rule {path}"
    clash = set(names) & set(_SPECIAL_NAMES)
    if clash:
        raise RuleError(f"{where}: parameters may not be named {sorted(clash)} (in templates ans is the "
                        "result, g its cotangent, t a tangent)")
    lets = dict(let or {})
    allowed = set(names) | set(_SPECIAL_NAMES) | set(lets)
    nouts = flags.get("nouts", 1)
    if nouts > 1:
        allowed |= {f"g{i}" for i in range(nouts)} | {f"ans{i}" for i in range(nouts)}
    _defaults(flags)
    if flags["raises"] not in RAISES:
        raise RuleError(f"{where}: raises={flags['raises']!r} is not one of {sorted(RAISES)}")
    rule = Rule(path, names, defaults, fn=fn, out=out, family=_FAMILY[0], **flags)
    ns = namespace
    rule.let = {k: parse_template(v, allowed, where, ns) for k, v in lets.items()}
    rule.jvp = {k: parse_template(v, allowed, where, ns) for k, v in _by_param(jvp, names, where).items()}
    rule.vjp = {k: parse_template(v, allowed, where, ns) for k, v in _by_param(vjp, names, where).items()}
    _complex_templates(rule, complex_jvp, complex_vjp, allowed, ns)
    for p in _derivable(rule, flags, jvp_all):
        rule.jvp[p] = parse_template(derived_jvp(rule, p), allowed, where, ns)
        rule.jvp[p].derived = True
    if jvp_all is not None:
        rule.jvp_all = parse_template(jvp_all, allowed | {f"t_{n}" for n in names}, where, ns)
    if vjp_all is not None:
        rule.vjp_all = parse_template(vjp_all, allowed, where, ns)
    if not _DEFER_PARSE[0]:
        check_templates(rule)
    register(rule)
    return rule


def _complex_templates(rule: Rule, jvp, vjp, allowed: set, namespace) -> None:
    """A rule's templates for complex operands (Rule.cjvp, cvjp), checked against its flag."""
    where = f"rule {rule.name}"
    for templates, given in ((rule.cjvp, jvp), (rule.cvjp, vjp)):
        templates.update({k: parse_template(v, allowed, where, namespace)
                          for k, v in _by_param(given, rule.params, where).items()})
    if rule.complex not in COMPLEX or (rule.cjvp or rule.cvjp) and not rule.complex:
        raise RuleError(f"{where}: complex={rule.complex!r} is not one of {COMPLEX} (complex templates "
                        "need a complex-correct rule)")


def _derivable(rule: Rule, flags: dict, jvp_all) -> tuple[str, ...]:
    """The parameters whose tangent rule follows from linearity and is not written out."""
    alone = rule.linear if len(rule.linear) == 1 else ()
    if jvp_all is not None:
        return ()
    return tuple(p for p in rule.params if p in alone + rule.multilinear and p not in rule.jvp)


def derived_jvp(rule: Rule, p: str) -> str:
    """The tangent rule of a parameter the primitive is linear in (alone, or one of several it is
    multilinear in): the primitive itself, with the tangent `t` in that parameter's place."""
    path = rule.name
    for prefix, spelling in (("numpy.", "np."), ("builtins.", ""), ("srcad.", "srcad."), ("math.", "math.")):
        if path.startswith(prefix) and not rule.attr and not path.startswith("numpy.ndarray."):
            callee = spelling + path[len(prefix):]
            break
    else:
        raise RuleError(f"rule {path}: give its jvp (a tangent rule cannot be spelled as a call of it)")
    args = ", ".join("t" if q == p else q for q in rule.params)
    return f"{callee}({args})"


def public_defrule(fn, params: str = "x", *, jvp=None, vjp=None, namespace: dict | None = None,
                   out=None, **flags) -> Rule:
    """Register derivative rules for a function (the object, or its dotted path).

    Unlike the internal `defrule`, this raises when the function cannot be found, and it
    accepts any callable: generated code calls the object itself.
    """
    if isinstance(fn, str):
        path, obj = fn, resolve_path(fn)
        if obj is None:
            raise RuleError(f"cannot import {fn!r} to register a rule for it")
    else:
        obj = fn
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "fn")
        mod = getattr(fn, "__module__", None) or type(fn).__module__
        path = f"{mod}.{name}"
        if resolve_path(path) is not obj:  # e.g. scipy's ufuncs say they live in numpy
            path = f"user.{name}"
    if not callable(obj):
        raise RuleError(f"{path} is not callable")
    flags.setdefault("raises", "always")  # the user's function may raise: calls are never dropped
    rule = defrule(path, params, jvp=jvp, vjp=vjp, namespace=namespace, out=out, fn=obj, **flags)
    rule.family, rule.user = "user", True
    _BY_ID[id(obj)] = rule.name  # a user rule takes precedence over an earlier one
    return rule


def register(rule: Rule) -> Rule:
    RULES[rule.name] = rule
    if rule.fn is not None:
        key = _method_key(rule.fn)
        if key is not None:  # (kept alive: its id stays its own)
            _BY_METHOD.setdefault(key, rule.name)
            _KEEP.append(rule.fn.__self__)
        else:
            _BY_ID.setdefault(id(rule.fn), rule.name)
        _KEEP.append(rule.fn)
    if rule.runs is not None:  # (generated code calls it: read back, as for higher orders, the same rule)
        _BY_ID.setdefault(id(rule.runs), rule.name)
    return rule


def composite(path: str, source: Callable, refuses: tuple[str, ...] = (), **flags) -> Rule | None:
    """Register a library function by its *source implementation*: `source`, a plain
    Python/NumPy/scipy.special function in srcad/rules/, is inlined in place of each call (as a
    user's function is), so both modes and every order come from the rules of what it calls.
    Its signature is the library function's (positional order, keywords, defaults). `refuses`
    names the parameters no derivative may reach, for the listing: data (counts, integer sizes,
    which the implementation passes through `srcad.data_only`) and parameters of a function
    without a rule in them (t.cdf's df: scipy.special.stdtr); differentiating them is an error
    raised by those rules. `diff`, when given, names the differentiable parameters for the
    listing (by default those not refused, not accepted only as None, not bool or str).
    Returns None when the library is not installed."""
    fn = resolve_path(path)
    if fn is None:
        return None
    sig = inspect.signature(source)
    names = tuple(sig.parameters)
    defaults = {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
    unused = {p for p, values in flags.get("accepts", {}).items() if values == (None,)}  # (only None)
    diff = flags.pop("diff", None) or tuple(p for p in names if p not in refuses and p not in unused
                                             and not isinstance(defaults.get(p), (bool, str)))
    flags.setdefault("raises", "always")
    _defaults(flags)
    if not isinstance(source, CustomRule):  # (srcad's own derivative rules: odes.py calls, not inlines)
        _SOURCE_MODULES.add(source.__module__)
    rule = Rule(path, names, defaults, fn=fn, family=_FAMILY[0], source=source, diff=diff,
                refuses=tuple(refuses), **flags)
    return register(rule)


def alias(path: str, target: str, **changes) -> Rule | None:
    """Register `path` with the rules of `target` (a method that mirrors a function)."""
    base = RULES.get(target)
    if base is None:
        return None
    fn = changes.pop("fn", None)
    if fn is None and not path.startswith(("operator.", "srcad.", "numpy.ndarray.")):
        fn = resolve_path(path)
    rule = Rule(**{**base.__dict__, "name": path, "fn": fn, "family": _FAMILY[0], **changes})
    return register(rule)


def nondiff(path: str, params: str = "*args", out: Callable | None = None, **flags) -> Rule | None:
    """Register a primitive whose result carries no derivative (shape queries, argmax...)."""
    if params.startswith("*"):
        names, defaults = (), {}
    else:
        names, defaults = _parse_params(params)
    fn = flags.pop("fn", None)
    if fn is None and not path.startswith(("operator.", "srcad.", "numpy.ndarray.")):
        fn = resolve_path(path)
        if fn is None:
            return None
    flags.setdefault("differentiable", False)
    _defaults(flags)
    rule = Rule(path, names, defaults, fn=fn, out=out, family=_FAMILY[0], **flags)
    return register(rule)


def conjugated(vjp: str) -> str:
    """The adjoint for complex values of a product that is real-bilinear (a matrix product):
    conj(vjp(conj(g))), the real adjoint with the other operand conjugated."""
    return "np.conj(" + re.sub(r"\bg\b", "np.conj(g)", vjp) + ")"


def elementwise(path: str, d: str, params: str = "x", out=None, **flags) -> Rule | None:
    """A unary elementwise function with derivative `d` (an expression in x and ans)."""
    return defrule(path, params, jvp=f"t * ({d})", vjp=f"g * ({d})", out=out, **flags)


def elementwise2(path: str, dx: str | None, dy: str | None, params: str = "x, y", out=None, **flags):
    """A binary broadcasting function with partial derivatives `dx` and `dy`."""
    jvp = {}
    vjp = {}
    names = _parse_params(params)[0]
    for name, d in zip(names, (dx, dy)):
        if d is not None:
            jvp[name] = f"t * ({d})"
            vjp[name] = f"g * ({d})"
    return defrule(path, params, jvp=jvp, vjp=vjp, out=out, broadcasts=tuple(names), **flags)


def unaccepted(rule: Rule, bound: dict, value_of: Callable) -> list[str]:
    """What is wrong with the arguments of a call whose values the rule's derivatives cannot
    honour (Rule.accepts); `value_of(arg)` is an argument's literal value, or NOT_CONST."""
    problems = []
    for name, values in rule.accepts.items():
        value = value_of(bound[name]) if name in bound else rule.defaults.get(name)
        if value is NOT_CONST or not any(type(value) is type(v) and value == v for v in values):
            problems.append(f"{name}= of {rule.name} is supported only as one of the literals "
                            f"{', '.join(map(repr, values))}")
    return problems


def literal_value(atom):
    """An argument's literal value (an IR atom), NOT_CONST when it is not a literal."""
    return atom.value if isinstance(atom, Const) and not isinstance(atom.value, Ext) else NOT_CONST


def no_such_parameter(name: str, keyword: str) -> bool:
    """Is `keyword` no parameter of the library function `name` at all (a misspelling)?"""
    try:
        signature = inspect.signature(resolve_path(name))
    except (TypeError, ValueError):
        return False
    params = signature.parameters.values()
    return keyword not in signature.parameters and not any(p.kind == p.VAR_KEYWORD for p in params)


def call_problems(rule: Rule, args, kw) -> list[str]:
    """`unaccepted` for a call's IR atoms (none for `*` or `**` arguments, bound later)."""
    if not all(isinstance(a, (Var, Const)) for a in args) or any(k is None for k, _ in kw):
        return []
    return unaccepted(rule, bind(rule, tuple(args), tuple(kw)), literal_value)


def bind(rule: Rule, args: tuple, kw: tuple[tuple[str, object], ...]) -> dict[str, object]:
    """Match a call's arguments to the rule's parameter names (extra ones are dropped)."""
    bound = dict(zip(rule.params, args))
    for k, v in kw:
        if k in rule.params:
            bound[k] = v
    return bound


def view_source(rule: Rule, args: tuple, kw) -> object | None:
    """The argument a call's result may share its buffer with, when the rule says it depends
    on the call (`view_of`); None when the result is fresh or the rule decides by `fresh`."""
    if rule.view_of is None:
        return None
    return rule.view_of(bind(rule, args, kw))


def call_types(rule: Rule, args, kw, type_of, const_of) -> Sig:
    bound = bind(rule, args, kw)
    types = {k: type_of(v) for k, v in bound.items()}
    consts = {}
    for k, v in bound.items():
        c = const_of(v)
        if c is not _NO_DEFAULT:
            consts[k] = c
    return Sig(rule, types, consts)


NOT_CONST = _NO_DEFAULT
