"""How long reading a question in the documents' own abbreviations takes (`as_written`, once
per query, before any strategy), over corpora of growing size.

The corpus is the written parts' documents repeated to the size asked (their abbreviations,
legends and labels, in many formats). The first question reads the documents (kept for the
next questions on the same documents, as a session's are); then each question is read 5 times
and the median is printed, per size.

    python benchmarks/question_reading.py [--sizes 1,10,50]   (millions of characters)
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from rlm_recursive.corpus.acronyms import as_written

_WRITTEN = Path(__file__).resolve().parent.parent / "rlm_recursive" / "bench" / "data" / "written"
_QUESTIONS = (
    "What was the original gravity of the Gold Leaf helles?",
    "How many cold cranking amps did the battery test at?",
    "What reduced level was booked for the gully at chainage 140?",
    "Which extension should I ring to reach the network operations contact?",
    "What is the KB elevation given in the well log header?",
)


def _corpus(chars: int) -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(_WRITTEN.glob("*/*"))
             if p.name != "questions.jsonl"]
    out, size = [], 0
    while size < chars:
        for text in texts:
            out.append(text)
            size += len(text)
            if size >= chars:
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,10,50")
    args = parser.parse_args()
    for millions in (int(s) for s in args.sizes.split(",")):
        texts = _corpus(millions * 1_000_000)
        started = time.perf_counter()
        as_written(_QUESTIONS[0], texts, key=millions)  # the documents read once
        first = time.perf_counter() - started
        times = []
        for question in _QUESTIONS:
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                as_written(question, texts, key=millions)
                runs.append(time.perf_counter() - started)
            times.append(statistics.median(runs))
        print(f"{millions:>3}M chars, {len(texts)} documents: first question {first:.2f} s "
              f"(reads the documents); then median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms a question")

if __name__ == "__main__":
    main()
