#!/usr/bin/env python
"""The secret corpus at scale: formats × random draws tried and leaked, dev and held-out apart.

    python benchmarks/secret_corpus.py                 # 500 draws of every format
    python benchmarks/secret_corpus.py --draws 2000 --seed 3 --json

Each draw of each format (tests/secret_formats.py) is redacted as plain text and as a value in
a JSON trace line; a draw leaks if any 8-character run of its secret survives either. Prints
per-format counts for the formats that leaked and the totals per set.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from secret_formats import DEV, HELD_OUT, pieces

from rlm_recursive.export.secrets import redact_file, redact_text


def run(formats, draws: int, rng: random.Random) -> dict:
    leaked: Counter[str] = Counter()
    for _ in range(draws):
        for name, make in formats:
            text, secret = make(rng)
            plain, _ = redact_text(f"notes before\n{text}\nnotes after")
            line = json.dumps({"op": "rlm_artifact_store", "input": {"note": text}},
                              ensure_ascii=False)
            in_json, _ = redact_file("traces/trace.jsonl", line)
            if any(p in plain or p in in_json for p in pieces(secret)):
                leaked[name] += 1
    return {"formats": len(formats), "draws_per_format": draws,
            "tried": len(formats) * draws, "leaked": sum(leaked.values()),
            "leaked_by_format": dict(leaked)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    result = {"dev": run(DEV, args.draws, rng), "held_out": run(HELD_OUT, args.draws, rng)}
    result["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for part in ("dev", "held_out"):
        r = result[part]
        print(f"{part:9} {r['formats']} formats x {r['draws_per_format']} draws = "
              f"{r['tried']} tried, {r['leaked']} leaked {r['leaked_by_format'] or ''}")
    print(f"{result['seconds']} s")


if __name__ == "__main__":
    main()
