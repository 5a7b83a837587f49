"""Spec rows for scipy.linalg (srcad/rules/scipy_linalg.py, when scipy is installed) and
numpy's matrix_power and multi_dot (srcad/rules/matrix_functions.py).

Functions that read one triangle are checked at a general (not symmetric) matrix, so
that the entries they do not read must get derivative 0; the factorisations whose factors
are unique only up to signs through sign-invariant expressions."""

from rule_specs import helper, normal, row, well_conditioned

WC3 = well_conditioned(3)
SPD = "(x @ np.swapaxes(x, -1, -2) + 3.0 * np.eye(3))"

row("numpy.linalg.matrix_power", "np.linalg.matrix_power(x + np.eye(3), $n)", x=normal(3, 3, scale=0.4),
    alts={"n": ["3", "0", "1", "2", "5", "-1", "-2"]}, shapes=({"x": (2, 3, 3)}, {"x": "list"}))
row("numpy.linalg.matrix_power", "np.linalg.matrix_power(x, $n)", x=normal(1, 1), alts={"n": ["3", "-2"]},
    note="1 x 1")
row("numpy.linalg.matrix_power", "np.linalg.matrix_power(x, -3)", x=WC3, note="a negative power")
row("numpy.linalg.multi_dot", "np.linalg.multi_dot([x, y, z])", x=normal(2, 3), y=normal(3, 4),
    z=normal(4, 2))
row("numpy.linalg.multi_dot", "np.linalg.multi_dot($ops)", x=normal(3), y=normal(3, 4), z=normal(4),
    alts={"ops": ["[x, y, z]", "(x, y)", "[y, z]", "[x, y, y.T, y, z]"]}, note="vectors at the ends")

helper("srcad.conv_embed", "rt.conv_embed(x, (5,), (3,), '$m', '$c')", x=normal(5),
       alts={"m": ["same", "valid", "full"], "c": ["scipy", "numpy", "numpy_corr", "corr2d"]},
       shapes=({"x": (3,)}, {"x": (7,)}))
helper("srcad.conv_crop", "rt.conv_crop(x, (2, 4), (3, 2), '$m', '$c')", x=normal(4, 5),
       alts={"m": ["same", "full"], "c": ["scipy", "corr2d"]})
helper("srcad.conv_crop", "rt.conv_crop(x, (2,), (4,), '$m', '$c')", x=normal(5),
       alts={"m": ["valid", "same"], "c": ["numpy", "numpy_corr"]}, note="the second operand longer")

try:
    import scipy.linalg  # noqa: F401
except ImportError:
    scipy = None

if scipy is not None:
    SL = "import scipy.linalg"

    def linalg(rule, expr, **args):
        row(f"scipy.linalg.{rule}", expr, imports=SL, **args)

    linalg("solve_triangular", "scipy.linalg.solve_triangular(x + 3.0 * np.eye(3), y$kw)", x=normal(3, 3),
           y=normal(3, 2),
           alts={"kw": ["", ", lower=True", ", trans=1", ", trans='T', lower=True", ", trans='C'",
                        ", trans=2, lower=True, unit_diagonal=True", ", unit_diagonal=True", ", 0, True",
                        ", trans='N'"]},
           shapes=({"y": (3,)}, {"y": (3, 1)}, {"x": (2, 3, 3), "y": (2, 3, 2)}, {"x": (2, 3, 3), "y": (3,)},
                   {"y": "list"}))
    linalg("solve_triangular", "scipy.linalg.solve_triangular(x, y, lower=True)", x=WC3, y=normal(3),
           note="a vector")
    linalg("lu_factor", "scipy.linalg.lu_factor(x)[0]", x=normal(4, 4), shapes=({"x": (1, 1)}, {"x": (2, 2)}))
    linalg("lu_factor", "scipy.linalg.lu_factor(x)[0] * scipy.linalg.lu_factor(x)[1]", x=normal(3, 3),
           note="the pivots are ints")
    linalg("lu", "scipy.linalg.lu(x$kw)[$i]", x=normal(4, 4),
           alts={"i": ["1", "2", "0"], "kw": ["", ", p_indices=True"]},
           shapes=({"x": (2, 3, 3)}, {"x": (1, 1)}, {"x": "list"}))
    linalg("lu", "scipy.linalg.lu(x, permute_l=True)[$i]", x=normal(4, 4), alts={"i": ["0", "1"]})
    linalg("lu_solve", "scipy.linalg.lu_solve(scipy.linalg.lu_factor(x), y$kw)", x=normal(4, 4),
           y=normal(4, 2),
           alts={"kw": ["", ", trans=1", ", 2", ", trans=0"]}, shapes=({"y": (4,)}, {"y": "list"}))
    linalg("lu_solve", "scipy.linalg.lu_solve((x, np.array([2, 2, 2])), y)", x=WC3, y=normal(3),
           note="a packed factor given directly: both triangles are read")
    linalg("cholesky", "scipy.linalg.cholesky(x + 6.0 * np.eye(3)$kw)", x=normal(3, 3),
           alts={"kw": ["", ", lower=True", ", True", ", lower=False", ", check_finite=False"]},
           shapes=({"x": (2, 3, 3)},), note="one triangle of a general matrix")
    linalg("cholesky", f"scipy.linalg.cholesky({SPD})", x=normal(3, 3))
    linalg("cho_factor", "scipy.linalg.cho_factor(x + 6.0 * np.eye(3)$kw)[0]", x=normal(3, 3),
           alts={"kw": ["", ", lower=True", ", True"]}, note="c: the factor and a's other triangle")
    linalg("cho_solve", "scipy.linalg.cho_solve(scipy.linalg.cho_factor(x + 6.0 * np.eye(3)$kw), y)",
           x=normal(3, 3), y=normal(3, 2), alts={"kw": ["", ", lower=True"]},
           shapes=({"y": (3,)}, {"y": "list"}))
    linalg("cho_solve", "scipy.linalg.cho_solve((x + 6.0 * np.eye(3), $lo), y)", x=normal(3, 3), y=normal(3),
           alts={"lo": ["True", "False"]}, note="a factor given directly: one triangle is read")
    linalg("expm", "scipy.linalg.expm(x)", x=normal(3, 3, scale=0.7),
           shapes=({"x": (2, 3, 3)}, {"x": (1, 1)}, {"x": "list"}))
    linalg("logm", f"scipy.linalg.logm({SPD})", x=normal(3, 3, scale=0.7))
    linalg("logm", "scipy.linalg.logm(x + 3.0 * np.eye(3))", x=normal(3, 3, scale=0.5),
           shapes=({"x": (1, 1)},), note="not symmetric")
    linalg("expm_frechet", "scipy.linalg.expm_frechet(x, y$kw)", x=normal(3, 3, scale=0.7), y=normal(3, 3),
           alts={"kw": [", compute_expm=False", "", ", method='SPS', compute_expm=False"]})
    linalg("solve_sylvester", "scipy.linalg.solve_sylvester(x + 3.0 * np.eye(3), y + 2.0 * np.eye(2), z)",
           x=normal(3, 3), y=normal(2, 2), z=normal(3, 2))
    linalg("solve_banded", "scipy.linalg.solve_banded((1, 2), x + np.array([[0.0], [0.0], [5.0], [0.0]]), y)",
           x=normal(4, 5), y=normal(5, 2), shapes=({"y": (5,)}, {"y": "list"}))
    linalg("solve_banded", "scipy.linalg.solve_banded($lu, x + 4.0, y)", x=normal(1, 4), y=normal(4),
           alts={"lu": ["(0, 0)"]}, note="diagonal")
    linalg("solve_banded", "scipy.linalg.solve_banded((2, 0), x + np.array([[5.0], [0.0], [0.0]]), y)",
           x=normal(3, 4), y=normal(4), note="lower triangular")
    linalg("inv", "scipy.linalg.inv(x + 3.0 * np.eye(3)$kw)", x=normal(3, 3),
           alts={"kw": ["", ", assume_a='sym'", ", assume_a='her', lower=True", ", assume_a='general'",
                        ", assume_a='upper triangular'", ", assume_a='lower triangular'",
                        ", overwrite_a=True"]},
           shapes=({"x": (2, 3, 3)},))
    linalg("inv", "scipy.linalg.inv(x + 6.0 * np.eye(3)$kw)", x=normal(3, 3),
           alts={"kw": [", assume_a='pos'", ", assume_a='pos', lower=True"]}, note="one triangle read")
    linalg("solve", "scipy.linalg.solve(x + 3.0 * np.eye(3), y$kw)", x=normal(3, 3), y=normal(3, 2),
           alts={"kw": ["", ", transposed=True", ", assume_a='sym'", ", lower=True, assume_a='sym'",
                        ", assume_a='upper triangular'", ", assume_a='diagonal'", ", check_finite=False"]},
           shapes=({"y": (3,)}, {"y": "list"}, {"x": (2, 3, 3), "y": (2, 3, 2)}))
    linalg("solve", "scipy.linalg.solve(x + 6.0 * np.eye(3), y$kw)", x=normal(3, 3), y=normal(3),
           alts={"kw": [", assume_a='pos'", ", assume_a='positive definite', lower=True"]},
           note="one triangle read")
    linalg("det", "scipy.linalg.det(x + 3.0 * np.eye(3))", x=normal(3, 3),
           shapes=({"x": (2, 3, 3)}, {"x": "list"}))
    linalg("pinv", "scipy.linalg.pinv(x)", x=normal(4, 3), shapes=({"x": (2, 3)}, {"x": (3, 3)}))
    linalg("lstsq", "scipy.linalg.lstsq(x, y$kw)[$i]", x=normal(4, 3), y=normal(4, 2),
           alts={"kw": ["", ", cond=None", ", lapack_driver='gelsy'"], "i": ["0", "1", "3"]},
           shapes=({"y": (4,)},))
    linalg("eigh", "scipy.linalg.eigh(0.5 * (x + x.T)$kw)", x=normal(3, 3), reduce="np.sum(out[0] ** 3)",
           alts={"kw": ["", ", lower=False", ", driver='evr'"]})
    linalg("eigh", "scipy.linalg.eigh(x$kw)[0]", x=normal(3, 3),
           alts={"kw": ["", ", lower=False", ", subset_by_index=[1, 2]"]},
           note="one triangle of a general matrix")
    linalg("eigh", "scipy.linalg.eigh(x$kw)[1] ** 2", x=normal(3, 3),
           alts={"kw": ["", ", lower=False", ", subset_by_index=(0, 1)"]}, note="eigenvectors up to sign")
    linalg("eigh", "scipy.linalg.eigh(x, eigvals_only=True$kw)", x=normal(3, 3),
           alts={"kw": ["", ", subset_by_index=[0, 0]", ", lower=False"]})
    linalg("svd", "scipy.linalg.svd(x$kw)", x=normal(4, 3),
           alts={"kw": [", compute_uv=False", ", False, False", ", compute_uv=False, lapack_driver='gesvd'"]},
           shapes=({"x": (2, 4, 3)}, {"x": (3, 4)}))
    linalg("svd", "scipy.linalg.svd(x, full_matrices=False)[0] ** 2", x=normal(4, 3))
    linalg("qr", "scipy.linalg.qr(x$kw)[1] ** 2", x=normal(3, 3), alts={"kw": ["", ", mode='economic'"]})
    linalg("qr", "scipy.linalg.qr(x, $kw)[0] ** 2", x=normal(4, 3),
           alts={"kw": ["mode='economic'", "mode='r'"]},
           note="a tall matrix")
    linalg("qr", "scipy.linalg.qr(x)[0] @ scipy.linalg.qr(x)[1]", x=normal(3, 3), note="Q R = x")
    linalg("norm", "scipy.linalg.norm(x$kw)", x=normal(3, 4),
           alts={"kw": ["", ", 'fro'", ", 1", ", axis=1", ", 2, axis=0, keepdims=True", ", 'nuc'"]},
           shapes=({"x": (4,)},))

    # the helpers of scipy.linalg's rules
    helper("srcad.lu_rows", "x * rt.lu_rows(np.array([2, 2, 2]))", x=normal(3))
    helper("srcad.band_transpose", "rt.band_transpose(x, (1, 2))", x=normal(4, 5))
    helper("srcad.band_matvec", "rt.band_matvec(x, y, (2, 1))", x=normal(4, 5), y=normal(5))
    helper("srcad.band_matvec", "rt.band_matvec(x, y, (0, 1))", x=normal(2, 3), y=normal(3, 2),
           note="matrices")
    helper("srcad.band_outer", "rt.band_outer(x, y, (1, 1))", x=normal(4), y=normal(4))
    helper("srcad.band_outer", "rt.band_outer(x, y, (0, 2))", x=normal(4, 2), y=normal(4, 2), note="matrices")
    helper("srcad.qr_operand", "rt.qr_operand(x, '$m')", x=normal(3, 3), alts={"m": ["full", "economic"]})
