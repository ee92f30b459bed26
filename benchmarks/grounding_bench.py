#!/usr/bin/env python
"""Grounding on hand-written documents: answered and grounded, or an honest "not found".

    python benchmarks/grounding_bench.py [--provider embedded] [--strategy search] [--json]

Three documents in different styles (a hard-wrapped handover note, a `Key: value` ward
sheet, bracketed log lines) and questions phrased the way people ask, half of them about
things the documents never say. Each question runs through `run_query` with grounding on
and once more with it off, and the script prints, per part:
- answerable: the gold value in a grounded answer / grounded / exit-0 answers without it;
- unanswerable: "not found" (grounded false), and exit-0 inventions;
- how the grounded answers were grounded (checked, reasked, extractive).
`dev` questions were tuned on; `held-out` ones were written with them but their first
results were seen before a second round of tuning; `fresh` ones were written after that and
never tuned on. Each part is reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.config import SessionConfig

DOCS = {
    "handover.txt": (
        "Plant room handover, east wing\n\n"
        "The chillers were serviced on Tuesday by the contractor; filter packs on both\n"
        "units were replaced and the condensate trays cleaned.\n\n"
        "Drum screen 2 had its spray bar nozzles cleared after the pressure alarm at 06:40.\n"
        "The backup generator ran for its monthly load test without faults.\n\n"
        "Access: the plant room door uses the code pelican-3308. Keys for the roof hatch\n"
        "are with the duty engineer, not in the key safe.\n"),
    "ward.txt": (
        "Patient: Olsen\nWard: 7\nHeparin rate: 1,250 units/h\nConsultant: Dr Achebe\n\n"
        "Patient: Varga\nWard: 4\nHeparin rate: 900 units/h\nConsultant: Dr Lindqvist\n"),
    "mailer.log": "\n".join(
        f"2024-03-0{d} 10:0{d}:11 {'ERROR' if d % 3 == 0 else 'INFO'} [mailer] "
        f"{'retry budget exhausted for queue' if d % 3 == 0 else 'queue drained in'} "
        f"{d * 7} ms" for d in range(1, 10)),
}
# (question, gold value or None for "the documents do not say")
DEV = [
    ("What is the door code of the plant room?", "pelican-3308"),
    ("Which consultant looks after patient Varga?", "Lindqvist"),
    ("What heparin rate is patient Olsen on?", "1,250"),
    ("When did the pressure alarm go off?", "06:40"),
    ("What heparin rate is patient Novak on?", None),
    ("What is the door code of the boiler house?", None),
    ("Who serviced the lifts?", None),
]
HELD_OUT = [
    ("Where are the keys for the roof hatch?", "duty engineer"),
    ("Which ward is Olsen in?", "7"),
    ("On which day were the chillers serviced?", "Tuesday"),
    ("What is the heparin rate for ward 9?", None),
    ("Which consultant looks after patient Okafor?", None),
    ("What is the wifi passphrase for the east wing?", None),
]
"""Seen once: its first results were printed before the checks were tuned a second time."""
FRESH = [
    ("Which service logged the retry budget errors?", "mailer"),
    ("How long did the queue take to drain on 2024-03-01?", "7 ms"),
    ("What was replaced on the chillers?", "filter packs"),
    ("Who is Olsen's consultant?", "Achebe"),
    ("What is the door code of the roof hatch?", None),
    ("What is patient Varga's blood type?", None),
    ("When is the next generator load test due?", None),
]
"""Written after that, before the second tuning's run, and never tuned on."""


def _load(runtime: Runtime) -> str:
    sid = runtime.store.create_session("grounding-bench", SessionConfig())["session_id"]
    for name, text in DOCS.items():
        runtime.store.add_document(sid, text.encode(), length_chars=len(text), source=name,
                                   source_type="inline")
    return sid


async def _ask(runtime: Runtime, sid: str, question: str, args: argparse.Namespace,
               grounding: bool) -> dict[str, Any]:
    options = QueryOptions(provider=args.provider, model=args.model, strategy=args.strategy,
                           grounding=grounding)
    started = time.monotonic()
    result = await run_query(runtime, sid, question, options, providers=ProviderPool())
    return {"answer": result.answer, "grounded": result.grounded,
            "method": (result.grounding or {}).get("method"),
            "calls": result.usage.get("model_calls"), "s": time.monotonic() - started}


def _score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if r["gold"] is not None]
    missing = [r for r in rows if r["gold"] is None]

    def right(r: dict[str, Any]) -> bool:
        return r["gold"].lower() in r["on"]["answer"].lower()

    return {
        "answerable": len(answerable),
        "right_and_grounded": sum(right(r) and r["on"]["grounded"] for r in answerable),
        "right_without_grounding": sum(right({**r, "on": r["off"]}) for r in answerable),
        "wrong_but_exit_0": sum(bool(r["on"]["grounded"]) and not right(r)
                                for r in answerable),
        "unanswerable": len(missing),
        "not_found": sum(r["on"]["grounded"] is False for r in missing),
        "inventions_exit_0": sum(r["on"]["grounded"] is not False for r in missing),
        "inventions_without_grounding": len(missing),  # grounding off: every answer exits 0
        "methods": dict(Counter(r["on"]["method"] for r in rows)),
        "mean_s": round(sum(r["on"]["s"] for r in rows) / max(len(rows), 1), 1),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        runtime = Runtime(Path(folder) / "store")
        try:
            sid = _load(runtime)
            out: dict[str, Any] = {}
            for part, questions in (("dev", DEV), ("held-out", HELD_OUT), ("fresh", FRESH)):
                rows = []
                for question, gold in questions:
                    rows.append({"question": question, "gold": gold,
                                 "on": await _ask(runtime, sid, question, args, True),
                                 "off": await _ask(runtime, sid, question, args, False)})
                out[part] = {"score": _score(rows), "rows": rows}
            return out
        finally:
            runtime.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="embedded")
    parser.add_argument("--model", default=None)
    parser.add_argument("--strategy", default="auto")
    parser.add_argument("--json", action="store_true")
    parsed = parser.parse_args()
    report = asyncio.run(main(parsed))
    if parsed.json:
        print(json.dumps(report, indent=2))
    else:
        for part, body in report.items():
            print(f"{part}: {json.dumps(body['score'])}")
            for row in body["rows"]:
                print(f"  {row['question']!r} gold={row['gold']!r} -> "
                      f"{row['on']['answer'][:80]!r} grounded={row['on']['grounded']} "
                      f"({row['on']['method']}); off: {row['off']['answer'][:60]!r}")
