"""Lists holding floats and arrays of several shapes ("mixed_list"), as arguments and built
in f: indexed with constant indices (through `leaves`, see expr.Exprs._paths), items
replaced by values of the same kind, appended to, unpacked, and looped over with a body that
works for every item (`s = s + np.sum(np.sin(e)) * c`).

Their static type is `Ty("mlist", items=(type of item 0, type of item 1, ...))`."""

from __future__ import annotations

from .vartypes import FLOAT, A, Ty


def MLIST(*items: Ty) -> Ty:
    return Ty("mlist", items=tuple(items))


class Mixed:
    """Mixin of the generator (see program.Generator)."""

    def mixed_items(self, shape: tuple) -> list[Ty]:
        other = self.rng.choice([(2,), (), (1, 2)] if shape != (2,) else [(3,), ()])
        items = [FLOAT, A(*shape), A(*other)][:self.rng.randint(2, 3)]
        self.rng.shuffle(items)
        return items

    def s_mixed(self, ind: str, ctx) -> list[str] | None:
        owned = [v for v in self.scope.values() if v.ty.kind == "mlist" and v.owned]
        mixed = [v for v in self.scope.values() if v.ty.kind == "mlist"]
        opts = [(None, 2.0, lambda: self._new_mixed(ind))]
        if owned:
            opts.append((None, 2.0, lambda: self._write_mixed(ind, self.rng.choice(owned))))
            if not ctx.loop and ctx.depth == self.cfg.max_depth:  # (not in a branch)
                opts.append((None, 1.0, lambda: self._append_mixed(ind, self.rng.choice(owned))))
        if mixed:
            opts.append((None, 1.5, lambda: self._loop_mixed(ind, self.rng.choice(mixed))))
            opts.append((None, 1.0, lambda: self._unpack_mixed(ind, self.rng.choice(mixed))))
        out = self.choose(opts)
        if out is not None:
            self.used.add("mixed_list")
        return out

    def _new_mixed(self, ind):
        shape = self.pick_shape(min_rank=1)
        items = self.mixed_items(shape)
        name = self.new_name("xs")
        code = "[" + ", ".join(self.value_d(t, 1) for t in items) + "]"
        self.bind(name, MLIST(*items), owned=True)
        return [f"{ind}{name} = {code}"]

    def _write_mixed(self, ind, v):
        k = self.rng.randrange(len(v.ty.items))
        idx = k if self.rng.random() < 0.7 else k - len(v.ty.items)
        return [f"{ind}{v.name}[{idx}] = {self.value_d(v.ty.items[k], 1)}"]

    def _append_mixed(self, ind, v):
        ty = FLOAT if self.rng.random() < 0.5 else A(*self.pick_shape())
        code = f"{ind}{v.name}.append({self.value_d(ty, 1)})"
        self.bind(v.name, MLIST(*v.ty.items, ty), owned=True)
        return [code]

    def _loop_mixed(self, ind, v):
        s, e = self.new_name("s"), self.new_name("e")
        lines = [f"{ind}{s} = 0.0", f"{ind}for {e} in {v.name}:",
                 f"{ind}    {s} = {s} + np.sum({self.rng.choice(['np.sin', 'np.tanh', 'np.square'])}({e}))"
                 f" * {self.fleaf()}"]
        self.bind(s, FLOAT)
        return lines

    def _unpack_mixed(self, ind, v):
        names = [self.new_name("u") for _ in v.ty.items]
        for n, ty in zip(names, v.ty.items):
            self.bind(n, ty)
        return [f"{ind}{', '.join(names)} = {v.name}"]
