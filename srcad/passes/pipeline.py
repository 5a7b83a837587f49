"""The order of the optimisation passes, and the verifier between them."""

from __future__ import annotations

from ..ir.nodes import Function
from ..ir.verify import verify
from .algebra import gather_scalars
from .axis_sums import blas_sums
from .buffers import reuse_buffers
from .contract import contract_after_loops
from .cse import cse
from .dce import dce, mark_kept
from .licm import licm
from .ownership import copy_views_read_across_writes, own_loop_updates
from .product_adjoints import product_adjoints
from .reductions import push_sums
from .scalarize import scalarize
from .scatters import merge_scatters
from .shifts import drop_marks
from .simplify import simplify


def cleanup(fn: Function) -> Function:
    """Before a transform: fold what types settle, split tuples, mark what may raise, drop
    dead code."""
    fn = verify(mark_kept(simplify(fn)))
    fn = verify(scalarize(fn))
    fn = verify(simplify(fn))
    return verify(dce(fn))


def optimize(fn: Function, contract: bool = True, blas: bool = True) -> Function:
    """After a transform: drop the marks of shift-invariant maxima (passes/shifts.py), simplify,
    write the adjoints of einsums and tensordots of known shapes as those products, take sums
    before the products that feed them, hoist loop invariants, share common subexpressions,
    gather scalar factors of array products, drop dead code; sum products accumulated over a loop's
    iterations in one contraction after it (unless `contract` is False: a memory budget
    stores nothing more per iteration); sums over an axis of a matrix as matrix-vector products
    (unless `blas` is False: the numba target); copy arrays that loops update in place once, up front."""
    fn = verify(push_sums(product_adjoints(dce(simplify(drop_marks(fn))))))
    fn = verify(cse(licm(fn)))
    fn = verify(simplify(fn))
    fn = verify(dce(fn))
    fn = verify(merge_scatters(gather_scalars(fn)))
    if contract:
        fn = verify(contract_after_loops(fn))
    fn = verify(dce(simplify(dce(cse(fn)))))  # (gathering scalar factors can make products equal)
    fn = verify(dce(gather_scalars(fn)))  # (and equal products summed are 2.0 * t: gathered again)
    if blas:
        fn = verify(dce(blas_sums(fn)))
    return verify(own_loop_updates(copy_views_read_across_writes(fn)))


def finish(fn: Function, reuse: bool = True) -> Function:
    """Just before code generation, after every other pass: write elementwise results into
    dying operands' buffers (`reuse=False` for a target that cannot write `out=` or `x op= y`)."""
    return verify(reuse_buffers(fn)) if reuse else fn
