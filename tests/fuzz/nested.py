"""Transformations inside the function under test ("nested_transform"): module-level helpers
`nt0(a)`, `nt1(a, b)` (made as the "helpers" feature makes its helpers, but with positional
parameters only, as srcad requires there), transformed in f's body and the result used:

    x = x - 0.1 * srcad.grad(nt0)(x, np.sum(y))          a step on an argument
    a3 = srcad.jacfwd(nt1, argnums=1)(v0, x)              bound, read by what follows
    v2 = (x * srcad.vjp(nt0, x, 0.5)[1](a1)[0])           combined with a value
    v4 = np.sum(srcad.hessian(nt0)(y[0], x))              summed

also `jacrev`, `value_and_grad(...)[1]` and `jvp(nt0, (v, w), (t, s))[1]`. The second
argument, a function of f's differentiated arguments, is a constant to the inner derivative
and a variable to the outer one (perturbation confusion, in the form srcad supports); a
lambda or nested `def` given to the inner transformation (closing over f's arguments) is
written too, now and then: srcad documents those as refused. Finite differences check these
programs through an oracle whose `srcad` is finite differences itself (fuzz/inner.py)."""

from __future__ import annotations

import random

from .expr import BINARY
from .vartypes import FLOAT, A, Ty, size

FEATURE = "nested_transform"
FIRST = ("grad", "value_and_grad", "jacfwd", "jacrev", "vjp")


def jac_type(out: Ty, arg: Ty) -> Ty:
    shape = (out.shape if out.kind == "arr" else ()) + (arg.shape if arg.kind == "arr" else ())
    return A(*shape) if shape else FLOAT


class Nested:
    """Mixin of the generator (see program.Generator)."""

    def nested_on(self) -> bool:
        """Decided on a side generator seeded by the main one's state (which it leaves as it
        is), so that switching the feature on does not change the programs without it."""
        w = self.cfg.w(FEATURE)
        if w <= 0 or random.Random(repr(self.rng.getstate())).random() >= w / (w + 2.0):
            return False
        self.used.add(FEATURE)
        return True

    def nested_helpers(self, shapes: list) -> list[str]:
        small = [A(*s) for s in shapes if s and size(s) <= 4] or [A(2)]
        chunks = []
        for k in range(self.rng.randint(1, 2)):
            params = [("a", FLOAT if self.rng.random() < 0.4 else self.rng.choice(small), None)]
            if self.rng.random() < 0.6:
                params.append(("b", FLOAT if self.rng.random() < 0.6 else self.rng.choice(small), None))
            ret = FLOAT if self.rng.random() < 0.55 else self.rng.choice(small + [params[0][1]])
            chunks.append("\n".join(self.helper_def(f"nt{k}", params, ret)))
            self.nt_helpers.append(self.helpers[-1])
        return chunks

    def nested_statements(self, ind: str) -> list[str]:
        lines = []
        for _ in range(self.rng.randint(1, 2)):
            lines += self.choose([(None, 1.5, lambda: self._nt_step(ind)),
                                  (None, 1.0, lambda: self._nt_bind(ind)),
                                  (None, 1.0, lambda: self._nt_combine(ind)),
                                  (None, 1.0, lambda: self._nt_sum(ind)),
                                  (None, 0.3, lambda: self._nt_local(ind))]) or []
        return lines

    # -- the transformed calls -------------------------------------------------------
    def _nt_options(self, want: Ty | None) -> list:
        """(transformation, helper, argnum, result type) of every call that can be written."""
        out = []
        for h in self.nt_helpers:
            ps = [t for _, t, _ in h.params]
            for k, p in enumerate(ps):
                if h.ret == FLOAT:
                    out += [("grad", h, k, p), ("value_and_grad", h, k, p)]
                out += [("jacfwd", h, k, jac_type(h.ret, p)), ("jacrev", h, k, jac_type(h.ret, p)),
                        ("vjp", h, k, p)]
            out.append(("jvp", h, None, h.ret))
            if h.ret == FLOAT and size(ps[0].shape) <= 3:
                out.append(("hessian", h, 0, jac_type(ps[0], ps[0])))
        return [o for o in out if want is None or o[3] == want]

    def nested_call(self, want: Ty | None = None) -> tuple[str, Ty] | None:
        options = self._nt_options(want)
        if not options:
            return None
        name, h, k, ty = self.rng.choice(options)
        args = [self.value_d(t, 1) for _, t, _ in h.params]
        if name == "jvp":
            tans = [self.value_d(t, 1) for _, t, _ in h.params]
            one = "," if len(args) == 1 else ""
            return f"srcad.jvp({h.name}, ({', '.join(args)}{one}), ({', '.join(tans)}{one}))[1]", ty
        if name == "vjp":
            ct = self.value_d(h.ret, 1)
            return f"srcad.vjp({h.name}, {', '.join(args)})[1]({ct})[{k}]", ty
        opt = f", argnums={k}" if k else ""
        tail = "[1]" if name == "value_and_grad" else ""
        return f"srcad.{name}({h.name}{opt})({', '.join(args)}){tail}", ty

    # -- uses of the result -------------------------------------------------------------
    def _nt_step(self, ind: str) -> list[str] | None:
        """A step on one of f's arguments, as an optimiser's: every later read sees it."""
        cands = [v for v in self.scope.values() if v.arg and v.ty.kind in ("float", "arr")]
        self.rng.shuffle(cands)
        for v in cands:
            call = self.nested_call(v.ty)
            if call:
                return [f"{ind}{v.name} = {v.name} - {self.rng.choice(['0.1', '0.25'])} * {call[0]}"]
        return None

    def _nt_bind(self, ind: str) -> list[str] | None:
        call = self.nested_call()
        if call is None or len(call[1].shape) > 2:
            return None
        name = self.new_name("v" if call[1] == FLOAT else "a")
        self.bind(name, call[1])
        return [f"{ind}{name} = {call[0]}"]

    def _nt_combine(self, ind: str) -> list[str] | None:
        call = self.nested_call()
        if call is None or len(call[1].shape) > 2:
            return None
        form = self.rng.choice(BINARY)
        value = self.value_d(call[1], 1)
        code = form.format(value, call[0]) if self.rng.random() < 0.5 else form.format(call[0], value)
        name = self.new_name("v" if call[1] == FLOAT else "a")
        self.bind(name, call[1])
        return [f"{ind}{name} = {code}"]

    def _nt_sum(self, ind: str) -> list[str] | None:
        call = self.nested_call()
        if call is None:
            return None
        form = self.rng.choice(["np.sum({0})", "np.sum({0} * {0})", "np.sum(np.tanh({0}))"])
        name = self.new_name("v")
        self.bind(name, FLOAT)
        return [f"{ind}{name} = {form.format(call[0])}"]

    def _nt_local(self, ind: str) -> list[str]:
        """A lambda or nested def closing over f's values, transformed: refused by srcad."""
        param, ret = self.fn_types()
        name = self.rng.choice(["grad", "hessian"] if ret == FLOAT else ["jacfwd", "jacrev"])
        if name == "hessian" and size(param.shape) > 3:
            name = "grad"
        body = self.fn_body(param, ret, 1)
        res = self.new_name("v")
        self.bind(res, FLOAT)
        if self.rng.random() < 0.5:
            return [f"{ind}{res} = np.sum(srcad.{name}(lambda a: {body})({self.value_d(param, 1)}))"]
        fn = self.new_name("c")
        return [f"{ind}def {fn}(a):", f"{ind}    return {body}",
                f"{ind}{res} = np.sum(srcad.{name}({fn})({self.value_d(param, 1)}))"]
