"""How derivative code names its values: the one place that spells `x_bar`, `x_dot` and
`_stack_x`. These are hints; codegen/names.py makes the final names unique (`x_bar_1`).

>>> cotangent("x"), tangent("x"), tangents("x"), stack("h"), stack("")
('x_bar', 'x_dot', 'x_dots', '_stack_h', '_stack_t')
>>> cotangent("")  # a temporary's derivative is a temporary too
''
"""

#: the iteration count a backward loop replays (of a `while`, or a loop left by `break`)
TRIPS = "_trips"


def cotangent(hint: str) -> str:
    """The cotangent (reverse mode's adjoint) of a value named `hint`."""
    return hint + "_bar" if hint else ""


def tangent(hint: str) -> str:
    """The tangent (forward mode) of a value named `hint`."""
    return hint + "_dot" if hint else ""


def tangents(hint: str) -> str:
    """The tangents of an argument pushed through in a batch (jacfwd)."""
    return hint + "_dots" if hint else ""


def stack(hint: str) -> str:
    """The list a loop pushes a value named `hint` onto for the backward sweep."""
    return "_stack_" + (hint or "t")
