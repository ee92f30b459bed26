"""What the search index cache (`corpus/index_cache.py`) costs a process, for one session.

A session of `--files` documents totalling about `--chars` characters (the synthetic corpus
of benchmarks/_corpus.py) is loaded into a store. Then, timed:
- first search: this process builds the index (a worker on a machine that never saw it);
- warm search: the cached index, nothing changed (the per-search docs_version query);
- another process's first search on the same data dir: the index on disk is current;
- one document added: the index is extended;
- a document's content changed under the index: the whole index is rebuilt.

    PYTHONPATH=. python benchmarks/index_rebuild.py [--chars 2000000] [--files 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import generate, iter_files

from rlm_recursive.config import SessionConfig
from rlm_recursive.store import Store
from rlm_recursive.tools.search import search_session


def _timed_search(store: Store, session_id: str, query: str) -> tuple[float, bool]:
    started = time.perf_counter()
    _, _, built, _ = search_session(store, session_id, query)
    return time.perf_counter() - started, built


def _add(store: Store, session_id: str, text: str, name: str) -> str:
    return store.add_document(session_id, text.encode(), length_chars=len(text), source=name,
                              source_type="file").id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus, data = Path(tmp) / "corpus", Path(tmp) / "data"
        generate(corpus, args.chars, args.files, plants=20)
        first = Store(data)
        sid = first.create_session("bench", SessionConfig())["session_id"]
        docs = [_add(first, sid, path.read_text("utf-8"), path.name)
                for path in iter_files(corpus)]
        total = sum(d.length_chars for d in first.documents(sid))
        print(f"session: {len(docs)} documents, {total / 1e6:.1f} M characters "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        build, built = _timed_search(first, sid, "magic number")
        assert built
        print(f"  first search, index built:          {build * 1000:8.1f} ms")
        warm = sorted(_timed_search(first, sid, "magic number")[0] for _ in range(50))
        print(f"  warm search (median of 50):         {statistics.median(warm) * 1000:8.2f} ms")
        second = Store(data)
        opened, built = _timed_search(second, sid, "magic number")
        assert not built
        print(f"  another process, index current:     {opened * 1000:8.1f} ms")
        _add(first, sid, "a late document about the special magic number " * 200, "late.txt")
        extend, built = _timed_search(second, sid, "magic number")
        assert built
        print(f"  one document added, index extended: {extend * 1000:8.1f} ms")
        changed = "the content of this document changed under the index " * 200
        first.sql.execute("UPDATE documents SET content_hash = ?, length_chars = ? WHERE id = ?",
                         (first.blobs.put(changed.encode()), len(changed), docs[0]))
        first.sql.execute("UPDATE sessions SET docs_version = docs_version + 1 WHERE id = ?",
                         (sid,))
        rebuild, built = _timed_search(second, sid, "magic number")
        assert built
        print(f"  content changed, index rebuilt:     {rebuild * 1000:8.1f} ms")
        second.close()
        first.close()


if __name__ == "__main__":
    main()
