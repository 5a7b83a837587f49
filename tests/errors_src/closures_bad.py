"""Nested functions, function values and star-unpacking srcad refuses (tests/test_closures.py):
each is an error at the line named, never a silently wrong derivative."""

import numpy as np

import srcad


def recursive_nested(x):
    def fact(n):
        return 1.0 if n <= 1 else n * fact(n - 1)  # RECURSE
    return fact(3) * x


def mutually_recursive(x):
    def even(n):
        return 1.0 if n == 0 else odd(n - 1)
    def odd(n):
        return x if n == 0 else even(n - 1)  # ODD
    return even(4)


def chosen_by_branch(x, flag):
    g = (lambda t: t * x) if flag else (lambda t: t + x)
    return g(x)  # BRANCH


def returns_a_closure(x):
    return lambda t: t * x  # RETURNED


def given_to_a_library(x):
    import_free = sorted([3.0, 1.0, 2.0], key=None)
    return np.sum(np.apply_along_axis(lambda r: r * x, 0, np.ones(2))) + import_free[0]  # LIBRARY


def grad_of_a_lambda_inside(x):
    return srcad.grad(lambda t: t * x)(x)  # GRAD_INSIDE


def star_of_a_list_argument(x, xs):
    return np.add(*xs) * x  # STAR_LIST


def _pair(a, b=1.0):
    return a * b


def star_into_defaults(x, xs):
    return _pair(*xs) * x  # STAR_DEFAULTS


def double_star_of_an_argument(x, opts):
    return _pair(x, **opts)  # DOUBLE_STAR


def map_of_an_unknown_function(x, fs):
    return sum(map(fs[0], [x, x]))  # MAP_UNKNOWN


def list_of_function_arguments(x, acts):
    return acts[0](x)  # ACTS


def decorated_nested(x):
    @staticmethod
    def g(t):  # DECORATED
        return t
    return x


def reads_after_scope_in_branch(x, flag):
    def make(c):
        return lambda t: c * t
    if flag:  # (the branches join two closures)
        h = make(x)
    else:
        h = make(2.0)
    return h(x)  # JOINED


def heterogeneous_loop(x):
    s = 0.0
    for f in [np.sin, lambda t: t * t]:
        s = s + f(x)  # HETEROGENEOUS
    return s


def made_per_item(x):
    def make(k):
        return lambda: k * x
    fs = [make(i) for i in range(3)]  # each lambda reads its own k
    return fs[0]()  # PER_ITEM


def changed_through_an_alias(x):
    fs = [lambda t: t * x, lambda t: t + x]
    gs = fs
    gs[0] = lambda t: t - x  # ALIAS
    return fs[0](x)


def _gen(x):
    yield x
    yield 2.0 * x


def generator_kept(x):
    g = _gen(x)  # KEPT_GENERATOR
    return sum(g)


def loop_leaves_a_generator(x):
    for v in _gen(x):  # BREAK_GENERATOR
        if v > 1.0:
            break
    return v


def generator_given_to_zip(x):
    return sum(a * b for a, b in zip(_gen(x), _gen(x)))  # ZIP_GENERATOR


def is_a_generator(x):
    yield x  # TOP_GENERATOR


def closure_as_an_index(x):
    g = lambda t: t
    y = np.array([x, 2.0 * x])
    return np.sum(y[g])  # INDEX


def reassigned_after_the_inner_loop(x):
    g = lambda t: t * 1.0  # noqa: E731
    total = 0.0
    for _ in range(3):
        for _ in range(2):
            total = total + g(x)  # REASSIGNED_LATER
        g = lambda t: t * 2.0  # noqa: E731 (the next iterations' inner loops call this one)
    return total
