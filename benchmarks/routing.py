#!/usr/bin/env python
"""Routing benchmark: `python benchmarks/routing.py [--json]`.

The same as `rlm-recursive bench routing`: accuracy of `auto` on the 210-question phrasing
suite (dev and held-out parts); see rlm_recursive/bench/routing.py. No model is called.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["routing", *__import__("sys").argv[1:]])
