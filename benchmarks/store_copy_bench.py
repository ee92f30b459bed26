#!/usr/bin/env python
"""`store copy` throughput: a SQLite data dir with ~50 MB of documents moved into PostgreSQL
and a shared blob folder.

    python benchmarks/store_copy_bench.py                  # starts a throw-away PostgreSQL
    python benchmarks/store_copy_bench.py --mb 50 --database-url postgresql://…  [--json]

The data dir is made the way a user makes one: the synthetic corpus (benchmarks/_corpus.py,
100 files) loaded by `rlm-recursive load`, then every document cut into 1,000-character
spans through the chunk tool (`--chunk-size`; 1,000: ~50,000 span rows). Then
`copy_store` runs once, as `rlm-recursive store copy` does, and the script prints rows/s
for the tables (COPY in one transaction, with the count check) and MB/s for the blobs
(each put into the file store and read back against its sha256). The PostgreSQL server is
on loopback (fsync off when this script starts it): the figures are the engine's, the
driver's and our code's, not a network's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _corpus import generate
from pg_server import server_url


def _make_source(root: Path, mb: float, chunk_size: int) -> tuple[Path, dict[str, Any]]:
    from rlm_recursive.agent.runtime import Runtime

    corpus, data_dir = root / "corpus", root / "data"
    generate(corpus, chars=int(mb * 1_000_000), files=100)
    env = {k: v for k, v in os.environ.items() if k not in ("RLM_DATABASE_URL", "RLM_BLOB_URL")}
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "rlm_recursive", "--data-dir", str(data_dir),
                          "load", str(corpus), "--json"], env=env, check=True,
                         capture_output=True, text=True)
    loaded = json.loads(out.stdout)
    load_s = time.perf_counter() - started

    async def chunk_all() -> None:
        runtime = Runtime(data_dir, "unrestricted")
        try:
            for doc in loaded["loaded"]:
                result = await runtime.call("rlm_chunk_create", {
                    "session_id": loaded["session_id"], "doc_id": doc["doc_id"],
                    "strategy": "fixed", "chunk_size": chunk_size, "max_chunks": 1})
                assert not result.is_error, result.output
        finally:
            runtime.close()

    started = time.perf_counter()
    asyncio.run(chunk_all())
    return data_dir, {"documents": len(loaded["loaded"]), "load_s": round(load_s, 1),
                      "chunk_s": round(time.perf_counter() - started, 1)}


def measure(mb: float, url: str, chunk_size: int = 1000) -> dict[str, Any]:
    from rlm_recursive.store.storecopy import copy_store

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data_dir, made = _make_source(root, mb, chunk_size)
        os.environ["RLM_BLOB_URL"] = (root / "shared-blobs").as_uri()
        os.environ["RLM_API_KEY_SALT_FILE"] = str(data_dir / "api_key_salt")
        started = time.perf_counter()
        report = copy_store(data_dir, url)
        wall = time.perf_counter() - started
        mib = report.blob_bytes / 1_000_000
        return {
            **made, "rlm_db_mb": round((data_dir / "rlm.db").stat().st_size / 1e6, 1),
            "rows": report.rows, "spans": report.tables.get("spans", 0),
            "blobs": report.blobs, "blob_mb": round(mib, 1),
            "table_s": round(report.table_seconds, 2),
            "rows_per_s": round(report.rows / report.table_seconds),
            "rlm_db_mb_per_s": round(
                (data_dir / "rlm.db").stat().st_size / 1e6 / report.table_seconds, 1),
            "blob_s": round(report.blob_seconds, 2),
            "blob_mb_per_s": round(mib / report.blob_seconds, 1),
            "wall_s": round(wall, 2),
            "overall_mb_per_s": round(mib / wall, 1),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--mb", type=float, default=50.0, help="corpus size in MB (chars)")
    parser.add_argument("--chunk-size", type=int, default=1000,
                        help="characters per span (smaller: more rows)")
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: "
                        "a throw-away server)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with server_url(args.database_url) as url:
        result = measure(args.mb, url, args.chunk_size)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"source: {result['documents']} documents, {result['blob_mb']} MB of blobs, "
          f"rlm.db {result['rlm_db_mb']} MB (load {result['load_s']} s, "
          f"chunking {result['chunk_s']} s)")
    print(f"tables: {result['rows']:,} rows ({result['spans']:,} spans) in "
          f"{result['table_s']} s = {result['rows_per_s']:,} rows/s "
          f"({result['rlm_db_mb_per_s']} MB/s of rlm.db)")
    print(f"blobs: {result['blobs']} ({result['blob_mb']} MB) in {result['blob_s']} s = "
          f"{result['blob_mb_per_s']} MB/s")
    print(f"whole copy (checks, blobs, rows, verification): {result['wall_s']} s = "
          f"{result['overall_mb_per_s']} MB/s of documents")


if __name__ == "__main__":
    main()
