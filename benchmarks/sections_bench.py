"""Reading a document's headings (`corpus.sections.headings`), which every search window and
record look-up over a document needs: seconds for a document of many sections, a plain
line log and a Markdown file.

    python benchmarks/sections_bench.py [--sections 20000]

Prints one JSON object. A 3.8 MB file of 20,000 sections took 80 s before the headings of a
document were read in one pass (session 24); a heading's block is now found by bisection.
"""

from __future__ import annotations

import argparse
import json
import time

from rlm_recursive.corpus.sections import headings


def _timed(text: str) -> dict[str, float | int]:
    headings.cache_clear()
    start = time.perf_counter()
    found = headings(text)
    return {"chars": len(text), "headings": len(found),
            "seconds": round(time.perf_counter() - start, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=20_000)
    n = parser.parse_args().sections
    sections = "\n\n".join(f"Section {i}\n" + "A line of prose about the item here.\n" * 5
                           for i in range(n))
    log = "\n".join(f"2026-01-{i % 28 + 1:02d} 10:00:{i % 60:02d} ERROR [svc{i % 7}] request {i} "
                    f"failed code={i % 13}" for i in range(n * 3))
    markdown = "\n\n".join(f"## Item {i}\n\nSome text about item {i}, in a paragraph.\n"
                           for i in range(n))
    print(json.dumps({"sections": _timed(sections), "log": _timed(log),
                      "markdown": _timed(markdown)}, indent=2))


if __name__ == "__main__":
    main()
