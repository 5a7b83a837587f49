"""The layout of the package: small modules, and a run-time package that imports only NumPy
(so that `srcad codegen` can copy its helpers into modules that run without srcad)."""

import ast
import builtins
import importlib
import inspect
import os
import shutil
import subprocess
import symtable
import sys
from pathlib import Path

import gast
import pytest

import srcad.runtime as runtime
from srcad.codegen.standalone import helper_functions, runtime_deps
from srcad.rules.registry import RULES

ROOT = Path(__file__).resolve().parents[1]
SRCAD = ROOT / "srcad"
RUNTIME = SRCAD / "runtime"
RUNTIME_FILES = sorted(p for p in RUNTIME.glob("*.py"))
RUNTIME_MODULES = sorted(p.stem for p in RUNTIME_FILES if p.stem != "__init__")


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.mark.parametrize("path", sorted(SRCAD.rglob("*.py")), ids=lambda p: str(p.relative_to(SRCAD)))
def test_modules_are_under_500_lines(path):
    assert _lines(path) < 500, f"{path} has {_lines(path)} lines: split it"


@pytest.mark.parametrize("path", RUNTIME_FILES, ids=lambda p: p.name)
def test_runtime_modules_are_under_300_lines(path):
    assert _lines(path) < 300


def test_functions_are_under_60_lines():
    long = []
    for path in sorted(SRCAD.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n >= 60:
                    long.append(f"{path.relative_to(SRCAD)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, "split these functions: " + ", ".join(long)


# -- imports point one way ------------------------------------------------------------------------

def _module_names() -> dict:
    """srcad's modules by dotted name -> (path, is it a package's __init__)."""
    out = {}
    for path in sorted(SRCAD.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


MODULES = _module_names()


def _srcad_imports(name: str):
    """(the srcad module an import statement names, the statement, whether it is inside a
    function) for each srcad module `name` imports. `from pkg import x` names the module
    pkg.x when there is one, else pkg itself (x is then a name defined in pkg)."""
    path, package = MODULES[name]
    here = name.split(".") if package else name.split(".")[:-1]
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.extend((a.name, child, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = ".".join(here[:len(here) - child.level + 1] + [child.module] if child.module else
                                here[:len(here) - child.level + 1]) if child.level else child.module
                for a in child.names:
                    out.append((f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base, child,
                                in_function))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                           ast.Lambda)))

    visit(ast.parse(path.read_text()), False)
    return [(target, stmt, f) for target, stmt, f in out if target.split(".")[0] == "srcad"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_the_package_face(name):
    """srcad/__init__.py only gathers the public names: a module reading one of them through
    the package (`from .. import __version__`, `import srcad`) would import everything, in a
    cycle. Subpackages and modules (`from .. import runtime`) are fine."""
    if name == "srcad":
        return
    for target, stmt, _ in _srcad_imports(name):
        assert target != "srcad", f"{name} imports the package face: {ast.unparse(stmt)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not n.startswith("srcad.runtime")))
def test_imports_of_srcad_modules_are_at_module_level(name):
    """An import inside a function hides a dependency (and usually a cycle). The run-time
    package is the exception, checked above: its checks import srcad.errors when they raise,
    since copies of its helpers run without srcad."""
    inner = [ast.unparse(stmt) for _, stmt, in_function in _srcad_imports(name) if in_function]
    assert not inner, f"{name} imports inside a function: {inner}"


def test_the_import_graph_has_no_cycles():
    """Between srcad's modules, counting every import statement. (Importing a.b also runs
    a/__init__.py; those implicit edges do not count: a package's __init__ importing its own
    modules is how packages work.)"""
    graph = {name: sorted({t for t, _, _ in _srcad_imports(name) if t in MODULES and t != name})
             for name in MODULES}
    state: dict = {}  # name -> "open" while on the path, "done" after

    def visit(name, path):
        state[name] = "open"
        for t in graph[name]:
            assert state.get(t) != "open", "import cycle: " + " -> ".join(path[path.index(t):] + [t])
            if t not in state:
                visit(t, path + [t])
        state[name] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])


def _imports(tree):
    """(modules an import statement reads, its level, whether it is inside a function, whether
    inside a try that catches ImportError) for every import statement of a module."""
    out = []

    def visit(node, in_function, guarded):
        if isinstance(node, ast.Import):
            out.extend(((a.name,), 0, in_function, guarded) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert all(a.name != "*" for a in node.names), "no star imports in srcad.runtime"
            base = node.module or ""
            # (`from pkg import name` may import the module pkg.name)
            read = (base,) + tuple(f"{base}.{a.name}" if base else a.name for a in node.names)
            out.append((read, node.level, in_function, guarded))
        in_function = in_function or isinstance(node, (ast.FunctionDef, ast.Lambda))
        if isinstance(node, ast.Try):
            catches = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
            for child in node.body:
                visit(child, in_function, guarded or "ImportError" in catches)
            for child in node.handlers + node.orelse + node.finalbody:
                visit(child, in_function, guarded)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, in_function, guarded)

    visit(tree, False, False)
    return out


@pytest.mark.parametrize("path", RUNTIME_FILES, ids=lambda p: p.name)
def test_runtime_imports_only_numpy_the_standard_library_and_itself(path):
    """The one exception: the checks raise srcad's own errors when srcad is there, imported
    inside the function that raises, falling back to ValueError / TypeError without it."""
    tree = ast.parse(path.read_text())
    for read, level, in_function, guarded in _imports(tree):
        if level:
            assert level == 1, f"{path.name} imports {read} from outside srcad.runtime"
            continue
        if read[0].split(".")[0] == "srcad":
            ok = read[0] == "srcad.errors" or read == ("srcad", "srcad.errors")
            assert ok and in_function and guarded, (
                f"{path.name} imports {read[-1]}: srcad.runtime may use srcad.errors only, inside "
                "the function that raises, in a try that falls back when srcad is not installed")
            continue
        root = read[0].split(".")[0]
        assert root == "numpy" or root in sys.stdlib_module_names, f"{path.name} imports {read[0]}"
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert "globals" not in calls and "vars" not in calls, "no globals().update in srcad.runtime"


def test_a_copy_of_the_runtime_imports_no_srcad_module(tmp_path):
    shutil.copytree(RUNTIME, tmp_path / "rt_copy", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import sys, rt_copy\n"
            "print(sorted(m for m in sys.modules if m == 'srcad' or m.startswith('srcad.')))\n"
            "print(len(rt_copy.__all__))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    loaded, count = out.stdout.split("\n")[:2]
    assert loaded == "[]" and int(count) == len(runtime.__all__)


def test_the_package_reexports_each_module_explicitly():
    names = []
    for mod in RUNTIME_MODULES:
        module = importlib.import_module(f"srcad.runtime.{mod}")
        defined = sorted(n for n, f in vars(module).items()
                         if inspect.isfunction(f) and f.__module__ == module.__name__ and n[0] != "_")
        assert sorted(module.__all__) == defined, f"{mod}.__all__ lists its public functions"
        for name in module.__all__:
            assert getattr(runtime, name) is getattr(module, name), f"srcad.runtime.{name}"
        names += module.__all__
    assert len(names) == len(set(names))
    assert sorted(runtime.__all__) == sorted(names)
    assert not set(RUNTIME_MODULES) & set(names), "a module named like a helper hides it"


def test_helper_names_are_unique_across_modules():
    """Copied helpers share one namespace: two functions of the same name would clash."""
    seen = {}
    for mod in RUNTIME_MODULES:
        module = importlib.import_module(f"srcad.runtime.{mod}")
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == module.__name__:
                assert name not in seen, f"{name} is defined in {seen.get(name)} and {mod}"
                seen[name] = mod
    assert seen.keys() == helper_functions().keys()


def _template_helpers() -> set:
    """The helpers named `srcad.<name>` in any rule's templates, and the helpers that are
    themselves primitives (rules named srcad.<name> calling a function of srcad.runtime)."""
    out = set()
    for rule in RULES.values():
        templates = [*rule.jvp.values(), *rule.vjp.values(), *rule.let.values(), rule.jvp_all, rule.vjp_all]
        for t in templates:
            if t is None:
                continue
            for node in gast.walk(t.node):
                if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                        and node.value.id == "srcad":
                    out.add(node.attr)
        if rule.name.startswith("srcad.") and getattr(rule.fn, "__module__", "").startswith("srcad.runtime"):
            out.add(rule.fn.__name__)
    return out


def _free_globals(table) -> set:
    """The global names a function (and the functions nested in it) reads."""
    out = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    for child in table.get_children():
        out |= _free_globals(child)
    return out


def test_every_helper_the_rules_name_exists():
    helpers = _template_helpers()
    assert len(helpers) > 50
    missing = sorted(n for n in helpers if not inspect.isfunction(getattr(runtime, n, None)))
    assert not missing, f"templates name srcad.{missing[0]}, which srcad.runtime lacks"


@pytest.mark.parametrize("name", sorted(_template_helpers()))
def test_each_helper_copies_standalone(name):
    """What `srcad codegen` writes for a helper (its source, the helpers it calls, from any
    module of srcad.runtime, and numpy) defines every global name it reads."""
    funcs = helper_functions()
    deps = runtime_deps({name})
    assert name in deps
    text = "import numpy as np\n\n\n" + "\n\n\n".join(inspect.getsource(funcs[d]) for d in deps)
    table = symtable.symtable(text, "<standalone>", "exec")
    defined = {"np", *deps} | set(dir(builtins))
    for child in table.get_children():
        missing = _free_globals(child) - defined
        assert not missing, f"the copy of {child.get_name()} (for {name}) lacks {sorted(missing)}"
    namespace = {}
    exec(compile(text, "<standalone>", "exec"), namespace)
    assert callable(namespace[name])
