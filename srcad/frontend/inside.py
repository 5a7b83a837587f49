"""srcad's transformations called inside a function srcad differentiates: `srcad.grad(f)`,
jacfwd, jacrev, hessian, vmap (makers: the transform is built while transforming, its code
inlined where it is called), and srcad.jvp, vjp and hvp (their Python forms, forms.py). A
mixin of the expression lowerer (expr.py)."""

from __future__ import annotations

from ..errors import UnsupportedSyntaxError
from .displays import Star
from .resolve import LocalFunction, Static


class TransformsInside:
    def value_form(self, fn, args, kw, node):
        """srcad.jvp(f, primals, tangents), srcad.hvp(...), srcad.vjp(f, *primals) inside the
        function: the Python form srcad inlines (forms.py), for f known while transforming
        and with plain positional parameters."""
        form = None
        if args and not kw and not any(isinstance(a, Star) for a in args):
            static = self.static_of(args[0])
            if static is not None and not isinstance(static.obj, LocalFunction):
                form = fn.__srcad_value_form__(static.obj, len(args) - 1)
        if form is None:
            name = fn.__name__
            raise self.error(UnsupportedSyntaxError, node, f"srcad.{name} inside a function srcad "
                             "differentiates needs a function known there, with positional parameters only, "
                             "and no keyword options", "define the function at module level (its free "
                             f"variables as arguments) and call srcad.{name}(f, ...) without has_aux")
        return form

    def make_transform(self, fn, args, kw, node) -> Static:
        """`srcad.grad(f, ...)` inside the function: build the transform now (f and the
        options must be known while transforming); calling it inlines its code."""
        statics = [self.static_of(a) for a in self.no_stars(list(args), node) + [a for _, a in kw]]
        if any(s is None for s in statics):
            raise self.error(UnsupportedSyntaxError, node, f"{fn.__name__}() of a function or option "
                             "computed at run time", f"use a function defined at module level: "
                             f"g = srcad.{fn.__name__}(f), then call g inside")
        objs = [self.python_function(s.obj) if isinstance(s.obj, LocalFunction) else s.obj for s in statics]
        if any(isinstance(o, LocalFunction) for o in objs):
            raise self.error(UnsupportedSyntaxError, node, f"srcad.{fn.__name__} of a nested function or "
                             "lambda inside a function srcad differentiates is not supported",
                             f"define the function at module level (its free variables as arguments), "
                             f"then call srcad.{fn.__name__}(f) inside")
        return Static(fn(*objs[:len(args)], **dict(zip((k for k, _ in kw), objs[len(args):]))))
