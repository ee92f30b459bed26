#!/usr/bin/env python
"""Load, index, search and peek figures through the tool registry on a synthetic corpus.

    python benchmarks/corpus_bench.py                  # 20M chars in ~100 files
    python benchmarks/corpus_bench.py --chars 50000000 --json
    python benchmarks/corpus_bench.py --corpus DIR --queries q.txt --peeks p.txt

Every call goes through `runtime.registry.invoke` on a session context, so argument
validation, the session's tool budget and traces are all part of the figures. The corpus is
written one file at a time and never held in memory as a whole.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import Plant, generate, scan_plants

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import MAX_TOOL_CALLS_LIMIT

TARGETS = {  # figure: (limit, "max" | "min"); issue 14's targets, at 50M chars with traces on
    "bm25_p50_ms": (0.6, "max"),
    "peek_p50_ms": (0.2, "max"),
    "first_search_s": (3.0, "max"),
    "peak_rss_mb": (200.0, "max"),
    "accuracy": (0.99, "min"),
}
_TEMPLATES = (
    "{key} magic",
    "magic number {key}",
    "{key} special number",
    "special magic number {key}",
)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def current_rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() / 2**20


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Bench:
    """A runtime, one session, and timed registry calls."""

    def __init__(self, data_dir: Path, traces: bool) -> None:
        self.runtime = Runtime(data_dir=data_dir, profile="unrestricted")
        if not traces:
            self.runtime.profile = self.runtime.profile.model_copy(update={"traces": False})
        self.ctx: Any = None
        self.last_cpu_ms = 0.0

    async def start(self) -> str:
        ctx = self.runtime.context()
        out = await self.call("rlm_session_create", {"max_tool_calls": MAX_TOOL_CALLS_LIMIT}, ctx)
        session_id = out[0]["session_id"]
        self.ctx = self.runtime.context(session_id)
        return session_id

    async def call(
        self, name: str, args: dict[str, Any], ctx: Any = None
    ) -> tuple[dict[str, Any], float]:
        """(output, wall milliseconds) of one registry call; an error result stops the bench.

        `last_cpu_ms` keeps the call's CPU time, a steadier figure on a busy machine."""
        t, cpu = time.perf_counter(), time.process_time()
        result = await self.runtime.registry.invoke(name, args, ctx or self.ctx)
        ms = (time.perf_counter() - t) * 1000
        self.last_cpu_ms = (time.process_time() - cpu) * 1000
        if result.is_error:
            raise SystemExit(f"{name} failed: {result.output}")
        return result.output, ms


def top_context_holds(output: dict[str, Any], sentence: str) -> bool:
    matches = output["matches"]
    return bool(matches) and sentence in matches[0]["context"]


async def run(
    args: argparse.Namespace, corpus: Path, plants: list[Plant], data_dir: Path
) -> dict[str, Any]:
    figures: dict[str, Any] = {"rss_after_generate_mb": round(current_rss_mb(), 1)}
    bench = Bench(data_dir, traces=not args.no_traces)
    await bench.start()

    source = {"type": "directory", "path": str(corpus), "recursive": True}
    out, ms = await bench.call("rlm_docs_load", {"sources": [source]})
    if out["errors"]:
        raise SystemExit(f"load errors: {out['errors'][:3]}")
    docs = out["loaded"]
    figures.update(
        documents=len(docs),
        total_chars=out["total_chars"],
        load_s=ms / 1000,
        rss_after_load_mb=round(current_rss_mb(), 1),
    )
    by_path = {Path(d["source"]).relative_to(corpus.resolve()).as_posix(): d for d in docs}

    rng = random.Random(args.seed)
    if args.queries:
        queries = [q.strip() for q in args.queries.read_text().splitlines() if q.strip()]
    else:
        chosen = [plants[i % len(plants)] for i in range(args.n)] if plants else []
        queries = [rng.choice(_TEMPLATES).format(key=p.key) for p in chosen]
    if not queries:
        raise SystemExit("no queries: pass --queries FILE (the corpus has no planted keys)")

    search = {"method": "bm25", "limit": args.limit, "context_chars": args.context_chars}
    out, ms = await bench.call("rlm_search_query", {**search, "query": queries[0]})
    if not out["index_built_this_call"]:
        raise SystemExit("the first search did not build the index (is --data-dir fresh?)")
    # CPU time covers tantivy's writer threads too: the figure a loaded machine cannot skew.
    figures.update(first_search_s=ms / 1000, first_search_cpu_s=bench.last_cpu_ms / 1000,
                   rss_after_index_mb=round(current_rss_mb(), 1))

    lat, cpu = [], []
    for query in (queries * (args.n // len(queries) + 1))[: args.n]:
        out, ms = await bench.call("rlm_search_query", {**search, "query": query})
        lat.append(ms)
        cpu.append(bench.last_cpu_ms)
    figures.update(
        bm25_queries=len(lat),
        bm25_cpu_p50_ms=statistics.median(cpu),
        bm25_p50_ms=statistics.median(lat),
        bm25_p95_ms=pct(lat, 0.95),
        bm25_mean_ms=statistics.fmean(lat),
    )

    hits = 0
    for plant in plants:
        out, _ = await bench.call(
            "rlm_search_query", {**search, "query": f"special magic number {plant.key}"}
        )
        hits += top_context_holds(out, plant.sentence)
    figures.update(accuracy_queries=len(plants), accuracy=hits / len(plants) if plants else None)

    if args.peeks:
        peeks = []
        for line in args.peeks.read_text().splitlines():
            if line.strip():
                rel, start = line.rsplit(None, 1)
                peeks.append((by_path[rel]["doc_id"], int(start)))
    else:
        peeks = []
        for _ in range(args.n):
            doc = rng.choice(docs)
            peeks.append((doc["doc_id"], rng.randrange(max(doc["length_chars"] - 2000, 1))))
    lat, cpu = [], []
    for doc_id, start in peeks:
        out, ms = await bench.call(
            "rlm_docs_peek", {"doc_id": doc_id, "start": start, "end": start + 2000}
        )
        lat.append(ms)
        cpu.append(bench.last_cpu_ms)
    figures.update(
        peeks=len(lat),
        peek_p50_ms=statistics.median(lat),
        peek_p95_ms=pct(lat, 0.95),
        peek_cpu_p50_ms=statistics.median(cpu),
    )

    cache = bench.runtime.store.blobs._cache  # reported, not changed
    t = time.perf_counter()
    bench.runtime.store.flush()  # every queued trace record is written before the run ends
    figures.update(
        trace_flush_ms=(time.perf_counter() - t) * 1000,
        trace_rows=bench.runtime.store.db.execute("SELECT COUNT(*) FROM traces").fetchone()[0],
        load_average=list(os.getloadavg()),
        blob_cache_chars=cache.currsize,
        rss_end_mb=round(current_rss_mb(), 1),
        peak_rss_mb=peak_rss_mb(),
    )
    bench.runtime.close()
    return figures


def verdict(figures: dict[str, Any]) -> dict[str, bool | None]:
    out = {}
    for name, (limit, kind) in TARGETS.items():
        value = figures.get(name)
        out[name] = None if value is None else value <= limit if kind == "max" else value >= limit
    return out


def print_table(figures: dict[str, Any]) -> None:
    ok = verdict(figures)
    print(
        f"corpus: {figures['total_chars']:,} chars in {figures['documents']} files"
        f" ({figures['corpus']}); traces {'on' if figures['traces'] else 'off'}"
    )
    rows = [
        ("load (rlm_docs_load of the folder)", f"{figures['load_s']:.2f} s", None),
        (
            "first BM25 search (builds the index)",
            f"{figures['first_search_s']:.2f} s",
            "first_search_s",
        ),
        ("first BM25 search, CPU time (all threads)", f"{figures['first_search_cpu_s']:.2f} s",
         None),
        (
            f"BM25 search p50 ({figures['bm25_queries']} queries)",
            f"{figures['bm25_p50_ms']:.3f} ms",
            "bm25_p50_ms",
        ),
        ("BM25 search p95", f"{figures['bm25_p95_ms']:.3f} ms", None),
        ("BM25 search p50, CPU time", f"{figures['bm25_cpu_p50_ms']:.3f} ms", None),
        (
            f"peek p50 ({figures['peeks']} x 2,000 chars)",
            f"{figures['peek_p50_ms']:.3f} ms",
            "peek_p50_ms",
        ),
        ("peek p95", f"{figures['peek_p95_ms']:.3f} ms", None),
        ("peek p50, CPU time", f"{figures['peek_cpu_p50_ms']:.3f} ms", None),
        (
            f"planted-sentence accuracy (n={figures['accuracy_queries']})",
            "n/a" if figures["accuracy"] is None else f"{figures['accuracy']:.1%}",
            "accuracy",
        ),
        ("peak RSS", f"{figures['peak_rss_mb']:.0f} MB", "peak_rss_mb"),
        (
            "RSS after generate / load / index / end",
            " / ".join(
                f"{figures[k]:.0f}"
                for k in (
                    "rss_after_generate_mb",
                    "rss_after_load_mb",
                    "rss_after_index_mb",
                    "rss_end_mb",
                )
            )
            + " MB",
            None,
        ),
        ("blob cache", f"{figures['blob_cache_chars'] / 1e6:.1f}M chars", None),
        (f"trace rows written ({figures['trace_rows']})", f"{figures['trace_flush_ms']:.1f} ms",
         None),
        ("load average (1, 5, 15 min) at the end",
         " ".join(f"{x:.2f}" for x in figures["load_average"]), None),
    ]
    for label, value, key in rows:
        target = ""
        if key is not None:
            limit, kind = TARGETS[key]
            mark = {True: "ok", False: "MISSED", None: "-"}[ok[key]]
            shown = f"{limit:.0%}" if key == "accuracy" else f"{limit:g}"
            target = f"{'<=' if kind == 'max' else '>='} {shown}  {mark}"
        print(f"  {label:<44} {value:>16}   {target}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=20_000_000, help="corpus size to generate")
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--corpus", type=Path, help="use this folder instead of generating one")
    ap.add_argument("--queries", type=Path, help="BM25 queries, one per line")
    ap.add_argument("--peeks", type=Path, help="peeks, one 'relative/path start' per line")
    ap.add_argument("-n", type=int, default=200, help="timed searches and peeks (default 200)")
    ap.add_argument("--limit", type=int, default=10, help="search limit (tool default 10)")
    ap.add_argument("--context-chars", type=int, default=200)
    ap.add_argument("--data-dir", type=Path, help="store folder (default: a fresh temp dir)")
    ap.add_argument("--no-traces", action="store_true", help="run with traces off")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="rlm-bench-") as tmp:
        if args.corpus:
            corpus = args.corpus
            if not corpus.is_dir():
                raise SystemExit(f"--corpus {corpus}: not a folder")
            t = time.perf_counter()
            plants = scan_plants(corpus)
            label = f"{corpus}, {len(plants)} planted keys found"
        else:
            corpus = Path(tmp) / "corpus"
            t = time.perf_counter()
            plants = generate(corpus, args.chars, args.files, args.seed)
            label = f"generated, seed {args.seed}, {len(plants)} planted keys"
        prep = time.perf_counter() - t
        data_dir = args.data_dir or Path(tmp) / "data"
        figures = asyncio.run(run(args, corpus, plants, data_dir))
    figures.update(
        corpus=label,
        prepare_s=prep,
        traces=not args.no_traces,
        targets={k: v[0] for k, v in TARGETS.items()},
        meets=verdict(figures),
    )
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)


if __name__ == "__main__":
    main()
