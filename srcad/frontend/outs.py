"""`out=` in the user's code: a library call writing its result into an array the function
holds is an assignment into that array, `y[...] = f(...)` (broadcast to y's shape and cast
to its dtype, as out= does), and the call's value is y itself:

    np.exp(x, out=y)                ->  y[...] = np.exp(x)
    z = np.add(a, b, out=y)         ->  y[...] = np.add(a, b); z = y
    np.multiply(a, b, out=y[1:])    ->  y[1:] = np.multiply(a, b)
    return np.tanh(h, out=h)        ->  h[...] = np.tanh(h); return h
    np.copyto(y, x)                 ->  y[...] = x

(out= naming a parameter, which may be None, becomes `if y is None: <the call without out=>
else: <the above>`, decided by the parameter's type.) The write is then checked as any write
into y (transforms/safety.py): an argument gets a copy of its own, another name of y read
afterwards is refused. Only calls of NumPy's and SciPy's
functions found by name (`np.exp`, `scipy.special.expit`) and NumPy's array methods with an
out= (`z.clip(lo, hi, out=z)`, `a.sum(axis=0, out=y)`) are rewritten; a call inside a larger
expression or the user's own function keeps its `out=` (refused where it reaches a rule).
"""

from __future__ import annotations

import builtins
import copy

import gast

_LIBRARIES = ("numpy", "scipy")
#: NumPy array methods taking out= (`z.clip(lo, hi, out=z)`): rewritten whatever the receiver
_METHODS = frozenset({"clip", "sum", "mean", "max", "min", "prod", "cumsum", "cumprod", "round", "dot",
                      "std", "var", "take", "conj", "ptp", "trace"})


def rewrite_outs(node, fn):
    """The function definition with the statements whose call has `out=` rewritten (`params`:
    the names of parameters, which may be None: `def f(x, out=None): return np.exp(x, out=out)`)."""
    params = {a.id for n in gast.walk(node) if isinstance(n, (gast.FunctionDef, gast.Lambda))
              for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs if isinstance(a, gast.Name)}
    return _Outs(getattr(fn, "__globals__", {}), params).visit(node)


class _Outs(gast.NodeTransformer):
    def __init__(self, namespace: dict, params: set):
        self.namespace, self.params, self.made = namespace, params, 0

    def _split(self, node, value, then):
        """[target[...] = call without out, then(target)], or None when value is no such call
        (an out= that is not a name or a subscript of one, `out=np.empty(3)`, is named first)."""
        target = self._target(value)
        if target is None:
            return None
        made = []
        if not _plain(target):
            self.made += 1
            name = gast.Name(id=f"srcad_out{self.made}", ctx=gast.Store(), annotation=None,
                             type_comment=None)
            made, target = [gast.Assign(targets=[name], value=target, type_comment=None)], _load(name)
        kept = [k for k in value.keywords if k.arg != "out"]
        call = gast.Call(func=value.func, args=value.args, keywords=kept)
        store = gast.Assign(targets=[_store(target)], value=call, type_comment=None)
        written = made + [store] + then(target)
        if isinstance(target, gast.Name) and target.id in self.params:  # (a parameter: None or not)
            plain = self._without_out(node, call)
            test = gast.Compare(left=_load(target), ops=[gast.Is()], comparators=[gast.Constant(None, None)])
            written = [gast.If(test=test, body=[plain], orelse=written)]
        return [_located(s, node) for s in written]

    @staticmethod
    def _without_out(node, call):
        """node with its call's out= removed (out is None)."""
        plain = copy.copy(node)
        plain.value = call
        return plain

    def visit_Expr(self, node):
        copied = self._copyto(node.value)
        if copied is not None:  # (np.copyto(y, x): y[...] = x)
            return _located(copied, node)
        return self._split(node, node.value, lambda t: []) or node

    def _copyto(self, value):
        if not (isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords
                and self._library(value.func, "copyto")):
            return None
        target = value.args[0]
        return gast.Assign(targets=[_store(target)], value=value.args[1], type_comment=None) \
            if _plain(target) else None

    def visit_Assign(self, node):
        return self._split(node, node.value, lambda t: [gast.Assign(targets=node.targets, value=_load(t),
                                                                     type_comment=None)]) or node

    def visit_Return(self, node):
        return self._split(node, node.value, lambda t: [gast.Return(value=_load(t))]) or node

    def _target(self, value):
        if not isinstance(value, gast.Call) or not (self._library(value.func) or isinstance(
                value.func, gast.Attribute) and value.func.attr in _METHODS and _plain(value.func.value)):
            return None
        outs = [k.value for k in value.keywords if k.arg == "out"]
        if len(outs) != 1:
            return None
        out = outs[0]
        if isinstance(out, gast.Tuple) and len(out.elts) == 1:
            out = out.elts[0]
        return None if isinstance(out, gast.Constant) else out  # (out=None: no out)

    def _library(self, func, name: str | None = None) -> bool:
        """Is func `np.exp`, `scipy.special.expit`, `expit` (imported by name): a function of
        NumPy or SciPy found in the function's globals (called `name`, if given)?"""
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name):
            return False
        obj = self.namespace.get(func.id, getattr(builtins, func.id, None))
        for attr in reversed(path):
            obj = getattr(obj, attr, None)
        module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
        if name is not None and getattr(obj, "__name__", None) != name:
            return False
        return obj is not None and (module or "").split(".")[0] in _LIBRARIES


def _located(stmt, node):
    """stmt at node's place, and each of its parts without one (errors point at the call)."""
    return gast.fix_missing_locations(gast.copy_location(stmt, node))


def _plain(e) -> bool:
    """A name, or subscripts and attributes of one (no calls: evaluated twice)."""
    while isinstance(e, (gast.Subscript, gast.Attribute)):
        if isinstance(e, gast.Subscript) and any(isinstance(n, (gast.Call, gast.NamedExpr))
                                                 for n in gast.walk(e.slice)):
            return False
        e = e.value
    return isinstance(e, gast.Name)


def _store(target):
    """target[...] (the buffer's every element), or target itself when it is a subscript."""
    if isinstance(target, gast.Subscript):
        return _with_ctx(target, gast.Store())
    every = gast.Constant(value=Ellipsis, kind=None)
    return gast.Subscript(value=_load(target), slice=every, ctx=gast.Store())


def _load(target):
    return _with_ctx(target, gast.Load())


def _with_ctx(e, ctx):
    e = copy.deepcopy(e)
    e.ctx = ctx
    return e
