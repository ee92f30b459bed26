#!/usr/bin/env python
"""The LCM store on each backend: SQLite in the data dir vs a PostgreSQL server.

    python benchmarks/store_backends_bench.py            # starts a throw-away PostgreSQL
    python benchmarks/store_backends_bench.py --database-url postgresql://…  [--json]

Per backend, on one 1,000-message conversation (the LCM test fixture's turns):
- append: one `Lcm.append` (message, part-free, context item; one transaction), median/p95;
- assemble: one turn's `ContextAssembler.assemble` under an 8,192-token budget, raw and after
  a manual compaction, median/p95 of 100 calls;
- grep: a full-text `RetrievalEngine.grep` over messages and summaries, median of 50;
- compact: the manual compaction of the whole conversation, once.
The PostgreSQL server is local (loopback, fsync off when this script starts it): the figures
are the engine's and the driver's cost, not a network's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from lcm_fixtures import turn_text
from pg_server import server_url

from rlm_recursive.lcm import Lcm, LcmConfig


def _timed(fn: Callable[[], Any], calls: int) -> dict[str, float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3)}


def measure(data_dir: Path, database_url: str | None, messages: int = 1000) -> dict[str, Any]:
    lcm = Lcm(data_dir, LcmConfig(), database_url=database_url)
    cid = lcm.store.create_conversation("ses_bench").conversation_id
    rng = random.Random(7)
    texts = iter([turn_text(rng, turn) for turn in range(1, messages + 1)])
    roles = iter(["user", "assistant"] * messages)
    out: dict[str, Any] = {"append": _timed(lambda: lcm.append(cid, next(roles), next(texts)),
                                            messages)}

    def assemble() -> None:
        lcm.assembler.assemble(cid, 8192, system="You are helpful.",
                               query="Which container for the Rotterdam order?")

    out["assemble_raw"] = _timed(assemble, 100)
    started = time.perf_counter()
    asyncio.run(lcm.compaction.compact(cid))
    out["compact_s"] = round(time.perf_counter() - started, 2)
    out["assemble_compacted"] = _timed(assemble, 100)
    out["grep"] = _timed(lambda: lcm.retrieval.grep(cid, "Rotterdam container"), 50)
    lcm.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", help="an existing PostgreSQL (a scratch database)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with server_url(args.database_url) as url, tempfile.TemporaryDirectory() as folder:
        report = {"sqlite": measure(Path(folder) / "sqlite", None),
                  "postgresql": measure(Path(folder) / "pg", url)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for backend, row in report.items():
        print(f"{backend}:")
        for name, value in row.items():
            shown = (f"median {value['median_ms']} ms, p95 {value['p95_ms']} ms"
                     if isinstance(value, dict) else f"{value} s")
            print(f"  {name:19}: {shown}")


if __name__ == "__main__":
    main()
