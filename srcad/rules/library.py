"""Library functions that never change their arguments: logging, warnings, printing, timing,
plotting. A call to one whose result is unused is kept as it is (it runs as in the primal),
not refused as a call that "can only matter by changing its arguments in place"
(transforms/safety.py), and no derivative flows through it.

Other library calls whose result is unused and that receive arrays or lists stay refused:
srcad cannot tell `np.copyto(dst, src)` or `random.shuffle(xs)` from a logging call.
"""

from __future__ import annotations

#: modules (and their submodules) whose functions and methods do not write into arguments
NO_ARGUMENT_WRITES = ("logging", "warnings", "time", "os.path", "posixpath", "ntpath", "pprint", "json",
                      "matplotlib", "tqdm", "IPython.display", "builtins.print",
                      "scipy.stats")  # (a frozen distribution made and only used through its methods)


def never_writes_arguments(callee: object) -> bool:
    """Is `callee` (a function, or a bound method) of one of those modules?"""
    owner = getattr(callee, "__self__", None)
    names = [getattr(callee, "__module__", None) or ""]
    if owner is not None and not isinstance(owner, type):
        names.append(type(owner).__module__ or "")
    return any(module_never_writes(n) for n in names)


def module_never_writes(module: str) -> bool:
    """Do the functions and methods of `module` (a module name) leave their arguments alone?"""
    return bool(module) and any(module == m or module.startswith(m + ".") for m in NO_ARGUMENT_WRITES)


def freezes_distribution(callee: object) -> bool:
    """Is `callee` a scipy.stats distribution (norm, multivariate_normal...), whose call makes a
    frozen distribution? Nothing else happens in that call: srcad drops it where its result
    is unused (frontend/frozen.py calls the distribution's functions instead)."""
    return (type(callee).__module__.startswith("scipy.stats") and callable(callee)
            and not isinstance(callee, type))
