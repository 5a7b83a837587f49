"""Type inference: specialise a lowered function to the types of its arguments.

Every value gets an abstract type (see ir/types.py). Operations whose meaning depends on
types are resolved here: `x.sum()` on an array becomes `numpy.ndarray.sum`, `xs.append(v)`
on a list becomes `srcad.list_append`, a global read gets the type of the global's current
value. Calls to primitives are checked against the rule's parameters, so an argument srcad
does not understand (say `np.sum(x, where=m)`) is an error rather than silently ignored.

Loops are iterated to a fixed point: a loop variable's type is the join of its initial value
and what the body yields.
"""

from __future__ import annotations

import dataclasses

from ..analysis.shapes import shape_query
from ..errors import (
    NoRuleError,
    SrcadError,
    TypeSupportError,
    UnsafeMutationError,
    UnsupportedSyntaxError,
    diagnostic,
)
from ..frontend.expr import is_literal
from ..frontend.lower import lower_function
from ..frontend.planned import generated_at
from ..ir import types as T
from ..ir.nodes import Apply, Atom, Block, Const, Ext, For, Function, If, Var, While, atom_type, max_var_id
from ..passes.fold import fold_apply, isinstance_of_items
from ..rules import registry
from . import typed_args
from .calls import CallOps
from .counted import counted_lists
from .result_types import literal_shape, out_types
from .sequences import SequenceOps
from .shape_checks import with_shape_checks
from .structs import check_join, check_objects
from .unroll import UnrollOps

#: methods whose extra positional arguments form one tuple argument: x.reshape(2, 3)
_VARARG_METHODS = {"reshape", "transpose"}
_MAX_ROUNDS = 8


def _exact(t: T.Type) -> bool:
    """Is t an array type of exact shape?"""
    return isinstance(t, T.Array) and t.shape is not None and None not in t.shape


def _receiver_family(t: T.Type) -> str | None:
    if isinstance(t, (T.Array, T.Num, T.Unknown, T.Float, T.Complex)):
        return "numpy.ndarray"
    return "srcad.sparse" if typed_args.sparse(t) else {T.List: "list", T.Dict: "dict"}.get(type(t))


class Specializer(SequenceOps, CallOps, UnrollOps):
    def __init__(self, fn: Function, free_types: dict, lower=None, trusted: bool = False):
        self.fn = fn
        self.free_types = free_types
        self.next_id = max_var_id(fn) + 1
        self.env: dict[Var, Atom] = {}
        self.reads: dict[int, tuple] = {}  # Var id -> what it reads (globals, attributes)
        self.lower = lower or lower_function  # (a user function -> its lowered IR, to inline it)
        self.inlining: list = []  # (function, call_key) of the calls being inlined (recursion.py)
        self.unrolled = 0  # recursive calls inlined so far
        self.inlined: list = []  # every user function inlined while specialising
        self.trusted = trusted  # srcad's generated code: it indexes differentiated objects' nodes
        # the items of the lists built here (srcad.list): an SSA value of a list is never read
        # after an in-place change (transforms/safety.py refuses that), so its items are fixed
        self.list_items: dict[Var, tuple[Atom, ...]] = {}
        self.dicts_iterated: dict[Var, Atom] = {}  # `for k in d`: its keys' var -> d (unroll.py)
        self.tuples_built: dict[Var, tuple] = {}  # srcad.tuple's items (a tuple never changes)
        self.items_of: dict[Var, Atom] = {}  # d.items() -> d, for (key, d[key]) at a known position
        self.current_dicts: dict[Atom, Atom] = {}  # d -> d as an unrolled loop carries it now

    # values

    def trusts(self, loc) -> bool:
        """Is the operation at `loc` srcad's own code? (Not a user function inlined into it.)"""
        return generated_at(loc, self.trusted)

    def typed(self, v: Var, t: T.Type) -> Var:
        nv = Var(v.id, v.hint, t)
        self.env[v] = nv
        return nv

    def atom(self, a: Atom) -> Atom:
        return self.env.get(a, a) if isinstance(a, Var) else a

    def fresh(self, hint: str, t: T.Type) -> Var:
        v = Var(self.next_id, hint, t)
        self.next_id += 1
        return v

    # blocks

    def block(self, b: Block, param_types: tuple[T.Type, ...]) -> Block:
        params = tuple(self.typed(p, t) for p, t in zip(b.params, param_types))
        ops = []
        for op in b.ops:
            ops.extend(self.op(op))
        return Block(params, tuple(ops), tuple(self.atom(a) for a in b.yields))

    def op(self, op) -> list:
        if isinstance(op, Apply):
            return self.apply(op)
        cond = self.atom(op.cond) if isinstance(op, If) else None
        if isinstance(cond, Const) and is_literal(cond.value):
            return self.taken_branch(op, cond.value)
        if isinstance(op, If):
            then = self.block(op.then, ())
            orelse = self.block(op.orelse, ())
            outs = tuple(
                self.typed(o, self.join_types(atom_type(a), atom_type(b), op.loc))
                for o, a, b in zip(op.outs, then.yields, orelse.yields)
            )
            return [If(outs, self.atom(op.cond), then, orelse, op.loc)]
        if isinstance(op, For):
            unrolled = self.unroll_loop(op)
            if unrolled is not None:
                return unrolled
            try:
                loop = self.loop_for(op)
            except TypeSupportError as e:  # (a key set per iteration: {i: ... for i in range(3)})
                unrolled = self.unroll_loop(op, forced=True) if getattr(e, "unrolling_helps", False) else None
                if unrolled is None:
                    raise
                return unrolled
            peeled = self.peel_loop(op, loop)
            return peeled if peeled is not None else [loop]
        if isinstance(op, While):
            return [self.loop_while(op)]
        raise TypeError(op)

    def taken_branch(self, op: If, cond) -> list:
        """The operations of the branch an `if` on a constant takes (the other one may not
        even specialise: the end of a recursion, a type check)."""
        taken = op.then if cond else op.orelse
        ops = []
        for inner in taken.ops:
            ops.extend(self.op(inner))
        for out, y in zip(op.outs, taken.yields):
            self.env[out] = typed_args.taken_value(taken, self.atom(y))
        return ops

    def _fixpoint(self, init: tuple[Atom, ...], run, loc=None):
        types = tuple(atom_type(a) for a in init)
        for _ in range(_MAX_ROUNDS):
            result, yields = run(types)
            new = tuple(self.join_types(t, atom_type(y), loc) for t, y in zip(types, yields))
            if new == types:
                return result, types
            types = new
        types = tuple(T.UNKNOWN if t.differentiable else t for t in types)
        result, _ = run(types)
        return result, types

    def loop_for(self, op: For):
        if any(isinstance(atom_type(self.atom(a)), T.Float) for a in (op.start, op.stop, op.step)):
            raise TypeSupportError("range() of a float", [diagnostic(
                op.loc, "range() needs ints, and a float is given here",
                "an int argument you differentiate is promoted to a float: leave it out of argnums "
                "(or give it a jvp tangent of None), or convert with int(...)")])
        init = tuple(self.atom(a) for a in op.init)
        n = len(init)

        def run(types):
            body = self.block(op.body, (T.INT,) + types)
            return body, body.yields[:n]

        body, types = self._fixpoint(init, run, op.loc)
        start, stop, step = self.atom(op.start), self.atom(op.stop), self.atom(op.step)
        types = counted_lists(dataclasses.replace(op, start=start, stop=stop, step=step), body, types,
                              lambda i: self.item_shapes(init[i]))
        outs = tuple(self.typed(o, t) for o, t in zip(op.outs, types))
        return dataclasses.replace(
            op, outs=outs, start=self.atom(op.start), stop=self.atom(op.stop),
            step=self.atom(op.step), init=init, body=body,
        )

    def loop_while(self, op: While):
        init = tuple(self.atom(a) for a in op.init)
        n = len(init)

        def run(types):
            cond = self.block(op.cond, types)
            body = self.block(op.body, types)
            return (cond, body), body.yields[:n]

        (cond, body), types = self._fixpoint(init, run, op.loc)
        outs = tuple(self.typed(o, t) for o, t in zip(op.outs, types))
        return dataclasses.replace(op, outs=outs, init=init, cond=cond, body=body)

    # operations

    def apply(self, op: Apply) -> list:
        if op.prim == "srcad.star_call":
            return self.star_call(op)
        if op.prim in ("srcad.item_update", "srcad.written_back", "srcad.written_back_item"):  # sequences.py
            return getattr(self, op.prim[6:])(op, tuple(self.atom(a) for a in op.args))
        if op.prim == "srcad.mutate_call":
            return self.mutate_call(op, tuple(self.atom(a) for a in op.args),
                                    tuple((k, self.atom(a)) for k, a in op.kw))
        return with_shape_checks(self.apply_args(op, tuple(self.atom(a) for a in op.args),
                                                 tuple((k, self.atom(a)) for k, a in op.kw)))

    def join_types(self, a: T.Type, b: T.Type, loc) -> T.Type:
        """The type of a value that is of type a on one path and b on another. In srcad's own
        code (trusted) a node on one path and an array on another is a temporary's name reused
        by codegen for two values that are dead where the paths meet (`_zeros` of an object's
        gradient, then of one of its fields): never read, so not refused."""
        if self.trusts(loc):
            return T.join(a, b)
        return _join(a, b, loc)

    def apply_args(self, op: Apply, args, kw) -> list:
        """The operations `op` becomes, with its arguments already specialised."""
        by_type = self.call_by_type(op, args, kw)
        if by_type is not None:
            return by_type
        pre: list = []
        prim, args, kw = self.resolve_checked(op, args, kw, pre)
        item = self.built_item(op, prim, args, pre)
        if item is not None:
            self.env[op.outs[0]] = item
            return pre
        if typed_args.vanishes(prim, args):
            if prim == "srcad.as_numeric":
                self.env[op.outs[0]] = args[0]
            return pre
        rule = registry.lookup(prim)
        if rule is None:
            raise NoRuleError(f"no rule named {prim}", [diagnostic(op.loc, f"no rule named {prim}")])
        self.check_call(rule, args, kw, op)
        if prim.startswith(("numpy.", "scipy.")) and rule.differentiable and not rule.structural:
            args, kw = self.lists_as_arrays(rule, args, kw, op, pre)
        typed_args.check_keys_and_ints(rule, prim, args, op)
        args = self.setitem_args(prim, args, kw, op, pre)
        if rule.custom:
            types = (_custom_result_type(args[0].value.obj, tuple(atom_type(a) for a in args[1:])), T.UNKNOWN)
        else:
            read = self.read_of(prim, args, op)
            types = out_types(rule, args, kw, len(op.outs), self.free_types, read, self.item_types)
            types = types if _attribute_type(prim, args) is None else (_attribute_type(prim, args),)
        if prim == "srcad.iter" or (prim == "srcad.method" and args[0] == Const("keys") and len(args) == 2):
            seq = args[-1]  # for k in d (or d.keys()): the keys; any other sequence: itself
            d = atom_type(seq)
            if isinstance(d, T.Dict) or (prim == "srcad.iter" and not typed_args.iterated_when_run(d)):
                self.dicts_iterated.update({op.outs[0]: seq} if isinstance(d, T.Dict) else {})
                self.env[op.outs[0]] = Const(tuple(k for k, _ in d.items)) if isinstance(d, T.Dict) else seq
                return pre
            # (a value of unknown type, maybe a dict, or not indexed by position: srcad.iter stays)
        known = isinstance_of_items(args, self.tuples_built) if prim == "builtins.isinstance" else None
        known = known or (_known_result(prim, args, kw, types) if len(op.outs) == 1 and not rule.impure
                          else None)
        if known is not None:  # shapes and arithmetic on them: constants for what follows
            self.env[op.outs[0]] = known
            return pre
        outs = tuple(self.typed(o, t) for o, t in zip(op.outs, types))
        self.list_items.update({outs[0]: args} if prim == "srcad.list" and len(outs) == 1 else {})
        self.tuples_built.update({outs[0]: args} if prim == "srcad.tuple" and len(outs) == 1 else {})
        self.items_of.update({outs[0]: args[0]} if prim == "srcad.dict_items" else {})
        return pre + [Apply(outs, prim, args, kw, op.loc)]

    def setitem_args(self, prim: str, args, kw, op: Apply, pre: list) -> tuple:
        """A write of an item: with the zero of the item written over, for derivatives (its
        shape is lost otherwise), or marked as adding a key to a dict."""
        if prim not in ("operator.setitem", "srcad.setitem") or len(args) != 3 or kw:
            return args
        if typed_args.item_structured(args):
            zero = self.fresh("", out_types(registry.lookup("srcad.zero_item"), args[:2], (), 1)[0])
            pre.append(Apply((zero,), "srcad.zero_item", args[:2], (), op.loc))
            return args + (zero,)
        if typed_args.adds_key(args):
            return args + (Const(None), Const(True))  # (added: no item is written over)
        return args

    def item_shapes(self, a: Atom) -> tuple | None:
        """The exact shapes of the items of a list built here (a display), or None."""
        t = atom_type(a)
        if isinstance(t, T.List) and t.shapes is not None:
            return t.shapes
        items = self.list_items.get(a) if isinstance(a, Var) else None
        if items is None or not all(_exact(atom_type(i)) for i in items):
            return None
        return tuple(atom_type(i).shape for i in items)

    def item_types(self, a: Atom) -> T.Type | None:
        """A list built here as a tuple of its items' types (the exact shape of what NumPy
        makes of it, for shape functions: rules' `item_shapes`); None for anything else."""
        items = self.list_items.get(a) if isinstance(a, Var) else None
        return None if items is None else T.Tuple(tuple(self.item_types(i) or atom_type(i) for i in items))

    def star_call(self, op: Apply) -> list:
        """`f(a, *v)` (frontend/expr.py Star): the call with the items of the tuple (*v, ...),
        whose length its type gives (v a tuple, `x.shape`); anything else is refused."""
        prim, packed = op.args[0].value, self.atom(op.args[-1])
        t = atom_type(packed)
        if not isinstance(t, T.Tuple):
            msg = "'*' unpacking of a value whose length is not known while transforming"
            raise UnsupportedSyntaxError(msg, [diagnostic(op.loc, msg, "unpack a tuple (a *args "
                                                          "parameter, x.shape, a tuple built in the "
                                                          "function), or pass the elements explicitly")])
        pre, items = [], list(op.args[1:-1])
        for i in range(len(t.elts)):
            v = self.fresh("", T.UNKNOWN)
            pre += self.apply(Apply((v,), "operator.getitem", (packed, Const(i)), (), op.loc))
            items.append(self.atom(v))
        return pre + self.apply(Apply(op.outs, prim, tuple(items), op.kw, op.loc, op.keep))

    def lists_as_arrays(self, rule, args, kw, op: Apply, pre: list):
        """A list (or tuple) of floats given to a NumPy or SciPy function where it is
        differentiated is the array NumPy makes of it: convert it explicitly (np.asarray),
        so that every transformation's templates see an array and its tangent."""
        diff = set(rule.diff_params)
        names = rule.params[:len(args)]

        def convert(p, a):
            depth = typed_args.float_list_depth(atom_type(a))
            if p not in diff or not depth:
                return a
            if depth > 1 and rule.splits_lists:  # (np.split takes its length along any axis)
                msg = f"{rule.name} of a nested list (NumPy splits it by its length, not its shape)"
                raise TypeSupportError(msg, [diagnostic(op.loc, msg, "pass np.asarray(...) of the list")])
            v = self.fresh("", T.Array(depth, "f", literal_shape(self.item_types(a) or atom_type(a), depth)))
            pre.append(Apply((v,), "numpy.asarray", (a,), (), op.loc))
            return v

        new_args = tuple(convert(p, a) for p, a in zip(names, args)) + tuple(args[len(names):])
        return new_args, tuple((k, convert(k, a)) for k, a in kw)

    def read_of(self, prim: str, args, op: Apply):
        """What a srcad.global, srcad.cell or srcad.getattr reads (None for anything else);
        remembered for the attributes read through its result."""
        entry = None
        if prim == "srcad.global":
            entry = (prim, args[0].value, args[1].value)
        elif prim == "srcad.cell":
            entry = (prim, args[0].value, "")
        elif prim == "srcad.getattr" and len(args) == 2 and isinstance(args[0], Const):
            base = args[1]
            if isinstance(base, Var) and base.id in self.reads:
                entry = (prim, self.reads[base.id], args[0].value)
            elif isinstance(base, Const) and isinstance(base.value, Ext):
                entry = (prim, ("srcad.static", base.value, ""), args[0].value)
        if entry is not None and op.outs:
            self.reads[op.outs[0].id] = entry
        return entry

    def check_call(self, rule, args, kw, op: Apply) -> None:
        if not rule.params:
            return  # variadic
        problems = []
        most = len(rule.params) if rule.positional is None else rule.positional
        if len(args) > most:
            problems.append(f"{rule.name} takes at most {most} positional arguments here")
        for k, _a in kw:
            if k not in rule.params:
                problems.append(f"{rule.name}() has no parameter {k!r} (Python raises TypeError: check its "
                                "name)" if registry.no_such_parameter(rule.name, k) else
                                f"argument {k!r} of {rule.name} is not supported by its derivative rule")
        bound = registry.bind(rule, args, kw)
        if "out" in bound and typed_args.literal(bound["out"]) is not None:  # (a value of type None is None)
            problems.append(f"out= is not supported in differentiated code ({rule.name})")
        problems += registry.unaccepted(rule, bound, typed_args.literal)
        if problems:
            raise NoRuleError(
                problems[0],
                [diagnostic(op.loc, p, "call it without that argument, or register a rule that "
                            "supports it (docs/rules.md)") for p in problems],
            )

    def resolve_checked(self, op: Apply, args, kw, pre: list):
        """resolve, refusing what would see a differentiated object as the tuple srcad makes of
        it (transforms/structs.py); srcad's own generated code is not checked."""
        if not self.trusts(op.loc) and op.prim != "srcad.mutate":  # (xs.append(p): once resolved)
            check_objects(op, op.prim, args, kw)
        prim, args, kw = self.resolve(op, args, kw, pre)
        if not self.trusts(op.loc) and op.prim == "srcad.mutate":
            check_objects(op, prim, args, kw)
        return prim, args, kw

    def resolve(self, op: Apply, args, kw, pre: list):
        prim = op.prim
        if prim in ("builtins.list", "builtins.tuple", "builtins.sorted") and len(args) == 1 and \
                isinstance(atom_type(args[0]), T.Dict):  # list(d): its keys, known while transforming
            return prim, (Const(tuple(k for k, _ in atom_type(args[0]).items)),), kw
        if prim == "builtins.dict" and not isinstance(atom_type(args[0]), T.Dict):
            raise TypeSupportError(f"dict() of a {atom_type(args[0])}", [diagnostic(
                op.loc, f"dict() of a {atom_type(args[0])}: srcad tracks a dict's keys while transforming",
                "write the dict out with constant keys: {'a': x, 'b': y} or dict(a=x, b=y)")])
        if prim == "srcad.method":
            name, recv, rest = args[0].value, args[1], list(args[2:])
            if isinstance(atom_type(recv), T.Dict) and name in ("values", "items") and not rest:
                return f"srcad.dict_{name}", (recv,), kw
            if name == "copy" and not rest and not kw and isinstance(atom_type(recv), T.Unknown):
                return "srcad.copy_value", (recv,), kw  # (maybe an array, maybe a list or dict)
            fam = _receiver_family(atom_type(recv))
            cand = f"{fam}.{name}" if fam else None
            if cand and registry.lookup(cand):
                if name in _VARARG_METHODS and len(rest) > 1:
                    rest = [self.pack(rest, op, pre)]
                return cand, (recv, *rest), kw
            return prim, args, kw
        if prim == "srcad.getattr":
            name, obj = args[0].value, args[1]
            t = atom_type(obj)
            if isinstance(t, T.Tuple) and t.fields and name in t.fields:  # a named tuple's field
                return "operator.getitem", (obj, Const(t.fields.index(name))), kw
            fam = _receiver_family(atom_type(obj))
            cand = f"{fam}.{name}" if fam else None
            if cand and registry.lookup(cand):
                return cand, (obj,), kw
            return prim, args, kw
        if prim == "srcad.mutate":
            name, recv = args[0].value, args[1]
            t = atom_type(recv)
            if isinstance(t, T.List) and name == "pop" and len(args) == 3 and not kw:
                return "srcad.list_pop_at", (recv, args[2]), kw  # xs.pop(i)
            if isinstance(t, T.List) and name == "sort":
                return self.list_sort(op, recv, args[2:], kw, pre)
            if isinstance(t, T.Array) and name in ("sort", "fill") and not kw and len(args) == (
                    2 if name == "sort" else 3):
                return self.array_in_place(op, name, recv, args[2:], pre)
            mutator = registry.lookup(f"list.{name}")  # xs.append(v), xs.pop()...: the user's own writes
            if isinstance(t, T.List) and mutator is not None and mutator.user_write and (
                    name != "pop" or len(args) == 2):
                return mutator.name, (recv, *args[2:]), kw
            raise UnsafeMutationError(
                f".{name}() on a {t} is not supported",
                [diagnostic(op.loc, f".{name}() on a value of type {t} is not supported",
                            "use xs.append(v) / xs.pop() on local lists, or build a new value")],
            )
        if prim == "srcad.as_numeric" and typed_args.float_list_depth(atom_type(args[0])):
            return "numpy.asarray", args, kw  # (a list of numbers given to generated code: an array)
        if prim == "operator.matmul" and len(args) == 2 and typed_args.sparse(atom_type(args[0])):
            return "srcad.sparse_dot", args, kw  # (A @ x of a scipy.sparse matrix)
        if prim in ("operator.add", "operator.iadd", "operator.mul", "operator.imul", "operator.or_",
                    "operator.ior") and len(args) == 2:
            return self.sequence_op(op, prim, args, kw, pre)
        return prim, args, kw


def _join(a: T.Type, b: T.Type, loc) -> T.Type:
    joined = T.join(a, b)
    check_join(a, b, joined, loc)
    return joined


def _attribute_type(prim: str, args) -> T.Type | None:
    """The type of `obj.name` for an object whose attributes' types are known (T.Object)."""
    if prim != "srcad.getattr" or len(args) != 2 or not isinstance(args[0], Const):
        return None
    t = atom_type(args[1])
    return t.attr(args[0].value) if isinstance(t, T.Object) else None


_CUSTOM_TYPES: dict = {}


def _custom_result_type(custom, arg_types) -> T.Type:
    """The result type of a custom-rule function, from its own body when srcad can read it."""
    if custom.result_type is not None:
        return custom.result_type(arg_types)
    key = (id(custom), arg_types)
    if key not in _CUSTOM_TYPES:
        try:
            f = specialize(lower_function(custom.fun).function, arg_types)
            y = f.body.yields[0]
            _CUSTOM_TYPES[key] = atom_type(y)
        except SrcadError:
            _CUSTOM_TYPES[key] = T.UNKNOWN
    return _CUSTOM_TYPES[key]


def _known_result(prim: str, args, kw, types=()) -> Const | None:
    """The value of an operation that code specialised on these types always computes:
    shape queries of arrays of known shape, a module global int whose value the dispatcher
    keys the code on (T.Int.value), and folds of constants (passes/fold.py)."""
    if prim == "srcad.global" and types and isinstance(types[0], T.Int) and types[0].value is not None:
        return Const(types[0].value)
    return shape_query(registry.lookup(prim), args, kw) or fold_apply(prim, args, kw)


def specialize(fn: Function, arg_types: tuple[T.Type, ...], free_types: dict | None = None,
               lower=None, inlined: list | None = None, trusted: bool = False) -> Function:
    """`fn` with every value typed for arguments of `arg_types`. `lower` gives the lowered IR
    of a user function inlined while specialising (the methods of objects); `inlined`, if
    given, receives those functions; `trusted`: fn is srcad's generated code, whose use of
    differentiated objects is not checked (transforms/structs.py)."""
    s = Specializer(fn, dict(free_types or {}), lower, trusted)
    body = s.block(fn.body, tuple(arg_types))
    if inlined is not None:
        inlined.extend(s.inlined)
    return dataclasses.replace(fn, body=body)
