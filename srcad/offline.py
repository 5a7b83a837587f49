"""Offline code generation: `srcad codegen`, `srcad check` and `srcad show`.

    srcad codegen model.py:loss --argnums 0 -o model_grad.py
    srcad check model_grad.py
    srcad show model.py:loss --stage ssa

Argument types come from `--types` (say `float,array1,int`), else from the function's
annotations (`x: float`, `w: np.ndarray`), else they are left open and the generated code
checks shapes at run time.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import tempfile

import astor
import gast
import numpy as np

from . import arity, pipeline
from .analysis import reads
from .codegen.standalone import module_text, stale_sources
from .errors import CodegenError
from .frontend.source import parse_function
from .ir import types as T
from .ir.printer import format_function
from .pipeline import Spec, differentiable_positions, lowered
from .trees import flatten

_TYPE_NAMES = {"float": T.FLOAT, "int": T.INT, "bool": T.BOOL, "array": T.Array(None, "f"), "any": T.UNKNOWN}


def _package_root(path: str) -> tuple[str, str]:
    """(folder to put on sys.path, dotted module name): a file inside packages (folders with
    __init__.py) is imported as pkg.sub.mod, so its relative imports work."""
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.splitext(os.path.basename(path))[0]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        name = f"{pkg}.{name}"
    return folder, name


def _source_root(module, out: str) -> str:
    """The folder to import `module` from, relative to the generated file's folder."""
    root = os.path.abspath(module.__file__)
    for _ in module.__name__.split("."):
        root = os.path.dirname(root)
    return os.path.relpath(root, os.path.dirname(os.path.abspath(out)))


def load_module(path: str):
    """Import a Python file by path (its directory, or its top package's parent, goes on
    sys.path for its own imports)."""
    if not os.path.isfile(path):
        raise CodegenError(f"no such file: {path}")
    name = os.path.splitext(os.path.basename(path))[0]
    if not name.isidentifier():
        raise CodegenError(f"{path}: the file name must be a valid module name")
    folder, dotted = _package_root(path)
    if dotted != name:
        if folder not in sys.path:
            sys.path.insert(0, folder)
        try:
            return importlib.import_module(dotted)
        except Exception as e:
            raise CodegenError(f"importing {path} as {dotted} failed: {type(e).__name__}: {e}") from e
    if folder not in sys.path:
        sys.path.insert(0, folder)
    existing = sys.modules.get(name)
    if (existing is not None
            and os.path.abspath(getattr(existing, "__file__", "") or "") == os.path.abspath(path)):
        return existing
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise CodegenError(f"importing {path} failed: {type(e).__name__}: {e}") from e
    return module


def parse_target(target: str) -> tuple[str, list[str]]:
    path, sep, funcs = target.rpartition(":")
    if not sep or not path or not funcs:
        raise CodegenError(f"expected FILE.py:FUNC, got {target!r}")
    return path, [f for f in funcs.split(",") if f]


def get_function(module, name: str):
    fn = getattr(module, name, None)
    if fn is None:
        raise CodegenError(f"{module.__file__} has no function {name!r}")
    if not inspect.isfunction(fn):
        raise CodegenError(f"{name} in {module.__file__} is not a plain Python function")
    return fn


def for_types(fn, text: str | None):
    """fn; for a function with *args or **kwargs, the wrapper for a call with one positional
    argument per `--types` entry (srcad/arity.py)."""
    if not arity.variadic(fn):
        return fn
    if not text:
        raise CodegenError(f"{fn.__name__} takes *args or **kwargs: give --types, one type per positional "
                           "argument of the call to generate code for")
    return arity.for_call(fn, len(_type_names(text)))


def _type_names(text: str) -> list:
    return [t.strip() for t in re.split(r",(?![^\[]*\])", text)]  # (not inside brackets)


def parse_types(text: str | None, fn) -> tuple:
    """Argument types from `--types`, else from annotations, else unknown."""
    params = list(inspect.signature(fn).parameters.values())
    if text:
        names = _type_names(text)
        if len(names) == 1:
            names = names * len(params)  # one type for every parameter
        if len(names) != len(params):
            raise CodegenError(f"--types gives {len(names)} types for {len(params)} parameters "
                               f"of {fn.__name__}")
        return tuple(_type_named(n) for n in names)
    return tuple(_from_annotation(p.annotation) for p in params)


def _type_named(name: str) -> T.Type:
    if name in _TYPE_NAMES:
        return _TYPE_NAMES[name]
    if name.startswith("array") and name[5:].isdigit():
        return T.Array(int(name[5:]), "f")
    m = re.fullmatch(r"(float|int|bool|array)\[\s*([0-9,\s]*)\]", name)
    if m:
        dims = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
        return T.Array(len(dims), {"int": "i", "bool": "b"}.get(m.group(1), "f"), dims)
    raise CodegenError(f"unknown type {name!r} (use float, int, bool, array, arrayN, any, or a "
                       "shaped array such as float[3,4] or int[5])")


def _from_annotation(ann) -> T.Type:
    if ann is float:
        return T.FLOAT
    if ann is int:
        return T.INT
    if ann is bool:
        return T.BOOL
    if ann is np.ndarray:
        return T.Array(None, "f")
    return T.UNKNOWN


def build(fn, mode: str, argnums: tuple[int, ...] | None, arg_types, trace=None, target: str = "python"):
    """Generated code for one function: Built (see pipeline)."""
    for i in argnums or ():
        if not -len(arg_types) <= i < len(arg_types):
            raise CodegenError(f"--argnums {i} is out of range: "
                               f"{fn.__name__} has {len(arg_types)} parameters")
    argnums = None if argnums is None else tuple(i % len(arg_types) for i in argnums)
    _check_argnum_types(fn, arg_types, argnums or ())
    if mode == "reverse":
        nums = argnums if argnums is not None else (0,)
        spec = Spec("grad", nums, len(nums) > 1, False, target=target)
    elif mode == "forward":
        nums = argnums if argnums is not None else differentiable_positions(arg_types)
        spec = Spec("jvp", tuple(nums), True, False, target=target)
    else:
        raise CodegenError(f"unknown mode {mode!r} (use reverse or forward)")
    if target == "numba":
        _check_numba_reads(fn)
    return pipeline.build(fn, spec, arg_types, {}, trace)


def _check_numba_reads(fn) -> None:
    """A global or closure array the function reads has no type the numba target can compile
    for when the module is written (the module reads it when it runs, whatever it is then):
    refused, where the module's first call would fail inside numba."""
    for entry in pipeline.reads_of(fn):
        value = reads.reader(entry)()
        if any(isinstance(v, np.ndarray) for v in flatten(value)[0]):
            name = entry[2] or "a closure variable"
            raise CodegenError(f"{fn.__name__} reads {name!r}, an array from outside the function, which the "
                               "numba target cannot type when it writes the module: pass it as an argument "
                               "(with its type in --types), or write the python target")


def _check_argnum_types(fn, arg_types: tuple, argnums) -> None:
    """An int or bool named in argnums is an error (srcad.grad promotes an int to a float, but
    a standalone module cannot: its code would take the int as it is)."""
    for i in argnums:
        t = arg_types[i]
        if isinstance(t, (T.Int, T.Bool)) or (isinstance(t, T.Array) and t.kind in ("i", "b")):
            raise CodegenError(f"--argnums {i}: parameter {i} of {fn.__name__} is given the type {t} in "
                               "--types, which has no derivative; give it a float type (float, array, "
                               "float[...]) and pass floats to the generated function")


def write_atomically(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file, so no half-written file is left."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=".srcad-", suffix=".py", dir=folder)
    except OSError as e:
        raise CodegenError(f"cannot write to {folder}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        raise CodegenError(f"cannot write {path}: {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def codegen(target: str, mode: str = "reverse", argnums=None, out: str | None = None,
            types: str | None = None, with_test: bool = False, command: str = "",
            samples: list[str] | None = None, code_target: str = "python") -> str:
    """Generate a standalone derivative module for FILE.py:FUNC[,FUNC2]; returns its text
    (code_target "numba": every function jitted with numba.njit(cache=True, nogil=True))."""
    path, names = parse_target(target)
    module = load_module(path)
    units, files = [], []
    for name in names:
        fn = for_types(get_function(module, name), types)
        arg_types = parse_types(types, fn)
        built = build(fn, mode, argnums, arg_types, target=code_target)
        units.extend(built.rendered)
        for f in lowered(fn).functions:
            src = inspect.getsourcefile(f)
            if src and os.path.isfile(src) and src not in files:  # (not a wrapper: arity.py)
                files.append(src)
    where = os.path.dirname(os.path.abspath(out)) if out else os.getcwd()
    rel = [(os.path.relpath(f, where), f) for f in files]
    options = (f"mode={mode} argnums={','.join(map(str, argnums)) if argnums else 'default'} "
               f"types={types or 'auto'}" + (f" target={code_target}" if code_target != "python" else ""))
    text = module_text(units, rel, command or f"srcad codegen {target}", options, code_target)
    if out:
        compile(text, out, "exec")  # never write a module that does not even parse
        write_atomically(out, text)
        if with_test:
            write_atomically(_test_path(out), test_text(module, names, mode, argnums, types, out, samples))
    return text


def _test_path(out: str) -> str:
    folder, base = os.path.split(out)
    return os.path.join(folder, "test_" + base)


def _sample(t: T.Type, k: int):
    if isinstance(t, T.Int):
        return "3"
    if isinstance(t, T.Bool):
        return "True"
    if isinstance(t, T.Array):
        n = t.ndim if t.ndim is not None else 1
        shape = (3,) * n
        return f"np.linspace({0.213 + 0.117 * k:.3f}, {0.871 + 0.093 * k:.3f}, {3 ** n}).reshape({shape})"
    return f"{0.337 + 0.211 * k:.3f}"  # away from round numbers, where kinks often sit


def test_text(module, names, mode, argnums, types, out, samples=None) -> str:
    """A pytest file checking the generated derivatives against finite differences, at
    sample arguments (`samples`: one Python expression per parameter; default: values of
    the parameter types, arrays of shape (3,) * ndim)."""
    gen = os.path.splitext(os.path.basename(out))[0]
    lines = ['"""Checks generated by `srcad codegen --with-test`: derivatives vs finite differences."""',
             "", "import os", "import sys", "", "import numpy as np", "",
             "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))",
             "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "
             f"{_source_root(module, out)!r}))",
             "", f"import {gen}  # noqa: E402", f"import {module.__name__}  # noqa: E402", "",
             "", "def _fd(f, args, i, v, eps=1e-6):",
             "    a = list(args); b = list(args)",
             "    a[i] = args[i] + eps * v; b[i] = args[i] - eps * v",
             "    return (np.asarray(f(*a)) - np.asarray(f(*b))) / (2 * eps)", ""]
    for name in names:
        fn = for_types(getattr(module, name), types)
        arg_types = parse_types(types, fn)
        args = ", ".join(samples) if samples else ", ".join(_sample(t, k) for k, t in enumerate(arg_types))
        nums = argnums if argnums is not None else (
            (0,) if mode == "reverse" else differentiable_positions(arg_types))
        lines += ["", f"def test_{name}():", f"    args = ({args},)", "    rng = np.random.default_rng(0)"]
        if mode == "reverse":
            lines.append(f"    g = {gen}.grad_{name}(*args)")
            lines.append(f"    grads = g if {len(nums) > 1} else (g,)")
            for j, i in enumerate(nums):
                lines += [f"    v = rng.normal(size=np.shape(args[{i}])) if np.ndim(args[{i}]) else 1.0",
                          f"    expected = _fd({module.__name__}.{name}, args, {i}, v)",
                          f"    np.testing.assert_allclose(np.sum(np.asarray(grads[{j}]) * v), expected, "
                          "rtol=1e-5, atol=1e-7)"]
        else:
            lines.append("    tangents = []")
            for i in nums:
                lines.append(f"    tangents.append(rng.normal(size=np.shape(args[{i}])) "
                             f"if np.ndim(args[{i}]) else 1.0)")
            lines.append(f"    out, out_dot = {gen}.jvp_{name}(*args, *tangents)")
            lines.append("    eps = 1e-6")
            lines.append("    plus, minus = list(args), list(args)")
            for j, i in enumerate(nums):
                lines.append(f"    plus[{i}] = args[{i}] + eps * tangents[{j}]; "
                             f"minus[{i}] = args[{i}] - eps * tangents[{j}]")
            lines.append(f"    expected = (np.asarray({module.__name__}.{name}(*plus)) - "
                         f"np.asarray({module.__name__}.{name}(*minus))) / (2 * eps)")
            lines.append("    np.testing.assert_allclose(out_dot, expected, rtol=1e-5, atol=1e-7)")
    lines += ["", "", 'if __name__ == "__main__":']
    lines += [f"    test_{name}()" for name in names]
    lines.append('    print("ok")')
    return "\n".join(lines) + "\n"


def check(path: str) -> list[str]:
    """Source files that changed since `path` was generated (empty: up to date)."""
    if not os.path.isfile(path):
        raise CodegenError(f"no such file: {path}")
    return stale_sources(path)


STAGES = ("parsed", "ssa", "typed", "transformed", "optimized", "source")


def show(target: str, mode: str = "reverse", stage: str = "source", argnums=None,
         types: str | None = None) -> str:
    """The function after one pipeline stage, as text."""
    if stage not in STAGES:
        raise CodegenError(f"unknown stage {stage!r} (use {', '.join(STAGES)})")
    path, names = parse_target(target)
    module = load_module(path)
    fn = for_types(get_function(module, names[0]), types)
    if stage == "parsed":
        return astor.to_source(gast.gast_to_ast(parse_function(fn).node))
    if stage == "ssa":
        return format_function(lowered(fn).function)
    trace: dict = {}
    built = build(fn, mode, argnums, parse_types(types, fn), trace)
    if stage == "source":
        return built.source
    return format_function(trace[stage])

