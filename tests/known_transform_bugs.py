"""Bugs of the transforms (not of rules) that the spec variants find, each reported to the
transforms' owners with a minimal repro (the probe below).

Each bug is probed once per run. While its probe fails, a variant it affects that fails is
an expected failure (pytest.xfail, with the bug as its reason: it runs, and shows up as x
in the summary); a variant that passes is an ordinary pass. Once the transforms are fixed,
the probe passes and every affected variant is an ordinary test again.
"""

import numpy as np
import pytest

import srcad


def probe_list_argument(x):
    return np.sum(np.arcsin(x))


GRAD_OF_PROBE = srcad.grad(probe_list_argument)


def probe_list_argument_second_order(x):
    return np.sum(np.asarray(GRAD_OF_PROBE(x)))


def probe_axis_of_0d(x):
    return np.sum(x, axis=0) * 1.5


def _runs(fun, x) -> bool:
    try:
        srcad.grad(fun)(x)
        srcad.jvp(fun, (x,), (x,))
        return True
    except Exception:
        return False


def _has_list_argument(v) -> bool:
    return any(t in v.tag for t in (":list", ":tuple")) and v.row.rule.startswith(("numpy.", "scipy."))


def _has_0d_argument(v) -> bool:
    """Some argument of the variant is a float or a 0-d array (tags like x:0d, y:float, x:)."""
    return any(part.partition(":")[2] in ("0d", "float", "") for part in v.tag.split(",") if ":" in part)


# (reason, probe, applies(variant, "first" or "second"))
KNOWN = [
    ("a list of numbers passed to a NumPy or SciPy function reaches its derivative templates as a "
     "list, not as the array NumPy makes of it (transforms/forward.py and reverse_apply.py bind "
     "the argument itself; reverse_apply converts the cotangent back for numpy.* only)",
     lambda: _runs(probe_list_argument, [0.5, 0.2]),
     lambda v, kind: _has_list_argument(v)),
    ("the same, in the generic code of a gradient that is differentiated again (its argument's "
     "type is unknown where the templates are instantiated)",
     lambda: _runs(probe_list_argument_second_order, [0.5, 0.2]),
     lambda v, kind: kind == "second" and _has_list_argument(v)),
    ("passes/simplify.py expand_axes expands the reduction of a 0-d array over axis 0 or -1 "
     "(which NumPy accepts) to shape (1,), then broadcasts it to ()",
     lambda: _runs(probe_axis_of_0d, 0.7),
     lambda v, kind: "axis" in v.expr and _has_0d_argument(v)),
]
_OPEN = [(reason, applies) for reason, probe, applies in KNOWN if not probe()]


def expected_failures(kind: str):
    """Decorate a variant test: a failure of a variant an open bug affects is an xfail."""
    def decorate(test):
        def run(v, tmp_path_factory):
            try:
                test(v, tmp_path_factory)
            except Exception:
                reasons = [reason for reason, applies in _OPEN if applies(v, kind)]
                if reasons:
                    pytest.xfail("known transform bug: " + reasons[0])
                raise
        run.__name__, run.__doc__ = test.__name__, test.__doc__
        return run
    return decorate
