"""NumPy calls that change a local array in place, as the writes they are:
`np.add.at(y, idx, v)` is `y[idx] += v` adding once per repeated index, and
`np.fill_diagonal(y, v)` is `y[i, i] = v` along the diagonal; both checked as any write into
y is (transforms/safety.py). Any other call whose result is unused can only matter by what
it changes, and is refused there."""

from __future__ import annotations

import gast
import numpy as np

from ..errors import UnsafeMutationError, where_text
from ..ir.nodes import Atom, Const
from .expr import INPLACE


class InPlaceCalls:
    """A mixin of FunctionLowerer (lower.py)."""

    def in_place_call(self, call) -> bool:
        """Lower a statement that is such a call on a local array; returns whether it was."""
        if not (isinstance(call, gast.Call) and call.args and isinstance(call.args[0], gast.Name) and (
                call.args[0].id in self.scope.locals or self.captured_key(call.args[0].id) is not None)):
            return False
        name = call.args[0].id
        if len(call.args) == 3 and not call.keywords and self._is_add_at(call):
            self.write(name, self.emit("srcad.add_at", [self.value(a) for a in call.args], node=call))
            return True
        plain = all(k.arg == "wrap" and isinstance(k.value, gast.Constant) and k.value.value is False
                    for k in call.keywords)  # (wrap=True: rows below the diagonal's end too)
        if len(call.args) == 2 and plain and self._static_callee(call) is np.fill_diagonal:
            y, v = self.value(call.args[0]), self.value(call.args[1])
            where = Const(where_text(self.loc(call), "?"))
            index = self.emit("srcad.diagonal_index", (y, v, where), node=call)
            self.write(name, self.emit("operator.setitem", (y, index, v), node=call, hint=name))
            return True
        return False

    def augassign_item(self, node) -> None:
        """`x[i][j] op= v`: x, i and j evaluated once each, then v, as Python does (an index
        with side effects, `x[rng.integers(3)] += v`, reads and writes the same item); the
        item changed in place or replaced once types are known (srcad.item_update,
        transforms/sequences.py), then stored back through each level."""
        levels, root = [], node.target
        while isinstance(root, gast.Subscript):
            levels.append(root)
            root = root.value
        self.refuse_global_write(root, node.target)
        if not isinstance(root, (gast.Name, gast.Attribute)):
            raise self.mutation_error(node.target, node.target)
        containers, keys = [self.value(root)], []
        for level in reversed(levels):
            keys.append(self.index(level.slice))
            containers.append(self.emit("operator.getitem", (containers[-1], keys[-1]), node=level))
        rhs, old = self.value(node.value), containers.pop()
        op = Const(INPLACE[type(node.op)])
        new = self.emit("srcad.item_update", (op, containers[-1], old, rhs), node=node)
        for depth in range(len(keys) - 1, -1, -1):  # (stored back, innermost first)
            if depth > 0:  # (x[i][j]: x[i] changed in place)
                self.check_held_once(containers[depth - 1], containers[depth], node.target)
            new = self.emit("operator.setitem", (containers[depth], keys[depth], new), node=node.target,
                            hint=root.id if depth == 0 and isinstance(root, gast.Name) else "")
        self.assign(root, new)

    def check_held_once(self, container: Atom, item: Atom, node) -> None:
        """When the code runs: `item`, changed in place through `container` (x[k] op= v,
        x[k][j] = v, x[k].append(v)), is held once by it, else an UnsafeMutationError at the
        user's line (Python's change would show in every slot, srcad's in the one written)."""
        where = Const(where_text(self.loc(node), "?"))
        self.emit("srcad.check_unshared", (container, item, where), node=node, nouts=0)

    def refuse_global_write(self, root, target) -> None:
        """Refuse a write into an item of a global (`g[0] = v`, `g[0] += v`)."""
        name = root.id if isinstance(root, gast.Name) else None
        if name is not None and name not in self.scope.locals and self.captured_key(name) is None:
            if self.enclosing(name) is not None:  # (a scope that has ended: a nested function returned)
                raise self.error(UnsafeMutationError, target, f"cannot write into {name!r} of a function "
                                 "that has returned", "pass the array to the nested function as an argument")
            raise self.error(UnsafeMutationError, target, f"cannot write into global {root.id!r}",
                             "copy it into a local variable first (x = g.copy())")

    def _is_add_at(self, call) -> bool:
        if not isinstance(call.func, gast.Attribute) or call.func.attr != "at":
            return False
        fn = self._static_callee(call)
        return fn is not None and getattr(fn, "__self__", None) is not None and \
            getattr(fn.__self__, "__name__", None) == "add" and type(fn.__self__).__name__ == "ufunc"
