#!/usr/bin/env python
"""Queued loads: enqueue → READY for a 100-file folder, with 1 and 2 workers.

    python benchmarks/ingest_bench.py                     # starts a throw-away PostgreSQL
    python benchmarks/ingest_bench.py --database-url postgresql://…  [--files 100]
        [--loads 4] [--samples 3] [--workers 1,2] [--json]

The folder: `--files` files written by real writers, 80 % text, 10 % PDF (fpdf2, 2 pages),
10 % DOCX (python-docx), a few KB each. Every process has a data dir of its own and shares
the database and a blob folder (`RLM_BLOB_URL=file://…`), as on several machines.

- In process (the reference): `load_sources` of the folder in this process, as `load` and
  an api without workers do, plus the index build; twice (the first pays the parsers'
  imports and the process pool's start, as a fresh `load` does).
- Per worker count W (`rlm-recursive worker --concurrency 1`, W processes, started and
  registered first):
  - one load at a time (`--samples` times): enqueue (the session row, the load row and the
    job in one transaction) → READY as the session row shows it (polled every 10 ms);
  - `--loads` loads of the same folder enqueued at once → the last one READY: loads/s and
    files/s. A single load runs on one worker; more workers help when loads queue up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from doc_writers import write_docx, write_pdf
from pg_server import server_url
from queue_support import stop_processes

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.loaders import Source, load_sources
from rlm_recursive.queue.loads import LoadQueue
from rlm_recursive.store.tenancy import TenantStore
from rlm_recursive.tools.search import search_session


def write_folder(folder: Path, files: int) -> None:
    folder.mkdir(parents=True)
    for n in range(files):
        body = (f"Station {n} log.\nPump {n % 7} pressure {n * 13 % 97} bar; valve "
                f"{n % 5} checked by crew {n % 3}.\n") * 30
        if n % 10 == 0:
            write_pdf(folder / f"manual-{n:03d}.pdf", [body[:1500], body[1500:3000]])
        elif n % 10 == 5:
            write_docx(folder / f"handover-{n:03d}.docx",
                       [("h1", f"Handover {n}"), ("p", body[:2000])])
        else:
            (folder / f"log-{n:03d}.txt").write_text(body, "utf-8")


def _workers(count: int, root: Path, env: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(count):
        with (root / f"worker{i}.log").open("ab") as out:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rlm_recursive", "--data-dir", str(root / f"w{i}"),
                 "worker", "--concurrency", "1"], env=env, stdout=out, stderr=out,
                stdin=subprocess.DEVNULL))
    return procs


class Bench:
    def __init__(self, runtime: Runtime, url: str, folder: Path) -> None:
        self.runtime, self.folder = runtime, folder
        self.store = runtime.store
        self.queue = LoadQueue(url, self.store)
        self.tenants = TenantStore(self.store)

    def enqueue(self) -> str:
        sid = self.store.create_session("bench", SessionConfig())["session_id"]
        self.tenants.set_readiness(sid, "CREATING")
        self.queue.enqueue(sid, [Source(type="directory", path=str(self.folder),
                                        recursive=True)], origin="cli", ocr=False)
        return sid

    def creating(self, ids: list[str]) -> int:
        marks = ", ".join("?" * len(ids))
        return self.store.sql.one(f"SELECT count(*) FROM sessions WHERE id IN ({marks}) AND "
                                  "readiness = 'CREATING'", tuple(ids))[0]

    def documents(self, sid: str) -> int:
        return self.store.sql.one("SELECT count(*) FROM documents WHERE session_id = ?",
                                  (sid,))[0]

    def registered(self) -> int:
        return self.store.sql.one("SELECT count(*) FROM procrastinate_workers")[0]

    def in_process(self) -> tuple[float, float]:
        """Seconds to load the folder here, then to build its index (what the api's
        in-process load did before READY; a worker builds it after, for itself only)."""
        sid = self.store.create_session("bench-local", SessionConfig())["session_id"]
        start = time.monotonic()
        report = load_sources(self.store, sid, [Source(type="directory", path=str(self.folder),
                                                       recursive=True)],
                              self.runtime.policy, SessionConfig(), ocr=False)
        loaded = time.monotonic()
        search_session(self.store, sid, "index", limit=1)
        assert not report.errors, report.errors
        return round(loaded - start, 2), round(time.monotonic() - loaded, 2)

    def one_at_a_time(self, samples: int) -> list[float]:
        took = []
        for _ in range(samples):
            start = time.monotonic()
            sid = self.enqueue()
            while self.creating([sid]):
                time.sleep(0.01)
            took.append(time.monotonic() - start)
            time.sleep(0.5)  # the worker builds its index cache after READY: let it idle
        return took

    def at_once(self, loads: int) -> float:
        start = time.monotonic()
        ids = [self.enqueue() for _ in range(loads)]
        while self.creating(ids):
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        assert all(self.store.session(s)["readiness"] == "READY" for s in ids)
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--loads", type=int, default=4)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with server_url(args.database_url) as url, \
            tempfile.TemporaryDirectory(prefix="rlm-ingest-bench-") as tmp:
        root = Path(tmp)
        blobs = (root / "shared-blobs").as_uri()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RLM_")}
        env.update(RLM_DATABASE_URL=url, RLM_BLOB_URL=blobs)
        os.environ.update(RLM_DATABASE_URL=url, RLM_BLOB_URL=blobs)
        folder = root / "corpus"
        write_folder(folder, args.files)
        runtime = Runtime(root / "api")
        bench = Bench(runtime, url, folder)
        runs = [bench.in_process() for _ in range(2)]
        report: dict[str, Any] = {
            "files": args.files, "in_process_load_s": [r[0] for r in runs],
            "in_process_index_s": [r[1] for r in runs], "workers": []}
        if not args.json:
            print(f"in process: {args.files} files loaded in {runs[0][0]} s (cold), "
                  f"{runs[1][0]} s; index built in {runs[0][1]} s, {runs[1][1]} s",
                  flush=True)
        for count in (int(w) for w in args.workers.split(",")):
            procs = _workers(count, root, env)
            try:
                deadline = time.monotonic() + 120
                while bench.registered() < count:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"workers did not start: see {root}")
                    time.sleep(0.1)
                time.sleep(1.0)  # past start-up: idle and listening
                single = bench.one_at_a_time(args.samples)
                batch = bench.at_once(args.loads)
            finally:
                stop_processes(procs, 60)
            row = {"workers": count, "single_s": [round(s, 2) for s in single],
                   "single_median_s": round(statistics.median(single), 2),
                   "loads": args.loads, "batch_s": round(batch, 2),
                   "loads_per_s": round(args.loads / batch, 3),
                   "files_per_s": round(args.loads * args.files / batch, 1)}
            report["workers"].append(row)
            if not args.json:
                print(f"{count} worker(s): one load enqueue→READY median "
                      f"{row['single_median_s']} s {row['single_s']}; {args.loads} loads "
                      f"at once {row['batch_s']} s ({row['loads_per_s']} loads/s, "
                      f"{row['files_per_s']} files/s)", flush=True)
        runtime.close()
        if args.json:
            print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
