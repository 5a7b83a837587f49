"""Spec rows for scipy.special's Bessel functions, zeta and gammasgn (when scipy is installed).

The other scipy.special rows are in rule_specs_linalg.py."""

from rule_specs import row, uniform

try:
    import scipy.special  # noqa: F401
except ImportError:
    scipy = None

if scipy is not None:
    SP = "import scipy.special"
    POS = uniform(0.5, 3.0, 4)
    V = uniform(-3.0, 3.0, 4)

    def special(rule, expr, **args):
        row(f"scipy.special.{rule}", expr, imports=SP, **args)

    # the order is a constant, the argument x differentiated (also for negative x where the
    # function is real there: integer orders, the modified functions)
    ORDERS = {"v": ["1.5", "0.0", "2.0", "-0.5"]}
    for _name in ("jv", "jve", "yv", "yve", "iv", "ive", "kv", "kve"):
        special(_name, f"scipy.special.{_name}($v, x)", x=POS, alts=ORDERS, ew=("x",))
    for _name in ("jv", "iv", "ive"):
        special(_name, f"scipy.special.{_name}(2.0, x)", x=V, note="integer order, x of both signs")
    special("ive", "scipy.special.ive(0.0, x * 0.0) + x", x=V, note="at 0: sign(0) = 0")
    for _name in ("yn", "kn"):
        special(_name, f"scipy.special.{_name}($n, x)", x=POS, alts={"n": ["2", "0", "1", "-1"]}, ew=("x",))
    for _name in ("j0", "j1", "i0e", "i1e"):
        special(_name, f"scipy.special.{_name}(x)", x=V, ew=("x",))
    for _name in ("y0", "y1", "k0", "k1", "k0e", "k1e"):
        special(_name, f"scipy.special.{_name}(x)", x=POS, ew=("x",))
    special("j1", "scipy.special.j1(x * 0.0) + x", x=V, note="at 0")
    special("i1e", "scipy.special.i1e(x * 0.0) + x", x=V, note="at 0")
    special("zeta", "scipy.special.zeta($s, q)", q=POS, alts={"s": ["2.0", "3.5"]}, ew=("q",))
    special("zeta", "scipy.special.zeta(3.0, q) + scipy.special.zeta(2.0) * q", q=POS, note="Riemann")
    special("gammasgn", "scipy.special.gammasgn(x) * x", x=uniform(-2.9, 2.9, 4), ew=("x",))
