"""Command line: `python -m srcad demo | ...`."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="srcad", description="Source-transformation AD for Python")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="differentiate a built-in example, print its gradient source, check it")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import main as demo

        return demo()
    return 2


if __name__ == "__main__":
    sys.exit(main())
