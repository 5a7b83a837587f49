"""The opt-in persistent cache: a new process reuses generated code; edits invalidate it;
concurrent writers are safe; a directory or entry others can write is refused; a damaged
entry is a miss (rebuilt, one warning); an unusable directory means running uncached.

Most tests run fresh processes (a process keeps its own in-memory cache, which would hide
what the disk holds). Every value is checked against a hand-derived formula.
"""

import json
import math
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import srcad
from srcad import cache, cache_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODULE = textwrap.dedent("""
    import math

    def square(v):
        return v * v

    def f(x, w):
        s = 0.0
        for i in range(len(x)):
            s = s + math.tanh(w * x[i]) ** 2
        return s * SCALE

    def f2(x, w):
        return square(w) * x[0]

    SCALE = 2.0
""")

PROBE = textwrap.dedent("""
    import json, sys, warnings
    caught = []
    warnings.simplefilter("always")
    warnings.showwarning = lambda message, category, *rest, **kw: caught.append(
        f"{category.__name__}: {message}")
    import numpy as np
    import srcad
    import cached_mod as m

    out = {"values": [], "how": [], "warnings": caught}
    for name in sys.argv[1:] or ["f"]:
        g = srcad.grad(getattr(m, name), argnums=1)
        out["values"].append(float(g(np.array([0.1, 0.5, -0.7]), 0.3)))
        cached = g.latest().function.__code__.co_filename.endswith(".py")
        out["how"].append("cached" if cached else "built")
    print(json.dumps(out))
""")

X, W = [0.1, 0.5, -0.7], 0.3


def expected(name="f", scale=2.0):
    if name == "f2":  # d/dw w^2 x0 = 2 w x0
        return 2 * W * X[0]
    # hand-derived: d/dw sum tanh(w x)^2 * scale = scale * sum 2 tanh(w x) (1 - tanh^2) x
    return scale * sum(2 * math.tanh(W * xi) * (1 - math.tanh(W * xi) ** 2) * xi for xi in X)


def _env(cache_dir, root=ROOT):
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return dict(os.environ, SRCAD_CACHE_DIR=str(cache_dir), PYTHONPATH=path)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "cached_mod.py").write_text(MODULE)
    (tmp_path / "probe.py").write_text(PROBE)
    return tmp_path


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A project and a cache holding entries for f and f2 (copied by `warm`)."""
    project = tmp_path_factory.mktemp("filled")
    (project / "cached_mod.py").write_text(MODULE)
    (project / "probe.py").write_text(PROBE)
    template = project / "template"
    probe(project, template, "f")
    entry = only_entry(template)
    probe(project, template, "f2")
    return project, template, entry.relative_to(template)


@pytest.fixture
def warm(filled, tmp_path):
    """(project, a fresh copy of the filled cache, the path of f's entry in it)."""
    project, template, entry = filled
    cache_dir = tmp_path / "cache"
    shutil.copytree(template, cache_dir)
    return project, cache_dir, cache_dir / entry


def probe(project, cache_dir, *names, root=ROOT):
    out = subprocess.run([sys.executable, str(project / "probe.py"), *names], capture_output=True, text=True,
                         env=_env(cache_dir, root), cwd=str(project))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    for name, value in zip(names or ["f"], got["values"]):
        assert value == pytest.approx(expected(name), abs=1e-12)
    return got


def entries(cache_dir, suffix=".py"):
    return sorted(p for p in cache_dir.rglob("*" + suffix) if p.is_file())


def only_entry(cache_dir):
    found = entries(cache_dir)
    assert len(found) == 1, found
    return found[0]


def cache_warnings(got):
    return [w for w in got["warnings"] if w.startswith("CacheWarning")]


# -- reuse, invalidation, concurrency -----------------------------------------------------------

def test_second_process_uses_the_cache_and_edits_invalidate(project):
    cache_dir = project / "cache"
    assert probe(project, cache_dir)["how"] == ["built"]
    assert probe(project, cache_dir)["how"] == ["cached"]
    (project / "cached_mod.py").write_text(MODULE.replace("SCALE = 2.0", "SCALE = 3.0"))
    out = subprocess.run([sys.executable, str(project / "probe.py")], capture_output=True, text=True,
                         env=_env(cache_dir), cwd=str(project))
    got = json.loads(out.stdout)
    assert got["how"] == ["built"] and got["values"][0] == pytest.approx(expected(scale=3.0), abs=1e-12)


def test_concurrent_processes_fill_one_cache(project):
    cache_dir = project / "cache"
    procs = [subprocess.Popen([sys.executable, str(project / "probe.py"), "f", "f2"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=_env(cache_dir), cwd=str(project))
             for _ in range(6)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    for out, _ in outs:
        got = json.loads(out)
        assert got["values"] == [pytest.approx(expected(name), abs=1e-12) for name in ("f", "f2")]
        assert not cache_warnings(got)
    assert not list(cache_dir.rglob("*.tmp"))
    for path in entries(cache_dir) + entries(cache_dir, ".reads"):  # every entry verifies
        assert cache_files.read_entry(str(path), path.name.split(".")[0]) is not None, path
    got = probe(project, cache_dir, "f", "f2")
    assert got["how"] == ["cached", "cached"] and not got["warnings"]


def test_threads_writing_one_entry_at_once(tmp_path):
    folder = tmp_path / "ab"
    folder.mkdir(mode=0o700)
    key = "ab" + "0" * 30
    path = str(folder / (key + ".py"))
    bodies = [f"x = {i}\n" * 2000 for i in range(8)]
    threads = [threading.Thread(target=cache_files.write_entry, args=(str(tmp_path), str(folder), path, key,
                                                                  {"names": []}, body)) for body in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    meta, body, _ = cache_files.read_entry(path, key)
    assert body in bodies and os.listdir(folder) == [key + ".py"]



def test_temporaries_of_killed_writers_are_removed(tmp_path):
    folder = tmp_path / "cd"
    folder.mkdir(mode=0o700)
    key = "cd" + "0" * 30
    stale, live = folder / f".{key}.123.1.0.tmp", folder / f".{key}.124.1.0.tmp"
    for p in (stale, live):
        p.write_text("partial")
    old = os.stat(stale).st_mtime - cache_files.STALE_TMP_SECONDS - 10
    os.utime(stale, (old, old))  # (a writer killed an hour ago; `live` may still be renamed)
    cache_files.write_entry(str(tmp_path), str(folder), str(folder / (key + ".py")), key, {"names": []},
                            "x = 1\n")
    assert sorted(os.listdir(folder)) == sorted([key + ".py", live.name])

NESTED = textwrap.dedent("""
    import numpy as np
    import srcad

    def f(x):
        return x ** 3 * srcad.stop_gradient(x)

    def g(p):
        return p["a"] ** 2 * np.sum(p["w"] ** 3)

    # hand-derived: d2/dx2 [x^3 c] = 6 x c with c = x held constant; d2 g/da2 = 2 sum(w^3)
    print(srcad.grad(srcad.grad(f))(2.0), srcad.hessian(f)(2.0),
          srcad.hessian(g)({"a": 0.5, "w": np.array([0.1, -0.3])})["a"]["a"])
""")


def test_transforms_of_transforms_cold_and_warm(tmp_path):
    script = tmp_path / "nested.py"
    script.write_text(NESTED)
    cache_dir = tmp_path / "cache"
    runs, written = [], []
    for _ in range(2):  # cold, then warm: the same numbers, and nothing new to write
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=_env(cache_dir), cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        runs.append([float(v) for v in out.stdout.split()])
        written.append({p: p.stat().st_mtime_ns for p in entries(cache_dir)})
    assert len(written[0]) >= 4 and written[0] == written[1]  # (the outer transforms too)
    want = [24.0, 24.0, 2 * (0.1 ** 3 - 0.3 ** 3)]
    for got in runs:
        assert got == [pytest.approx(w) for w in want]


# -- permissions --------------------------------------------------------------------------------

def test_directory_and_entries_are_owner_only(project):
    cache_dir = project / "deep" / "cache"
    probe(project, cache_dir)
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    entry = only_entry(cache_dir)
    assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


@pytest.mark.parametrize("where, mode", [("root", 0o770), ("folder", 0o777), ("entry", 0o660)])
def test_writable_by_others_is_refused(warm, where, mode):
    project, cache_dir, entry = warm
    target = {"root": cache_dir, "folder": entry.parent, "entry": entry}[where]
    os.chmod(target, mode)
    got = probe(project, cache_dir, "f", "f2")  # right values, not from the refused place
    warned = cache_warnings(got)
    assert len(warned) == 1 and "writable by other users" in warned[0], got["warnings"]
    assert got["how"][0] == "built"


def test_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    mod = _fresh_module(tmp_path, "owned_mod")
    with _cache_at(cache_dir):
        assert srcad.grad(mod.f, argnums=1)(np.array(X), W) == pytest.approx(expected(), abs=1e-12)
    entry = only_entry(cache_dir)
    real_fstat = os.fstat

    def fstat(fd):  # the entry file looks as if another user owned it
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid + 1) + tuple(st)[5:])

    monkeypatch.setattr(cache_files.os, "fstat", fstat)
    mod = _fresh_module(tmp_path, "owned_mod")
    with _cache_at(cache_dir), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = srcad.grad(mod.f, argnums=1)
        assert g(np.array(X), W) == pytest.approx(expected(), abs=1e-12)
    messages = [str(w.message) for w in caught if w.category is srcad.CacheWarning]
    assert (f"srcad: the cache entry {entry} is owned by another user (uid {os.geteuid() + 1}, not "
            f"{os.geteuid()}); not used") in messages
    assert all("is owned by another user" in m for m in messages)  # (and the reads entry)
    assert not g.latest().function.__code__.co_filename.startswith(str(cache_dir))


def test_directory_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir(mode=0o700)
    monkeypatch.setattr(cache_files.os, "geteuid", lambda: os.getuid() + 1)
    mod = _fresh_module(tmp_path, "owned_dir_mod")
    with _cache_at(cache_dir), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert srcad.grad(mod.f, argnums=1)(np.array(X), W) == pytest.approx(expected(), abs=1e-12)
        assert srcad.grad(mod.f2, argnums=1)(np.array(X), W) == pytest.approx(expected("f2"), abs=1e-12)
    messages = [str(w.message) for w in caught if w.category is srcad.CacheWarning]
    assert len(messages) == 1 and "is owned by another user" in messages[0]  # once per directory
    assert not os.listdir(cache_dir)


def test_entry_chowned_to_another_user(warm):
    """The real thing where the tests may chown (as root); elsewhere the simulated tests
    above cover it."""
    project, cache_dir, entry = warm
    if os.geteuid() == 0:
        os.chown(entry, 4321, -1)
        got = probe(project, cache_dir)
        assert got["how"] == ["built"] and "owned by another user" in cache_warnings(got)[0]


# -- damaged entries ----------------------------------------------------------------------------

def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path):
    path.write_bytes(bytes(range(256)) * 4)


def _edit_body(path):
    path.write_text(path.read_text().replace("def grad_f(", "def grad_f(*_unused, ") + "\nx = 1\n")


def _bad_json(path):
    text = path.read_text()
    path.write_text("# srcad-cache-entry {not json\n" + text.split("\n", 1)[1])


def _fails_to_run(path):
    key = path.name[:-3]
    meta, body, _ = cache_files.read_entry(str(path), key)
    cache_files.write_entry(str(path.parent.parent), str(path.parent), str(path), key, meta,
                       body + "\nraise RuntimeError('boom')\n")


def _empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [_truncate, _garbage, _edit_body, _bad_json, _fails_to_run, _empty])
def test_damaged_entry_is_a_miss_and_is_rewritten(warm, damage):
    project, cache_dir, entry = warm
    damage(entry)
    got = probe(project, cache_dir)
    assert got["how"] == ["built"]
    assert len(cache_warnings(got)) == 1 and str(entry) in cache_warnings(got)[0]
    got = probe(project, cache_dir)  # rewritten: used again, silently
    assert got["how"] == ["cached"] and not got["warnings"]


def test_entry_swapped_in_from_another_key_is_a_miss(warm):
    project, cache_dir, entry_f = warm
    entry_f2 = [p for p in entries(cache_dir) if p != entry_f][0]
    shutil.copyfile(entry_f2, entry_f)  # f's entry now holds f2's (valid) module
    got = probe(project, cache_dir, "f")
    assert got["how"] == ["built"] and "is damaged" in cache_warnings(got)[0]


def test_damaged_reads_entry_is_a_miss(warm):
    project, cache_dir, _ = warm
    for reads in entries(cache_dir, ".reads"):
        _garbage(reads)
    got = probe(project, cache_dir)
    assert len(cache_warnings(got)) == 1 and ".reads is damaged" in cache_warnings(got)[0]


# -- an unusable directory ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["a file", "under a file"])
def test_directory_that_cannot_be_created_runs_uncached(project, kind):
    (project / "blocker").write_text("not a directory")
    cache_dir = project / "blocker" if kind == "a file" else project / "blocker" / "cache"
    got = probe(project, cache_dir, "f", "f2")
    assert got["how"] == ["built", "built"]
    assert len(cache_warnings(got)) == 1 and "running without the persistent cache" in cache_warnings(got)[0]


def test_directory_that_cannot_be_written_runs_uncached(tmp_path, monkeypatch):
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):  # a read-only file system, as far as srcad sees
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(cache_files.os, "open", refuse)
    mod = _fresh_module(tmp_path, "readonly_mod")
    with _cache_at(tmp_path / "cache"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert srcad.grad(mod.f, argnums=1)(np.array(X), W) == pytest.approx(expected(), abs=1e-12)
        assert srcad.grad(mod.f2, argnums=1)(np.array(X), W) == pytest.approx(expected("f2"), abs=1e-12)
    messages = [str(w.message) for w in caught if w.category is srcad.CacheWarning]
    assert len(messages) == 1 and "cannot write" in messages[0]
    assert not entries(tmp_path / "cache")


def test_read_only_directory_for_a_normal_user(project):
    """Permission bits as a non-root user sees them (root writes anyway: then the entry is
    simply written)."""
    cache_dir = project / "cache"
    cache_dir.mkdir(mode=0o500)
    got = probe(project, cache_dir)
    assert got["how"] == ["built"]
    if os.geteuid() != 0:
        assert len(cache_warnings(got)) == 1 and "cannot write" in cache_warnings(got)[0]
    os.chmod(cache_dir, 0o700)


# -- staleness ------------------------------------------------------------------------------------

def test_entry_of_another_srcad_build_is_not_used(project, tmp_path_factory):
    """The same version string, one comment changed in one source file: another key."""
    other = tmp_path_factory.mktemp("other_srcad")
    shutil.copytree(os.path.join(ROOT, "srcad"), other / "srcad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(other / "srcad" / "passes" / "cse.py", "a") as f:
        f.write("\n# a different build of the same version\n")
    cache_dir = project / "cache"
    assert probe(project, cache_dir, root=str(other))["how"] == ["built"]
    assert probe(project, cache_dir, root=str(other))["how"] == ["cached"]
    assert probe(project, cache_dir)["how"] == ["built"]
    assert len(entries(cache_dir)) == 2


RULES = textwrap.dedent("""
    import sys
    import srcad

    def my_op(x):
        return x * x

    srcad.defrule(my_op, "x", jvp="t * K * x", vjp="g * K * x", namespace={"K": float(sys.argv[1])})

    def f(x):
        return my_op(x) + x

    g = srcad.grad(f)
    print(g(1.5), g.latest().function.__code__.co_filename.endswith(".py"))
""")


def test_user_rules_are_part_of_the_key(tmp_path):
    (tmp_path / "rules_mod.py").write_text(RULES)
    cache_dir = tmp_path / "cache"

    def run(k):
        out = subprocess.run([sys.executable, "rules_mod.py", str(k)], capture_output=True, text=True,
                             env=_env(cache_dir), cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        value, cached = out.stdout.split()
        return float(value), cached == "True"

    assert run(2.0) == (pytest.approx(2.0 * 1.5 + 1), False)  # the rule's derivative: K x, plus 1
    assert run(2.0) == (pytest.approx(2.0 * 1.5 + 1), True)
    assert run(3.0) == (pytest.approx(3.0 * 1.5 + 1), False)


EDITOR = textwrap.dedent("""
    import sys
    import srcad
    import edited_mod

    if sys.argv[1] != "-":  # the file changes after the import
        with open(edited_mod.__file__, "w") as f:
            f.write(sys.argv[1])
    try:
        print(srcad.grad(edited_mod.f)(2.0))
    except srcad.StaleSourceError as e:
        print("stale:", str(e).splitlines()[0])
""")

EDITED = textwrap.dedent("""
    def helper(v):
        return v * 3.0

    def f(x):
        return helper(x) * x
""")


@pytest.mark.parametrize("edit", [("* x\n", "* x * x\n"), ("v * 3.0", "v * 4.0")], ids=["function", "helper"])
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_source_edited_after_import_is_refused(tmp_path, edit, warm):
    module = tmp_path / "edited_mod.py"
    (tmp_path / "editor.py").write_text(EDITOR)
    new = EDITED.replace(*edit)
    cache_dir = tmp_path / "cache"

    def run(arg):
        out = subprocess.run([sys.executable, "editor.py", arg], capture_output=True, text=True,
                             env=_env(cache_dir), cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    if warm:  # a process that saw the new text fills the cache first
        module.write_text(new)
        first = run("-")
        assert not first.startswith("stale") and run("-") == first
        assert entries(cache_dir)
    module.write_text(EDITED)
    got = run(new)
    name = "helper" if "v *" in edit[0] else "f"
    assert got.startswith(f"stale: the source of {name} in {module} changed since the function was defined")
    module.write_text(EDITED)
    assert float(run("-")) == pytest.approx(12.0)  # hand-derived: d/dx 3 x^2 = 6 x


def test_warm_entry_is_not_used_when_an_inlined_helper_runs_other_code(tmp_path):
    mod = _fresh_module(tmp_path, "helper_mod")
    cache_dir = tmp_path / "cache"
    with _cache_at(cache_dir):
        g = srcad.grad(mod.f2, argnums=1)
        assert g(np.array(X), W) == pytest.approx(expected("f2"), abs=1e-12)
        entry = only_entry(cache_dir)
        key = entry.name[:-3]
        assert cache.load(key, mod.f2) is not None

        def cube(v):
            return v * v * v

        mod.square.__code__ = cube.__code__  # the helper the entry inlined now runs other code
        assert cache.load(key, mod.f2) is None
        mod.square = cube  # (or the global name now means another function)
        assert cache.load(key, mod.f2) is None


def test_one_file_imported_under_two_names_shares_entries(tmp_path):
    """(As a script runs as __main__ and is imported by name elsewhere.) The inlined helper
    is looked up in the module of the function being differentiated."""
    path = tmp_path / "twice.py"
    path.write_text(MODULE)
    first, second = _fresh_module(tmp_path, "twice_a", path), _fresh_module(tmp_path, "twice_b", path)
    with _cache_at(tmp_path / "cache"):
        assert srcad.grad(first.f2, argnums=1)(np.array(X), W) == pytest.approx(expected("f2"), abs=1e-12)
        written = entries(tmp_path / "cache")
        g = srcad.grad(second.f2, argnums=1)
        assert g(np.array(X), W) == pytest.approx(expected("f2"), abs=1e-12)
        assert g.latest().function.__code__.co_filename.startswith(str(tmp_path / "cache"))
        assert entries(tmp_path / "cache") == written

        def cube(v):
            return v * v * v

        second.square = cube  # only the second module's helper changed: its entry is not used
        assert cache.load(written[0].name[:-3], second.f2) is None
        assert cache.load(written[0].name[:-3], first.f2) is not None


# -- helpers ------------------------------------------------------------------------------------

class _cache_at:
    def __init__(self, path):
        self.path = str(path)

    def __enter__(self):
        self.old = srcad.config.cache_dir
        srcad.config.cache_dir = self.path

    def __exit__(self, *exc):
        srcad.config.cache_dir = self.old


def _fresh_module(tmp_path, name, path=None):
    """A new module object (new function objects: nothing cached in memory)."""
    import importlib.util

    if path is None:
        path = tmp_path / f"{name}.py"
        path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


SAVED = """
import json, math, srcad

def euler(k, steps):
    x = 1.0
    for _ in range(steps):
        x = x - 0.01 * k * math.sin(x)
    return x

g = srcad.grad(euler)
g(2.0, 100)
cached = g.latest().function.__code__.co_filename.endswith(".py")
print(json.dumps([cached, [(s.name, str(s.type), s.line) for s in srcad.saved_values(euler, 2.0, 100)]]))
"""


def test_saved_values_survive_the_cache(tmp_path):
    script = tmp_path / "saved_mod.py"
    script.write_text(SAVED)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=_env(tmp_path / "cache"), cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout))
    assert [cached for cached, _ in runs] == [False, True]  # the second run loads the entry
    assert runs[0][1] == runs[1][1] == [["x", "float", 6], ["(temporary)", "float", 7]]
