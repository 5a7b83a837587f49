"""The compiler pipeline, one function per stage, data flowing one way:

    source -> gast -> fence -> SSA IR (lower) -> types (specialize) -> cleanup
           -> transform (reverse / forward) -> optimize -> gast -> source -> compiled function
"""

from __future__ import annotations

import dataclasses
import os
import types
import weakref
from dataclasses import dataclass

from .analysis import reads
from .codegen.targets import compile_function, render
from .errors import UnsupportedSyntaxError
from .frontend.closures import check_no_local_functions, erase_local_functions
from .frontend.lower import Lowered_, lower_function
from .frontend.objects import check_no_local_objects, making_at_run_time, run_time_sites
from .frontend.planned import generated_file
from .frontend.resolve import library_code
from .ir import types as T
from .ir.nodes import Apply, Const, Ext, Function, Param, Var, iter_ops
from .ir.verify import verify
from .outputs import analyzed, check_scalar, return_loc, split_aux
from .passes.checkpointing import checkpoint_loops
from .passes.dce import dce, forget_kept
from .passes.defined import define_everywhere
from .passes.ownership import own_results
from .passes.pipeline import cleanup, finish, optimize
from .transforms import naming
from .transforms.batched import batched_forward, check_linear_use
from .transforms.emitter import Emitter
from .transforms.forward import forward
from .transforms.owning import own_written_arguments
from .transforms.reverse import reverse, reverse_split
from .transforms.safety import check_mutations
from .transforms.saved import saved_from_json, saved_report
from .transforms.specialize import specialize
from .transforms.vmapping import vectorise
from .version import __version__


@dataclass(frozen=True)
class Spec:
    """What to generate: the transformation and its options."""

    kind: str  # a key of TRANSFORMS: 'grad', 'value_and_grad', 'jvp', 'tangent', 'vjp', 'jacfwd', 'rows'
    argnums: tuple[int, ...] = (0,)
    argnums_tuple: bool = False
    has_aux: bool = False
    batch: int = 0  # jacfwd: the number of tangent directions pushed through at once; vmap: examples
    memory_budget: int | None = None  # grad: bytes for what loops store (passes/checkpointing.py)
    in_axes: tuple = ()  # vmap: per argument, the axis its examples are stacked along (None: not mapped)
    out_axes: int = 0  # vmap: the axis the results are stacked along
    target: str = "python"  # the code's target: "python" (CPython) or "numba" (docs/numba_target.md)


@dataclass
class Built:
    function: object  # the compiled generated function
    source: str
    saved: list
    name: str
    rendered: list = dataclasses.field(default_factory=list)  # (Rendered, name) per function
    sequences: bool = False  # a differentiated argument is a list or tuple (gradients reshaped)
    structs: bool = False  # an argument holds objects as nodes (results turned back into objects)
    output_loc: object = None  # the user's return statement (for errors about outputs)
    backward: object = None  # vjp: the second generated function (residuals, g -> cotangents)
    wrt: tuple = ()  # jvp and vjp: the argument positions the code has tangents/cotangents for
    inlined: tuple = ()  # the user functions inlined while specialising (methods of objects)


def built_from_cache(namespace: dict, meta: dict, text: str) -> Built:
    """A Built of code loaded from the persistent cache (cache.load)."""
    names = meta["names"]
    return Built(namespace[names[0]], text, saved_from_json(meta.get("saved", [])), meta["name"],
                 backward=namespace[names[1]] if len(names) > 1 else None)


_LOWERED: weakref.WeakKeyDictionary[object, dict] = weakref.WeakKeyDictionary()


def lowered(fn, statics: tuple = ()) -> Lowered_:
    """The untyped IR of `fn` (cached per function object; a redefinition is a new object),
    with the arguments `statics` ((position, function) pairs) known while lowering."""
    versions = _LOWERED.get(fn)
    if versions is None:
        versions = _LOWERED[fn] = {}
    key = (tuple((i, id(obj)) for i, obj in statics), run_time_sites())
    got, inner = versions.get(key, (None, ()))
    if got is None or any(obj is not s for (_, obj), (_, s) in zip(got.statics, statics)) or any(
            t.reads_key() != k for t, k in inner):
        got = _objects_retried(lambda: lower_function(fn, statics) if statics else lower_function(fn))
        inner = tuple((t, t.reads_key()) for t in got.transforms)
        _LOWERED.setdefault(fn, {})[key] = (got, inner)
    return got


def transform_bases(fn, low: Lowered_ | None = None) -> list:
    """The user functions of the transforms fn calls inside (`srcad.grad(h)(x)`: h, and those
    of the transforms h calls inside...): their code is inlined into fn's, built from what
    they read and the helpers they reach now (Transformed._refresh and _free_reads)."""
    out: list = []
    todo = list((low or lowered(fn)).transforms)
    while todo:
        base = todo.pop()._base()
        if base not in out and base is not fn:
            out.append(base)
            todo.extend(lowered(base).transforms)
    return out


def _objects_retried(make):
    """make(), again while it refuses an object made inside the function at a place not yet
    marked: marked, such objects are made when the code runs (frontend/objects.py), as before
    srcad made objects while transforming: a constant, or an error where a differentiated
    value meets it. The marks last for this transformation only (and key the IR cache)."""
    sites = run_time_sites()  # (those of an enclosing attempt)
    while True:
        with making_at_run_time(sites):
            try:
                return make()
            except UnsupportedSyntaxError as e:
                site = getattr(e, "site", None)
                if site is None or site in sites:
                    raise
        sites = sites | {site}


def static_arguments(arg_types) -> tuple:
    """(position, function) of the arguments that are functions (their type is T.Fn): the
    code is specialised on them, and calls of them are resolved while lowering."""
    return tuple((i, t.obj) for i, t in enumerate(arg_types) if isinstance(t, T.Fn))


def forget_lowered(fn) -> None:
    """Drop the cached IR of fn (a helper it inlined was rebound)."""
    _LOWERED.pop(fn, None)


def reads_of(fn) -> tuple:
    """What fn reads when it runs, and what the transforms it calls inside read (their code is
    inlined into fn's: Transformed._read_kinds keys fn's code on them too)."""
    low = lowered(fn)
    inner = tuple(e for t in low.transforms for e in t._free_reads())
    return tuple(dict.fromkeys(free_reads(low) + inner))


def depended_functions(fn, statics: tuple = ()) -> tuple:
    """The user functions fn's code is built from: those it inlines, and those of the
    transforms it calls inside (transform_bases); `statics` as for lowered."""
    low = lowered(fn, statics)
    return low.functions + tuple(g for b in transform_bases(fn, low) for g in lowered(b).functions)


def free_reads(low: Lowered_) -> tuple:
    """The globals, closure cells and object attributes the function reads at run time
    (analysis/reads.py)."""
    return reads.free_reads(low.function.body)


def typed(fn, arg_types, free_types, inlined: list | None = None) -> Function:
    """Lowered, specialised to argument types, cleaned up and checked (`inlined` receives
    the user functions inlined while specialising: methods of objects); see _objects_retried."""
    def attempt():
        if inlined is not None:
            inlined.clear()
        return _typed(fn, arg_types, free_types, inlined)

    return _objects_retried(attempt)


def _typed(fn, arg_types, free_types, inlined: list | None) -> Function:
    low = lowered(fn, static_arguments(arg_types))
    generated = _generated(low.function)  # (srcad's own code: its writes and reads are safe)
    f = verify(specialize(low.function, tuple(arg_types), free_types, lowered, inlined, trusted=generated))
    f = own_written_arguments(f, trusted=generated)  # (an argument written into: a copy of its own)
    check_mutations(f, trusted=generated)  # on the code as written, before dead code is dropped
    f = cleanup(f)
    check_no_local_functions(f)
    check_no_local_objects(f)
    return erase_local_functions(f)


def _generated(f: Function) -> bool:
    """Is f srcad's own generated derivative code (being differentiated again), compiled
    now or loaded from the persistent cache?"""
    return f.loc is not None and generated_file(f.loc.file)


def _record(trace: dict | None, stage: str, fn: Function) -> Function:
    if trace is not None:
        trace[stage] = fn
    return fn


def _describe(arg_types, fn: Function) -> str:
    return ", ".join(f"{p.name}: {t}" for p, t in zip(fn.signature, arg_types))


def _contracts(spec: Spec) -> bool:
    """Loop accumulations contracted after the loop (passes/contract.py)? Not under a memory
    budget (more stored per iteration). (The numba target prints np.tensordot as np.dot.)"""
    return spec.memory_budget is None


def _blas(spec: Spec) -> bool:
    """Sums over an axis of a matrix as matrix-vector products (passes/axis_sums.py)? Not for
    numba (no np.einsum; its loops are fast)."""
    return spec.target != "numba"


def _emit(fn: Function, name: str, header, spec: Spec):
    """fn's source for the spec's target: the CPython printer reads fn with its buffers
    planned (passes/pipeline.finish), the numba printer fn as it is."""
    return render(fn, name, header, target=spec.target, planned=finish(fn))


def _build_reverse(fn, spec: Spec, arg_types, free_types, trace: dict | None = None, inlined=None) -> Built:
    """`grad_f(*args)` (or `value_and_grad_f`): the gradients for the arguments in spec.argnums."""
    f = check_scalar(split_aux(typed(fn, arg_types, free_types, inlined), spec), spec)
    _record(trace, "typed", f)
    outputs = (f.body.yields[0],)
    f, act = analyzed(f, spec.argnums, outputs)
    em, new_params, value, aux, grads, plan = reverse(f, act, spec.argnums)
    g = grads[0] if not spec.argnums_tuple else em.apply("srcad.tuple", grads)
    if spec.kind == "value_and_grad":
        v = em.apply("srcad.tuple", (value, aux)) if spec.has_aux else value
        result = em.apply("srcad.tuple", (v, g))
    elif spec.has_aux:
        result = em.apply("srcad.tuple", (g, aux))
    else:
        result = g
    body = em.b.end_function((result,))
    name = f"{spec.kind}_{f.name}"
    out = _record(trace, "transformed", Function(name, f.signature, body, f.loc, f.qualname))
    out = verify(own_results(optimize(out, contract=_contracts(spec), blas=_blas(spec))))
    checkpointed = []
    if spec.memory_budget is not None:
        out, checkpointed = checkpoint_loops(out, spec.memory_budget)
        out = verify(dce(out))
    out = _record(trace, "optimized", out)
    saved = saved_report(f, plan, out)
    header = _header(fn, spec, arg_types, f, saved, out) + _checkpoint_lines(spec, checkpointed)
    rendered = _emit(out, name, header, spec)
    return Built(compile_function(rendered, name), rendered.source, saved, name, [(rendered, name)])


def _header(fn, spec: Spec, arg_types, f: Function, saved, final: Function) -> list[str]:
    code = fn.__code__
    argnums = spec.argnums if spec.argnums_tuple else spec.argnums[0]
    lines = [
        f"srcad {__version__}: {spec.kind} of {fn.__qualname__} "
        f"({os.path.basename(code.co_filename)}:{code.co_firstlineno})",
        f"argnums={argnums}; specialised for {_describe(arg_types, f) or 'no arguments'}",
    ]
    if saved:
        lines.append("saved per loop iteration for the backward sweep:")
        for s in saved:
            lines.append(f"  {s.name} (line {s.line}, {s.type}): {s.bytes_per_iteration}")
    kept = _constant_calls(final)
    if kept:
        lines.append("calls run as written (no derivative flows through them):")
        lines.extend(f"  {k}" for k in kept)
    return lines


def _checkpoint_lines(spec: Spec, done) -> list[str]:
    if spec.memory_budget is None:
        return []
    if not done:
        return [f"memory_budget={spec.memory_budget} B: no loop to checkpoint"]
    lines = [f"memory_budget={spec.memory_budget} B: checkpointed loops (each iteration's forward runs "
             "twice: recompute factor 2)"]
    for c in done:
        per = f"{c.iter_bytes} B stored per iteration, {c.carry_bytes} B per checkpoint" \
            if c.iter_bytes is not None else "sizes unknown: segments of sqrt(trips) iterations"
        lines.append(f"  line {c.line}: segments chosen at run time ({per})")
    return lines


def _constant_calls(f: Function) -> list[str]:
    """The calls of library code the generated function makes (logging, timing, plotting...),
    with the user's lines: they run as in the function and no derivative flows through them."""
    found: dict = {}
    for op in iter_ops(f.body):
        if not isinstance(op, Apply) or op.prim not in ("srcad.call", "srcad.method") or op.loc is None:
            continue
        if op.prim == "srcad.method":
            name = f".{op.args[0].value}()"
        elif isinstance(op.args[0], Const) and isinstance(op.args[0].value, Ext):
            obj = op.args[0].value.obj
            if isinstance(obj, types.FunctionType) and not library_code(obj):
                continue  # (your own functions: custom rules' forward and backward functions)
            parts = (getattr(obj, "__module__", None), getattr(obj, "__qualname__", None))
            name = ".".join(p for p in parts if p) or op.args[0].value.name
        else:
            continue
        found.setdefault(name, []).append(op.loc.line)
    return [f"{name} (line{'s' if len(set(ls)) > 1 else ''} {', '.join(map(str, sorted(set(ls))))})"
            for name, ls in found.items()]



def differentiable_positions(arg_types) -> tuple[int, ...]:
    return tuple(i for i, t in enumerate(arg_types) if t.differentiable and not T.is_integral(t)
                 and not T.is_complex(t))


def _build_forward(fn, spec: Spec, arg_types, free_types, trace: dict | None = None, inlined=None) -> Built:
    """`jvp_f(*args, *tangents) -> (out, out_dot)` for the differentiable arguments in spec.argnums."""
    f = _record(trace, "typed", typed(fn, arg_types, free_types, inlined))
    wrt = spec.argnums
    f, act = analyzed(f, wrt, (f.body.yields[0],))
    em, params, tangents, out, out_dot = forward(f, act, wrt)
    # kind "tangent" (hvp's jvp of a gradient): the tangent alone, so the primal is not computed
    result = out_dot if spec.kind == "tangent" else em.apply("srcad.tuple", (out, out_dot))
    body = em.b.end_function((result,))
    name = f"{spec.kind}_{f.name}"
    sig = f.signature + tuple(Param(naming.tangent(f.signature[i].name)) for i in wrt)
    out_fn = _record(trace, "transformed", Function(name, sig, body, f.loc, f.qualname))
    out_fn = _record(trace, "optimized", own_results(optimize(out_fn, contract=_contracts(spec),
                                                              blas=_blas(spec))))
    header = _header(fn, spec, arg_types, f, [], out_fn)
    rendered = _emit(out_fn, name, header, spec)
    built = Built(compile_function(rendered, name), rendered.source, [], name, [(rendered, name)])
    built.output_loc = return_loc(f) or f.loc
    return built


def _build_vjp(fn, spec: Spec, arg_types, free_types, trace: dict | None = None, inlined=None) -> Built:
    """Two generated functions: `vjp_fwd_f(*args) -> (out, aux, residuals)` and
    `vjp_bwd_f(*residuals, g) -> cotangents` (one per differentiable argument in argnums)."""
    f = _record(trace, "typed", split_aux(typed(fn, arg_types, free_types, inlined), spec))
    f, act = analyzed(f, spec.argnums, (f.body.yields[0],))
    (fwd_b, (out, aux, res), bwd_b, bwd_params, grads, names), plan = reverse_split(f, act, spec.argnums)
    fwd_em = fwd_b
    em = Emitter(fwd_em)
    result = em.apply("srcad.tuple", (out, aux if aux is not None else Const(None), res))
    fwd_name, bwd_name = f"vjp_fwd_{f.name}", f"vjp_bwd_{f.name}"
    fwd_fn = Function(fwd_name, f.signature, fwd_b.end_function((result,)), f.loc, f.qualname)
    fwd_fn = define_everywhere(fwd_fn, _operands_of(fwd_fn.body, res))
    fwd_fn = own_results(optimize(fwd_fn, _contracts(spec), _blas(spec)), only=(0, 1))  # (not residuals)
    bem = Emitter(bwd_b)
    g_out = bem.apply("srcad.tuple", grads)
    sig = tuple(Param(n or f"r{k}") for k, n in enumerate(names)) + (Param("g"),)
    bwd_fn = Function(bwd_name, sig, bwd_b.end_function((g_out,)), f.loc, f.qualname)
    bwd_fn = own_results(optimize(bwd_fn, _contracts(spec), _blas(spec)))
    header = _header(fn, spec, arg_types, f, saved_report(f, plan, fwd_fn), fwd_fn)
    r1 = _emit(fwd_fn, fwd_name, header, spec)
    r2 = _emit(bwd_fn, bwd_name, header, spec)
    built = Built(compile_function(r1, fwd_name), r1.source + "\n\n" + r2.source,
                  saved_report(f, plan, fwd_fn), fwd_name, [(r1, fwd_name), (r2, bwd_name)],
                  backward=compile_function(r2, bwd_name))
    built.output_loc = return_loc(f) or f.loc
    return built


def _operands_of(body, v) -> list:
    """The values the operation defining v reads (the residuals of a vjp)."""
    for op in body.ops:
        if isinstance(op, Apply) and op.outs and op.outs[0] == v:
            return [a for a in op.args if isinstance(a, Var)]
    return []


def _build_batched(fn, spec: Spec, arg_types, free_types, trace: dict | None = None, inlined=None) -> Built:
    """`jacfwd_f(*args, T) -> (out, T_out)`: forward mode with spec.batch tangent directions
    for argument spec.argnums[0] at once (raises NotBatchable when shapes are unknown).
    Kind "rows" (jacrev: of a vjp's backward function, linear in its cotangent) gives T_out
    alone, so the backward sweep at the seed point is not computed."""
    f = _record(trace, "typed", typed(fn, arg_types, free_types, inlined))
    wrt = spec.argnums
    f, act = analyzed(f, wrt, (f.body.yields[0],))
    if spec.kind == "rows":  # (what may raise in the seed point's sweep is not computed)
        f = forget_kept(f)
        check_linear_use(f, act)
    em, params, tangents, out, out_dot = batched_forward(f, act, wrt, spec.batch)
    result = out_dot if spec.kind == "rows" else em.apply("srcad.tuple", (out, out_dot))
    body = em.b.end_function((result,))
    name = f"{spec.kind}_{f.name}"
    sig = f.signature + tuple(Param(naming.tangents(f.signature[i].name)) for i in wrt)
    out_fn = _record(trace, "optimized", own_results(optimize(Function(name, sig, body, f.loc, f.qualname),
                                                              _contracts(spec), _blas(spec))))
    header = _header(fn, spec, arg_types, f, [], out_fn)
    rendered = _emit(out_fn, name, header, spec)
    built = Built(compile_function(rendered, name), rendered.source, [], name, [(rendered, name)])
    built.output_loc = return_loc(f) or f.loc
    return built


def _build_vmap(fn, spec: Spec, arg_types, free_types, trace: dict | None = None, inlined=None) -> Built:
    """`vmap_f(*args)`: f on spec.batch examples at once, its arguments' types those of one
    example (raises NotVectorizable when the function cannot run on the whole batch)."""
    f = _record(trace, "typed", typed(fn, arg_types, free_types, inlined))
    out, looped = vectorise(f, spec.in_axes, spec.out_axes, spec.batch)
    out = verify(optimize(_record(trace, "transformed", verify(out)), _contracts(spec), _blas(spec)))
    out = _record(trace, "optimized", out)
    code = fn.__code__
    where = "" if code.co_filename.startswith("<") else \
        f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"  # (not srcad's own code's)
    header = [f"srcad {__version__}: vmap of {fn.__qualname__}{where}, vectorised over {spec.batch} examples",
              f"in_axes={spec.in_axes}, out_axes={spec.out_axes}; one example is "
              f"{_describe(arg_types, f) or 'no arguments'}"]
    if looped:
        header.append("run once per example (no vectorised form): " + ", ".join(
            f"{prim} (line {loc.line})" if loc is not None else prim for prim, loc in looped))
    name = f"vmap_{f.name}"
    rendered = _emit(out, name, header, spec)
    return Built(compile_function(rendered, name), rendered.source, [], name, [(rendered, name)])


#: The transformation that builds each kind of Spec.
TRANSFORMS = {
    "grad": _build_reverse,
    "value_and_grad": _build_reverse,
    "jvp": _build_forward,
    "tangent": _build_forward,  # (jvp without the value: hvp's jvp of a gradient)
    "vjp": _build_vjp,
    "jacfwd": _build_batched,
    "rows": _build_batched,  # (jacrev: every row of the Jacobian from one batched backward sweep)
    "vmap": _build_vmap,
}


def build(fn, spec: Spec, arg_types, free_types, trace: dict | None = None) -> Built:
    """Generated code for `spec` of the user function `fn`, specialised on the types of its
    arguments and of the values it reads from outside (`free_types`); `trace`, if given,
    receives the IR after each stage (`srcad show --stage`)."""
    inlined: list = []
    built = TRANSFORMS[spec.kind](fn, spec, arg_types, free_types, trace, inlined)
    built.inlined = tuple(inlined)
    return built
