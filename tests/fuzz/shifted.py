"""A max or min subtracted for numerical stability ("shift"): logsumexp, softmax and their
variants, some invariant in the shift (srcad then takes no derivative through it:
passes/shifts.py) and some not (a coefficient that does not cancel, a sum over another axis,
the max broadcast another way), so that finite differences check both decisions.

    xs = <array expression>
    m = np.max(xs, axis=k, keepdims=K)          (or np.min, or of the whole array)
    e = np.exp(c * (xs - m))                    (m expanded when K is False and k > 0)
    s = np.sum(e, axis=k2, keepdims=K2)          (k2 = k mostly)
    v = np.sum(m + np.log(s) / c)                (or softmax times a weight, log-softmax...)
"""

from __future__ import annotations

from .vartypes import FLOAT


class Shifted:
    """Mixin of the generator (see program.Generator)."""

    def s_shift(self, ind: str) -> list[str]:
        rng = self.rng
        shape = self.pick_shape(min_rank=1)
        rank = len(shape)
        xs, m, e, s, v = (self.new_name(p) for p in ("xs", "m", "e", "s", "v"))
        red = rng.choice(["np.max", "np.min"])
        whole = rng.random() < 0.35
        k, keep = rng.randrange(rank), rng.random() < 0.5
        lines = [f"{ind}{xs} = {self.aexpr(shape, 1)}"]
        if whole:
            lines.append(f"{ind}{m} = {red}({xs})")
            shifted, k2, keep2 = m, None, False
        else:
            lines.append(f"{ind}{m} = {red}({xs}, axis={k}, keepdims={keep})")
            shifted = m if keep or k == 0 else f"np.expand_dims({m}, {k})"
            k2 = k if rng.random() < 0.8 else rng.randrange(rank)
            keep2 = keep if rng.random() < 0.8 else not keep
        c = rng.choice(["1.0", "1.0", "2.0", "-0.5"])
        lines.append(f"{ind}{e} = np.exp({c} * ({xs} - {shifted}))")
        lines.append(f"{ind}{s} = np.sum({e})" if k2 is None else
                     f"{ind}{s} = np.sum({e}, axis={k2}, keepdims={keep2})")
        norm = s if k2 is None or keep2 or k2 == 0 else f"np.expand_dims({s}, {k2})"
        weight = self.aexpr(shape, 1)
        lines.append(f"{ind}{v} = " + rng.choice([
            f"np.sum({m} + np.log({s}) / {c})",                 # logsumexp (invariant when shapes agree)
            f"np.sum({e} / {norm} * {weight})",                 # softmax . w
            f"np.sum(np.log({e} / {norm}) * {weight})",         # log-softmax . w
            f"np.sum({m} * 0.5 + np.log({s}))",                 # not invariant (unless c is 0.5)
            f"np.sum(np.exp({xs} - {shifted}))",                # not invariant
        ]))
        self.bind(v, FLOAT)
        return lines
