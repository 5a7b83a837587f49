"""One home per primitive: what srcad knows about a primitive lives in its rule (srcad/rules/),
and every stage reads the rule's fields, never a list of primitive names of its own."""

import ast
from pathlib import Path

import gast
import pytest

from srcad.rules import registry

ROOT = Path(__file__).resolve().parents[1] / "srcad"
registry.load_all()
NAMES = set(registry.RULES)
PREFIXES = tuple({n.rsplit(".", 1)[0] + "." for n in NAMES})  # f"operator.i{op}", f"numpy.{name}"

#: modules that turn syntax into primitives or rewrite specific ones by name, where the name is
#: the point: the frontend's operator tables, and the algebra of * / and negation
ALLOWED = {
    "frontend/expr.py": "maps Python's operator syntax to the operator primitives",
    "passes/algebra.py": "rewrites products, quotients and negations into each other",
}
OUTSIDE = sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0] != "rules")
CHECKED = [p for p in OUTSIDE if str(p.relative_to(ROOT)) not in ALLOWED]


def _names(node) -> list[str]:
    """The primitive names a module-level value spells: string literals that are rule names, and
    f-strings that build one (f"numpy.{name}")."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in NAMES:
            out.append(n.value)
        elif isinstance(n, ast.JoinedStr) and n.values and isinstance(n.values[0], ast.Constant) \
                and str(n.values[0].value).startswith(PREFIXES):
            out.append(n.values[0].value + "{...}")
    return out


def _primitive_tables(path: Path) -> list[str]:
    """Module-level collections (tuple, list, set, dict, or a call building one) that name
    primitives."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        if not isinstance(node.value, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call, ast.SetComp,
                                       ast.DictComp, ast.ListComp, ast.BinOp)):
            continue
        named = _names(node.value)
        if len(named) >= 2 or (named and not isinstance(node.value, ast.Call)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found.append(f"{ast.unparse(target)} = ... {named[:3]}")
    return found


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_table_of_primitive_names_outside_the_rules(path):
    rel = str(path.relative_to(ROOT))
    tables = _primitive_tables(path)
    assert not tables, (f"{rel} holds a table of primitive names: {tables}; make it a field of "
                        "Rule (srcad/rules/registry.py) set where the primitive is registered")


def test_the_scan_finds_a_table(tmp_path):
    """The check above can fail: a module-level table of primitive names is found."""
    tree = 'X = {"operator.add", "numpy.sum"}\nY = frozenset(("numpy.sum", "numpy.mean"))\n' \
           'Z = {f"operator.i{n}" for n in ("add",)}\nF = ("numpy elementwise", "math")\n'
    # (F names families, not primitives: test_family_is_display_only covers those)
    tmp = tmp_path / "_scan_probe.py"  # (not in the repository: ruff checks it in parallel)
    tmp.write_text(tree)
    assert [t.split(" ")[0] for t in _primitive_tables(tmp)] == ["X", "Y", "Z"]


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_family_is_display_only(path):
    """Rule.family names the module that registered a rule (listings, docs); no stage decides
    anything by it."""
    reads = [n.lineno for n in ast.walk(ast.parse(path.read_text()))
             if isinstance(n, ast.Attribute) and n.attr == "family" and isinstance(n.ctx, ast.Load)]
    assert not reads, f"{path.relative_to(ROOT)} reads Rule.family at lines {reads}"


def test_every_kind_is_known_and_implies_its_defaults():
    kinds = {r.kind for r in registry.RULES.values()}
    assert kinds <= set(registry.KINDS)
    from srcad.rules import batching, shapes
    for r in registry.RULES.values():
        if r.kind == "reduction":
            assert r.shape is shapes.reduction, r.name
        if r.kind == "elementwise" and r.name != "numpy.where" and not r.inplace:
            assert r.batch is batching.elementwise, r.name


# -- linear primitives: the tangent rule follows, the rule states its transpose ----------------

#: calls that read only an argument's shape (or subscripts), not its values
_SHAPE_ONLY = {"shape", "ndim", "size", "len", "isinstance", "einsum_spec"}


def _value_reads(rule, template, p) -> list[str]:
    """The places a template reads the value of parameter p (or of the result), not only its
    shape; through the rule's lets too."""
    reads = []

    def visit(node, shape_only=False):
        if isinstance(node, gast.Call):
            f = node.func
            name = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", "")
            for a in [*node.args, *(k.value for k in node.keywords)]:
                visit(a, shape_only or name in _SHAPE_ONLY)
            return
        if isinstance(node, gast.Name) and not shape_only:
            if node.id in (p, "ans"):
                reads.append(node.id)
            elif node.id in rule.let:
                visit(rule.let[node.id].node)
            return
        for child in gast.iter_child_nodes(node):
            visit(child, shape_only)

    visit(template.node)
    return reads


def _alone(rule):
    return (rule.linear if len(rule.linear) == 1 else ()) + rule.multilinear


@pytest.mark.parametrize("name", sorted(n for n, r in registry.RULES.items() if _alone(r)))
def test_a_linear_parameter_tangent_does_not_read_its_value(name):
    """f linear in p: its tangent in p is f(.., t, ..), which does not depend on p's value (a
    piecewise-linear function such as np.sort, whose permutation depends on a, is not linear)."""
    rule = registry.RULES[name]
    for p in _alone(rule):
        if p in rule.jvp:
            assert not _value_reads(rule, rule.jvp[p], p), f"{name} is declared linear in {p}"


def _same(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a, mode="eval")) == ast.dump(ast.parse(b, mode="eval"))


def test_linear_rules_do_not_write_the_derived_tangent():
    """A rule linear in p states only its transpose: a hand-written tangent rule equal to the
    derived one (the primitive applied to t) is one place too many."""
    redundant = []
    for rule in registry.RULES.values():
        for p in _alone(rule):
            try:
                derived = registry.derived_jvp(rule, p)
            except registry.RuleError:
                continue
            if p in rule.jvp and not rule.jvp[p].derived and _same(rule.jvp[p].source, derived):
                redundant.append(f"{rule.name}: {p}")
    assert not redundant, redundant


def test_the_derived_tangent_is_the_call_with_t():
    rule = registry.RULES["numpy.dot"]
    assert rule.multilinear == ("a", "b")
    assert rule.jvp["a"].source == "np.dot(t, b)" and rule.jvp["b"].source == "np.dot(a, t)"
    assert registry.RULES["srcad.untile"].jvp["c"].source == "srcad.untile(t, a, reps)"


_ONE_LINE = r'''
import numpy as np
import srcad
from srcad.rules import registry
from srcad.rules.registry import elementwise, family

# forget np.sinc, then add it back as docs/rules.md says: one line in its family module
del registry.RULES["numpy.sinc"], registry._BY_ID[id(np.sinc)]
family("numpy elementwise", kind="elementwise")
elementwise("numpy.sinc", "np.where(x == 0.0, 0.0, (np.cos(np.pi * x) - ans) / np.where(x == 0.0, 1.0, x))")

def f(x):
    return np.sum(np.sinc(x) * np.arange(1.0, 7.0).reshape(2, 3))

def fd(x, v, h=1e-4):
    return (4 * (f(x + h * v) - f(x - h * v)) / (2 * h) - (f(x + 2 * h * v) - f(x - 2 * h * v)) / (4 * h)) / 3

x = np.array([[0.3, -1.2, 0.7], [2.1, -0.4, 1.6]])
g = srcad.grad(f)(x)
J = srcad.jacfwd(lambda x: np.sinc(x) * 2.0)(x)           # the batched forward mode
for k in range(x.size):
    v = np.zeros(x.size); v[k] = 1.0; v = v.reshape(x.shape)
    assert abs(g.ravel()[k] - fd(x, v)) < 1e-7, (k, g.ravel()[k], fd(x, v))
    assert np.allclose(J.reshape(x.size, x.size)[:, k], (2.0 * (np.sinc(x + 1e-6 * v) - np.sinc(x - 1e-6 * v))
                                                         / 2e-6).ravel(), atol=1e-6)
rule = registry.RULES["numpy.sinc"]
assert rule.kind == "elementwise" and rule.batch is not None and rule.shape is not None
print("ok")
'''


def test_a_new_elementwise_function_is_one_line(tmp_path):
    """docs/rules.md's claim, kept true: one `elementwise(...)` line gives reverse mode, forward
    mode and the batched forward mode of jacfwd (checked against finite differences)."""
    import os
    import subprocess
    import sys
    script = tmp_path / "one_line.py"
    script.write_text(_ONE_LINE)
    env = {**os.environ, "PYTHONPATH": str(ROOT.parent)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_every_template_of_srcads_rules_parses_and_reads_only_its_names():
    # srcad's own templates are parsed on first use (not at import); this is their check
    rules = {id(rule): rule for rule in registry.RULES.values()}.values()
    for rule in rules:
        registry.check_templates(rule)
    parsed = [t for r in rules for t in (*r.jvp.values(), *r.vjp.values()) if t._node is not None]
    assert len(parsed) > 1000


def test_a_rule_registered_by_a_user_is_checked_at_once():
    with pytest.raises(registry.RuleError, match="unknown names"):
        registry.defrule("srcad.test_bad_template", "x", jvp="t * nowhere(x)")
    with pytest.raises(registry.RuleError, match="not a Python expression"):
        registry.defrule("srcad.test_bad_syntax", "x", vjp="g *")
    with pytest.raises(registry.RuleError, match=r"jvp template for x uses \['g'\]"):
        registry.defrule("srcad.test_tangent_reads_g", "x", jvp="g * x", fn=abs)
    assert "srcad.test_bad_template" not in registry.RULES
    with registry.lazy_templates():  # deferred: the same mistake is found at the check
        rule = registry.defrule("srcad.test_deferred_template", "x", jvp="t * nowhere(x)", fn=abs)
    registry.RULES.pop("srcad.test_deferred_template")
    with pytest.raises(registry.RuleError, match="unknown names"):
        registry.check_templates(rule)
