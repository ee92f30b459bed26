#!/usr/bin/env python
"""Suite benchmark: `python benchmarks/suite.py --part heldout -n 5 --provider embedded`.

The same as `rlm-recursive bench suite`: every task family (single fact, multi-hop, counting
in seven formats, classify, unanswerable) over varied generators, dev and held-out, against
the direct baseline; see rlm_recursive/bench/suite.py.
"""

from rlm_recursive.cli.bench import bench_app

if __name__ == "__main__":
    bench_app(["suite", *__import__("sys").argv[1:]])
