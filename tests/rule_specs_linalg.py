"""Spec rows for numpy.linalg, the norms and scipy.special (when scipy is installed).

Factorisations whose outputs are unique only up to signs (eigh, qr, svd) are checked
through sign-invariant expressions (squares, products of paired factors); cholesky and
eigh through a symmetric argument, since they read one triangle."""

import numpy as np
from rule_specs import const, normal, row, uniform, well_conditioned

SYM = "(x + np.swapaxes(x, -1, -2))"
WC3 = well_conditioned(3)


def stack_wc(k, n):
    def make(rng):
        return rng.normal(size=(k, n, n)) + n * np.eye(n)
    return make


row("numpy.linalg.inv", "np.linalg.inv(x)", x=WC3)
row("numpy.linalg.inv", "np.linalg.inv(x)", x=stack_wc(2, 3), note="a stack of matrices")
row("numpy.linalg.inv", "np.linalg.inv(x + 3.0 * np.eye($n))", x=normal(1, 1), alts={"n": ["1", "2"]},
    shapes=({"x": (2, 2)}, {"x": (2, 1, 2, 2)}, {"x": "list"}))
row("numpy.linalg.solve", "np.linalg.solve(x, y)", x=WC3, y=normal(3))
row("numpy.linalg.solve", "np.linalg.solve(x, y)", x=WC3, y=normal(3, 2))
row("numpy.linalg.solve", "np.linalg.solve(x, y)", x=stack_wc(2, 3), y=normal(2, 3, 2))
row("numpy.linalg.solve", "np.linalg.solve(x + 3.0 * np.eye(3), y)", x=normal(3, 3), y=normal(3, 2),
    note="broadcast stacks", shapes=({"x": (2, 3, 3), "y": (3, 2)}, {"x": (1, 3, 3), "y": (2, 3, 1)},
                                      {"x": (2, 1, 3, 3), "y": (4, 3, 2)}, {"y": "list"},
                                      {"x": (2, 3, 3), "y": (3,)}))
row("numpy.linalg.det", "np.linalg.det(x)", x=WC3)
row("numpy.linalg.det", "np.linalg.det(x)", x=stack_wc(2, 3))
row("numpy.linalg.det", "np.linalg.det(x + 3.0 * np.eye($n))", x=normal(1, 1), alts={"n": ["1", "2"]},
    shapes=({"x": (2, 2)}, {"x": (2, 1, 2, 2)}, {"x": "list"}))
row("numpy.linalg.slogdet", "np.linalg.slogdet(x)[1]", x=WC3)
row("numpy.linalg.slogdet", "np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1]", x=stack_wc(2, 3))
row("numpy.linalg.cholesky", "np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3))", x=normal(3, 3))
row("numpy.linalg.cholesky", f"np.linalg.cholesky(0.5 * {SYM} + 4.0 * np.eye(3))", x=normal(2, 3, 3))
row("numpy.linalg.eigh", f"np.linalg.eigh({SYM})[0]", x=normal(3, 3))
row("numpy.linalg.eigh", f"np.linalg.eigh({SYM})[1] ** 2", x=normal(3, 3), note="eigenvectors up to sign")
row("numpy.linalg.eigvalsh", f"np.linalg.eigvalsh({SYM})", x=normal(3, 3))
# a matrix that is not symmetric: NumPy reads one triangle (UPLO), so the other one has no
# derivative (its cotangent is 0)
row("numpy.linalg.eigh", "np.linalg.eigh(x$u)[0]", x=normal(3, 3), alts={"u": ["", ", 'U'", ", UPLO='L'"]},
    shapes=({"x": (2, 3, 3)},), note="one triangle of a general matrix")
row("numpy.linalg.eigh", "np.linalg.eigh(x$u)[1] ** 2", x=normal(3, 3), alts={"u": ["", ", UPLO='U'"]},
    note="one triangle of a general matrix; eigenvectors up to sign")
row("numpy.linalg.eigvalsh", "np.linalg.eigvalsh(x$u)", x=normal(3, 3),
    alts={"u": ["", ", 'U'", ", UPLO='U'"]}, shapes=({"x": (2, 3, 3)},),
    note="one triangle of a general matrix")
row("numpy.linalg.cholesky", "np.linalg.cholesky(x + 6.0 * np.eye(3)$u)", x=normal(3, 3),
    alts={"u": ["", ", upper=True", ", upper=False"]}, shapes=({"x": (2, 3, 3)},),
    note="one triangle of a general matrix")
row("numpy.linalg.qr", "np.linalg.qr(x)[1] ** 2", x=normal(4, 3))
row("numpy.linalg.qr", "np.linalg.qr(x)[0] * np.sign(np.diag(np.linalg.qr(x)[1]))", x=normal(4, 3))
row("numpy.linalg.qr", "np.linalg.qr(x)[0] @ np.linalg.qr(x)[1]", x=normal(3, 3), note="Q R = x")
row("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False)[1]", x=normal(4, 3))
row("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False)[0] ** 2", x=normal(4, 3))
row("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False)[2] ** 2", x=normal(3, 4))
row("numpy.linalg.svd", "np.linalg.svd(x)[0][:, :1] * np.linalg.svd(x)[2][:1, :]", x=normal(3, 3),
    note="a gauge-invariant pair")
row("numpy.linalg.svdvals", "np.linalg.svdvals(x)", x=normal(3, 4))
row("numpy.linalg.pinv", "np.linalg.pinv(x)", x=normal(4, 3))
row("numpy.linalg.pinv", "np.linalg.pinv(x)", x=normal(2, 3))
row("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[0]", x=normal(4, 3), y=normal(4))
row("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[0]", x=normal(4, 3), y=normal(4, 2))
row("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[1]", x=normal(4, 3), y=normal(4, 2), note="residuals")
row("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[3]", x=normal(4, 3), y=normal(4), note="singular values")
row("numpy.linalg.lstsq", "np.linalg.lstsq(x, y)[0]", x=normal(2, 3), y=normal(2), note="underdetermined")

# norms
A = normal(3, 4)
row("numpy.linalg.norm", "np.linalg.norm(x)", x=normal(3))
row("numpy.linalg.norm", "np.linalg.norm(x)", x=A, note="Frobenius")
row("numpy.linalg.norm", "np.linalg.norm(x, axis=1)", x=A)
row("numpy.linalg.norm", "np.linalg.norm(x, axis=0, keepdims=True)", x=A)
row("numpy.linalg.norm", "np.linalg.norm(x * 0.0) + x", x=normal(3), note="at 0 the derivative is 0")
for _ord in ("1", "np.inf", "-np.inf", "3", "0.5"):
    row("numpy.linalg.norm", f"np.linalg.norm(x, {_ord})",
        x=uniform(0.5, 2.0, 4) if _ord == "0.5" else normal(4))
row("numpy.linalg.norm", "np.linalg.norm(x, 3, axis=1)", x=A)
row("numpy.linalg.norm", "np.linalg.norm(x, 0) * x", x=normal(4))
for _ord in ("'fro'", "'nuc'", "2", "-2", "1", "-1", "np.inf", "-np.inf"):
    row("numpy.linalg.norm", f"np.linalg.norm(x, {_ord})", x=A)
row("numpy.linalg.norm", "np.linalg.norm(x, 'nuc', axis=(0, 2))", x=normal(3, 2, 4))
row("numpy.linalg.norm", "np.linalg.norm(x, 1, axis=(2, 0), keepdims=True)", x=normal(3, 2, 4))
row("numpy.linalg.norm", "np.linalg.norm(x$kw)", x=A, fd_step=1e-5,
    shapes=({"x": (4,)}, {"x": (1,)}, {"x": "0d"}, {"x": ()}, {"x": "list"}, {"x": (1, 4)}),
    alts={"kw": [", axis=-1", "", ", axis=-2, keepdims=True", ", 3, -1", ", np.inf, axis=-1", ", 1, axis=0",
                 ", -np.inf, -1, True", ", 'fro', (-2, -1)", ", 'nuc', (-1, -2)", ", 2, (-2, -1)",
                 ", keepdims=True"]})
row("numpy.linalg.vector_norm", "np.linalg.vector_norm(x$kw)", x=A, fd_step=1e-5,
    shapes=({"x": (4,)}, {"x": "0d"}, {"x": "list"}),
    alts={"kw": [", axis=-1", ", ord=1, axis=(-1, -2)", ", keepdims=True", ", ord=3",
                 ", ord=-np.inf, axis=0"]})
row("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(x$kw)", x=normal(2, 3, 4), fd_step=1e-5,
    shapes=({"x": (3, 4)}, {"x": "list"}),
    alts={"kw": [", ord=1", ", ord=-1, keepdims=True", ", ord=2", ", ord=-2", ", ord='fro', keepdims=True"]})
row("numpy.linalg.vector_norm", "np.linalg.vector_norm(x)", x=A)
row("numpy.linalg.vector_norm", "np.linalg.vector_norm(x, axis=(0, 1), ord=3)", x=normal(3, 2, 4))
row("numpy.linalg.vector_norm", "np.linalg.vector_norm(x, ord=np.inf, axis=1)", x=A)
row("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(x)", x=normal(2, 3, 4))
row("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(x, ord='nuc', keepdims=True)", x=normal(2, 3, 4))
row("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(x, ord=np.inf)", x=normal(2, 3, 4))

# scipy.special (optional)
try:
    import scipy.special  # noqa: F401
except ImportError:
    scipy = None

if scipy is not None:
    SP = "import scipy.special"
    V = normal(4)
    POS = uniform(0.5, 3.0, 4)

    def special(rule, expr, **args):
        row(f"scipy.special.{rule}", expr, imports=SP, **args)

    for _name, _dom in {
        "expit": V, "logit": uniform(0.1, 0.9, 4), "log_expit": V, "softplus": V, "erf": V, "erfc": V,
        "erfcx": V, "erfinv": uniform(-0.9, 0.9, 4), "erfcinv": uniform(0.1, 1.9, 4), "ndtr": V,
        "log_ndtr": V, "ndtri": uniform(0.1, 0.9, 4), "gamma": POS, "rgamma": POS, "gammaln": POS,
        "loggamma": POS, "digamma": POS, "entr": POS, "expm1": V, "log1p": POS, "exp2": V,
        "exp10": V, "cbrt": POS, "sindg": uniform(-90.0, 90.0, 4), "cosdg": uniform(-90.0, 90.0, 4),
        "i0": V, "i1": V,
    }.items():
        special(_name, f"scipy.special.{_name}(x)", x=_dom, ew=("x",))
    special("i1", "scipy.special.i1(x * 0.0) + x", x=V, note="at 0")
    special("polygamma", "scipy.special.polygamma(2, x)", x=POS)
    special("xlogy", "scipy.special.xlogy(x, y)", x=V, y=POS, ew=("x", "y"))
    special("xlogy", "scipy.special.xlogy(np.zeros(4), y)", y=const(np.zeros(4)),
            note="d/dy is 0 at x = y = 0")
    special("xlog1py", "scipy.special.xlog1py(x, y)", x=V, y=POS, ew=("x", "y"))
    special("rel_entr", "scipy.special.rel_entr(x, y)", x=POS, y=POS, ew=("x", "y"))
    special("kl_div", "scipy.special.kl_div(x, y)", x=POS, y=POS, ew=("x", "y"))
    special("beta", "scipy.special.beta(x, y)", x=POS, y=POS, ew=("x", "y"))
    special("betaln", "scipy.special.betaln(x, y)", x=POS, y=POS, ew=("x", "y"))
    special("multigammaln", "scipy.special.multigammaln(x, $d)", x=uniform(2.0, 4.0),
            alts={"d": ["3", "1", "2"]}, ew=("x",))
    special("gammainc", "scipy.special.gammainc(2.5, x)", x=POS)
    special("stdtr", "scipy.special.stdtr(2.5, x)", x=V, ew=("x",))
    special("gammaincc", "scipy.special.gammaincc(1.5, x)", x=POS)
    special("betainc", "scipy.special.betainc(2.0, 3.0, x)", x=uniform(0.1, 0.9, 4))
    special("logsumexp", "scipy.special.logsumexp(x)", x=normal(3, 4))
    special("logsumexp", "scipy.special.logsumexp(x, axis=1, keepdims=True)", x=normal(3, 4))
    special("logsumexp", "scipy.special.logsumexp(x, axis=0, b=w)", x=normal(3, 4), w=uniform(0.5, 2.0, 3, 4))
    special("logsumexp", "scipy.special.logsumexp(x, axis=1, b=w)", x=normal(3, 4), w=uniform(0.5, 2.0, 4),
            note="broadcast weights")
    special("logsumexp", "scipy.special.logsumexp(x$kw, return_sign=True)", x=normal(3, 4),
            alts={"kw": ["", ", axis=1", ", axis=0, keepdims=True", ", axis=(0, -1)"]},
            shapes=({"x": (4,)}, {"x": "list"}), note="the sign of a sum of exponentials: 1")
    special("logsumexp", "scipy.special.logsumexp(x, b=w$kw, return_sign=True)", x=normal(3, 4),
            w=uniform(-2.0, -0.5, 3, 4), alts={"kw": ["", ", axis=1", ", axis=0, keepdims=True"]},
            shapes=({"w": (4,)}, {"w": (3, 1)}), note="negative weights: a negative sum, its sign -1")
    special("logsumexp", "scipy.special.logsumexp(x, axis=1, b=w, return_sign=True)", x=normal(3, 4),
            w=const(np.array([1.5, -0.4, 2.0, -0.3])), note="weights of both signs, sums of both signs")
    special("logsumexp", "scipy.special.logsumexp(x, -1, w, True, True)[0]", x=normal(2, 4),
            w=uniform(-2.0, 2.0, 2, 4), note="positional arguments")
    row("srcad.logsumexp", "logsumexp_value(x, 1, w)", x=normal(3, 4), w=uniform(0.5, 2.0, 4),
        imports="from srcad.rules.scipy_special_impl import logsumexp_value", note="the primitive itself")
    special("softmax", "scipy.special.softmax(x)", x=normal(3, 4))
    special("softmax", "scipy.special.softmax(x, axis=1)", x=normal(3, 4))
    special("log_softmax", "scipy.special.log_softmax(x, axis=0)", x=normal(3, 4))
    for _name in ("logsumexp", "softmax", "log_softmax"):
        special(_name, f"scipy.special.{_name}(x$kw)", x=normal(3, 4),
                alts={"kw": [", axis=-1", ", axis=(0, -1)", ""]},
                shapes=({"x": (4,)}, {"x": (1, 4)}, {"x": "0d"}, {"x": ()}, {"x": "list"}))
    special("logsumexp", "scipy.special.logsumexp(x, axis=-1, b=w, keepdims=True)", x=normal(3, 4),
            w=uniform(0.5, 2.0, 4), shapes=({"w": ()}, {"w": (3, 1)}, {"w": "list"}))
