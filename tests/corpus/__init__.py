"""Plain Python functions per construct family, each with sample arguments.

Every module exposes CASES: a list of (function, args). The corpus tests differentiate each
function with respect to every float or float-array argument and compare with finite
differences (and, for forward mode, with the dot-product test).
"""
