"""srcad benchmarks: derivative time against the forward pass, a hand-written gradient and peers.

Run `python benchmarks/run.py --help`; docs/performance.md explains the columns and records
the latest full run.
"""
