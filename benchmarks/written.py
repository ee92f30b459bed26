#!/usr/bin/env python
"""Hand-written bench: `python benchmarks/written.py --part dev,heldout --method auto`.

The same as `rlm-recursive bench written`: documents and questions written by hand (no
generator), dev for tuning and held-out for reporting; see rlm_recursive/bench/written.py.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["written", *__import__("sys").argv[1:]])
