"""Spec rows for complex intermediate values (docs/subset.md, "Complex intermediate values"):
the rules marked complex-correct, each applied to a complex value made from real arguments
inside the function, which returns real values again (np.abs, np.real, np.imag, np.angle),
and the rules of numpy.fft and numpy.linalg.eig/eigvals. See rule_specs.py for the row format.
tests/test_complex.py also differentiates every row twice."""

from rule_specs import helper, normal, row, uniform

from srcad.rules.numpy_elementwise import HOLOMORPHIC

V, M = normal(5), normal(3, 3)
Q = uniform(0.2, 0.8, 4)  # the real and imaginary parts of points away from every branch cut
Z = "(x + 0.5j * y)"
CROWS = []


def crow(rule, expr, **args):
    row(rule, expr, **args)
    CROWS.append(rule)


# -- arithmetic, indexing, reductions, products, shapes ---------------------------------------
crow("operator.add", f"np.abs({Z} + (y - 2j)) ** 2 + np.real(x + 1j)", x=V, y=V)
crow("operator.sub", f"np.abs({Z} - 1j * x) ** 2", x=V, y=V)
crow("operator.mul", f"np.abs({Z} * (y - 0.5j * x)) ** 2", x=V, y=V)
crow("operator.truediv", f"np.abs({Z} / (2.0 + 1j * y)) ** 2 + np.imag((x + 1j) / (y + 2j))", x=V, y=V)
crow("operator.pow", f"np.abs({Z} ** 3) + np.real({Z} ** 2.5) + np.imag((1.5 + 1j) ** x)", x=Q, y=Q)
crow("operator.neg", f"np.imag(-{Z} * (1 + 2j))", x=V, y=V)
crow("operator.pos", f"np.imag(+{Z}) * x", x=V, y=V)
crow("operator.matmul", f"np.abs({Z} @ (y - 1j * x)) ** 2", x=M, y=M)
crow("operator.getitem", f"np.abs({Z}[1:, 0] * {Z}[0, 1:]) ** 2", x=M, y=M)
crow("numpy.sum", f"np.abs(np.sum({Z} ** 2, axis=0)) ** 2", x=M, y=M)
crow("numpy.mean", "np.abs(np.mean(np.exp(1j * x), axis=-1, keepdims=True))", x=M)
crow("numpy.dot", f"np.abs(np.dot({Z}, y - 2j * x)) ** 2", x=M, y=M)
crow("numpy.transpose", f"np.abs(np.transpose({Z}) @ {Z}) ** 2", x=M, y=M)
crow("numpy.ndarray.T", f"np.abs({Z}.T - 2j * x) ** 2", x=M, y=M)
crow("numpy.reshape", f"np.imag(np.reshape({Z} * {Z}, (9,)))", x=M, y=M)
crow("numpy.ravel", f"np.real(np.ravel({Z} * {Z} * 1j))", x=M, y=M)
crow("numpy.concatenate", f"np.abs(np.concatenate([{Z}, x, {Z} * {Z}])) ** 2", x=V, y=V)
crow("numpy.stack", f"np.abs(np.stack([{Z}, x, y * 1j], axis=1)) ** 3", x=V, y=V)
crow("numpy.where", f"np.abs(np.where(x > 0.0, {Z} * {Z}, 1j * y)) ** 2", x=V, y=V)
crow("numpy.conjugate", f"np.imag(np.conjugate({Z} * {Z}) * {Z})", x=V, y=V)
crow("numpy.real", f"np.real({Z} * {Z}) + np.real(x)", x=V, y=V)
crow("numpy.ndarray.real", f"({Z} * {Z}).real", x=V, y=V)
crow("numpy.ndarray.imag", f"({Z} * {Z}).imag + np.sum({Z} ** 3).imag", x=V, y=V)
crow("numpy.einsum", f"np.abs(np.einsum('ij,jk->ik', {Z}, y - 1j * x)) ** 2", x=M, y=M)
crow("numpy.einsum", f"np.abs(np.einsum('ijk,kjm->mij', {Z}, y - 1j * x)) ** 2", x=normal(8, 3, 8),
     y=normal(8, 3, 8), note="a batched product (one np.matmul)")
crow("numpy.einsum", f"np.real(np.einsum('ij,ij,i->i', {Z}, {Z}, x[:, 0] * 1j))", x=M, y=M)
crow("numpy.imag", f"np.imag({Z} * {Z})", x=V, y=V)
crow("numpy.angle", f"np.angle({Z} * (1 + 1j)) + np.angle({Z}, deg=True)", x=Q, y=Q)
crow("numpy.absolute", f"np.abs({Z} * {Z}) + np.absolute({Z})", x=V, y=V)
crow("builtins.abs", f"abs({Z} * {Z}) ** 2 + abs({Z}) ** 3", x=V, y=V)
for _name in HOLOMORPHIC:
    crow(f"numpy.{_name}", f"np.abs(np.{_name}({Z})) ** 2 + np.angle(np.{_name}({Z}))", x=Q, y=Q)

# -- numpy.fft: every transform with n=/s=, axis=/axes= and norm= ------------------------------
N1 = {"kw": ["", ", norm='ortho'", ", n=8", ", n=3, norm='forward'", ", 4, 0",
            ", n=6, axis=-1, norm='backward'"]}
ND = {"kw": ["", ", norm='ortho'", ", s=(2, 5), axes=(0, 1)", ", s=(4, 3), axes=(1, 0), norm='forward'",
             ", axes=(0,)"]}
for _name in ("fft", "ifft"):
    crow(f"numpy.fft.{_name}", f"np.abs(np.fft.{_name}(x$kw)) ** 3", x=normal(5), alts=N1)
    crow(f"numpy.fft.{_name}", f"np.abs(np.fft.{_name}({Z}, 7)) ** 2", x=normal(5), y=normal(5))
    crow(f"numpy.fft.{_name}2", f"np.abs(np.fft.{_name}2({Z}$kw)) ** 3", x=normal(3, 4), y=normal(3, 4),
         alts={"kw": ["", ", s=(2, 6)", ", axes=(0, 1), norm='ortho'"]})
    crow(f"numpy.fft.{_name}n", f"np.abs(np.fft.{_name}n({Z}$kw)) ** 3", x=normal(3, 4), y=normal(3, 4),
         alts=ND)
    crow(f"numpy.fft.{_name}n", f"np.abs(np.fft.{_name}n(x, axes=(0, 2))) ** 3", x=normal(2, 3, 2))
crow("numpy.fft.rfft", "np.abs(np.fft.rfft(x$kw)) ** 3", x=normal(5), alts=N1)
crow("numpy.fft.rfft", "np.abs(np.fft.rfft(x, axis=0)) ** 3", x=normal(4, 3))
crow("numpy.fft.rfft2", "np.abs(np.fft.rfft2(x$kw)) ** 3", x=normal(3, 4),
     alts={"kw": ["", ", s=(4, 7)", ", s=(2, 2), norm='ortho'"]})
crow("numpy.fft.rfftn", "np.abs(np.fft.rfftn(x$kw)) ** 3", x=normal(3, 4), alts=ND)
crow("numpy.fft.irfft", f"np.fft.irfft({Z}$kw) ** 3", x=normal(5), y=normal(5), alts=N1)
crow("numpy.fft.irfft", "np.fft.irfft(np.fft.rfft(x) * np.exp(1j * x[:3])) ** 3", x=normal(5))
crow("numpy.fft.irfft2", f"np.fft.irfft2({Z}$kw) ** 3", x=normal(3, 4), y=normal(3, 4),
     alts={"kw": ["", ", s=(3, 5)", ", s=(2, 8), norm='forward'"]})
crow("numpy.fft.irfftn", f"np.fft.irfftn({Z}$kw) ** 3", x=normal(3, 4), y=normal(3, 4), alts=ND)
crow("numpy.fft.hfft", f"np.fft.hfft({Z}$kw) ** 3", x=normal(5), y=normal(5), alts=N1)
crow("numpy.fft.ihfft", "np.abs(np.fft.ihfft(x$kw)) ** 3", x=normal(5), alts=N1)
# of a real array (its gradient is real: it was the complex adjoint, adversarial pass)
crow("numpy.fft.irfft", "np.fft.irfft(x$kw) ** 3", x=normal(6), alts=N1, note="a real input")
crow("numpy.fft.irfft2", "np.fft.irfft2(x) ** 3", x=normal(3, 4), note="a real input")
crow("numpy.fft.irfftn", "np.fft.irfftn(x) ** 3", x=normal(3, 4), note="a real input")
crow("numpy.fft.hfft", "np.fft.hfft(x$kw) ** 3", x=normal(5), alts=N1, note="a real input")
crow("numpy.fft.fftshift", f"np.abs(np.fft.fftshift({Z} * {Z})) * np.arange(5.0)", x=normal(5), y=normal(5))
crow("numpy.fft.fftshift", "np.fft.fftshift(x, axes=1) * x", x=normal(3, 4))
crow("numpy.fft.ifftshift", f"np.abs(np.fft.ifftshift({Z} * {Z}, axes=(0,))) ** 2", x=M, y=M)
crow("numpy.fft.ifftshift", "np.fft.ifftshift(x) * np.arange(4.0)", x=normal(4))
row("numpy.fft.fftfreq", "np.fft.fftfreq(5, d) * np.fft.fftfreq(5)", d=uniform(0.5, 2.0))
row("numpy.fft.rfftfreq", "np.fft.rfftfreq(8, d=d) ** 2", d=uniform(0.5, 2.0))
helper("srcad.resize_axes", "np.abs(rt.resize_axes(x * (1 + 1j), np.zeros((2, 5)), (0, 1))) ** 2",
       x=normal(3, 4))
CROWS.append("srcad.resize_axes")
for _nd in ("fft_axes", "fft_sizes", "irfft_weights"):
    helper(f"srcad.{_nd}", "x * np.sum(rt.irfft_weights(np.zeros(3), None, rt.fft_axes(np.zeros(3))))"
           " + np.sum(rt.fft_sizes(np.zeros(2), None, (0,)))", x=normal(3))

# -- numpy.linalg.eig and eigvals of general matrices: functions of the eigenvalues, and
# functions of the eigenvectors that do not depend on their phases -------------------------------
crow("numpy.linalg.eigvals", "np.abs(np.linalg.eigvals(x)) ** 2", x=normal(4, 4))
crow("numpy.linalg.eigvals", "np.real(np.linalg.eigvals(x) ** 3) + np.imag(np.linalg.eigvals(x)) ** 2",
     x=normal(3, 3))
crow("numpy.linalg.eig",
     "np.abs(np.linalg.eig(x)[0]) ** 3 + np.sum(np.abs(np.linalg.eig(x)[1]) ** 3, axis=0)",
     x=normal(4, 4))
crow("numpy.linalg.eig",
     "np.abs(np.linalg.eig(x)[1] @ (np.arange(3.0) * np.linalg.solve(np.linalg.eig(x)[1], "
     "np.eye(3))))", x=normal(3, 3), note="V diag(c) V^-1: phase-invariant")

# -- scipy.fft: numpy.fft's rules with scipy's names ----------------------------------------------
SF = "import scipy.fft"
crow("scipy.fft.hfft", f"scipy.fft.hfft({Z}, 6) ** 3", x=normal(5), y=normal(5), imports=SF)
crow("scipy.fft.ihfft", "np.abs(scipy.fft.ihfft(x, norm='ortho')) ** 3", x=normal(5), imports=SF)
for _name in ("fft", "ifft", "rfft"):
    crow(f"scipy.fft.{_name}", f"np.abs(scipy.fft.{_name}(x, 7, norm='ortho')) ** 3", x=normal(5), imports=SF)
    crow(f"scipy.fft.{_name}2", f"np.abs(scipy.fft.{_name}2(x, s=(2, 5))) ** 3", x=normal(3, 4), imports=SF)
    crow(f"scipy.fft.{_name}n", f"np.abs(scipy.fft.{_name}n(x, axes=(1,), norm='forward')) ** 3",
         x=normal(3, 4), imports=SF)
crow("scipy.fft.irfft", f"scipy.fft.irfft({Z}, 6) ** 3", x=normal(5), y=normal(5), imports=SF)
crow("scipy.fft.irfft2", f"scipy.fft.irfft2({Z}, norm='ortho') ** 3", x=normal(3, 4), y=normal(3, 4),
     imports=SF)
crow("scipy.fft.irfftn", f"scipy.fft.irfftn({Z}, s=(3, 5)) ** 3", x=normal(3, 4), y=normal(3, 4), imports=SF)
crow("scipy.fft.fftshift", f"np.abs(scipy.fft.fftshift({Z} * {Z})) * np.arange(5.0)", x=normal(5),
     y=normal(5),
     imports=SF)
crow("scipy.fft.ifftshift", "scipy.fft.ifftshift(x) * np.arange(4.0)", x=normal(4), imports=SF)
row("scipy.fft.fftfreq", "scipy.fft.fftfreq(6, d) ** 2", d=uniform(0.5, 2.0), imports=SF)
row("scipy.fft.rfftfreq", "scipy.fft.rfftfreq(6, d=d) * 2.0", d=uniform(0.5, 2.0), imports=SF)
