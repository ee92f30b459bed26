#!/usr/bin/env python
"""Export time: first export, unchanged re-export and an export with documents, in numbers.

    python benchmarks/export_bench.py                       # 200 artifacts, 2M chars of docs
    python benchmarks/export_bench.py --artifacts 1000 --doc-chars 10000000 --json

A session with one generated document and N artifacts is exported to a fresh git repository
in a temp dir through the registry (the same path as the tool and the CLI). The secret scan
is also timed alone over the document, as characters per second.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path

from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.export.secrets import find_secrets

WORDS = "valve pump opened closed the at log room pressure sensor alarm reset".split()


def _text(chars: int, rng: random.Random) -> str:
    lines, size = [], 0
    while size < chars:
        line = " ".join(rng.choice(WORDS) for _ in range(12))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


async def _run(args: argparse.Namespace, root: Path) -> dict[str, float]:
    repo = root / "repo"
    repo.mkdir()
    for cmd in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=b", "-c",
                        "user.email=b@example.invalid", *cmd], check=True)
    rng = random.Random(7)
    text = _text(args.doc_chars, rng)
    rt = Runtime(root / "data", "unrestricted")
    try:
        sid = (await rt.call("rlm_session_create", {"max_tool_calls": 100_000})).output[
            "session_id"]
        await rt.call("rlm_docs_load", {"session_id": sid, "sources": [
            {"type": "inline", "content": text, "name": "log"}]})
        for i in range(args.artifacts):
            await rt.call("rlm_artifact_store", {"session_id": sid, "type": "summary",
                                                 "content": {"i": i, "text": _text(300, rng)}})
        timings = {}
        for label, extra in (("first_export_s", {}), ("unchanged_reexport_s", {}),
                             ("with_docs_s", {"include_docs": True})):
            started = time.perf_counter()
            result = await rt.call("rlm_export_github",
                                   {"session_id": sid, "repo": str(repo), **extra})
            timings[label] = round(time.perf_counter() - started, 3)
            assert not result.is_error, result.output
        started = time.perf_counter()
        find_secrets(text)
        elapsed = time.perf_counter() - started
        timings["scan_chars_per_s"] = round(len(text) / elapsed)
        return timings
    finally:
        rt.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", type=int, default=200)
    parser.add_argument("--doc-chars", type=int, default=2_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        timings = asyncio.run(_run(args, Path(tmp)))
    if args.json:
        print(json.dumps({"artifacts": args.artifacts, "doc_chars": args.doc_chars, **timings}))
        return
    print(f"session: {args.artifacts} artifacts, {args.doc_chars:,} chars of documents")
    for key, value in timings.items():
        print(f"  {key:22} {value:,}")


if __name__ == "__main__":
    main()
