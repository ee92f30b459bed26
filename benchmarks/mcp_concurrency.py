"""Does a long tool call stall the others? `rlm_session_info` alone and during a BM25 build.

The MCP server runs as a real subprocess over stdio (`rlm-recursive serve`; in memory the
client would share the server's event loop and could not see a stall), driven by the
official `mcp` client. Each round loads a fresh session (its index is not built yet), starts
`rlm_search_query` (which builds the index) and, once the build has begun, calls
`rlm_session_info` on another session. Prints the median and worst latency of
`rlm_session_info` alone and during the build, and the build's own time.

    PYTHONPATH=. python benchmarks/mcp_concurrency.py [--mb 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import generate


def _data(result) -> dict:
    return json.loads(result.content[0].text)


async def _timed(client: Client, name: str, args: dict) -> float:
    start = time.perf_counter()
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    return (time.perf_counter() - start) * 1000


async def main(mb: float, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus = root / "corpus"
        generate(corpus, chars=int(mb * 1_000_000), files=40, seed=7)
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "rlm_recursive", "--data-dir", str(root / "data"), "serve"],
            cwd=str(root))  # the server reads paths under its working folder
        async with Client(server, read_timeout_seconds=600) as client:
            probe = _data(await client.call_tool("rlm_session_create", {"name": "probe"}))
            probe_args = {"session_id": probe["session_id"]}
            alone = [await _timed(client, "rlm_session_info", probe_args) for _ in range(20)]
            during, builds = [], []
            for _ in range(rounds):
                sid = _data(await client.call_tool("rlm_session_create", {}))["session_id"]
                loaded = _data(await client.call_tool("rlm_docs_load", {
                    "session_id": sid, "sources": [
                        {"type": "directory", "path": "corpus", "recursive": True}]}))
                assert loaded["loaded"] and not loaded.get("errors"), loaded
                build = asyncio.create_task(_timed(client, "rlm_search_query", {
                    "session_id": sid, "query": "special magic number"}))
                await asyncio.sleep(0.05)  # the build has started
                during.append(await _timed(client, "rlm_session_info", probe_args))
                builds.append(await build)
    print(f"corpus {mb:g} MB, {rounds} rounds")
    print(f"rlm_session_info alone:        median {statistics.median(alone):7.1f} ms, "
          f"max {max(alone):7.1f} ms")
    print(f"rlm_session_info during build: median {statistics.median(during):7.1f} ms, "
          f"max {max(during):7.1f} ms")
    print(f"rlm_search_query (index build): median {statistics.median(builds):7.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.mb, args.rounds))
