#!/usr/bin/env python
"""What finding secrets at load costs: load time with and without the queued scan, the
scan's throughput, and how long until the background scan of a load is done.

    python benchmarks/secret_scan_load.py                      # 20 files, 10M chars
    python benchmarks/secret_scan_load.py --chars 50000000 --files 100

The corpus is benchmarks/_corpus.py's (English-like text with log blocks). "Without" replaces
the store's scan hook with a no-op for that run, so the two loads differ by the hook only.
Each configuration runs in a fresh data dir; numbers are wall-clock seconds on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from _corpus import generate

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.secretscan import default_detector
from rlm_recursive.store import store as store_module


async def _load(root: Path, corpus: Path, label: str) -> dict[str, float]:
    rt = Runtime(root / label, "unrestricted")
    try:
        sid = (await rt.call("rlm_session_create", {})).output["session_id"]
        started = time.perf_counter()
        result = await rt.call("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "directory", "path": corpus.name, "recursive": True}]})
        loaded = time.perf_counter() - started
        assert not result.is_error and result.output["loaded"], result.output
        rt.store.writer.flush(timeout_s=3600)
        settled = time.perf_counter() - started
        scanned = rt.store.db.execute("SELECT COUNT(*) FROM secret_scans").fetchone()[0]
        return {"load_s": round(loaded, 3), "load_plus_scan_s": round(settled, 3),
                "texts_scanned": scanned}
    finally:
        rt.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rlm-secret-bench-") as tmp:
        root = Path(tmp)
        os.chdir(root)  # the unrestricted profile reads below the working directory
        corpus = root / "corpus"
        generate(corpus, chars=args.chars, files=args.files)
        text = "".join(p.read_text() for p in sorted(corpus.rglob("*")) if p.is_file())
        detector = default_detector()
        detector.find(text[:10_000])  # warm up (rules compiled, plugins imported)
        started = time.perf_counter()
        hits = detector.find(text)
        scan_s = time.perf_counter() - started
        with_scan = asyncio.run(_load(root, corpus, "with"))
        hook = store_module.queue_scan
        store_module.queue_scan = lambda *a, **k: (lambda conn: ([], []))
        try:
            without = asyncio.run(_load(root, corpus, "without"))
        finally:
            store_module.queue_scan = hook
    result = {"chars": len(text), "files": args.files,
              "scan_alone_s": round(scan_s, 3),
              "scan_chars_per_s": round(len(text) / scan_s),
              "hits": len(hits), "with_scan": with_scan, "without_scan": without}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{len(text):,} chars in {args.files} files")
    print(f"scan alone: {scan_s:.2f} s ({len(text) / scan_s / 1e6:.2f} M chars/s), "
          f"{len(hits)} hits")
    print(f"load without the scan hook: {without['load_s']:.2f} s")
    print(f"load with the scan queued:  {with_scan['load_s']:.2f} s "
          f"(scan done {with_scan['load_plus_scan_s']:.2f} s after the load started)")


if __name__ == "__main__":
    main()
