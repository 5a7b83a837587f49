"""srcad's differential fuzzer: random Python/NumPy programs over srcad's supported subset,
differentiated by every transformation and checked against finite differences (with
Richardson extrapolation) and against each other. See docs/reliability.md.

    python -m tests.fuzz --n 20000 --seed 1 --jobs 2 --out /tmp/fuzz --shrink

Modules: config (feature mix), vartypes/expr/stmt/program (the generator), trees/fd (the
numerical oracle), checks/costly (the checks), outcome (classes, signatures), run (one
program), shrink, worker/campaign/cli (campaigns in subprocesses)."""
