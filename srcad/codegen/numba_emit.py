"""The numba target's printer: the same optimised IR, printed with the constructs
`numba.njit` compiles (docs/numba_target.md).

Two things differ from the CPython printer (emit.py):

- reversed loops count down with `range` itself (numba has no `reversed` of a range):

      for i in reversed(range(n)):          for i in range(n - 1, -1, -1):

- the per-iteration stacks of reverse mode become arrays with a fill count, grown by
  doubling, when every element has one scalar type or one known array shape (numba's lists
  of arrays are slow, and lists of floats twice as slow as an array):

      _stack_y = []                         _stack_y = np.empty(0, np.float64)
                                            _stack_y_n = 0
      (before the loop)                     _stack_y = _reserve(_stack_y, _stack_y_n + n)
      _stack_y.append(y)                    if _stack_y_n == _stack_y.shape[0]:
                                                _stack_y = _reserve(_stack_y, _stack_y_n + 1)
                                            _stack_y[_stack_y_n] = y
                                            _stack_y_n += 1
      y = _stack_y.pop()                    _stack_y_n -= 1
                                            y = _stack_y[_stack_y_n]

  (room for a for loop's trips is made before it, and the one push of a stack in the loop's
  body, outside its branches and inner loops, then needs no capacity check).
  A stack is a list made by `srcad.list()` whose every use, through the loops and branches
  that carry it, is an append or a pop (lists the user's code reads stay lists).
"""

from __future__ import annotations

import re
import types

import gast
import numpy as np

from ..analysis.aliases import update_base
from ..ir import types as T
from ..ir.nodes import Apply, Block, Const, For, If, While, atom_type, iter_blocks, iter_ops
from ..passes.buffers import reuses
from ..rules import registry
from .emit import CodeEmitter
from .numba_loops import ScalarLoops, add_into, store_into
from .numba_products import Contractions, permuted
from .numba_special import SPECIAL
from .syntax import _assign, _attr, _call, _name

#: The first capacity of a stack array (made room for before a loop, doubled when full).
FIRST_CAPACITY = 0



def _stack_op(op, kind: str = "") -> bool:
    """Is op a push or pop of a stack (Rule.numba "push" / "pop"; kind "" either)?"""
    rule = registry.lookup(op.prim)
    return rule is not None and rule.numba in ((kind,) if kind else ("push", "pop"))


def reserve_stack(s, need):
    """s, or s with more rows after its own, at least `need` in all (twice as many when that
    is more): the numba target's stacks grow by doubling."""
    if need <= s.shape[0]:
        return s
    if s.shape[0] == 0:
        return np.empty((need,) + s.shape[1:], s.dtype)
    out = np.empty((max(need, 2 * s.shape[0]),) + s.shape[1:], s.dtype)
    for k, v in np.ndenumerate(s):  # (numba compiles this loop faster than np.concatenate or
        out[k] = v                  # out[i] = s[i], whose shape check took 9 s to compile)
    return out


def known_number(x, where):
    """srcad.known (a value of a type unknown while transforming) in compiled code, where numba
    has typed every value: a complex one, or a float NaN (where CPython's `x ** 0.5` of a negative
    x is complex), raises, and the call runs again in CPython, which raises the CPython target's
    error or gives its result."""
    if np.iscomplexobj(x):
        raise TypeError()
    if isinstance(x, float):
        if x != x:
            raise ValueError()


def math_result(r, *args):
    """r, a math function's result of args, in compiled code: where CPython's math raises
    (ValueError for math.log(-1.0), OverflowError for math.exp(1000.0)) numba's gives NaN or
    inf, so a value that is not finite from finite arguments raises, and the call runs again
    in CPython, which raises the CPython target's error or gives its result."""
    if r - r != 0.0:
        for a in args:
            if a - a != 0.0:
                return r
        raise ValueError("math domain error (or range error): a math function's result is not finite")
    return r


def finite_array(x):
    """An array result of the compiled code holding inf or NaN raises: the call runs again in
    CPython, whose result (or error) is the CPython target's. (A number is checked inline.)"""
    for v in x.flat:
        if v - v != 0.0:
            raise ValueError("a result is not finite")


#: the numba target's own helpers (generated code calls them; written out with it)
OWN_HELPERS = (reserve_stack, store_into, add_into, known_number, math_result, finite_array)


class _Families:
    """Union-find over the values that are one list as it flows through appends, pops, loops
    and branches."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, v):
        while self.parent.get(v, v) is not v:
            v = self.parent[v]
        return v

    def join(self, a, b) -> None:
        if hasattr(a, "id") and hasattr(b, "id"):
            ra, rb = self.find(a), self.find(b)
            if ra is not rb:
                self.parent[ra] = rb


def _element(t) -> tuple | None:
    """(shape, dtype name) of a stack element type numba stores in an array, or None."""
    if isinstance(t, T.Float):
        return (), "np.float64"
    if isinstance(t, T.Bool):
        return (), "np.bool_"
    if isinstance(t, T.Int):
        return (), "np.int64"
    if isinstance(t, T.Array) and t.shape is not None and all(type(d) is int for d in t.shape) \
            and t.kind in ("f", "i", "b"):
        return tuple(t.shape), {"f": "np.float64", "i": "np.int64", "b": "np.bool_"}[t.kind]
    return None


def _links(fn, fam: _Families) -> None:
    """Join every list value with the values it becomes (appends, pops, loop and branch
    parameters and results)."""
    for op in iter_ops(fn.body):
        if isinstance(op, Apply) and _stack_op(op) and op.args:
            fam.join(op.args[0], op.outs[0])
        elif isinstance(op, (For, While)):
            params = op.body.params[1:] if isinstance(op, For) else op.body.params
            n = len(op.outs)
            for p, i, y, o in zip(params, op.init, op.body.yields[:n], op.outs):
                fam.join(p, i), fam.join(p, y), fam.join(p, o)
            if isinstance(op, While):
                for p, q in zip(op.cond.params, params):
                    fam.join(p, q)
        elif isinstance(op, If):
            for o, a, b in zip(op.outs, op.then.yields, op.orelse.yields):
                fam.join(o, a), fam.join(o, b)


def stack_families(fn) -> dict:
    """{root value: (shape, dtype)} of the lists that are only appended to and popped from,
    each made by one `srcad.list()` with elements of one array-storable type."""
    fam = _Families()
    _links(fn, fam)
    roots, elements, bad = {}, {}, set()
    for op in iter_ops(fn.body):
        if not isinstance(op, Apply):
            continue
        if op.prim == "srcad.list" and not op.args:
            r = fam.find(op.outs[0])
            bad.add(r) if r in roots else roots.setdefault(r, op.outs[0])
        for k, a in enumerate(op.operands()):
            if not hasattr(a, "id"):
                continue
            r = fam.find(a)
            if k == 0 and _stack_op(op, "push"):
                elt = _element(op.args[1].type if hasattr(op.args[1], "type") else None)
                if elt is None or elements.setdefault(r, elt) != elt:
                    bad.add(r)
            elif k == 0 and _stack_op(op, "pop"):
                elt = _element(op.outs[1].type) if len(op.outs) > 1 else None
                if elt is None or elements.setdefault(r, elt) != elt:
                    bad.add(r)
            else:
                bad.add(r)  # read otherwise: len(), indexing, returned, passed on
    for y in fn.body.yields:
        if hasattr(y, "id"):
            bad.add(fam.find(y))
    return {r: elements[r] for r in roots if r not in bad and r in elements}, fam


class NumbaEmitter(ScalarLoops, Contractions, CodeEmitter):
    """CodeEmitter with the numba target's loops, stacks and scalar loops (numba_loops.py)."""

    def __init__(self, fn, comments: bool = True):
        super().__init__(fn, comments, release=False)  # (no `del`: numba types each name once)
        families, self._fam = stack_families(fn)
        self.stacks = {}  # root -> (shape, dtype), for families whose values share one name
        taken = set(self.naming.names.values())
        updates = {op.outs[0]: op for op in iter_ops(fn.body) if isinstance(op, Apply)
                   and _stack_op(op)}
        for root, elt in families.items():
            members = self._members(root)
            names = {self.name(v) for v in members}
            # (one name throughout, a free name for its count, and every append and pop in place)
            if len(names) == 1 and next(iter(names)) + "_n" not in taken and all(
                    id(updates[v]) in self.naming.inplace for v in members if v in updates):
                self.stacks[root] = elt
        self._unchecked = self._reserved_pushes(fn)
        self._fresh, self._made_by_loop = self._fresh_stacks(fn)

    def _reserved_pushes(self, fn) -> set:
        """ids of the pushes that need no capacity check: the one push of a stack in a for
        loop's body, outside its branches and inner loops, where nothing else in the body pushes
        onto that stack (for_stmt made room for every trip before the loop)."""
        safe = set()
        for loop in iter_ops(fn.body):
            if not isinstance(loop, For):
                continue
            direct, counts, top = {}, {}, {id(o) for o in loop.body.ops}
            for o in iter_ops(loop.body):
                root = self._stack_of(o.outs[0]) if isinstance(o, Apply) and _stack_op(o, "push") else None
                if root is not None:
                    counts[root] = counts.get(root, 0) + 1
                    if id(o) in top:
                        direct[root] = o
            safe.update(id(o) for root, o in direct.items() if counts[root] == 1)
        return safe

    def _fresh_stacks(self, fn) -> tuple[dict, set]:
        """(id(for loop) -> the stacks it allocates outright, the stacks made by a loop's
        allocation alone). A loop allocates a stack for its trips when the stack is still empty
        as the loop starts (made by `srcad.list` earlier in the loop's own block, pushed onto by
        nothing in between) and its body pushes onto it directly: no helper call, which numba
        compiles separately, a tenth of a second or more of a first call."""
        fresh, made = {}, set()
        for block in iter_blocks(fn.body):
            empty = set()
            for op in block.ops:
                if isinstance(op, Apply) and op.prim == "srcad.list":
                    if self._stack_of(op.outs[0]) is not None:
                        empty.add(self._stack_of(op.outs[0]))
                    continue
                nested = iter_ops(Block((), (op,), ())) if isinstance(op, (For, If, While)) else (op,)
                pushed = {self._stack_of(o.outs[0]) for o in nested if isinstance(o, Apply)
                          and _stack_op(o, "push")}
                if isinstance(op, For):
                    direct = {self._stack_of(o.outs[0]) for o in op.body.ops if isinstance(o, Apply)
                              and _stack_op(o, "push")}
                    fresh[id(op)] = empty & direct
                    made |= empty & direct
                empty -= pushed
        return fresh, made

    def _members(self, root):
        return [v for v in self.naming.names if self._fam.find(v) is root]

    def _stack_of(self, v):
        if not hasattr(v, "id") or v not in self.naming.names:
            return None
        r = self._fam.find(v)
        return r if r in self.stacks else None

    def _movable(self, op) -> bool:
        if isinstance(op, Apply) and op.prim == "srcad.list" and self._stack_of(op.outs[0]) is not None:
            return False
        if isinstance(op, Apply) and (getattr(registry.lookup(op.prim), "numba", "") == "tensordot"
                                      or permuted(op) is not None):
            return False  # (a statement: written by loops, Contractions)
        return super()._movable(op)

    def apply_stmt(self, op: Apply) -> list:
        if getattr(registry.lookup(op.prim), "numba", "") == "tensordot":
            got = self.contraction(op)
            if got is not None:
                return got
        if permuted(op, literal=False) is not None:
            return self.transposed(op)
        if update_base(op) is None and reuses(op) is None:
            loop = self.scalar_loop(op, self.naming.accumulate.get(id(op)))
            if loop is not None:
                return loop
        root = self._stack_of(op.outs[0]) if op.outs else None
        if root is None:
            return self.buffered(op, super().apply_stmt(op))
        name = self.name(op.outs[0])
        count = name + "_n"
        if op.prim == "srcad.list":
            zero = _assign(_name(count, gast.Store()), gast.Constant(value=0, kind=None))
            if root in self._made_by_loop:  # (allocated by the loop that first pushes onto it)
                return [zero]
            shape, dtype = self.stacks[root]
            dims = gast.Tuple(elts=[gast.Constant(value=d, kind=None) for d in (FIRST_CAPACITY,) + shape],
                              ctx=gast.Load()) if shape else gast.Constant(value=FIRST_CAPACITY, kind=None)
            dtype_node = _attr(_name("np"), dtype.split(".", 1)[1])
            empty = _call(_attr(_name("np"), "empty"), [dims, dtype_node])
            return [_assign(_name(name, gast.Store()), empty), zero]
        if _stack_op(op, "push"):
            check = [] if id(op) in self._unchecked else [self._grow_when_full(name)]
            return check + self._push(name, self.stacks[root][0], op.args[1]) + [
                gast.AugAssign(target=_name(count, gast.Store()), op=gast.Add(),
                               value=gast.Constant(value=1, kind=None))]
        if _stack_op(op, "pop"):
            out = [gast.AugAssign(target=_name(count, gast.Store()), op=gast.Sub(),
                                  value=gast.Constant(value=1, kind=None))]
            if self.uses[op.outs[1]]:
                out.append(_assign(_name(self.name(op.outs[1]), gast.Store()),
                                   gast.Subscript(value=_name(name), slice=_name(count), ctx=gast.Load())))
            return out
        return super().apply_stmt(op)

    def _grow_when_full(self, name: str):
        """`if name_n == name.shape[0]: name = _reserve(name, name_n + 1)`"""
        count, one = _name(name + "_n"), gast.Constant(value=1, kind=None)
        full = gast.Compare(left=count, ops=[gast.Eq()], comparators=[gast.Subscript(
            value=_attr(_name(name), "shape"), slice=gast.Constant(value=0, kind=None), ctx=gast.Load())])
        grow = _call(_name(self.ns.ref(reserve_stack, "_reserve")), [
            _name(name), gast.BinOp(left=_name(name + "_n"), op=gast.Add(), right=one)])
        return gast.If(test=full, body=[_assign(_name(name, gast.Store()), grow)], orelse=[])

    def _push(self, name: str, shape: tuple, value) -> list:
        """`name[name_n] = value`; an array value entry by entry, in loops over its (known)
        shape: numba compiles the slice assignment's shape check in seconds, a loop in
        hundredths (a helper function would be compiled on its own, a tenth of a second more)."""
        count, pre, node = _name(name + "_n"), [], self.atom(value)
        if not shape:
            return [_assign(gast.Subscript(value=_name(name), slice=count, ctx=gast.Store()), node)]
        if not isinstance(node, gast.Name):
            tmp = self.fresh_name()
            pre, node = [_assign(_name(tmp, gast.Store()), node)], _name(tmp)
        index = [gast.Constant(value=0, kind=None) if d == 1 else _name(self.fresh_name()) for d in shape]
        target = gast.Subscript(value=_name(name), slice=gast.Tuple(elts=[count] + index, ctx=gast.Load()),
                                ctx=gast.Store())
        return pre + self._loops(shape, index, [_assign(target, self._element(node.id, index))])

    def expr(self, op: Apply, index: bool = False):
        """srcad's broadcasting helpers, where the types say what they do, as the NumPy call
        numba compiles (the helpers test types at run time, which numba cannot type)."""
        special = _SPECIAL.get(getattr(registry.lookup(op.prim), "numba", ""))
        got = special(self, op) if special is not None else None
        got = got if got is not None else super().expr(op, index)
        if _math_call(op):  # (NaN or inf where CPython's math raises: checked)
            checked = self.ns.ref(math_result, "_math_result")
            got = _call(_name(checked), [got] + [self.atom(a) for a in op.args])
        return got

    def function(self, name: str, header: list[str]) -> gast.FunctionDef:
        """The function, checking before it returns that its float results are finite (a
        result that is not raises: the call runs again in CPython, as for an error), when
        every result is a number or an array (else the caller checks: numba_target.py)."""
        node = super().function(name, header)
        yields = self.fn.body.yields
        checks = self._finite_checks(node.body[-1].value, atom_type(yields[0]) if len(yields) == 1
                                     else T.Tuple(tuple(atom_type(y) for y in yields)))
        self.finite_checked = checks is not None
        node.body[-1:-1] = checks or []
        return node

    def _finite_checks(self, expr, t) -> list | None:
        """Statements raising when the value `expr` of type `t` holds a float that is not
        finite; None when `t` holds values the helpers do not check (lists, objects)."""
        if isinstance(t, (T.Int, T.Bool, T.NoneT)) or isinstance(t, T.Array) and t.kind in ("i", "u", "b"):
            return []
        if isinstance(t, T.Tuple):
            out = []
            for k, et in enumerate(t.elts):
                elt = expr.elts[k] if isinstance(expr, gast.Tuple) else gast.Subscript(
                    value=expr, slice=gast.Constant(value=k, kind=None), ctx=gast.Load())
                got = self._finite_checks(elt, et)
                if got is None:
                    return None
                out += got
            return out
        if isinstance(t, (T.Float, T.Complex)):  # (inline: a helper is one more function to compile)
            test = gast.Compare(left=gast.BinOp(left=expr, op=gast.Sub(), right=expr), ops=[gast.NotEq()],
                                comparators=[gast.Constant(value=0.0, kind=None)])
            error = _call(_name("ValueError"), [gast.Constant(value="a result is not finite", kind=None)])
            return [gast.If(test=test, body=[gast.Raise(exc=error, cause=None)], orelse=[])]
        if not (isinstance(t, T.Array) and t.kind in ("f", "c")):
            return None
        return [gast.Expr(value=_call(_name(self.ns.ref(finite_array, "_finite_array")), [expr]))]

    def for_stmt(self, op: For) -> list:
        """The loop, after room for its trips in each stack its body pushes onto once per
        iteration (so a stack is allocated once, not grown by doubling)."""
        stmts = super().for_stmt(op)
        pushed = [o.args[0] for o in op.body.ops if isinstance(o, Apply) and _stack_op(o, "push")
                  and self._stack_of(o.outs[0]) is not None]
        if not pushed:
            return stmts
        trips, fresh, pre = self._trips(op), self._fresh.get(id(op), set()), []
        for root, stack in {self._stack_of(v): self.name(v) for v in pushed}.items():
            if root in fresh:  # (empty: allocated for the loop's trips outright)
                shape, dtype = self.stacks[root]
                rows = trips if isinstance(trips, gast.Constant) and trips.value >= 0 else _call(
                    _name("max"), [trips, gast.Constant(value=0, kind=None)])
                grown = _empty(rows, shape, dtype)
            else:
                grown = _call(_name(self.ns.ref(reserve_stack, "_reserve")), [
                    _name(stack), gast.BinOp(left=_name(stack + "_n"), op=gast.Add(), right=trips)])
            pre.append(_assign(_name(stack, gast.Store()), grown))
        return stmts[:-1] + pre + stmts[-1:]

    def _trips(self, op: For):
        start, stop, step = op.start, op.stop, op.step
        if isinstance(start, Const) and start.value == 0 and isinstance(step, Const) and step.value == 1:
            return self.atom(stop)
        bounds = [self.atom(start), self.atom(stop), self.atom(step)]
        return _call(_name("len"), [_call(_name("range"), bounds)])

    def range_expr(self, op: For):
        if not op.reverse:
            return super().range_expr(op)
        start, stop, step = op.start, op.stop, op.step
        a, b, s = self.atom(start), self.atom(stop), self.atom(step)
        k = step.value if isinstance(step, Const) and type(step.value) is int else None
        if k == 1:  # reversed(range(a, b)) is range(b - 1, a - 1, -1)
            first, last = _minus(b, 1, stop), _minus(a, 1, start)
            return _call(_name("range"), [first, last, gast.Constant(value=-1, kind=None)])
        # reversed(range(a, b, s)): from a + (len(range(a, b, s)) - 1) * s down to a, by -s
        count = _call(_name("len"), [_call(_name("range"), [a, b, s])])
        first = gast.BinOp(left=self.atom(start), op=gast.Add(), right=gast.BinOp(
            left=gast.BinOp(left=count, op=gast.Sub(), right=gast.Constant(value=1, kind=None)),
            op=gast.Mult(), right=self.atom(step)))
        neg = gast.Constant(value=-k, kind=None) if k is not None else gast.UnaryOp(op=gast.USub(),
                                                                                    operand=self.atom(step))
        return _call(_name("range"), [first, gast.BinOp(left=self.atom(start), op=gast.Sub(),
                                                         right=self.atom(step)), neg])


def _empty(rows, shape: tuple, dtype: str):
    """np.empty of `rows` rows of `shape` and `dtype` ("np.float64"): `np.empty(rows)` for
    floats, the form numba compiles fastest."""
    if not shape and dtype == "np.float64":
        return _call(_attr(_name("np"), "empty"), [rows])
    dims = gast.Tuple(elts=[rows] + [gast.Constant(value=d, kind=None) for d in shape], ctx=gast.Load())
    return _call(_attr(_name("np"), "empty"), [dims, _attr(_name("np"), dtype.split(".", 1)[1])])


def _math_call(op: Apply) -> bool:
    """A call of a math function of floats (and ints) that gives a float."""
    return op.prim.startswith("math.") and len(op.outs) == 1 and isinstance(op.outs[0].type, T.Float) \
        and bool(op.args) and not op.kw and all(isinstance(atom_type(a), (T.Float, T.Int)) for a in op.args)


def _known_number(em, op):
    return _call(_name(em.ns.ref(known_number, "_known")), [em.atom(a) for a in op.args])


_SPECIAL = {**SPECIAL, "known": _known_number}  # (by Rule.numba)


def _minus(node, k: int, atom):
    """node - k, folded when the atom is an int literal."""
    if isinstance(atom, Const) and type(atom.value) is int:
        return gast.Constant(value=atom.value - k, kind=None)
    return gast.BinOp(left=node, op=gast.Sub(), right=gast.Constant(value=k, kind=None))


# -- the module around the function (numba_target.py, standalone.py) --------------------

#: the library modules whose attributes generated numba code may keep as globals
#: (the names of module attributes the generated numba code may keep as globals)
_LIBRARY_MODULES = ("numpy", "math", "cmath")


def outside(source: str, namespace: dict):
    """The source with each attribute of a user module it reads (`_m_model.W`) replaced by a
    parameter `_m_model_W`: (source, [(parameter, module, attribute)])."""
    extras: dict = {}
    for key, obj in sorted(namespace.items()):
        if user_module(obj):
            for attr in sorted(set(re.findall(rf"\b{re.escape(key)}\.(\w+)\b", source))):
                extras[f"{key}_{attr}"] = (obj, attr)
                source = re.sub(rf"\b{re.escape(key)}\.{attr}\b", f"{key}_{attr}", source)
    if extras:
        head, sep, rest = source.partition("):\n")
        joiner = ", " if not head.endswith("(") else ""
        source = head + joiner + ", ".join(extras) + sep + rest
    return source, [(p, m, a) for p, (m, a) in extras.items()]


def user_module(obj) -> bool:
    return isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] not in _LIBRARY_MODULES


def decorator(nogil: bool = True) -> str:
    return f"@numba.njit(cache=True, boundscheck=True{', nogil=True' if nogil else ''})"


