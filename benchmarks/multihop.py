#!/usr/bin/env python
"""multihop benchmark: `python benchmarks/multihop.py -n 5 [--method direct] [--json]`.

The same as `rlm-recursive bench multihop`; see rlm_recursive/bench/multihop.py.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["multihop", *__import__("sys").argv[1:]])
