"""srcad.grad of a test function checked argument by argument against Richardson-extrapolated
finite differences (tests/oracle.py), returning the generated source for the test to read."""

from oracle import assert_tree_close, fd_grad_richardson

import srcad


def checked_source(fn, args, argnums, rtol=1e-6, atol=1e-8) -> str:
    """The source of srcad.grad(fn, argnums) for args, after its gradients matched finite
    differences."""
    g = srcad.grad(fn, argnums=argnums)
    got = g(*args)
    for i, a in zip(argnums, got):
        assert_tree_close(a, fd_grad_richardson(fn, args, i), rtol=rtol, atol=atol, what=f"argument {i}")
    return srcad.source(g, *args)
