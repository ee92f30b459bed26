#!/usr/bin/env python
"""S-NIAH benchmark: `python benchmarks/sniah.py --lengths 8k,32k,128k,1m -n 10 [--json]`.

The same as `rlm-recursive bench sniah`; see rlm_recursive/bench/sniah.py.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["sniah", *__import__("sys").argv[1:]])
