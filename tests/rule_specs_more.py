"""Spec rows for the NumPy functions of issue 14's "also missing" list: gradient, select,
rollaxis, real_if_close, imag, angle, row_stack / vstack with dtype=, svd(compute_uv=False).
See rule_specs.py for the row format."""

from rule_specs import helper, normal, row

A = normal(3, 4)
V = normal(5)

# -- np.gradient: linear in f (srcad.gradient_adjoint) -----------------------------------------
row("numpy.gradient", "np.gradient(x)", x=V)
row("numpy.gradient", "np.gradient(x$kw)", x=V,
    alts={"kw": ["", ", 0.5", ", edge_order=2", ", 0.3, edge_order=2",
                 ", np.array([0.0, 0.4, 1.0, 1.3, 2.5])",
                 ", np.array([0.0, 0.4, 1.0, 1.3, 2.5]), edge_order=2",
                 ", axis=0", ", axis=-1, edge_order=2"]},
    shapes=({"x": (2,)}, {"x": (3,)}, {"x": "list"}))
row("numpy.gradient", "np.gradient(x, axis=1)", x=A)
row("numpy.gradient", "np.gradient(x, 0.5, axis=0, edge_order=2)", x=A)
row("numpy.gradient", "np.gradient(x)[0] * np.gradient(x, 2.0)[1]", x=A, note="a tuple, one array per axis")
row("numpy.gradient", "np.gradient(x, axis=(0, 2), edge_order=2)[1]", x=normal(3, 2, 4))
helper("srcad.gradient_adjoint", "rt.gradient_adjoint(x, np.zeros(5), 0.5, None, 2)", x=V)
helper("srcad.gradient_adjoint", "rt.gradient_adjoint((x, y), np.zeros((3, 4)), 1.0, None, 1)", x=A, y=A)

# -- np.select -------------------------------------------------------------------------------
_CONDS = "[x > 0.5, x < -0.2]"
row("numpy.select", f"np.select({_CONDS}, [x * x, np.sin(x)], 0.25)", x=normal(3, 4))
row("numpy.select", f"np.select({_CONDS}, [x * x, y], y * 2.0)", x=A, y=normal(4),
    note="a choice and default broadcast")
row("numpy.select", f"np.select({_CONDS}, [y, x], default=y)", x=A, y=normal(1, 4))
row("numpy.select", "np.select([x > 0.0, x > -0.5], [x, x * 3.0])", x=A,
    note="overlapping conditions: the first")
row("numpy.select", "np.select([x > 0.5], [x * x], y)", x=normal(), y=normal())
_MASKS = "[np.array([True, False, True, False]), np.array([[True], [False], [True]])]"
helper("srcad.select_choices_adjoint", f"rt.select_choices_adjoint(x, {_MASKS}, [x, 1.0])[0]", x=A)
helper("srcad.select_choices_adjoint", f"rt.select_choices_adjoint(x, {_MASKS}, [y, 1.0])[1]", x=A, y=A)
row("srcad.select_rest", "x * rt.select_rest([x > 0.0, x < -0.5])", x=A, imports="import srcad.runtime as rt")

# -- axes, real and complex parts of real values -----------------------------------------------
row("numpy.rollaxis", "np.rollaxis(x, $k)", x=normal(2, 3, 4),
    alts={"k": ["2", "2, 1", "0, 3", "-1", "1, -1", "0, 2", "-3, -1"]})
row("srcad.rolled_axis", "np.moveaxis(x, 0, rt.rolled_axis(3, 0, 2))", x=normal(2, 3, 4),
    imports="import srcad.runtime as rt")
row("numpy.real_if_close", "np.real_if_close(x)", x=A, shapes=({"x": "0d"}, {"x": "list"}, {"x": ()}))
row("numpy.imag", "x + np.imag(x)", x=A)
row("numpy.angle", "x * np.angle(x)", x=A)
row("numpy.angle", "x * np.angle(x, deg=True)", x=normal())

# -- stacking with dtype= ----------------------------------------------------------------------
row("numpy.vstack", "np.vstack([x, y], dtype=np.float64)", x=normal(4), y=A)
row("numpy.vstack", "x * np.vstack([x, y], dtype=int, casting='unsafe')", x=normal(4), y=A,
    note="an int dtype: no derivative")
row("numpy.row_stack", "np.row_stack([x, y])", x=normal(4), y=A, note="deprecated: vstack")
row("numpy.row_stack", "np.row_stack((x, y), dtype=float)", x=normal(4), y=normal(4))

# -- svd(compute_uv=False) --------------------------------------------------------------------
row("numpy.linalg.svd", "np.linalg.svd(x, compute_uv=False)", x=normal(3, 4))
row("numpy.linalg.svd", "np.linalg.svd(x, compute_uv=False)", x=normal(2, 4, 3), note="a stack")
row("numpy.linalg.svd", "np.linalg.svd(x, full_matrices=False, compute_uv=True)[1]", x=normal(4, 3))

# -- einsum with up to six operands and optimize= ----------------------------------------------
row("numpy.einsum", "np.einsum('ij,jk,kl,l->i', x, y, z, w)", x=normal(2, 3), y=normal(3, 2), z=normal(2, 4),
    w=normal(4))
row("numpy.einsum", "np.einsum('i,i,i,i,i->', x, x, y, y, x)", x=normal(3), y=normal(3))
row("numpy.einsum", "np.einsum('ab,bc,cd,de,ef,f->a', x, y, x, y, x, z)", x=normal(2, 2), y=normal(2, 2),
    z=normal(2), note="six operands")
row("numpy.einsum", "np.einsum('ij,jk->ik', x, y$kw)", x=normal(2, 3), y=normal(3, 2),
    alts={"kw": [", optimize=True", ", optimize='greedy'", ", optimize='optimal'", ", optimize=False"]})
row("numpy.einsum", "np.einsum('ij,jk,kl->il', x, y, z, optimize=True)", x=normal(2, 3), y=normal(3, 4),
    z=normal(4, 2))
row("numpy.einsum", "np.einsum('$s', x, y)", x=normal(4, 5, 5), y=normal(6, 4, 5),
    alts={"s": ["ijk,mik->mij", "ijk,mij->ik", "ijk,mik->kmj", "ijk,mik->jm", "ijk,lij->lkj"]},
    note="batched products (index spaces over 256: one np.matmul, runtime/contractions.py)")
row("numpy.einsum", "np.einsum('ij,jk$out', x, y) ** 2", x=normal(20, 16), y=normal(16, 3),
    alts={"out": ["", "->ik", "->ki"]}, note="a matrix product (one np.matmul)")
row("srcad.einsum_call", "rt.einsum_call('i,i,ij,j->', x, x, y, x[:2])", x=normal(3), y=normal(3, 2),
    imports="import srcad.runtime as rt")
row("srcad.einsum_vjp", "rt.einsum_vjp('ij,j,k,k->i', 2, x, y, z, (2,), w)", x=normal(3), y=normal(3, 4),
    z=normal(4), w=normal(2), imports="import srcad.runtime as rt")

# -- np.r_ and np.c_ of values (frontend/displays.py: np.concatenate of the pieces) -----------
row("numpy.atleast_1d", "np.r_[x, y * y, 2.0, x[0]]", x=normal(3), y=normal(2), note="np.r_")
row("numpy.atleast_1d", "np.r_[x, y]", x=normal(2, 3), y=normal(1, 3), note="np.r_ of matrices")
row("srcad.c_column", "np.c_[x, y * y]", x=normal(3), y=normal(3), note="np.c_ of vectors")
row("srcad.c_column", "np.c_[x, y, 1.0]", x=normal(1, 2), y=normal(1, 3), note="np.c_ of rows and a number")
row("srcad.c_column", "np.c_[x[0], x[1]]", x=normal(2), note="np.c_ of numbers")
row("srcad.c_column", "np.c_[x, y]", x=normal(2, 2, 3), y=normal(2, 2, 1), note="np.c_, 3-d: the last axis")
