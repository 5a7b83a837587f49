"""Objects of the user's classes made inside the function being transformed: `K(x[-1])`.

Such an object exists only while srcad lowers the code, as nested functions do: making it
inlines `__init__` with `self` bound to it (a dataclass's fields are bound from the call's
arguments, then `__post_init__` runs), its attributes are variables of the SSA builder (so
branches and loops join and carry them like local variables), a method call inlines the
method with `self` bound to it, a property's getter is inlined, and attribute reads and
writes, through any name that refers to it, are reads and writes of those variables:

    class Gaussian:                              def f(x):
        def __init__(self, mu, s):                   g = Gaussian(x[0], 2.0)
            self.mu, self.s = mu, s                  return g.logpdf(x[1])
        def logpdf(self, v):
            z = (v - self.mu) / self.s    ->     (lowered as)  z = (x[1] - x[0]) / 2.0 ...
            return -0.5 * z * z

The object never reaches the generated code. One that would (returned, kept in a list or a
dict, chosen by a branch, carried by a loop other than as carried.py carries it, compared,
given to a library function:
`check_no_local_objects`), one srcad cannot follow (a write to a frozen dataclass or a
property, a `default_factory`), and objects of classes with their own `__new__`, metaclass
call, `__getattr__`, `__getattribute__`, `__setattr__` or `__delattr__` are made when the code
runs instead, as calls srcad does not see into (`made_at_run_time`, pipeline._objects_retried).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import inspect
import itertools
import types
from dataclasses import dataclass, field

import gast

from ..errors import UnsupportedSyntaxError, diagnostic
from ..ir.kinds import plain_named_tuple, user_class
from ..ir.nodes import REGION_OPS, Const, Ext, Function, Var, ext_object, iter_ops
from .closures import Partial
from .expr import INPLACE, ext_name, static_atom
from .resolve import Static, library_code

_MISSING = object()
_SERIALS = itertools.count()

#: Where objects are made, (file, line, col), whose object the generated code would hold
#: (check_no_local_objects): made there when the code runs instead, as calls of other
#: functions are (a constant, or an error where a differentiated value meets it). One
#: transformation's set (pipeline._objects_retried), so that what one function needs does not
#: change how another is transformed.
_RUN_TIME_SITES: contextvars.ContextVar = contextvars.ContextVar("srcad_run_time_sites", default=frozenset())
_HOOKS = ("__getattr__", "__getattribute__", "__setattr__", "__delattr__")
_DUNDERS = {"Add": "add", "Sub": "sub", "Mult": "mul", "Div": "truediv", "FloorDiv": "floordiv",
            "Mod": "mod", "Pow": "pow", "MatMult": "matmul", "USub": "neg", "UAdd": "pos"}


@dataclass(eq=False, repr=False)
class LocalObject:
    """An object of the user's class made while lowering (its attributes: builder variables)."""

    cls: type
    loc: object  # the IR Loc where it was made
    frozen: bool = False  # a frozen dataclass: no attribute writes after its __init__
    class_reads: set = field(default_factory=set)  # attributes read from the class
    attrs: set = field(default_factory=set)  # the attributes ever assigned to it (carried.py)
    twin: bool = False  # a loop's twin of an object it carries (carried.py: its flags are invariant)
    serial: int = field(default_factory=lambda: next(_SERIALS))  # (its variables' keys: ids are reused)
    made_inside = True  # (what analysis/aliases.py asks of a constant a container holds)

    @property
    def site(self) -> tuple | None:
        return (self.loc.file, self.loc.line, self.loc.col) if self.loc is not None else None

    def __repr__(self) -> str:
        where = f" (line {self.loc.line})" if self.loc is not None else ""
        return f"<srcad object of {self.cls.__qualname__}{where}>"


@dataclass(eq=False, repr=False)
class SuperOf:
    """`super()` in a method of `cls` inlined for a LocalObject (its attributes: cls's bases')."""

    cls: type
    self_atom: object


class ObjectInit:
    """What `super().__init__` is when the next class is `object`: a call of it does nothing."""


def _attr_key(obj: LocalObject, attr: str):
    return ("attr", obj.serial, attr)


def _set_key(obj: LocalObject, attr: str):
    return ("attr set", obj.serial, attr)  # Const(True) where the attribute has been assigned


def local_object(a) -> LocalObject | None:
    obj = ext_object(a)
    return obj if isinstance(obj, LocalObject) else None


def _refusal(cls: type) -> str | None:
    """Why objects of cls cannot be made while lowering (None: they can); `why_not_made`."""
    if type(cls).__call__ is not type.__call__:
        return f"its metaclass {type(cls).__name__} has its own __call__"
    if cls.__new__ is not object.__new__:
        return "it defines __new__"
    hooks = [h for h in _HOOKS if getattr(cls, h, None) is not getattr(object, h, None)]
    if hooks and not (hooks == ["__setattr__", "__delattr__"] and _frozen(cls)):
        return f"it defines {hooks[0]}"
    init = inspect.getattr_static(cls, "__init__")
    if init is not object.__init__ and not _dataclass_init(cls) and not (
            isinstance(init, types.FunctionType) and not library_code(init)):
        return "its __init__ is not a Python function srcad can read"
    return None


def _class_data(cls: type, attr: str | None = None):
    """The names of cls's plain data attributes (not methods, properties or other descriptors,
    not dunder names), or whether `attr` is one."""
    names = {k for c in cls.__mro__[:-1] for k, v in vars(c).items()
             if not (k.startswith("__") and k.endswith("__")) and not hasattr(type(v), "__get__")}
    return names if attr is None else attr in names


def why_not_made(cls: type) -> str | None:
    """Why srcad makes objects of the user's class cls when the code runs, not while transforming."""
    return _refusal(cls) if isinstance(cls, type) and user_class(cls) else None


def _frozen(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen)


def _dataclass_init(cls: type) -> bool:
    """Does cls have the __init__ `dataclasses` generated (no source to read)?"""
    params = getattr(cls, "__dataclass_params__", None)
    code = getattr(inspect.getattr_static(cls, "__init__"), "__code__", None)
    return dataclasses.is_dataclass(cls) and params is not None and params.init and code is not None and \
        code.co_filename.startswith("<")  # (exec'd by dataclasses: "<string>")


class ObjectLowering:
    """A mixin of FunctionLowerer (lower.py): objects of the user's classes made inside."""

    def construct(self, cls, args, kw, node):
        """`cls(*args, **kw)` for a class of the user's: a LocalObject (None: not such a class);
        `super()` in a method of an object made inside, and `super().__init__` reaching object."""
        if cls is ObjectInit:
            return Const(None)
        if isinstance(cls, LocalObject):  # obj(...): its class's __call__
            call = inspect.getattr_static(cls.cls, "__call__", None)
            if not isinstance(call, types.FunctionType):
                raise self._cannot(cls, node, f"the {cls.cls.__qualname__} object is not callable")
            return self.call_function(call, [Const(Ext(ext_name(cls.cls), cls))] + list(args), kw, node)
        if cls is super and not args and not kw:  # (code srcad generates cannot call super() itself)
            return self._super(node) or self.refuse_super(node)
        if plain_named_tuple(cls):
            return self.named_tuple(cls, args, kw, node)
        if not (isinstance(cls, type) and user_class(cls)) or library_code(cls):
            return None
        loc = self.loc(node)
        if loc is not None and (loc.file, loc.line, loc.col) in _RUN_TIME_SITES.get():
            return None
        if _refusal(cls) is not None:  # (made when the code runs: reverse_apply names the reason)
            return None
        obj = LocalObject(cls, loc)
        atom = Const(Ext(ext_name(cls), obj))
        for name in _class_data(cls):  # (no instance attribute of that name yet: the class's is read)
            self.b.write(_set_key(obj, name), Const(False))
        if _dataclass_init(cls):
            init_only = self._dataclass_fields(cls, obj, args, kw, node)
            post = inspect.getattr_static(cls, "__post_init__", None)
            if isinstance(post, types.FunctionType):
                self.call_function(post, [atom] + init_only, [], node)
        elif inspect.getattr_static(cls, "__init__") is object.__init__:
            if args or kw:
                raise self._cannot(obj, node, f"{cls.__qualname__}() takes no arguments")
        else:
            self.call_function(inspect.getattr_static(cls, "__init__"), [atom] + list(args), kw, node)
        obj.frozen = _frozen(cls)
        return atom

    def named_tuple(self, cls, args, kw, node):
        """`P(a, b=v)` of a named tuple class (collections.namedtuple, typing.NamedTuple):
        the tuple of its fields, defaults filled in, typed with its class (methods, `p.w`)."""
        try:
            bound = inspect.signature(cls).bind(*self.no_stars(args, node), **dict(kw))
        except TypeError as e:
            raise self.error(UnsupportedSyntaxError, node, f"bad call to {cls.__qualname__}: {e}") from None
        bound.apply_defaults()
        items = [bound.arguments[f] for f in cls._fields]
        items = [a if isinstance(a, (Var, Const)) else static_atom(a) for a in items]
        return self.emit("srcad.named_tuple", [self.atom(Static(cls), node)] + items, node=node)

    def _cannot(self, obj: LocalObject, node, message: str) -> UnsupportedSyntaxError:
        return made_at_run_time(obj, self.loc(node), message)

    def _dataclass_fields(self, cls, obj: LocalObject, args, kw, node) -> list:
        """The fields the generated __init__ writes; returns the values of the init-only
        variables (InitVar), for __post_init__."""
        try:
            bound = inspect.signature(cls).bind(*self.no_stars(args, node), **dict(kw))
        except TypeError as e:
            raise self._cannot(obj, node, f"bad call to {cls.__qualname__}: {e}") from None
        fields = dataclasses.fields(cls)
        names = {f.name for f in fields if f.init}
        init_only = [bound.arguments[k] if k in bound.arguments else static_atom(p.default)
                     for k, p in bound.signature.parameters.items() if k not in names]
        for f in fields:
            if not f.init:
                if f.default_factory is not dataclasses.MISSING:
                    raise self._cannot(obj, node, f"the field {f.name} of {cls.__qualname__} has a "
                                       "default_factory")
                continue
            if f.name in bound.arguments:
                value = bound.arguments[f.name]
            elif f.default is not dataclasses.MISSING:
                value = static_atom(f.default)
            else:
                raise self._cannot(obj, node, f"the field {f.name} of {cls.__qualname__} has a "
                                   "default_factory")
            self.write_attribute(obj, f.name, value, node)
        return init_only

    def object_operator(self, op, left, right, node, inplace: bool = False):
        """`left op right` with an object made inside as an operand: its class's `__add__`,
        `__radd__` (`__iadd__` first for `+=`), `__neg__`... inlined; None: no such operand."""
        name = _DUNDERS.get(type(op).__name__)
        lobj, robj = local_object(left), local_object(right) if right is not None else None
        if name is None or (lobj is None and robj is None):
            return None
        tries = ([(lobj, f"__i{name}__", left, right)] if inplace else []) + [
            (lobj, f"__{name}__", left, right), (robj, f"__r{name}__", right, left)]
        for obj, method, a, b in tries:
            fn = inspect.getattr_static(obj.cls, method, None) if obj is not None else None
            if isinstance(fn, types.FunctionType):
                out = self.call_function(fn, [a] if right is None else [a, b], [], node)
                if not (isinstance(out, Const) and out.value is NotImplemented):
                    return out
        return None  # (no method of its class: the object is an operand, refused or made at run time)

    def attribute_of_object(self, base, node):
        """`base.attr` where base is an object made inside (None: it is not)."""
        sup = ext_object(base)
        if isinstance(sup, SuperOf):
            obj = local_object(sup.self_atom)
            after = obj.cls.__mro__[obj.cls.__mro__.index(sup.cls) + 1:]
            owner = next((k for k in after if node.attr in k.__dict__), None)
            if owner is object and node.attr == "__init__":
                return Static(ObjectInit)
            if owner is None:
                raise self._cannot(obj, node, f"super() of {sup.cls.__qualname__} has no attribute "
                                   f"{node.attr!r}")
            return self._class_attribute(sup.self_atom, obj, owner, node.attr, node)
        obj = local_object(base)
        return None if obj is None else self.object_attribute(base, obj, node.attr, node)

    def _super(self, node):
        """super() in a method whose first parameter is an object made inside (None: it is not)."""
        fn = self.parsed.fn if self.closure is None else None
        code = getattr(fn, "__code__", None)
        if code is None or "__class__" not in code.co_freevars or not self.node.args.args:
            return None
        cls = fn.__closure__[code.co_freevars.index("__class__")].cell_contents
        me = self.read_local(self.node.args.args[0].id, node)
        if local_object(me) is None or cls not in local_object(me).cls.__mro__:
            return None
        return Const(Ext("super", SuperOf(cls, me)))

    def refuse_super(self, node):
        raise self.error(UnsupportedSyntaxError, node, "super() is supported in the methods of objects "
                         "made in the function only", "call the method by name: Base.method(self, ...)")

    def object_attribute(self, base, obj: LocalObject, attr: str, node):
        """`obj.attr`: the attribute's variable, else what the class has under that name."""
        key = _attr_key(obj, attr)
        if _class_data(obj.cls, attr):  # (the instance's where it was assigned, else the class's)
            flag = self.b.read(_set_key(obj, attr))  # (False from the object's making: construct)
            if flag == Const(True):
                return self.b.read(key)
            if flag == Const(False):
                return self.emit("srcad.getattr", (Const(attr), static_atom(obj.cls)), node=node, hint=attr)
            self.b.begin_if(flag, self.loc(node))
            mine = self.b.read(key)
            self.b.begin_else((mine,))
            theirs = self.emit("srcad.getattr", (Const(attr), static_atom(obj.cls)), node=node, hint=attr)
            return self.b.end_if((theirs,))[0]
        if self.b.is_bound(key):
            if self._assigned(obj, attr):
                return self.b.read(key)
        elif hasattr(obj.cls, attr) and not isinstance(inspect.getattr_static(obj.cls, attr),
                                                        types.MemberDescriptorType):
            obj.class_reads.add(attr)  # (a method...: an instance attribute assigned later would hide it)
            return self._class_attribute(base, obj, None, attr, node)
        # (assigned on some paths only, or later in a loop: raises where it is unassigned)
        return self.emit("srcad.bound", (self.b.read(key), Const(attr)), node=node, hint=attr)

    def _class_attribute(self, base, obj: LocalObject, owner, attr: str, node):
        """`attr` of obj's class (of `owner`, a class of its MRO, when given: super()), bound to obj."""
        raw = owner.__dict__.get(attr, _MISSING) if owner is not None else inspect.getattr_static(
            obj.cls, attr, _MISSING)
        if isinstance(raw, types.FunctionType):
            method = Partial(raw, (base,), (), f"{obj.cls.__qualname__}.{attr}", self.loc(node))
            return Const(Ext(attr, method))
        if isinstance(raw, property) and isinstance(raw.fget, types.FunctionType):
            return self.call_function(raw.fget, [base], [], node)
        if isinstance(raw, (staticmethod, classmethod)):
            return Static(raw.__get__(None, obj.cls))
        if raw is _MISSING or hasattr(type(raw), "__get__"):
            what = "has no attribute" if raw is _MISSING else "has an attribute srcad cannot read,"
            raise self._cannot(obj, node, f"the {obj.cls.__qualname__} object made at line "
                               f"{obj.loc.line if obj.loc else '?'} {what} {attr!r}")
        return self.emit("srcad.getattr", (Const(attr), static_atom(owner or obj.cls)), node=node, hint=attr)

    def _assigned(self, obj: LocalObject, attr: str) -> bool:
        """Is the attribute assigned on every path to here?"""
        before, _ = self.b.invariant(_set_key(obj, attr))  # (its flag is only ever set to True)
        return before == Const(True) or self.b.read(_set_key(obj, attr)) == Const(True)

    def write_attribute(self, obj: LocalObject, attr: str, value, node) -> None:
        raw = inspect.getattr_static(obj.cls, attr, None)
        if isinstance(raw, types.MemberDescriptorType):  # (a __slots__ name: an instance attribute)
            raw = None
        if obj.frozen or attr in obj.class_reads or (raw is not None and hasattr(type(raw), "__set__")):
            why = ("a frozen dataclass" if obj.frozen else f"{attr} is a property or descriptor"
                   if attr not in obj.class_reads else f"its class's method {attr} was read before")
            raise self._cannot(obj, node, f"cannot assign to {attr!r} of the {obj.cls.__qualname__} "
                               f"object: {why}")
        self.b.var_hints.setdefault(_attr_key(obj, attr), attr)
        obj.attrs.add(attr)
        self.b.write(_attr_key(obj, attr), value)
        self.b.write(_set_key(obj, attr), Const(True))

    def made_inside(self, target) -> bool:
        """Is target `name.attr` of an object made inside (a list in it may be appended to)?"""
        return isinstance(target, gast.Attribute) and isinstance(target.value, gast.Name) and \
            local_object(self.read_local(target.value.id, target.value)) is not None

    def assign_attribute(self, target: gast.Attribute, value) -> None:
        obj = local_object(self.value(target.value))
        if obj is None:
            raise self.mutation_error(target, target)
        self.write_attribute(obj, target.attr, value, target)

    def augassign_attribute(self, node) -> None:
        target = node.target
        old = self.value(target)
        rhs = self.value(node.value)
        new = self.emit(INPLACE[type(node.op)], (old, rhs), node=node, hint=target.attr)
        self.assign_attribute(target, new)


def check_no_local_objects(fn: Function) -> None:
    """Refuse an object made inside the function (LocalObject) that the generated code would
    hold: an operand of an operation, or a value a branch, loop or the function yields."""
    for a in fn.body.yields:
        if local_object(a) is not None:
            _refuse(local_object(a), fn.returns[-1] if fn.returns else fn.loc)
    for op in iter_ops(fn.body):
        held = [a for a in op.operands() if local_object(a) is not None]
        if isinstance(op, REGION_OPS):
            held += [a for b in op.blocks() for a in b.yields if local_object(a) is not None]
        if held:
            _refuse(local_object(held[0]), op.loc)


def _refuse(obj: LocalObject, loc) -> None:
    made = f" (made at line {obj.loc.line})" if obj.loc is not None else ""
    raise made_at_run_time(obj, loc, f"the {obj.cls.__qualname__} object{made} is used as a value here "
                           "(returned, kept in a list, dict or tuple, chosen by a branch, carried by a "
                           "loop, compared, or given to a library function): srcad reads its attributes "
                           "and inlines its methods while transforming, and cannot keep the object in the "
                           "generated code")


def run_time_sites() -> frozenset:
    """The places whose objects the transformation under way makes when the code runs."""
    return _RUN_TIME_SITES.get()


@contextlib.contextmanager
def making_at_run_time(sites: frozenset):
    """Make the objects of `sites` when the code runs, within the block."""
    token = _RUN_TIME_SITES.set(sites)
    try:
        yield
    finally:
        _RUN_TIME_SITES.reset(token)


def made_at_run_time(obj: LocalObject, loc, message: str) -> UnsupportedSyntaxError:
    """The error for what srcad cannot do with an object it makes while transforming; its site
    makes pipeline._objects_retried make that object when the code runs instead (where the same
    thing is an error only if a differentiated value reaches it, as before)."""
    hint = "make the object outside the function and pass it in, or keep its numbers in local variables"
    err = UnsupportedSyntaxError(message, [diagnostic(loc, message, hint)])
    err.site = obj.site
    return err
