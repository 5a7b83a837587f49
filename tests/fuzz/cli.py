"""python -m tests.fuzz: run a campaign, replay one program, or check a program file.

    python -m tests.fuzz --n 20000 --seed 7 --jobs 2 --out /tmp/fuzz --shrink
    python -m tests.fuzz --replay 7:123          print program 7:123 and what its checks found
    python -m tests.fuzz --check prog.py         run the checks on a program file (f, make_args, DIFF)
    python -m tests.fuzz --features=-while,einsum=2 --no-known-bugs ...
    python -m tests.fuzz --shrink-failures DIR  shrink the failures of an (interrupted) campaign
"""

from __future__ import annotations

import argparse
import json
import tempfile

from .config import FEATURES, KNOWN_BUGS, Config


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description="srcad's differential fuzzer")
    p.add_argument("--n", type=int, default=1000, help="programs to generate (default 1000)")
    p.add_argument("--seed", default="0", help="campaign seed; program i has seed SEED:i")
    p.add_argument("--start", type=int, default=0, help="first program index")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--out", help="directory for results.jsonl, summary.txt and failures/")
    p.add_argument("--shrink", action="store_true", help="shrink one failing program per signature")
    p.add_argument("--shrink-budget", type=float, default=90.0, help="seconds per shrink")
    p.add_argument("--shrink-per-signature", type=int, default=1,
                   help="failing programs shrunk per signature")
    p.add_argument("--features", default="", help="comma list: -name (off), name (on), name=weight, all")
    p.add_argument("--no-known-bugs", action="store_true", help=f"switch off {', '.join(KNOWN_BUGS)}")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per program")
    for name, help_ in (("hessian", "hessian/hvp"), ("rank-only", "rank-only code"),
                        ("cache", "persistent cache round trip"), ("codegen", "srcad codegen round trip"),
                        ("dask", "dask-array arguments")):
        p.add_argument(f"--{name}", type=float, help=f"fraction of programs with the {help_} check")
    p.add_argument("--replay", metavar="SEED:I", help="generate and check one program, print it")
    p.add_argument("--check", metavar="FILE", help="check a program file")
    p.add_argument("--shrink-failures", metavar="DIR",
                   help="shrink the failures of an earlier campaign's --out DIR")
    p.add_argument("--list-features", action="store_true")
    return p


def config_from(args) -> Config:
    cfg = Config(timeout=args.timeout)
    if args.no_known_bugs:
        cfg = cfg.without_known_bugs()
    if args.features:
        cfg = cfg.with_features(args.features)
    for name in ("hessian", "rank_only", "cache", "codegen", "dask"):
        value = getattr(args, name)
        if value is not None:
            setattr(cfg, name, value)
    return cfg


def replay(seed: str, cfg: Config, path: str | None) -> int:
    from .run import ALL_CHECKS, check_source, run_seed, summary

    with tempfile.TemporaryDirectory() as workdir:
        if path:
            source = open(path).read()
            result = summary(check_source(source, workdir, seed, ALL_CHECKS))
        else:
            result = run_seed(seed, cfg, workdir)
            from .program import generate
            source = generate(seed, cfg, workdir).source
    print(source)
    print(json.dumps({k: v for k, v in result.items() if k != "source"}, indent=1))
    return 0 if result["outcome"] in ("pass", "reject", "inconclusive") else 1


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    cfg = config_from(args)
    if args.list_features:
        for name, _w in FEATURES.items():
            print(f"{name:<14} {cfg.w(name):>4}  {KNOWN_BUGS.get(name, '')}")
        return 0
    if args.replay or args.check:
        return replay(args.replay or "file:0", cfg, args.check)
    from .campaign import run_campaign, shrink_directory

    if args.shrink_failures:
        tally = shrink_directory(cfg, args.shrink_failures, args.jobs, args.shrink_budget,
                                 args.shrink_per_signature, progress=lambda s: print(s, flush=True))
        print(tally.report(0.0))
        return 0

    tally = run_campaign(cfg, args.n, args.seed, args.jobs, args.out, args.shrink, args.shrink_budget,
                         args.shrink_per_signature, start=args.start, progress=lambda s: print(s, flush=True))
    print(tally.report(tally.elapsed))
    if args.out:
        print(f"\nresults in {args.out}")
    return 0
