"""What srcad can differentiate: one line per registered rule, and the Markdown reference
docs/primitives.md generated from the registry (`python -m srcad rules [--markdown]`).

    >>> lines()[:2]
    ['builtins.abs forward reverse', 'builtins.all non-differentiable']
"""

from __future__ import annotations

from .registry import RULES, Rule, load_all, rule_for_object

REGENERATE = "python -m srcad rules --markdown > docs/primitives.md"


def lines() -> list[str]:
    """`qualified.name modes` for every registered rule, sorted by name."""
    load_all()
    return [f"{name} {RULES[name].modes}" for name in sorted(RULES)]


def numpy_both_modes() -> dict[str, object]:
    """The numpy functions (not ndarray methods) with forward and reverse rules: name -> object."""
    return {n: r.fn for n, r in sorted(RULES.items()) if n.startswith("numpy.")
            and not n.startswith("numpy.ndarray.") and r.modes == "forward reverse"}


def _aliases() -> dict[str, str]:
    """name -> the rule it shares its templates with (aliases copy their target's rules)."""
    first: dict[int, str] = {}
    out: dict[str, str] = {}
    for name in sorted(RULES, key=lambda n: (RULES[n].attr, n.startswith("numpy.ndarray."), n)):
        rule = RULES[name]
        if not (rule.jvp or rule.vjp or rule.jvp_all or rule.vjp_all):
            continue
        key = id(rule.vjp) if rule.vjp else id(rule.vjp_all)
        if key in first:
            out[name] = first[key]
        else:
            first[key] = name
    return out


def note(rule: Rule, aliases: dict[str, str]) -> str:
    """A short remark for the reference table: what kind of primitive, shared rules, limits."""
    parts = []
    same = rule_for_object(rule.fn) if rule.fn is not None else None
    if same is not None and same.name != rule.name:
        parts.append(f"the same object as `{same.name}`")
    if rule.attr:
        parts.append("method or attribute")
    if rule.name in aliases:
        parts.append(f"rules of `{aliases[rule.name]}`")
    if rule.impure:
        parts.append("impure (never merged or dropped)")
    if rule.structural:
        parts.append("container: handled element by element")
    if rule.opaque:
        parts.append("unresolved call: no derivative")
    if rule.source is not None:
        module = rule.source.__module__.split(".")[-1]
        parts.append(f"source implementation `{module}.{rule.source.__name__}`")
    missing = [p for p in rule.diff_params if p not in rule.jvp and p not in rule.vjp
               and not (rule.jvp_all or rule.vjp_all or rule.scatter or rule.source)]
    if missing:
        parts.append("no rule in " + ", ".join(f"`{p}`" for p in missing) + " (an error if differentiated)")
    if rule.refuses:
        parts.append("an error if " + " or ".join(f"`{p}`" for p in rule.refuses) + " is differentiated")
    for p, values in rule.accepts.items():
        parts.append(f"`{p}` only " + " or ".join(f"`{v!r}`" for v in values))
    if rule.differentiable and rule.diff_params:
        parts.append("differentiable in " + ", ".join(f"`{p}`" for p in rule.diff_params))
    if rule.complex:
        parts.append(_COMPLEX[rule.complex])
    return "; ".join(parts)


#: Rule.complex as docs/primitives.md says it (docs/subset.md, "Complex intermediate values")
_COMPLEX = {"keeps": "complex operands too", "real": "complex operands too (a real result)",
            "typed": "complex values too"}


def signature(rule: Rule) -> str:
    params = []
    for p in rule.params:
        params.append(f"{p}={rule.defaults[p]!r}" if p in rule.defaults else p)
    return f"{rule.name}({', '.join(params) if rule.params else '*args'})"


def markdown() -> str:
    """docs/primitives.md: every rule, grouped by family, with its modes and a note."""
    load_all()
    aliases = _aliases()
    own = {name: rule for name, rule in RULES.items() if rule.family != "user"}  # srcad's, not yours
    by_family: dict[str, list[Rule]] = {}
    for rule in own.values():
        by_family.setdefault(rule.family or "other", []).append(rule)
    diff_numpy = numpy_both_modes()
    out = [
        "# Primitives srcad differentiates",
        "",
        f"Generated from the rule registry by `{REGENERATE}`;",
        "tests/test_listing.py fails when this file is out of date. `forward reverse` means",
        "both a tangent (jvp) and an adjoint (vjp) rule; `non-differentiable` primitives are",
        "constants for differentiation (zero derivative; an error only where the note says a",
        "differentiated argument would need a derivative srcad does not compute). Each family's",
        "choices at non-smooth points are documented in its module under srcad/rules/.",
        "",
        f"{len(own)} primitives; {len(diff_numpy)} `numpy.*` functions (not counting",
        f"ndarray methods; {len(set(map(id, diff_numpy.values())))} distinct function objects) have both",
        "forward and reverse rules.",
        "",
    ]
    for fam in sorted(by_family):
        out += [f"## {fam}", "", "| primitive | modes | note |", "|---|---|---|"]
        for rule in sorted(by_family[fam], key=lambda r: r.name):
            text = note(rule, aliases).replace("|", "\\|")
            out.append(f"| `{signature(rule)}` | {rule.modes} | {text} |")
        out.append("")
    return "\n".join(out)
