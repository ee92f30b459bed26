#!/usr/bin/env python
"""oolong benchmark: `python benchmarks/oolong.py -n 5 [--method direct] [--json]`.

The same as `rlm-recursive bench oolong`; see rlm_recursive/bench/oolong.py.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["oolong", *__import__("sys").argv[1:]])
