"""The helpers generated code may call, one module per family of rules that use them.

Each helper is a primitive with rules of its own (srcad/rules/), so derivative code that
calls them can be differentiated again. Templates name them `srcad.<name>`: this package is
the `srcad` of the template namespace (transforms/emitter.py), and it re-exports every
helper of its modules.

The modules import only NumPy, the standard library and each other (tests/test_layout.py),
so that `srcad codegen` can copy a helper's source, and that of the helpers it calls, into
a standalone module (codegen/standalone.py). A helper calls another by its bare name, which
the copy finds; names are unique across the modules, since the copies share one namespace.
"""

from .batches import batch_copies, domain_checked, example_of
from .broadcasting import broadcast_like, broadcast_to, expand_reduced, sum_adjoint, sum_to_shape, unbroadcast
from .checks import (
    arg_cell,
    arg_partial,
    assigned,
    bound,
    check_leaf,
    check_length,
    check_reiterable,
    check_unpack,
    check_unshared,
    custom_cotangents,
    data_only,
    diagonal_index,
    known,
    own_argument,
    require_scalar,
    scalar_output,
    shape_error,
    unbound,
)
from .containers import (
    array_adjoint,
    dict_items,
    dict_like,
    dict_values,
    items_cotangent,
    iter_adjoint,
    iter_items,
    list_append,
    list_extend,
    list_insert,
    list_permute,
    list_pop,
    list_pop_at,
    list_repeat,
    list_unextend,
    list_unpermute,
    list_unrepeat,
    named_tuple,
    sequence_adjoint,
    sort_order,
    sparse_dot,
    sparse_dot_t,
)
from .contractions import einsum
from .convolution import conv_crop, conv_embed
from .cotangents import add, copy_value, stop_gradient, zeros_like
from .elementwise import (
    clip_mask,
    log_or_zero,
    not_a_count,
    select_choices_adjoint,
    select_rest,
    sinc_curvature,
    sinc_slope,
    sinc_third,
)
from .factorizations import band_matvec, band_outer, band_transpose, lu_rows, qr_operand, qr_square_r
from .fft import fft_axes, fft_sizes, irfft_weights, resize_axes
from .indexing import (
    scatter_add,
    scatter_add_lazily,
    setitem,
    take_adjoint,
    take_along_adjoint,
    without_key,
    write_winners,
    zero_item,
)
from .linalg import (
    adjugate,
    adjugate_jvp,
    adjugate_vjp,
    from_triangle,
    inverse_or_inf,
    svd_rank,
    tie_div,
    to_triangle,
)
from .numerics import (
    gradient_adjoint,
    interp_fp_adjoint,
    interp_slope,
    interp_slope_adjoint,
    interp_weights,
    polyval_adjoint,
    trapezoid_weights,
)
from .order import (
    outer_axes,
    partition_order,
    quantile_adjoint,
    quantile_tangent,
    reduceat_adjoint,
    reduceat_tangent,
    running_extreme_index,
)
from .products import (
    axis_sum,
    cross2_adjoint,
    einsum_call,
    einsum_spec,
    einsum_vjp,
    kron_adjoint,
    tensordot_adjoint,
)
from .reductions import (
    average_weights,
    average_weights_adjoint,
    cumprod_adjoint,
    cumprod_hvp,
    cumprod_hvp_adjoint,
    cumprod_tangent,
    diff_adjoint,
    max_of,
    min_of,
    prod_hvp,
    prod_partials,
    prod_third,
    select_adjoint,
    select_tangent,
)
from .segments import loop_trips, segment_bound, segment_count, segment_length
from .sets import unique_adjoint, unique_tangent
from .shaping import (
    T,
    c_column,
    diag_adjoint,
    diagonal_adjoint,
    inverse_axes,
    items_like,
    join_like,
    pad_adjoint,
    rolled_axis,
    split_like,
    unrepeat,
    unstack_like,
    untile,
)
from .typecheck import check_type, structure_of

__all__ = ["T", "check_leaf", "check_type", "structure_of", "own_argument",
           "loop_trips", "segment_bound", "segment_count", "segment_length",
           "add", "adjugate", "adjugate_jvp", "adjugate_vjp", "arg_cell", "arg_partial",
           "array_adjoint", "assigned", "average_weights", "axis_sum", "average_weights_adjoint",
           "band_matvec",
           "band_outer", "band_transpose", "batch_copies", "bound",
           "broadcast_like", "broadcast_to", "c_column", "check_length", "check_unpack",
           "check_reiterable", "check_unshared",
           "clip_mask",
           "conv_crop", "conv_embed", "copy_value", "cross2_adjoint", "cumprod_adjoint", "cumprod_hvp",
           "cumprod_hvp_adjoint",
           "cumprod_tangent", "custom_cotangents", "data_only", "diag_adjoint", "diagonal_adjoint",
           "diagonal_index",
           "dict_items", "dict_like", "dict_values", "diff_adjoint", "domain_checked", "einsum",
           "einsum_call",
           "einsum_spec",
           "einsum_vjp", "example_of",
           "fft_axes", "fft_sizes", "irfft_weights", "resize_axes",
           "expand_reduced", "from_triangle", "gradient_adjoint", "interp_fp_adjoint", "interp_slope",
           "interp_slope_adjoint", "interp_weights", "inverse_axes", "inverse_or_inf", "items_cotangent",
           "items_like",
           "iter_adjoint", "iter_items", "named_tuple", "sparse_dot", "sparse_dot_t",
           "join_like", "known", "kron_adjoint", "list_append", "list_extend",
           "list_insert", "list_permute", "list_pop", "list_pop_at", "list_unextend", "list_unpermute",
           "list_repeat", "list_unrepeat",
           "log_or_zero", "sinc_slope", "sinc_curvature", "sinc_third", "not_a_count", "lu_rows",
           "max_of", "min_of", "outer_axes", "pad_adjoint",
           "partition_order", "polyval_adjoint", "prod_hvp", "prod_third", "prod_partials",
           "quantile_adjoint",
           "quantile_tangent", "qr_operand", "qr_square_r", "reduceat_adjoint", "reduceat_tangent",
           "require_scalar",
           "rolled_axis", "running_extreme_index", "scalar_output", "shape_error",
           "scatter_add", "scatter_add_lazily", "select_adjoint", "select_choices_adjoint", "select_rest",
           "select_tangent",
           "sequence_adjoint", "setitem", "sort_order", "split_like", "stop_gradient", "sum_adjoint",
           "sum_to_shape", "svd_rank", "take_adjoint", "take_along_adjoint", "tensordot_adjoint", "tie_div",
           "to_triangle", "trapezoid_weights", "unbound", "unbroadcast", "unique_adjoint", "unique_tangent",
           "unrepeat", "unstack_like", "untile", "without_key", "write_winners", "zero_item", "zeros_like"]
