"""A worker process: reads one JSON request per line on stdin, answers one JSON line on
stdout. `python -m tests.fuzz.worker CONFIG_JSON`. Requests:

    {"op": "run", "seed": "7:12"}                                    -> run.run_seed's result
    {"op": "shrink", "seed": ..., "source": ..., "signature": ..., "budget": 60}

Anything the programs or srcad print goes to stderr, so stdout carries only answers."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings


def main() -> int:
    from .config import Config
    from .run import run_seed, shrink_failure

    cfg = Config.from_json(sys.argv[1])
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout = sys.stderr
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="srcad-fuzz-") as workdir:
        for line in sys.stdin:
            req = json.loads(line)
            if req["op"] == "run":
                answer = run_seed(req["seed"], cfg, workdir)
            else:
                answer = shrink_failure(req["source"], req["signature"], req["seed"], workdir, req["budget"])
            out.write(json.dumps(answer) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
