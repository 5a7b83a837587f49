"""Command line: `python -m srcad <command>` (also installed as `srcad`).

    srcad demo                                   differentiate a built-in example and check it
    srcad codegen FILE.py:FUNC [...] -o OUT.py   write a standalone derivative module
                  [--target python|numba]     (numba: jitted, imports numba)
    srcad check OUT.py                           is OUT.py stale against its source?
    srcad show FILE.py:FUNC --stage ssa          the function after a pipeline stage
    srcad rules [--markdown]                     every primitive with a rule, and its modes
    srcad report [FILE.py:FUNC | MODULE:FUNC]    versions, platform and generated code for a bug report
    srcad --version
"""

from __future__ import annotations

import argparse
import sys

from . import demo, offline, report
from .errors import CodegenError, SrcadError
from .rules import listing
from .version import __version__


def _argnums(text: str | None):
    if text is None:
        return None
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise CodegenError(f"--argnums expects integers like 0,1, got {text!r}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="srcad",
                                     description="Source-transformation AD for Python and NumPy")
    parser.add_argument("--version", action="version", version=f"srcad {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="differentiate a built-in example, print its gradient source, check it")
    gen = sub.add_parser("codegen", help="write a standalone derivative module (imports numpy, not srcad)")
    gen.add_argument("targets", nargs="+", metavar="FILE.py:FUNC",
                     help="functions to differentiate; FILE.py:f,g or several targets in one file")
    gen.add_argument("--argnums", help="comma-separated argument positions (default: 0 in reverse mode, "
                     "every float/array argument in forward mode)")
    gen.add_argument("--mode", choices=("reverse", "forward"), default="reverse")
    gen.add_argument("--target", choices=("python", "numba"), default="python",
                     help="python (default: plain NumPy code) or numba (every function jitted with "
                     "numba.njit(cache=True, nogil=True); the module imports numba)")
    gen.add_argument("--types", help="argument types, e.g. float,array1,int (default: annotations)")
    gen.add_argument("-o", "--output", help="the module to write (default: print it)")
    gen.add_argument("--with-test", action="store_true", help="also write test_OUT.py checking it")
    gen.add_argument("--sample", action="append", metavar="EXPR",
                     help="a sample argument for the test (Python, numpy as np); once per parameter")
    chk = sub.add_parser("check", help="say whether a generated module is stale against its source")
    chk.add_argument("module")
    show = sub.add_parser("show", help="print a function after one pipeline stage")
    show.add_argument("target", metavar="FILE.py:FUNC")
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse")
    show.add_argument("--stage", default="source",
                      choices=("parsed", "ssa", "typed", "transformed", "optimized", "source"))
    show.add_argument("--argnums")
    show.add_argument("--types")
    rules = sub.add_parser("rules", help="list every primitive with a rule and its modes")
    rules.add_argument("--markdown", action="store_true", help="print docs/primitives.md instead")
    rep = sub.add_parser("report", help="print versions, platform and settings (and a function's generated "
                         "code) for a bug report")
    rep.add_argument("target", nargs="?", metavar="FILE.py:FUNC or MODULE:FUNC")
    rep.add_argument("--mode", choices=("reverse", "forward"), default="reverse")
    rep.add_argument("--argnums")
    rep.add_argument("--types")
    return parser


def _codegen(args) -> int:
    targets = args.targets
    files = {offline.parse_target(t)[0] for t in targets}
    if len(files) != 1:
        raise CodegenError("all targets of one codegen call must be in the same file")
    path = next(iter(files))
    names = [n for t in targets for n in offline.parse_target(t)[1]]
    command = "srcad codegen " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["codegen"] else "srcad codegen"
    text = offline.codegen(f"{path}:{','.join(names)}", args.mode, _argnums(args.argnums), args.output,
                           args.types, args.with_test, command, args.sample, args.target)
    if not args.output:
        sys.stdout.write(text)
    else:
        print(f"wrote {args.output}" + (" and its test" if args.with_test else ""))
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except BrokenPipeError:  # `srcad rules | head`
        sys.stderr.close()
        return 0


def _dispatch(args) -> int:
    try:
        if args.command == "demo":
            return demo.main()
        if args.command == "codegen":
            return _codegen(args)
        if args.command == "check":
            stale = offline.check(args.module)
            if stale:
                print(f"{args.module} is stale: {', '.join(stale)} changed since it was generated")
                return 1
            print(f"{args.module} is up to date")
            return 0
        if args.command == "report":
            return report.main(args.target, args.mode, _argnums(args.argnums), args.types)
        if args.command == "rules":
            print(listing.markdown() if args.markdown else "\n".join(listing.lines()))
            return 0
        if args.command == "show":
            print(offline.show(args.target, args.mode, args.stage, _argnums(args.argnums), args.types),
                  end="")
            return 0
    except CodegenError as e:
        print(f"srcad {args.command}: error: {e}", file=sys.stderr)
        return 2
    except SrcadError as e:
        print(f"srcad {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
